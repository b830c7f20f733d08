"""The parallel units (dies) of `drive_sim`: the read chunks queued on them, their programs, program suspension
(numba). A unit serves one job at a time: a read chunk (flash read, maybe a retry, the transfer) or a program."""

from __future__ import annotations

from .._numba import njit
from .des import append, lognormal, push, uniform

# event kind of a unit finishing its job (drive_sim numbers its other events below it)
UNIT_EVENT = 1
# unit modes
IDLE, READ, PROG, READ_SUSPENDED = range(4)


@njit(cache=True)
def start_program(u, nbytes, now, prog_time, u_mode, u_ver, u_prog_end, u_prog_bytes, ht, hk, ha, hb, n):
    """Idle unit u programs `nbytes` from the buffer for `prog_time`."""
    u_prog_bytes[u] = nbytes
    u_mode[u] = PROG
    u_ver[u] += 1
    u_prog_end[u] = now + prog_time
    return push(ht, hk, ha, hb, n, u_prog_end[u], UNIT_EVENT, u, u_ver[u])


@njit(cache=True)
def unit_next(u, now, u_head, u_tail, u_mode, u_chunk, u_ver, c_next, c_svc, ht, hk, ha, hb, n, delay):
    """Unit u (idle) starts the first read chunk of its FIFO after `delay` (a program's suspension)."""
    c = u_head[u]
    u_head[u] = c_next[c]
    if u_head[u] < 0:
        u_tail[u] = -1
    u_mode[u] = READ
    u_chunk[u] = c
    u_ver[u] += 1
    return push(ht, hk, ha, hb, n, now + delay + c_svc[c], UNIT_EVENT, u, u_ver[u])


@njit(cache=True)
def read_chunks(owner, key, m, now, rd, u_q, chunks, n_free, heap, n):
    """Queue a read of m chunks for `owner` on consecutive units from a random one (draws keyed by `key`); returns
    (the heap's size, free chunks left). `rd`: flash time, sigma, stream B/s, retry probability, retry time,
    suspension latency (< 0: a program is not suspended), chunk bytes, units, seed, fast read share and time;
    `u_q`: the units' head, tail, mode, chunk, version, program time left and program end; `chunks`: the chunk pool's
    owner, service time, next link and free stack; `heap`: the event heap's arrays (des.push)."""
    u_head, u_tail, u_mode, u_chunk, u_ver, u_prog_left, u_prog_end = u_q
    c_req, c_svc, c_next, free = chunks
    ht, hk, ha, hb = heap
    flash, sigma, stream, slow_p, slow_t, suspend_lat, chunk_bytes, units, seed, fast_p, fast_t = rd
    u0 = int(uniform(seed, key + 1) * units)
    for k in range(m):
        u = (u0 + k) % units
        n_free -= 1
        c = free[n_free]
        c_req[c] = owner
        # the chunk's flash time, drawn now: one flash read, maybe a retry, the transfer
        ck = key + 8 + 4 * k
        fast = fast_p > 0.0 and uniform(seed, ck + 3) < fast_p  # data in the SLC region (no draw without any)
        t = lognormal(fast_t if fast else flash, sigma, seed, ck) + chunk_bytes / stream
        if uniform(seed, ck + 2) < slow_p:  # a read retry (ECC failure)
            t += slow_t
        c_svc[c] = t
        append(u, c, u_head, u_tail, c_next)  # the unit's FIFO of chunks
        if u_mode[u] == IDLE:
            n = unit_next(u, now, u_head, u_tail, u_mode, u_chunk, u_ver, c_next, c_svc, ht, hk, ha, hb, n, 0.0)
        elif u_mode[u] == PROG and suspend_lat >= 0.0:
            u_prog_left[u] = max(0.0, u_prog_end[u] - now)
            u_ver[u] += 1  # the program's end event is void
            n = unit_next(u, now, u_head, u_tail, u_mode, u_chunk, u_ver, c_next, c_svc, ht, hk, ha, hb, n, suspend_lat)
            u_mode[u] = READ_SUSPENDED
    return n, n_free
