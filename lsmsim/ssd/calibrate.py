"""Fit the drive model (`timing.DriveModel`) to fio results, and compare it with them.

Every fio job and direction becomes an `Observation` (IOPS, median and 99th percentile of the
total latency, clat percentiles + mean slat as fio's `lat`). The fit minimises the log ratios
model / measured of IOPS, p50 and p99 over all observations, each simulated by `timing.fio_job`
with common random numbers (draws keyed by request number, `drive_sim._uniform`): bounded least
squares (scipy.optimize, trust-region reflective, with wide finite differences) per candidate
number of units, then Powell's derivative-free search polishes the best candidate, since event
reorderings still make the simulated figures jump a little when a parameter moves.

Only parameters some trace constrains are fitted: a parameter is constrained by a trace when
doubling it moves the trace's IOPS, p50 or p99 by more than `SENSITIVE` at the starting point;
the others keep their documented defaults (`BOUNDS`) and the report says so. A fitted value
at a bound means the model could not explain the traces with a physical value: `fit` raises
`BoundHit` naming the parameter rather than write such a profile. The number of parallel units
is an integer: it is searched over `UNITS` and the best candidate's neighbours, the best kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import least_squares, minimize

from .fio import FioJobResult
from .goals import GOALS
from .timing import KIB4, DriveModel, Job, JobResult, fio_job

# parameter: (lower, upper, default, why the bounds). Bandwidths stop at PCIe 4.0 x4 (7.88 GB/s).
BOUNDS: dict[str, tuple[float, float, float, str]] = {
    "host_per_io": (0.3e-6, 40e-6, 2e-6, "CPU per request of one submitting thread"),
    "read_overhead": (0.5e-6, 300e-6, 15e-6, "controller + PCIe + interrupt per read"),
    "read_sigma": (0.005, 1.5, 0.1, "lognormal shape of the read's fixed parts"),
    "read_flash_time": (0.5e-6, 400e-6, 50e-6, "media read: 3D XPoint under 1-3us, TLC tR 40-100us"),
    "read_stream_bandwidth": (50e6, 4e9, 400e6, "one unit's channel transfer"),
    "page": (4096, 262144, 16384, "bytes one unit reads per flash read (page x planes)"),
    "read_bandwidth": (100e6, 7.88e9, 3.2e9, "host link, reads (PCIe 4.0 x4 at most)"),
    "read_retry_fraction": (1e-5, 0.3, 0.002, "reads retried (ECC failure)"),
    "read_retry_time": (5e-6, 5e-3, 300e-6, "extra time of a retried read"),
    "fast_read_fraction": (1e-3, 0.9, 0.1, "flash reads of data in the SLC region"),
    "fast_read_time": (2e-6, 100e-6, 20e-6, "an SLC flash read (tR ~20-30us)"),
    "partial_read_time": (2e-6, 400e-6, 40e-6, "the flash read of one 4KiB unit alone (part of a page)"),
    "shared_read_bandwidth": (100e6, 7.88e9, 2e9, "a controller stage reads' and programs' data share: reads"),
    "shared_write_bandwidth": (100e6, 7.88e9, 2e9, "the same stage: programs' data"),
    "write_overhead": (0.5e-6, 300e-6, 8e-6, "controller + PCIe + interrupt per write"),
    "write_sigma": (0.005, 1.5, 0.2, "lognormal shape of the write's fixed parts"),
    "write_stream_bandwidth": (100e6, 7.88e9, 2.5e9, "host link, writes"),
    "write_iops": (5e3, 3e6, 400e3, "controller's write command rate"),
    "write_command_share": (0.1, 1.0, 1.0, "share of the command interval a write waits: 1 one at a time, 0.1 ten"),
    "write_unit": (4096, 262144, 4096, "program unit: bytes below which a write is merged into a whole unit"),
    "subunit_write_time": (0.05e-6, 100e-6, 2e-6, "extra command time of a write below the program unit"),
    "program_time": (20e-6, 8e-3, 1e-3, "one flash program (tPROG): SLC ~0.2ms, TLC 0.5-3ms"),
    "write_bandwidth": (10e6, 7.88e9, 1e9, "flash program rate over all units"),
    "write_buffer": (1e6, 2e12, 64e6, "write-back buffer (DRAM or SLC cache)"),
    "write_buffer_release": (64e3, 64e6, 1e6, "bytes of programs that become buffer room at once (a stripe)"),
    "readahead": (4096, 8 << 20, 131072, "bytes a sequential read prefetches into the controller's DRAM"),
    "command_slots": (4, 65536, 1024, "commands the drive accepts at once (blk-mq tags, controller limit)"),
    "command_bytes": (256e3, 1e9, 64e6, "data the commands it serves at once may carry (its staging DRAM)"),
}
UNITS = (4, 8, 16, 32, 64, 128)  # coarse grid; the best one's neighbours are tried too
EDGES = {"write_command_share"}  # may end at its upper bound: 1 is a physical case (commands one at a time)
# fitted only when asked (`fit(also=...)`, `--also`): overlapping write commands explain a drive whose write IOPS
# plateau below what its lone write's latency allows (WD ZNS), but they also let a fit explain a host-cached disk's
# writes, faster than any drive's, that the bounds otherwise refuse; a program unit explains small writes slower
# per command than large ones (WD ZNS), and only traces of several write sizes tell it apart
OPT_IN = {"write_command_share", "write_unit", "subunit_write_time", "fast_read_fraction", "fast_read_time"}
OPT_IN |= {"shared_read_bandwidth", "shared_write_bandwidth"}  # a stage both directions share (stages.py)
OPT_IN |= {"write_buffer_release"}  # buffer room in lumps (drive_sim): writes on a full buffer wait unevenly
OPT_IN |= {"command_bytes"}  # large requests past it wait in submission order, reads and writes alike (drive_sim)
OPT_IN |= {"partial_read_time"}  # 4 KiB reads faster than a page's: only traces of several read sizes tell it apart
# switches of the model's structure (`timing.DriveModel`'s booleans): never fitted, held with `fixed` (`--fix NAME=1`)
FLAGS = ("program_first", "program_suspend")
STEPPED = ("read_retry_fraction", "page", "command_slots", "write_buffer", "readahead", "write_unit")
STEPPED += ("write_buffer_release", "command_bytes")
SENSITIVE = 0.03  # relative change of a prediction that counts as "constrained"
P99_WEIGHT = 0.5  # p99 is noisier in fio and in the simulation than IOPS and p50
ROBUST_SCALE = math.log(1.15)  # `fit(robust=True)`: residuals past a 15% miss (the mixes' goal) count linearly
FIT_IOS = 6000  # requests simulated per observation while fitting (more when comparing)
COMPARE_IOS = 40000


class BoundHit(ValueError):
    """A fitted parameter sits at its bound: the model does not explain these traces."""

    def __init__(self, message: str, params: list[str]):
        super().__init__(message)
        self.params = params


@dataclass
class Observation:
    name: str  # job name and file
    direction: str
    job: Job
    iops: float
    p50: float
    p99: float
    changed: bool = False  # the run changed state (FioJobResult.state_change past the IOPS goal): not fitted or judged


def _pct(d, pct) -> float:
    """A total-latency percentile: lat's when fio recorded them, else clat's plus the mean slat."""
    for stats, extra in ((d.lat, 0.0), (d.clat, d.slat_mean or 0.0)):
        try:
            return stats.percentile(pct) + extra
        except (KeyError, AttributeError):
            continue
    return float("nan")


def job_of(spec, runtime: float | None = None, state: str = "fresh") -> Job:
    """A fio job spec as the model sees it (`runtime`: seconds fio measured, if known; `state`: the drive's, fresh or
    steady)."""
    return Job(
        float(spec.block_size("read")),
        float(spec.block_size("write")),
        spec.read_fraction,
        spec.iodepth,
        spec.numjobs,
        runtime or spec.runtime or 30.0,
        spec.ramp_time,
        spec.rw in ("read", "write", "rw"),
        state == "steady",
        float(spec.size or 0),
        spec.ioengine or "",
    )


def changed_state(result) -> bool:
    """Whether a run's IOPS lie further from those of its last seconds (fio's steady-state window,
    `FioJobResult.state_change`) than the replay's IOPS goal: its averages mix two states of the drive."""
    change = getattr(result, "state_change", None)
    return change is not None and abs(change) > GOALS["iops"]


