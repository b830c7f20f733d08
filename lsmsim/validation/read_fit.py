"""The read path's constants (machine.cpu get_base .. block_read) fitted to db_bench's read benchmarks (calibrate §3).

The targets are the validation matrix's cache-1gib and buffered-8mib cases (readrandom, readmissing, seekrandom with
0, 10 and 100 Next) measured with db_bench. lsmsim runs the same cases; non-negative least squares of the relative
errors gives the constants (a 1 us get weighs as much as a 60 us scan).

lsmsim's time per read is not linear in the constants. The cases start as db_bench's reads do: the reopened DB's
flush of its recovered WAL starts an L0 -> L1 compaction that runs beside the first reads (matrix._read_case), and
it overlaps a larger share of a short phase than of a long one. Measured on the Xeon calibration, readrandom's
seconds per op grow by 0.92 get_base when get_base goes from 1 to 10 us and by 1.00 when it goes to 1 ms. So the
fit is Gauss-Newton: each constant's feature (what it multiplies, per operation) is a finite difference taken
where the constants are, the least-squares step solves the linearized errors, and the next round retakes the
features at the step's constants. Each round is one lsmsim run per constant and case, at the speed of a real run.
"""

from __future__ import annotations

import copy

import numpy as np
from scipy.optimize import nnls

from .dbbench import DbBenchRun
from .matrix import case, real_figures

READ_CASES = ("cache-1gib", "buffered-8mib")
# scan_base stays 0: every case the fit sees has the same runs (L0 files + L1 + L2), so a seek's fixed cost and its
# per-run cost (index_search: RocksDB's NewIterator builds one child iterator per run) cannot be told apart
READ_CONSTANTS = ("get_base", "get_found", "filter_probe", "index_search", "block_decode", "next_entry", "block_read")
STEP = 1e-6  # seconds added to one constant for its finite difference: the size of the constants themselves
ROUNDS = 3
# Readmissing and readrandom see get_base and filter_probe in nearly fixed proportion (one Get, about two probes), and
# a Get sees index_search and block_decode in fixed proportion: the targets alone leave those splits to noise (two
# calibrations of this host gave index_search 4.2 and 0 us with block_decode 0 and 5.3). So each constant is held
# near the start's, scaled by one factor for the host's speed: a microsecond off costs as much as a 30% error in one
# target, about db_bench's own spread of these targets between runs (median 28% over the matrix's 3 EPYC runs, 13%
# over the Xeon calibration's 2). Only a case with another number of sorted runs could tell the per-run constants
# (filter_probe, index_search) from the per-Get ones; the built-in split was checked on one (reads on 17 L0 files).
PRIOR_WEIGHT = 0.3 / 1e-6


def read_targets(reads: dict[str, list[list[dict]]]) -> dict[str, dict[str, float]]:
    """Mean us/op of every read benchmark, per case."""
    out = {}
    for label, reps in reads.items():
        runs = [[DbBenchRun.from_dict(d) for d in rep] for rep in reps]
        real = real_figures(case(label), runs)
        out[label] = {k.removeprefix("us_per_op_"): v for k, v in real.items() if k.startswith("us_per_op_")}
    return out


def per_op(label: str, cpu: dict, memory: int) -> dict[str, float]:
    """lsmsim's seconds per operation in each read phase of matrix case `label` with `cpu` (seconds)."""
    from ..api import run
    from ..loading import load_config

    c = case(label)
    config = copy.deepcopy(c.config)  # its fill ends with the reopened DB's flush (matrix._read_case)
    sets = [f"machine.memory={memory}", "machine.preset=default", "machine.cores=2", "sim.max_time=10000h"]
    sets += [f"machine.cpu.{k}={v}" for k, v in cpu.items()]
    s = run(load_config(config, sets), progress=False).summary
    return {phase: 1.0 / s[f"phase_{phase}_ops_per_s"] for phase in c.reads.values()}


