"""`lsmsim tune`'s search: optuna's TPE sampler over RocksDB's options (space.py), each candidate simulated with
several seeds, scored by the objective (objective.py) against the config as given, which is the first trial. A mix
of metrics is a multi-objective search (one log-ratio per metric); the choice is the weighted best of its Pareto
front.

Candidates run in `jobs` worker processes, a batch of `jobs` asked from the study at a time (optuna's ask/tell),
so a search is deterministic for a given seed and number of jobs. Each candidate runs at `seeds` points of the
host's own speed (`speed_points`: a real run moves with the host's speed, machine.speed_spread, where a fluid run
does not move with its seed): its figures are their mean, and its range theirs, widened to the band of 95% of single
real runs for the metrics the host's speed scales. A `--duration` fill followed by a measured phase is why: how many
flushes the fill makes sets the sorted runs the phase starts with, so a run 12% faster or slower can end in another
state (on the Xeon host lsmsim's mixgraph after a 30 s fill ran 41K-82K ops/s over such speeds, and a search at one
speed chose a candidate whose gain was that knife-edge: docs/tuning.md). After the search, the best candidate and
the config as given run again with the workload's write share moved by -20% and +20% (robustness: what the choice
loses when the mix shifts).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from statistics import NormalDist
from typing import Any

from . import objective, space

HOST_Z = 1.959964  # the host's band holds 95% of single real runs
TIMED = ("throughput", "p99", "p999", "stall")  # the metrics the host's speed scales (write-amp it does not)
KEEP = ("first_slowdown_cause", "first_stop_cause", "first_slowdown_s", "first_stop_s", "completed")


@dataclass
class Candidate:
    """One evaluated option set: its metrics per seed, their mean and range, and its score (lower is better)."""

    number: int
    options: dict[str, Any]
    runs: list[dict[str, Any]] = field(default_factory=list)
    score: float = math.nan
    error: str = ""

    def mean(self, name: str) -> float:
        vals = [r[name] for r in self.runs if r[name] == r[name]]
        return sum(vals) / len(vals) if vals else math.nan

    def interval(self, name: str) -> tuple[float, float]:
        vals = [r[name] for r in self.runs if r[name] == r[name]]
        return (min(vals), max(vals)) if vals else (math.nan, math.nan)

    def metrics(self) -> dict[str, float]:
        return {m: self.mean(m) for m in objective.METRICS}


@dataclass
class Tuning:
    """A search's outcome: the config as given (`baseline`), every candidate, the best, the budget, robustness."""

    baseline: Candidate
    candidates: list[Candidate]
    best: Candidate
    budget: int
    weights: dict[str, float]
    seconds: float
    robustness: list[dict[str, Any]] = field(default_factory=list)
    robustness_note: str = ""
    pareto: list[int] = field(default_factory=list)  # a mix of metrics: the trials no other beats on all of them
    throughput_phase: str | None = None  # the phase whose throughput is scored (`objective.scored_phase`)
    host_spread: float = 0.0  # machine.speed_spread: the log-deviation of the host's real runs about their median
    speeds: list[float] = field(default_factory=list)  # the host speeds each candidate ran at (speed_points)

    def host_band(self) -> float:
        """The factor a single real run of the host moves a time-based figure by, up or down (95%)."""
        return math.exp(HOST_Z * self.host_spread)

    def range(self, c: Candidate, name: str) -> tuple[float, float]:
        """Candidate `c`'s predicted range of metric `name`: its runs' range, for the metrics the host's speed scales
        (TIMED) times / over what the host's band reaches beyond the fastest speed they ran at."""
        lo, hi = c.interval(name)
        f = self.host_band() / max([*self.speeds, 1.0]) if name in TIMED else 1.0
        return lo / f, hi * f


def speed_points(n: int, spread: float) -> list[float]:
    """The host speeds (machine.cpu_speed factors) of a candidate's n runs: the quantiles (i + 0.5) / n of the host's
    run-to-run lognormal of log-deviation `spread` (machine.speed_spread), so that their mean is the n-point estimate
    of the expectation over the host's speed; all 1 without a spread. n = 2 on the Xeon host (0.168): 0.893, 1.12."""
    return [math.exp(spread * NormalDist().inv_cdf((i + 0.5) / n)) if spread > 0 else 1.0 for i in range(n)]


def evaluate(data: dict, points: list[tuple[int, float]]) -> list[dict[str, Any]]:
    """Simulate config dict `data` once per point (seed, host speed: `speed_points`); each run's metrics and stall
    causes. A worker's entry point."""
    from ..loading import load_config
    from ..sim import simulate

    out = []
    for seed, speed in points:
        d = {**data, "seed": seed}
        if speed != 1.0:  # data holds the costs at speed 1 (a dumped config): machine.cpu_speed divides them again
            d["machine"] = {**data["machine"], "cpu_speed": speed}
        cfg = load_config(d)
        s = simulate(cfg).summary
        m = objective.metrics(s, objective.queries_only(cfg), objective.scored_phase(cfg))
        out.append({**m, **{k: s.get(k) for k in KEEP}})
    return out