def observations(results: list[FioJobResult]) -> list[Observation]:
    out = []
    for r in results:
        runtime = max((d.runtime for d in r.directions.values()), default=0.0)
        job = job_of(r.spec, runtime, getattr(r, "drive_state", "fresh"))
        changed = changed_state(r)
        for direction, d in r.directions.items():
            if direction == "trim" or not d.total_ios:
                continue
            name = f"{r.name} ({r.source or ''})"
            out.append(Observation(name, direction, job, d.iops, _pct(d, 50.0), _pct(d, 99.0), changed))
    return out


def _predict(model: DriveModel, obs: list[Observation], n_ios: int, seed: int = 1) -> list[JobResult]:
    cache: dict = {}
    out = []
    for o in obs:
        if o.job not in cache:
            cache[o.job] = fio_job(model, o.job, n_ios, seed)
        out.append(cache[o.job])
    return out


def _residuals(model: DriveModel, obs: list[Observation], n_ios: int) -> np.ndarray:
    res = []
    for o, p in zip(obs, _predict(model, obs, n_ios)):
        for what, measured, w in (("iops", o.iops, 1.0), ("p50", o.p50, 1.0), ("p99", o.p99, P99_WEIGHT)):
            v = p.get(o.direction, what)
            ok = measured and measured > 0 and math.isfinite(measured) and v > 0 and math.isfinite(v)
            res.append(w * math.log(v / measured) if ok else 0.0)
    return np.array(res)


