"""The host's cost per fio ioengine, apart from the drive's: one drive model, several ways to submit to it (issue 39).

fio's ioengine sets what a request costs the submitting thread and how its completion comes back: io_uring and
libaio go through the kernel's block layer and an interrupt, SPDK's user-space driver polls the completion queue
from the thread itself (Yang et al., "SPDK", CloudCom 2017). The drive is the same. So a model fitted on one
engine's jobs (`DriveModel.engine`, the profile's `ioengine`) holds the drive's limits, and each other engine adds
only its own CPU per request (`host_per_io`: what caps one thread's IOPS) and fixed parts (`read_overhead`,
`write_overhead`: the completion path at depth 1), `DriveModel.engines`, which `DriveModel.for_engine` hands to a
job of that engine.

The Samsung 980 PRO's recordings (stonet-research icpe24 artifact, 4 KiB random reads) show both: at depth 1
SPDK's median is 56.2 us against io_uring's 66.6 us; at depth 128 one SPDK thread does 736K IOPS, one io_uring
thread 383K, while four io_uring threads reach the drive's 779K.

`fit_engines` fits those three figures per engine on its jobs with the drive held as fitted on the main engine's
(the engine of most jobs, `main_engine`), by the same least squares on log ratios as `calibrate.fit`. So the main
engine's jobs must show the drive's own limits: where one io_uring thread is host-bound at every depth, only
several threads (fio's numjobs; the 980 PRO's 4 and 8 jobs reach 779K) show the drive's ceiling, and without them
SPDK's fit would take that ceiling for its host cost (`unseen_ceiling` says so).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np
from scipy.optimize import least_squares

from .calibrate import BOUNDS, FIT_IOS, BoundHit, _jacobian, _residuals, moved, observations
from .timing import DriveModel

PARAMS = ("host_per_io", "read_overhead", "write_overhead")  # what an engine changes (DriveModel.for_engine)


def engine_of(result) -> str:
    """A fio result's ioengine ("" when its options do not name one)."""
    return result.spec.ioengine or ""


def main_engine(results: list) -> str:
    """The engine of most jobs (ties: the first in name order): the one the drive is fitted on."""
    counts = Counter(engine_of(r) for r in results)
    return min(counts, key=lambda e: (-counts[e], e)) if counts else ""


def split(results: list) -> tuple[str, list, dict[str, list]]:
    """(main engine, its jobs, {other engine: its jobs})."""
    main = main_engine(results)
    others: dict[str, list] = {}
    for r in results:
        if engine_of(r) != main:
            others.setdefault(engine_of(r), []).append(r)
    return main, [r for r in results if engine_of(r) == main], others


def fit_engine(model: DriveModel, engine: str, results: list, n_ios: int = FIT_IOS) -> tuple[DriveModel, float]:
    """`model` with `engine`'s host cost fitted on `results` (jobs of that engine; the drive's parameters held) and
    the fit's cost (0.5 sum of squared log ratios). As in `calibrate.fit`, only figures the jobs constrain are fitted
    (doubling or halving one moves some IOPS or percentile by more than `SENSITIVE`): the rest keep the main engine's
    (a disk too slow for one thread's CPU to show, or a direction the jobs lack). A fitted figure at its bound
    (`calibrate.BOUNDS`) raises BoundHit: the held drive does not explain these jobs."""
    obs = [o for o in observations(results) if o.iops > 0 and not o.changed]
    if not obs:
        raise ValueError(f"ioengine {engine!r}: no job with I/O in one drive state to fit its host cost on")
    own = {p: getattr(model, p) for p in PARAMS}
    others = tuple(e for e in model.engines if e[0] != engine)

    def with_values(v: dict) -> DriveModel:
        v = {**own, **v}
        return replace(model, engines=(*others, (engine, v["host_per_io"], v["read_overhead"], v["write_overhead"])))

    base = _residuals(with_values({}), obs, n_ios)

    def constrained(p: str) -> bool:
        alts = [own[p] * k for k in (2, 0.5) if BOUNDS[p][0] <= own[p] * k <= BOUNDS[p][1]]
        return any(moved(base, _residuals(with_values({p: v}), obs, n_ios)).any() for v in alts)

    free = [p for p in PARAMS if constrained(p)]
    if not free:
        return with_values({}), 0.5 * float(np.sum(base**2))
    scale = np.array([max(own[p], BOUNDS[p][0] * 1.01) for p in free])
    lo = np.log([BOUNDS[p][0] for p in free] / scale)
    hi = np.log([BOUNDS[p][1] for p in free] / scale)

    def values(x) -> dict:  # x = log(value / scale), as in calibrate.fit
        return {p: float(c * math.exp(xi)) for p, c, xi in zip(free, scale, x)}

    def f(x):
        return _residuals(with_values(values(x)), obs, n_ios)

    steps = np.full(len(free), 0.01)
    sol = least_squares(f, np.zeros(len(free)), jac=lambda x: _jacobian(f, x, steps, hi), bounds=(lo, hi))
    if at := [p for p, x, a, b in zip(free, sol.x, lo, hi) if x - a < 0.01 or b - x < 0.01]:
        raise BoundHit(f"ioengine {engine!r}: the fit put its {', '.join(at)} at a bound (calibrate.BOUNDS)", at)
    return with_values(values(sol.x)), float(sol.cost)


def fit_engines(model: DriveModel, others: dict[str, list], n_ios: int = FIT_IOS) -> tuple[DriveModel, dict]:
    """`model` with every other engine's host cost fitted (`fit_engine`), and {engine: fit cost}."""
    costs = {}
    for engine in sorted(others):
        model, costs[engine] = fit_engine(model, engine, others[engine], n_ios)
    return model, costs


def note(model: DriveModel, used: list[str]) -> str | None:
    """What a replay should say of jobs run with an ioengine the model has no host cost of its own for (`used`: the
    jobs' engines): they get the model's, which is not theirs when the model names its own engine."""
    known = {model.engine, *(e[0] for e in model.engines)}
    other = Counter(e for e in used if e and e not in known)
    if not other or not model.engine:
        return None
    jobs = ", ".join(f"{n} {e}" for e, n in sorted(other.items()))
    return (
        f"note: jobs of an ioengine the profile has no host cost for ({jobs}) are replayed with {model.engine}'s: "
        "calibrate on traces of both engines to fit theirs"
    )


def unseen_ceiling(main: str, rows: list[dict]) -> str | None:
    """What calibrate should say when, in some direction, none of the main engine's jobs (`rows`: `calibrate.compare`'s
    of them) at depth 8 or more is limited by the drive rather than by its threads' CPU: the drive's ceiling in that
    direction is then not in the fit, and another engine's jobs that reach it would put it in that engine's host
    cost."""
    unseen = sorted(
        {r["direction"] for r in rows} - {r["direction"] for r in rows if r["limit"] == "drive" and r["qd"] >= 8}
    )
    if not unseen:
        return None
    what = " or ".join(unseen)
    return (
        f"note: no {main or 'unnamed'} {what} job at depth 8 or more runs at the drive's limit rather than its "
        f"threads' CPU's, so the drive's {what} ceiling is not in its fit and the other engines' host costs may "
        "take it in (record jobs with more threads: fio's numjobs)"
    )
