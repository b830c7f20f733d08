"""The sharing solver's fixed point (sharing.py's `solve`) as a numba kernel over arrays of the active flows.

Every step of a run solves it, up to 8 rounds of CPU and device water-filling; with many flows (Spooky's 15
compaction threads, EcoTune's and ArceKV's query threads) the plain-Python rounds were the largest cost of a
run (38% of spooky-fig15b's). The arithmetic is sharing.py's, in the same order, so the rates are bit-identical
to the plain-Python transcription the tests keep (tests/sharing_reference.py).
"""

from __future__ import annotations

import math

import numpy as np

from .._numba import njit
from ..tolerances import REL_EPS, SHARE_EPS


@njit(cache=True)
def _water_fill(demands, weights, capacity, idx, out):
    """sharing.water_fill over the claimant groups `idx` (indices into demands and weights): max-min fair split of
    `capacity`, each group's amount per claimant written to out[idx[k]]. Groups are served in the stable order of
    their demands, as Python's sorted does."""
    n = idx.shape[0]
    d = np.empty(n)
    for k in range(n):
        d[k] = demands[idx[k]]
        out[idx[k]] = 0.0
    order = np.argsort(d, kind="mergesort")
    left = capacity
    claimants = 0
    for k in range(n):
        claimants += weights[idx[k]]
    for o in range(n):
        if claimants <= 0:
            break
        i = idx[order[o]]
        give = min(demands[i], left / claimants)
        out[i] = give
        left -= give * weights[i]
        claimants -= weights[i]


@njit(cache=True)
def _members(keys, value):
    """Indices of the flows whose key is `value`, in flow order."""
    return np.array([i for i in range(keys.shape[0]) if keys[i] == value], dtype=np.int64)


@njit(cache=True)
def _bounds(threads, cpu, sync, cap, share, bound):
    """Each flow's CPU-bound rate with its share (Flow.thread_rate x threads), within its cap."""
    for i in range(threads.shape[0]):
        t_free = cpu[i] + sync[i]
        if t_free <= 0:
            tr = math.inf
        else:
            tr = 1.0 / t_free
            if cpu[i] > 0:
                tr = min(tr, share[i] / cpu[i])
        bound[i] = min(cap[i], threads[i] * tr)


@njit(cache=True)
def _device(dev, bound, class_idx, rate, need, alloc, ones):
    """Device time to the classes in priority order, max-min fair within each; returns the utilisation."""
    left = 1.0
    for members in class_idx:
        for i in members:
            need[i] = bound[i] * dev[i] if dev[i] > 0 else 0.0
        _water_fill(need, ones, left, members, alloc)
        for i in members:
            rate[i] = min(bound[i], alloc[i] / dev[i]) if dev[i] > 0 else bound[i]
            left -= rate[i] * dev[i]
        left = max(0.0, left)
    return 1.0 - left


@njit(cache=True)
def _demands(threads, cpu, cap, duty, rate, bound, demand, new, held):
    """The next round's CPU demands: a thread held back by the device or its cap needs only what it uses, the rest
    is freed. Returns whether they equal this round's (the fixed point)."""
    done = True
    for i in range(threads.shape[0]):
        if cpu[i] <= 0:
            new[i] = 0.0
        else:
            used = rate[i] * cpu[i] / threads[i]
            h = rate[i] < bound[i] * (1 - REL_EPS) or (cap[i] < math.inf and rate[i] >= cap[i] * (1 - REL_EPS))
            held[i] = h
            new[i] = min(1.0, duty[i], used) if h else min(1.0, duty[i])
        if not abs(new[i] - demand[i]) <= SHARE_EPS:
            done = False
    return done


@njit(cache=True)
def solve_nb(threads, cpu, dev, sync, cap, io_class, reserved, cores, switch_overhead, iterations, reserved_cores):
    """The fixed point of sharing.solve for the active flows (arrays, one entry per flow). Returns (rate, cpu_share,
    held, held_set, util, converged, rounds); held_set marks the flows whose `held` the solve sets (those with CPU
    work), as the Python loop leaves the others' unchanged."""
    n = threads.shape[0]
    rate, share, bound, new = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    need, alloc = np.zeros(n), np.zeros(n)
    held = np.zeros(n, dtype=np.bool_)
    duty = np.zeros(n)
    for i in range(n):
        duty[i] = cpu[i] / (cpu[i] + sync[i]) if cpu[i] > 0 else 0.0
    demand = np.minimum(1.0, duty)
    # pools: the reserved cores first, then the rest (sharing.solve's order)
    if reserved_cores > 0:
        pools = [(_members(reserved, True), reserved_cores), (_members(reserved, False), cores - reserved_cores)]
    else:
        pools = [(_members(reserved, False), cores)]
    effective = []
    for members, c in pools:
        runnable = 0
        for i in members:
            if cpu[i] > 0:
                runnable += threads[i]
        effective.append(c * (1.0 - switch_overhead) if runnable > c else c)
    class_idx = [_members(io_class, c) for c in np.unique(io_class)]
    ones = np.ones(n, dtype=np.int64)
    util, converged, rounds = 0.0, False, 0
    for r in range(1, iterations + 1):
        rounds = r
        for p in range(len(pools)):
            if pools[p][0].shape[0] > 0:
                _water_fill(demand, threads, effective[p], pools[p][0], share)
        _bounds(threads, cpu, sync, cap, share, bound)
        util = _device(dev, bound, class_idx, rate, need, alloc, ones)
        if _demands(threads, cpu, cap, duty, rate, bound, demand, new, held):
            converged = True
            break
        demand[:] = new
    return rate, share, held, cpu > 0, util, converged, rounds