def initial(obs: list[Observation]) -> DriveModel:
    """Closed-form starting values: queue-depth-1 latencies split between the fixed parts and
    the flash, the largest IOPS and bandwidths seen."""
    m = DriveModel(**{k: v[2] for k, v in BOUNDS.items() if k not in OPT_IN})  # opt-in: the model's own
    reads = [o for o in obs if o.direction == "read" and o.job.read_fraction >= 1.0]
    small = [o for o in reads if o.job.size_read <= 16384]
    qd1 = [o for o in small if o.job.iodepth * o.job.numjobs == 1]
    kw = {}
    if qd1:
        lat = min(1.0 / o.iops for o in qd1)
        kw["read_flash_time"] = max(3e-6, 0.6 * lat)
        kw["read_overhead"] = max(1e-6, 0.4 * lat - m.host_per_io - KIB4 / m.read_stream_bandwidth)
    if reads:
        kw["read_bandwidth"] = min(7.5e9, max(o.iops * o.job.size_read for o in reads) * 1.2)
    writes = [o for o in obs if o.direction == "write" and o.job.read_fraction <= 0.0]
    w1 = [o for o in writes if o.job.iodepth * o.job.numjobs == 1 and o.job.size_write <= 16384]
    if w1:
        lat = min(1.0 / o.iops for o in w1)
        kw["write_overhead"] = max(
            0.5e-6,
            lat - m.host_per_io - m.write_command_share * m.command_interval(KIB4) - KIB4 / m.write_stream_bandwidth,
        )
    if writes:
        kw["write_bandwidth"] = min(7.5e9, max(o.iops * o.job.size_write for o in writes))
    return replace(m, **kw)


