"""The sharing solver's fixed point in plain Python: the transcription lsmsim/sim/_sharing_kernel.py's numba kernel
must match bit for bit (tests/test_sharing.py)."""

from __future__ import annotations

import math

from lsmsim.sim.sharing import Flow, Sharing, water_fill
from lsmsim.tolerances import REL_EPS, SHARE_EPS


def _cpu_shares(active: list[Flow], demand: list[float], pools: dict[bool, float], switch_overhead: float):
    """Cores per thread of each flow: water-filling within each pool of cores."""
    shares = [0.0] * len(active)
    for reserved, cores in pools.items():
        idx = [i for i, f in enumerate(active) if f.reserved == reserved]
        if not idx:
            continue
        runnable = sum(active[i].threads for i in idx if active[i].cpu > 0)
        eff = cores * (1.0 - switch_overhead) if runnable > cores else float(cores)
        part = water_fill([demand[i] for i in idx], [active[i].threads for i in idx], eff)
        for i, v in zip(idx, part):
            shares[i] = v
    return shares


def solve_reference(
    flows: list[Flow], cores: float, switch_overhead: float, iterations: int = 8, reserved_cores: float = 0.0
) -> Sharing:
    """Set each flow's `rate` and `cpu_share`; return the device utilisation and whether the fixed point
    was reached in `iterations` rounds."""
    for f in flows:
        f.rate = 0.0
    active = [f for f in flows if f.cap > 0 and (f.cpu > 0 or f.dev > 0 or f.sync > 0)]
    if not active:
        return Sharing(0.0, True, 0)
    if reserved_cores > 0:
        pools = {True: float(reserved_cores), False: float(cores) - reserved_cores}
    else:
        pools = {False: float(cores)}
        for f in active:
            f.reserved = False
    demand = [min(1.0, f.duty) for f in active]
    classes = sorted({f.io_class for f in active})
    util = 0.0
    converged, rounds = False, 0
    for rounds in range(1, iterations + 1):  # noqa: B007 (rounds is reported)
        shares = _cpu_shares(active, demand, pools, switch_overhead)
        bound = {}
        for f, s in zip(active, shares):
            f.cpu_share = s
            bound[f] = min(f.cap, f.threads * f.thread_rate(s))
        left = 1.0
        for c in classes:
            members = [f for f in active if f.io_class == c]
            need = [bound[f] * f.dev if f.dev > 0 else 0.0 for f in members]
            alloc = water_fill(need, [1] * len(members), left)
            for f, a in zip(members, alloc):
                f.rate = min(bound[f], a / f.dev) if f.dev > 0 else bound[f]
                left -= f.rate * f.dev
            left = max(0.0, left)
        util = 1.0 - left
        # a thread held back by the device or its cap needs only what it uses; the rest is freed
        new = []
        for f, _d in zip(active, demand):
            if f.cpu <= 0:
                new.append(0.0)
                continue
            used = f.rate * f.cpu / f.threads
            held = f.rate < bound[f] * (1 - REL_EPS) or (f.cap < math.inf and f.rate >= f.cap * (1 - REL_EPS))
            f.held = held
            new.append(min(1.0, f.duty, used) if held else min(1.0, f.duty))
        if all(abs(a - b) <= SHARE_EPS for a, b in zip(new, demand)):
            converged = True
            break
        demand = new
    return Sharing(util, converged, rounds)
