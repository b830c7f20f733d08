"""How much this host's own speed moves between identical runs (machine.speed_spread; calibrate).

A 2-vCPU VM shares its physical cores: the same db_bench invocation minutes apart ran fillrandom 1M at 4.11 and 5.45
us/write on the Xeon host (2026-11-28), and readrandomwriterandom at 51K to 88K ops/s within 20 minutes (docs/
tuning.md). No model of the workload predicts that; a prediction can only say how far a single real run may land
from it. The calibration repeats every measurement, so its repeats give the spread for free: per kind of run (one
invocation: fillrandom with the WAL, readrandom at an 8 MiB cache, ...) the logs of its repeats' time per operation
about their mean, pooled over the kinds, sum(squares) / sum(repeats - 1): the log-standard deviation of one run.
On the recorded calibrations it is 0.176 on the Xeon VM (27 kinds, 31 degrees of freedom) and 0.065 on the EPYC VM
(21 kinds, 19): a single run within x/1.41 and x/1.14 of the median, 95% of the time.
"""

from __future__ import annotations

import math
from collections import defaultdict


def repeated_runs(m) -> dict[tuple, list[float]]:
    """Per kind of identical run in calibration measurements `m` (calibrate.Measurements): its repeats' seconds
    (or microseconds) per operation."""
    kinds: dict[tuple, list[float]] = defaultdict(list)
    for r in m.writes:
        if "per_write_s" in r:
            kinds[("write", r["kind"], r.get("value"), r.get("wal"), r.get("block_size"))].append(r["per_write_s"])
    for r in m.big_memtable:
        kinds[("big_memtable", r["buffer"])].append(r["per_write_s"])
    for r in m.block_reads:
        kinds[("block_read", r["block_size"], r["cache"])].append(r["cpu_per_get_s"])
    for r in m.mixgraph_keys:
        kinds[("mixgraph", r["keys"])].append(r["per_op_s"])
    for r in m.memtable:
        kinds[("memtable", r["full"])].append(r["us_per_get"])
    for r in m.sync:
        kinds[("sync",)].append(r["per_write_s"])
    for r in m.interference:  # readrandomwriterandom from 1, 2, 2 and 1 threads: each count twice a round
        order = r.get("order_1221") or []
        for threads, ops in zip((1, 2, 2, 1), order):
            kinds[("interference", threads)].append(1.0 / ops)
    for label, repeats in m.reads.items():  # per repeat: the fill, then the case's read benchmarks
        for i, run in enumerate(repeats[0][1:], start=1):
            for bench in run["micros_per_op"]:
                kinds[("read", label, i, bench)] = [rep[i]["micros_per_op"][bench] for rep in repeats if len(rep) > i]
    return dict(kinds)


def fit_speed_spread(m) -> float | None:
    """machine.speed_spread: the pooled log-standard deviation of the repeats of every kind of run (module
    docstring); None without a kind run twice."""
    squares, dof = 0.0, 0
    for values in repeated_runs(m).values():
        logs = [math.log(v) for v in values if v > 0]
        if len(logs) < 2:
            continue
        mean = sum(logs) / len(logs)
        squares += sum((x - mean) ** 2 for x in logs)
        dof += len(logs) - 1
    return math.sqrt(squares / dof) if dof else None


__all__ = ["fit_speed_spread", "repeated_runs"]