def data_starts(obs: list[Observation]) -> dict[str, float]:
    """Starting values read off the traces for the second start of a multi-start fit: the write command rate just
    above the most small writes a second any job saw. From the default (400K) the fit stops in the first minimum
    that explains the writes' latencies; a drive whose writes plateau far below that (WD ZNS: 56-59K from queue
    depth 2) lies on the other side of it."""
    small = [o.iops for o in obs if o.direction == "write" and o.job.read_fraction <= 0 and o.job.size_write <= 16384]
    return {"write_iops": 1.1 * max(small)} if small else {}


def _clip(name: str, v: float) -> float:
    lo, hi = BOUNDS[name][:2]
    return min(max(v, lo * 1.0001), hi * 0.9999)


def sensitivity(model: DriveModel, obs: list[Observation], n_ios: int = FIT_IOS) -> dict[str, list[int]]:
    """Parameter -> indices of the observations it moves by more than SENSITIVE when doubled or
    halved (a limit such as the command slots only shows when it is lowered)."""
    base = _residuals(model, obs, n_ios)
    out = {}
    for name in BOUNDS:
        v = getattr(model, name)
        hit = np.zeros(len(obs), bool)
        for alt_v in (v * 2, v / 2):
            if BOUNDS[name][0] <= alt_v <= BOUNDS[name][1]:
                hit |= moved(base, _residuals(replace(model, **{name: alt_v}), obs, n_ios))
        out[name] = [i for i in range(len(obs)) if hit[i]]
    return out


def moved(base: np.ndarray, alt: np.ndarray) -> np.ndarray:
    """Per observation: whether residuals `alt` (`_residuals`') move its IOPS, p50 or p99 from `base` by more than
    SENSITIVE."""
    w = np.array([1.0, 1.0, P99_WEIGHT])
    return (np.abs(alt.reshape(-1, 3) - base.reshape(-1, 3)) / w > math.log1p(SENSITIVE)).any(axis=1)


