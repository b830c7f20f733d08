"""Resource sharing between flows: processor sharing of CPU cores and prioritised max-min fair
sharing of device time. Separate from the kernel and the models, as in SimGrid's lmm solver.

A flow is a background job (one thread) or a group of identical foreground threads. One unit of
its progress (a job's whole work, or one operation) costs `cpu` CPU-seconds on one thread and
`dev` device-seconds; a foreground thread also waits `sync` seconds of synchronous I/O per unit,
during which it needs no CPU. `cap` bounds the flow's rate from outside (a target write rate, a
write stall, an arrival rate).

Each thread of a flow with a CPU share s (cores) progresses at min(1 / (cpu + sync), s / cpu)
units per second: with a whole core it alternates computing and waiting; with less it is CPU
bound. The solution is a fixed point of two allocations:
- CPU: threads share `cores` (less a context-switch overhead once runnable threads outnumber
  cores) by water-filling on their demands: a thread needs cpu / (cpu + sync) of a core at most
  (its duty cycle), less when the device or a cap holds its flow back, so CPU a thread cannot use
  goes to the others (work-conserving processor sharing);
- device: classes in priority order take device time; within a class, water-filling gives each
  flow min(its demand, an equal share of what is left).
A flow's rate is the least of its CPU-bound rate, its device allocation and its cap.
With reserved cores, flows marked `reserved` share those cores and all others the rest (pinned
threads: CPU one pool leaves idle is not lent to the other); the device stays one resource.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


@dataclass(eq=False)
class Flow:
    name: str
    io_class: int
    threads: int
    cpu: float  # CPU seconds per unit of progress (on one thread)
    dev: float  # device seconds per unit
    sync: float = 0.0  # synchronous I/O wait per unit (closed-loop foreground threads)
    cap: float = math.inf
    rate: float = 0.0
    cpu_share: float = 0.0  # cores per thread allotted
    held: bool = False  # limited by the device or its cap rather than by CPU
    reserved: bool = False  # runs on the reserved cores

    def thread_rate(self, share: float) -> float:
        """Units per second of one thread holding `share` cores."""
        t_free = self.cpu + self.sync
        if t_free <= 0:
            return math.inf
        r = 1.0 / t_free
        if self.cpu > 0:
            r = min(r, share / self.cpu)
        return r

    @property
    def duty(self) -> float:
        """Cores one thread uses when nothing but its own I/O waits holds it back."""
        return self.cpu / (self.cpu + self.sync) if self.cpu > 0 else 0.0


def water_fill(demands: list[float], weights: list[int], capacity: float) -> list[float]:
    """Max-min fair split of `capacity` among groups of `weights[i]` claimants each demanding
    `demands[i]`; returns the amount per claimant of each group."""
    alloc = [0.0] * len(demands)
    left = capacity
    claimants = sum(weights)
    for i in sorted(range(len(demands)), key=lambda i: demands[i]):
        if claimants <= 0:
            break
        give = min(demands[i], left / claimants)
        alloc[i] = give
        left -= give * weights[i]
        claimants -= weights[i]
    return alloc


class Sharing(NamedTuple):
    """What `solve` found: the device utilisation (0..1), whether the CPU demands reached their fixed point
    within the allowed rounds (else the rates are those of the last round), and the rounds it took."""

    util: float
    converged: bool
    rounds: int


def solve(
    flows: list[Flow], cores: float, switch_overhead: float, iterations: int = 8, reserved_cores: float = 0.0
) -> Sharing:
    """Set each flow's `rate` and `cpu_share`; return the device utilisation and whether the fixed point was reached
    in `iterations` rounds. The rounds run in a numba kernel (_sharing_kernel.solve_nb); tests/sharing_reference.py
    keeps them in plain Python, and the tests check that the two agree bit for bit."""
    from ._sharing_kernel import solve_nb

    for f in flows:
        f.rate = 0.0
    active = [f for f in flows if f.cap > 0 and (f.cpu > 0 or f.dev > 0 or f.sync > 0)]
    if not active:
        return Sharing(0.0, True, 0)
    if reserved_cores <= 0:
        for f in active:
            f.reserved = False
    n = len(active)
    rate, share, held, held_set, util, converged, rounds = solve_nb(
        np.fromiter((f.threads for f in active), np.int64, n),
        np.fromiter((f.cpu for f in active), np.float64, n),
        np.fromiter((f.dev for f in active), np.float64, n),
        np.fromiter((f.sync for f in active), np.float64, n),
        np.fromiter((f.cap for f in active), np.float64, n),
        np.fromiter((f.io_class for f in active), np.int64, n),
        np.fromiter((f.reserved for f in active), np.bool_, n),
        float(cores),
        float(switch_overhead),
        int(iterations),
        float(reserved_cores),
    )
    for i, f in enumerate(active):
        f.rate = float(rate[i])
        f.cpu_share = float(share[i])
        if held_set[i]:
            f.held = bool(held[i])
    return Sharing(float(util), bool(converged), int(rounds))