def read_features(
    cpu: dict, memory: int, at: dict[str, float], constants: tuple[str, ...] = READ_CONSTANTS
) -> tuple[dict, dict]:
    """(seconds per op at the read constants `at`, and each of `constants`' feature there), per case and phase: the
    feature is the phase's seconds per op with that constant raised by STEP, less at `at`, over STEP."""
    times, feats = {}, {}
    for label in READ_CASES:
        t0 = per_op(label, {**cpu, **at}, memory)
        f: dict[str, dict[str, float]] = {phase: {} for phase in t0}
        for const in constants:
            t = per_op(label, {**cpu, **at, const: at[const] + STEP}, memory)
            for phase in t0:
                f[phase][const] = (t[phase] - t0[phase]) / STEP
        times[label], feats[label] = t0, f
    return times, feats


def fit_reads(
    measured: dict,
    features: dict,
    at: dict[str, float] | None = None,
    times: dict | None = None,
    prior: dict[str, float] | None = None,
    constants: tuple[str, ...] = READ_CONSTANTS,
) -> tuple[dict, dict]:
    """The read constants (seconds; `constants` of them, the others held where `at` has them) and each target's
    relative residual on the linearized model: lsmsim's seconds per op are times + features . (x - at) (with neither
    given: features . x). With `prior`, each constant's departure from the prior's, scaled by one free factor, is a
    residual too (PRIOR_WEIGHT)."""
    rows, targets, names, offsets = [], [], [], []
    x0 = np.array([(at or {}).get(c, 0.0) for c in constants])
    for label, per_phase in measured.items():
        for phase, us in per_phase.items():
            row = np.array([features[label][phase][c] for c in constants])
            rows.append(row)
            targets.append(us * 1e-6)
            offsets.append(times[label][phase] - row @ x0 if times is not None else 0.0)
            names.append(f"{label}/{phase}")
    a, b, o = np.array(rows), np.array(targets), np.array(offsets)
    lhs, rhs = a / b[:, None], (b - o) / b  # relative errors: a 1 us get weighs as much as a 60 us scan
    if prior is not None:  # rows w (x_c - k prior_c) = 0, with k (the host's speed) a free variable after x
        p = np.array([prior[c] for c in constants])
        lhs = np.block([[lhs, np.zeros((len(b), 1))], [PRIOR_WEIGHT * np.eye(len(p)), -PRIOR_WEIGHT * p[:, None]]])
        rhs = np.concatenate([rhs, np.zeros(len(p))])
    x = nnls(lhs, rhs)[0][: len(constants)]
    resid = {n: float((f - t) / t) for n, f, t in zip(names, a @ x + o, b)}
    return {k: float(v) for k, v in zip(constants, x)}, resid


def fit_read_path(
    measured: dict, cpu: dict, memory: int, start: dict[str, float], constants: tuple[str, ...] = READ_CONSTANTS
) -> tuple[dict, dict]:
    """Gauss-Newton from the read constants `start`, held near them (scaled) where the targets cannot tell constants
    apart: ROUNDS rounds of features at the current constants and a least-squares step. Only `constants` are fitted
    (those `cpu` holds, measured apart, are not). The residuals are those of lsmsim run at the fitted constants, not
    of the linear model."""
    at = {c: start[c] for c in constants}
    for _ in range(ROUNDS):
        times, feats = read_features(cpu, memory, at, constants)
        at, _resid = fit_reads(measured, feats, at, times, prior=start, constants=constants)
    resid = {}
    for label, per_phase in measured.items():
        sim = per_op(label, {**cpu, **at}, memory)
        resid.update({f"{label}/{p}": sim[p] / (us * 1e-6) - 1.0 for p, us in per_phase.items()})
    return at, resid


__all__ = ["READ_CASES", "READ_CONSTANTS", "fit_read_path", "fit_reads", "per_op", "read_features", "read_targets"]