def _jacobian(f, x: np.ndarray, steps: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Forward differences, step_j x max(1, |x_j|), stepping back from an upper bound."""
    f0 = f(x)
    jac = np.empty((len(f0), len(x)))
    for j in range(len(x)):
        h = steps[j] * max(1.0, abs(x[j]))
        if x[j] + h > hi[j]:
            h = -h
        xj = x.copy()
        xj[j] += h
        jac[:, j] = (f(xj) - f0) / h
    return jac


@dataclass
class Fit:
    model: DriveModel
    fitted: list[str]  # parameters the traces constrained
    defaults: list[str]  # parameters left at their defaults
    constrained_by: dict[str, list[str]]  # parameter -> observation names
    cost: float
    units_costs: dict[int, float]
    start_costs: list[float]  # least squares' cost from each starting point at the chosen units (the first: x0)


def fit(
    results: list[FioJobResult],
    fixed: dict | None = None,
    units: tuple[int, ...] = UNITS,
    n_ios: int = FIT_IOS,
    progress=None,
    polish_evals: int = 15,
    also: tuple[str, ...] = (),
    starts: int = 1,
    seed: int = 0,
    start_at: dict | None = None,
    robust: bool = False,
) -> Fit:
    """Fit a drive model to fio results (any subset: read-only sets keep the write defaults).
    `progress(units, cost)` is called after each candidate number of units; `also`: OPT_IN parameters to fit.
    `starts` > 1: after the search over units, fit the best candidate again from more starting points (the
    traces' own rates, `data_starts`, then points drawn log-uniformly within a factor e of the estimates, from
    `seed`) and keep the best; least squares stops in the first minimum it meets. `start_at`: starting values that
    replace the traces' estimates (`initial`), e.g. a region found by hand that the estimates lie far from.
    `robust`: misses beyond `ROBUST_SCALE` weigh in linearly rather than squared (least squares' soft_l1 loss), so a
    few figures no parameter can reach (fio's p99 at depth 1024) do not drag the rest away from their goals.
    Runs that changed state (`Observation.changed`) are left out: their averages mix two drives."""
    obs = [o for o in observations(results) if o.iops > 0 and not o.changed]
    if not obs:
        raise ValueError("no fio job in these files did any read or write I/O")
    fixed = dict(fixed or {})
    asked = {k: BOUNDS[k][2] for k in also}  # an opt-in parameter asked for starts at its scale (the model's may be 0)
    guess = replace(initial(obs), **{**asked, **(start_at or {}), **fixed})
    sens = sensitivity(replace(guess, units=32), obs, n_ios)
    free = [k for k in BOUNDS if sens[k] and k not in fixed and (k not in OPT_IN or k in also)]
    defaults = [k for k in BOUNDS if k not in free and k not in fixed]
    # what no trace constrains keeps its documented default (an opt-in parameter not asked for: the model's own, so
    # a drive without fast reads has none); the rest starts from the estimates
    start = replace(guess, **{k: BOUNDS[k][2] for k in defaults if k not in OPT_IN})
    scale = np.array([BOUNDS[k][2] for k in free])  # x = log(value / default): steps are relative

    def model_of(x, u):
        return replace(start, units=u, **{k: float(v) for k, v in zip(free, scale * np.exp(x))})

    lo = np.log([BOUNDS[k][0] for k in free] / scale)
    hi = np.log([BOUNDS[k][1] for k in free] / scale)
    x0 = np.log([_clip(k, getattr(start, k)) for k in free] / scale)
    # the draws are common random numbers, so figures move smoothly with a parameter and 1% steps
    # see its slope; parameters that act through thresholds (whether a read is retried, how many
    # pages a request spans, how many commands fit, when the buffer fills) move them in jumps and
    # need wide steps to see a slope rather than one jump
    steps = np.array([0.3 if k in STEPPED else 0.01 for k in free])
    best, costs = None, {}

    def attempt(u, x_start=x0, record=True):
        nonlocal best
        if record and u in costs:
            return

        def f(x):
            return _residuals(model_of(x, u), obs, n_ios)

        # our own forward-difference Jacobian with per-parameter steps: handing the same steps
        # to least_squares as diff_step left it stalled at its start on every real trace set
        sol = least_squares(
            f,
            x_start,
            jac=lambda x: _jacobian(f, x, steps, hi),
            bounds=(lo, hi),
            method="trf",
            max_nfev=30 * max(1, len(free)),
            **({"loss": "soft_l1", "f_scale": ROBUST_SCALE} if robust else {}),
        )
        if record:
            costs[u] = float(sol.cost)
            if progress:
                progress(u, costs[u])
        if best is None or sol.cost < best[0].cost:
            best = (sol, u)
        return float(sol.cost)

    for u in units:
        attempt(u)
    if len(units) > 1:  # refine between the best coarse candidate and its neighbours
        b = best[1]
        for u in sorted({max(1, round(b * 0.75)), round(b * 1.25), max(1, round(b * 0.6)), round(b * 1.5)}):
            attempt(u)
    start_costs = [costs[best[1]]]
    for x_start in _more_starts(x0, free, scale, lo, hi, obs, starts, seed):
        u = best[1]
        start_costs.append(attempt(u, x_start, record=False))
        if progress:
            progress(u, start_costs[-1], start=len(start_costs))
        costs[u] = min(costs[u], start_costs[-1])
    sol, u = best
    # polish the best candidate without derivatives: Powell's line searches tolerate the small
    # jumps of simulated figures (event reorderings) that make finite-difference steps fail
    polish = minimize(
        lambda x: _cost(_residuals(model_of(x, u), obs, n_ios), robust),
        sol.x,
        method="Powell",
        bounds=list(zip(lo, hi)),
        options={"maxfev": polish_evals * max(1, len(free)), "xtol": 1e-3, "ftol": 1e-4},
    )
    if polish.fun < sol.cost:
        sol.x, sol.cost = polish.x, float(polish.fun)
        costs[u] = sol.cost
    model = model_of(sol.x, u)
    _refuse_bounds(model, free, sol.x, lo, hi)
    names = [o.name + " " + o.direction for o in obs]
    return Fit(
        model, free, defaults, {k: [names[i] for i in sens[k]] for k in free}, float(sol.cost), costs, start_costs
    )


def _cost(res: np.ndarray, robust: bool) -> float:
    """least_squares' cost of residuals `res`: 0.5 sum r^2, or with `robust` its soft_l1 loss at ROBUST_SCALE."""
    if not robust:
        return 0.5 * float(np.sum(res**2))
    z = (res / ROBUST_SCALE) ** 2
    return 0.5 * ROBUST_SCALE**2 * float(np.sum(2.0 * (np.sqrt(1.0 + z) - 1.0)))


def _refuse_bounds(model: DriveModel, free: list[str], x, lo, hi) -> None:
    """BoundHit when a fitted parameter ends within 1% (in log space) of a bound it may not reach."""
    at_bound = [k for k, v, a, b in zip(free, x, lo, hi) if v - a < 0.01 or (b - v < 0.01 and k not in EDGES)]
    if at_bound:
        raise BoundHit(
            "the fit put "
            + ", ".join(
                f"{k} = {getattr(model, k):.4g} at its bound [{BOUNDS[k][0]:.3g}, {BOUNDS[k][1]:.3g}]" for k in at_bound
            )
            + ": the model cannot explain these traces with physical values (exclude traces the host or a "
            "drive state limits, or fix the parameter)",
            at_bound,
        )


def _more_starts(x0, free, scale, lo, hi, obs, starts: int, seed: int) -> list[np.ndarray]:
    """The starting points after the first (x = log(value / default)): the traces' own rates, then random ones."""
    out: list[np.ndarray] = []
    if starts <= 1:
        return out
    alt = x0.copy()
    for k, v in data_starts(obs).items():
        if k in free:
            i = free.index(k)
            alt[i] = math.log(_clip(k, v) / scale[i])
    if not np.array_equal(alt, x0):
        out.append(alt)
    rng = np.random.default_rng(seed)
    margin = 1e-3
    while len(out) < starts - 1:
        out.append(np.clip(x0 + rng.uniform(-1.0, 1.0, len(x0)), lo + margin, hi - margin))
    return out


def compare(model: DriveModel, results: list[FioJobResult], n_ios: int = COMPARE_IOS, seed: int = 1) -> list[dict]:
    """Measured vs model for every job and direction: IOPS, bandwidth, p50, p99, and what limits
    the job in the model (host: the submitting threads are busy > 90% of the time; state: the run changed state, so no
    one model state answers it, `Observation.changed`); `seed`: the simulation's draws
    (the replay's are 1)."""
    obs = [o for o in observations(results) if o.iops > 0]
    rows = []
    for o, p in zip(obs, _predict(model, obs, n_ios, seed)):
        size = o.job.size_read if o.direction == "read" else o.job.size_write
        total = sum(p.iops.values())
        host_busy = total * model.for_engine(o.job.engine).host_per_io / o.job.numjobs
        rows.append(
            {
                "job": o.name,
                "direction": o.direction,
                "bs": size,
                "qd": o.job.iodepth * o.job.numjobs,
                "read_fraction": o.job.read_fraction,
                "iops_measured": o.iops,
                "iops_model": p.get(o.direction, "iops"),
                "bw_measured": o.iops * size,
                "bw_model": p.get(o.direction, "bw"),
                "p50_measured": o.p50,
                "p50_model": p.get(o.direction, "p50"),
                "p99_measured": o.p99,
                "p99_model": p.get(o.direction, "p99"),
                "limit": "state" if o.changed else ("host" if host_busy > 0.9 else "drive"),
                # what the model was told (ceiling.job_key): the engine only where the model has a cost for it
                "model_job": o.job if o.job.engine in {e[0] for e in model.engines} else replace(o.job, engine=""),
            }
        )
    return rows
