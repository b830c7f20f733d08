"""The event heap, keyed random draws and linked-list queues of `drive_sim` (numba).

The heap holds (time, kind, a, b) events in four parallel arrays, a binary min-heap on time. Draws
are keyed: `uniform(seed, key)` is a function of its arguments alone, so a request draws the same
numbers whatever order events happen in (common random numbers across parameter values).
"""

from __future__ import annotations

import numpy as np

from .._numba import njit


@njit(cache=True, inline="always")
def _swap(ht, hk, ha, hb, i, j):
    """Swap heap entries i and j in the four parallel arrays (time, key, two payloads)."""
    ht[i], ht[j] = ht[j], ht[i]
    hk[i], hk[j] = hk[j], hk[i]
    ha[i], ha[j] = ha[j], ha[i]
    hb[i], hb[j] = hb[j], hb[i]


@njit(cache=True)
def push(ht, hk, ha, hb, n, t, k, a, b):
    i = n
    ht[i], hk[i], ha[i], hb[i] = t, k, a, b
    while i > 0:
        p = (i - 1) >> 1
        if ht[p] <= ht[i]:
            break
        _swap(ht, hk, ha, hb, p, i)
        i = p
    return n + 1


@njit(cache=True, inline="always")
def _sift_down(ht, hk, ha, hb, i, n):
    """Move entry i down the heap of n entries to where its time belongs."""
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and ht[c + 1] < ht[c]:
            c += 1
        if ht[i] <= ht[c]:
            break
        _swap(ht, hk, ha, hb, c, i)
        i = c


@njit(cache=True)
def pop(ht, hk, ha, hb, n):
    t, k, a, b = ht[0], hk[0], ha[0], hb[0]
    n -= 1
    ht[0], hk[0], ha[0], hb[0] = ht[n], hk[n], ha[n], hb[n]
    _sift_down(ht, hk, ha, hb, 0, n)
    return t, k, a, b, n


@njit(cache=True)
def compact(ht, hk, ha, hb, n, kind, ver):
    """Drop the void events of `kind` (b is not ver[a]: deleted lazily, left to fire and be ignored) and rebuild
    the heap of what is left; returns its size. Program suspension voids a program's end each time, so without
    this the void ends of a long program under a stream of reads pile up past any fixed capacity."""
    m = 0
    for i in range(n):
        if hk[i] == kind and hb[i] != ver[ha[i]]:
            continue
        ht[m], hk[m], ha[m], hb[m] = ht[i], hk[i], ha[i], hb[i]
        m += 1
    for i in range(m // 2 - 1, -1, -1):
        _sift_down(ht, hk, ha, hb, i, m)
    return m


@njit(cache=True)
def uniform(seed, key):
    """A uniform in [0, 1) for (seed, key): splitmix64 (Steele, Lea & Flood, "Fast splittable
    pseudorandom number generators", OOPSLA'14). Draws keyed by request number, not by event
    order, are common random numbers: a small change of a parameter reorders events but hands
    every request the same draws, so fitted figures move smoothly with the parameters."""
    x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(key)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return float(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def lognormal(mean, sigma, seed, key):
    """Lognormal with this mean and shape (Box-Muller on two keyed uniforms)."""
    if sigma <= 0.0:
        return mean
    u1 = max(uniform(seed, key), 1e-300)
    z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * uniform(seed, key + 1))
    return mean * np.exp(sigma * z - 0.5 * sigma * sigma)


# FCFS servers and FIFOs: queues as linked lists through r_next (q_head, q_tail per queue), busy flags per server
@njit(cache=True)
def take_random(q, window, u, q_head, q_tail, r_next):
    """Unlink and return one of the `window` first requests of FIFO q, the (u x their number)-th (u in [0, 1))."""
    count = 0
    j = q_head[q]
    while j >= 0 and count < window:
        count += 1
        j = r_next[j]
    k = int(u * count)
    prev = -1
    i = q_head[q]
    for _ in range(k):
        prev = i
        i = r_next[i]
    if prev < 0:
        q_head[q] = r_next[i]
    else:
        r_next[prev] = r_next[i]
    if q_tail[q] == i:
        q_tail[q] = prev
    return i


@njit(cache=True)
def take_head(q, q_head, q_tail, r_next):
    """Unlink and return the first request of FIFO q (-1: it is empty)."""
    i = q_head[q]
    if i < 0:
        return -1
    q_head[q] = r_next[i]
    if q_head[q] < 0:
        q_tail[q] = -1
    r_next[i] = -1
    return i


@njit(cache=True)
def enqueue(q, i, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, service, kind):
    """Request i joins FCFS server q; starts at once if the server is free."""
    if busy[q] == 0:
        busy[q] = 1
        return push(ht, hk, ha, hb, n, now + service, kind, i, 0)
    append(q, i, q_head, q_tail, r_next)
    return n


@njit(cache=True)
def append(q, i, q_head, q_tail, r_next):
    """Request i joins the tail of FIFO q (a linked list through r_next)."""
    r_next[i] = -1
    if q_tail[q] < 0:
        q_head[q] = i
    else:
        r_next[q_tail[q]] = i
    q_tail[q] = i


@njit(cache=True)
def serve_next(q, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, service, kind):
    """Server q is free: start its next queued request, if any."""
    busy[q] = 0
    i = q_head[q]
    if i < 0:
        return n
    q_head[q] = r_next[i]
    if q_head[q] < 0:
        q_tail[q] = -1
    r_next[i] = -1
    busy[q] = 1
    return push(ht, hk, ha, hb, n, now + service, kind, i, 0)