def tune(
    cfg,
    weights: dict[str, float],
    trials: int = 40,
    seeds: int = 2,
    jobs: int = 1,
    budget: int | None = None,
    timeout: float = 600.0,
    on_trial: Callable[[Candidate], None] | None = None,
) -> Tuning:
    """Search RocksDB's options for `cfg`'s workload and machine (module docstring). `budget`: bytes for the
    memtables and the block cache (default: what `cfg` gives them); `timeout`: seconds of search, after which the
    candidates finished count."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    t0 = time.monotonic()
    data = cfg.model_dump(mode="json")
    given = space.options_of(cfg)
    budget = int(budget or space.memtables(given) + cfg.lsm.block_cache_size)
    if budget < 2 * space.MiB:
        raise ValueError(f"--memory: at least 2 MiB (two 1 MiB memtables), got {budget} B")
    speeds = speed_points(seeds, cfg.machine.speed_spread)
    seed_list = [(cfg.seed + i, f) for i, f in enumerate(speeds)]
    cores = cfg.machine.cores or 2
    # a mix of metrics is searched as the multi-objective problem it is (TPE's multi-objective mode): the choice
    # is the weighted best of the Pareto front
    multi = len(weights) > 1
    sampler = optuna.samplers.TPESampler(seed=cfg.seed)
    study = optuna.create_study(directions=["minimize"] * len(weights), sampler=sampler)
    pool = ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) if jobs > 1 else None
    try:
        base = Candidate(-1, given, _run(pool, data, seed_list))
        base.score = 0.0
        cands: list[Candidate] = []
        while len(cands) < trials and time.monotonic() - t0 < timeout:
            batch = [study.ask() for _ in range(min(jobs, trials - len(cands)))]
            opts = [space.suggest(t, cores, budget) for t in batch]
            configs = [space.apply(copy.deepcopy(data), o, budget) for o in opts]
            results = _map(pool, configs, seed_list)
            for t, o, r in zip(batch, opts, results, strict=True):
                c = Candidate(t.number, o)
                if isinstance(r, Exception):
                    c.error = f"{type(r).__name__}: {r}"
                    study.tell(t, state=optuna.trial.TrialState.FAIL)
                else:
                    c.runs = r
                    c.score = objective.score(c.metrics(), base.metrics(), weights)
                    vals = objective.parts(c.metrics(), base.metrics(), weights) if multi else [c.score]
                    study.tell(t, [v if math.isfinite(v) else math.inf for v in vals])
                cands.append(c)
                if on_trial:
                    on_trial(c)
        ok = [c for c in cands if not c.error and math.isfinite(c.score)]
        front = sorted(t.number for t in study.best_trials) if multi and ok else []
        if front:
            ok = [c for c in ok if c.number in front]
        # a candidate must beat the config as given by more than 0.1% (a score of -0.001) to replace it
        best = min(ok, key=lambda c: c.score) if ok and min(c.score for c in ok) < -1e-3 else base
        result = Tuning(base, cands, best, budget, weights, time.monotonic() - t0, pareto=front)
        result.throughput_phase = objective.scored_phase(cfg)
        result.host_spread, result.speeds = cfg.machine.speed_spread, speeds
        _robustness(result, cfg, data, pool, seed_list)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    return result


def _run(pool, data: dict, seeds: list[tuple[int, float]]) -> list[dict[str, Any]]:
    r = _map(pool, [data], seeds)[0]
    if isinstance(r, Exception):
        raise r
    return r


def _map(pool, configs: list[dict], seeds: list[tuple[int, float]]) -> list[Any]:
    """evaluate() over the configs, in the pool when there is one; an exception in its config's place."""
    if pool is None:
        out: list[Any] = []
        for d in configs:
            try:
                out.append(evaluate(d, seeds))
            except Exception as e:  # a candidate RocksDB would refuse or the simulator cannot run: the trial fails
                out.append(e)
        return out
    futures = [pool.submit(evaluate, d, seeds) for d in configs]
    res: list[Any] = []
    for f in futures:
        try:
            res.append(f.result())
        except Exception as e:
            res.append(e)
    return res


def shifted(cfg, factor: float) -> dict | None:
    """The config dict with every measured phase's write share x `factor` (reads take the rest), or None when no
    measured phase mixes reads and writes from the same clients."""
    from ..workloads.presets import resolve_phases

    phases = resolve_phases(cfg.workload)
    out, moved = [], False
    for p in phases:
        d = p.model_dump(mode="json")
        m = p.mix
        w, r = m.writes(), m.reads()
        if p.measure and w > 0 and r > 0 and p.queries.mode == "with_writers":
            tot = w + r
            w2 = min(tot, w * factor)
            for k in ("insert", "update", "delete"):
                d["mix"][k] = getattr(m, k) * w2 / w
            for k in ("get", "get_empty", "short_scan", "long_scan"):
                d["mix"][k] = getattr(m, k) * (tot - w2) / r
            moved = True
        out.append(d)
    if not moved:
        return None
    data = cfg.model_dump(mode="json")
    data["workload"] = {**data["workload"], "preset": None, "suite": None, "preload": False, "phases": out}
    return data


def _robustness(result: Tuning, cfg, data: dict, pool, seeds: list[tuple[int, float]]) -> None:
    if result.best is result.baseline:
        result.robustness_note = "no candidate beat the config as given"
        return
    rows = []
    for factor in (0.8, 1.2):
        sd = shifted(cfg, factor)
        if sd is None:
            result.robustness_note = "no measured phase mixes reads and writes: nothing to shift"
            return
        tuned = space.apply(copy.deepcopy(sd), result.best.options, result.budget)
        base_runs, tuned_runs = (_map(pool, [d], seeds)[0] for d in (sd, tuned))
        if isinstance(base_runs, Exception) or isinstance(tuned_runs, Exception):
            result.robustness_note = (
                f"a shifted run failed: {base_runs if isinstance(base_runs, Exception) else tuned_runs}"
            )
            return
        b, t = Candidate(-1, {}, base_runs), Candidate(-1, {}, tuned_runs)
        rows.append({"write_share_x": factor, "score": objective.score(t.metrics(), b.metrics(), result.weights)})
        rows[-1].update({f"{m}_given": b.mean(m) for m in result.weights})
        rows[-1].update({f"{m}_tuned": t.mean(m) for m in result.weights})
    result.robustness = rows
