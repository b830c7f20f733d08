"""Resource sharing between flows: processor sharing of CPU cores and prioritised max-min fair
sharing of device time. Separate from the kernel and the models, as in SimGrid's lmm solver.

A flow is a background job (one thread) or a group of foreground threads. Per unit of progress it
needs `cpu` CPU-seconds and `dev` device-seconds; foreground threads also wait `sync` seconds of
synchronous I/O per unit, during which they use no CPU. `cap` bounds the rate from outside (a
target write rate, a write stall, an arrival rate).

The solution is a fixed point of two allocations, iterated until it settles:
- CPU: runnable threads share `cores` (less a context-switch overhead once threads outnumber
  cores) by water-filling: a thread gets min(1 core, its demand, the fair level);
- device: classes in priority order take device time; within a class, water-filling gives each
  flow min(its demand, an equal share of what is left).
A flow's rate is the least of its CPU-bound rate, its device allocation and its cap.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(eq=False)
class Flow:
    name: str
    io_class: int
    threads: int
    cpu: float          # CPU seconds per unit of progress (for the whole flow)
    dev: float          # device seconds per unit
    sync: float = 0.0   # synchronous I/O wait per unit, per thread (closed-loop foreground)
    cap: float = math.inf
    rate: float = 0.0
    cpu_share: float = 0.0  # cores per thread allotted


def _water_fill(demands: list[float], capacity: float, limit: float = math.inf) -> list[float]:
    """Max-min fair split of `capacity` among demands (each also capped at `limit`)."""
    n = len(demands)
    alloc = [0.0] * n
    order = sorted(range(n), key=lambda i: demands[i])
    left = capacity
    for k, i in enumerate(order):
        fair = left / (n - k)
        give = min(demands[i], fair, limit)
        alloc[i] = give
        left -= give
    return alloc


def solve(flows: list[Flow], cores: float, switch_overhead: float, iterations: int = 6) -> float:
    """Set each flow's `rate`; return the device utilisation (0..1)."""
    active = [f for f in flows if f.cap > 0 and (f.cpu > 0 or f.dev > 0 or f.sync > 0)]
    for f in flows:
        f.rate = 0.0
    if not active:
        return 0.0
    nthreads = sum(f.threads for f in active)
    eff = cores * (1.0 - switch_overhead) if nthreads > cores else cores
    share = min(1.0, eff / nthreads)
    for f in active:
        f.cpu_share = share
    classes = sorted({f.io_class for f in active})
    util = 0.0
    for _ in range(iterations):
        # CPU-bound rate per flow given its threads' shares
        bound = {}
        for f in active:
            per_thread = f.cpu / f.threads
            t_unit = (per_thread / f.cpu_share if per_thread > 0 else 0.0) + f.sync
            r = f.threads / t_unit if t_unit > 0 else math.inf
            bound[f] = min(r, f.cap)
        # device time by priority class, max-min fair within a class
        left = 1.0
        for c in classes:
            members = [f for f in active if f.io_class == c]
            need = [bound[f] * f.dev if f.dev > 0 else 0.0 for f in members]
            alloc = _water_fill(need, left)
            for f, a in zip(members, alloc):
                f.rate = min(bound[f], a / f.dev) if f.dev > 0 else bound[f]
                left -= f.rate * f.dev
            left = max(0.0, left)
        util = 1.0 - left
        # CPU demand per thread: what it used if something other than CPU limited it, else more
        demands, owners = [], []
        for f in active:
            used = f.rate * f.cpu / f.threads
            cpu_limited = f.rate >= bound[f] * (1 - 1e-9) and bound[f] < f.cap
            d = 1.0 if cpu_limited else used
            for _ in range(f.threads):
                demands.append(d)
                owners.append(f)
        alloc = _water_fill(demands, eff, 1.0)
        new = {}
        for f, a in zip(owners, alloc):
            new[f] = a  # identical for a flow's threads
        changed = False
        for f in active:
            s = max(new[f], 1e-12) if f.cpu > 0 else f.cpu_share
            if f.cpu > 0 and f.rate > 0:
                s = max(s, f.rate * f.cpu / f.threads)
            if abs(s - f.cpu_share) > 1e-9 * max(1.0, s):
                changed = True
            f.cpu_share = min(1.0, s)
        if not changed:
            break
    return util
