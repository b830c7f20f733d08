"""Decision fidelity: does lsmsim rank RocksDB option sets as db_bench does, and by how much is it off?

Users ask lsmsim *which* configuration is faster. This module runs the option sets a user tuning RocksDB compares
(buffer sizes, L0 triggers, level sizes and multipliers, file sizes, background jobs, compaction style and
priority, cache, filter and block sizes, the WAL; `OPTION_SETS`) under three workloads on Debian's db_bench 7.8.3
and on lsmsim, and reports, per workload and metric, Spearman's rank correlation over the option sets, the median
and 90th-percentile relative error, and whether lsmsim's best option set is db_bench's best (or within db_bench's
own spread of it).

Each repeat of an option set is one fresh DB and three db_bench invocations (`WORKLOADS`):
- `write`: fillrandom of NUM keys, one thread (the write-only workload);
- `mixed`: readrandomwriterandom 50/50 from two threads on that DB for DURATION seconds;
- `read_heavy`: readwhilewriting (two readers, one unthrottled writer) on the DB the mixed run left, DURATION s.
lsmsim runs the same sequence as phases (earlier ones unmeasured), from the same flags (`formats.dbbench_args`).

Metrics: throughput (ops/s; the readers' only for readwhilewriting, as db_bench reports it), p99 latency of the
workload's main operation (write for `write`, read otherwise: db_bench's --histogram), stall time (db_bench's
rocksdb.stall.micros: seconds the writers waited on the write controller; lsmsim's stopped + slowed-down seconds
in the workload's window) and W-Amp (RocksDB's Sum W-Amp of the invocation: its LOG's flush and compaction bytes;
lsmsim's flushes and compactions that started in the window, as the LOG holds the jobs its process started).
"""

from __future__ import annotations

import datetime
import json
import math
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..preset_files import host_facts
from .dbbench import DbBenchRun, run_db_bench

NUM = 500_000
DURATION = 5
BASE = [
    "--key_size=16",
    "--value_size=100",
    "--compression_type=none",
    "--bloom_bits=10",
    "--write_buffer_size=4194304",
    "--max_bytes_for_level_base=16777216",
    "--target_file_size_base=4194304",
    f"--num={NUM}",
]  # the validation matrix's shape (lsmsim/validation/matrix.py), at 500K keys (58 MB): RocksDB's defaults
# (64 MiB buffers) would never flush here; no --seed: each process draws other keys, as the matrix does
MiB = 1 << 20

# (name, flags over BASE): one knob at a time, as a user tunes from a starting point, plus a few combinations
OPTION_SETS: list[tuple[str, list[str]]] = [
    ("base", []),
    ("buffer-1m", [f"--write_buffer_size={MiB}", f"--target_file_size_base={MiB}"]),
    ("buffer-2m", [f"--write_buffer_size={2 * MiB}"]),
    ("buffer-8m", [f"--write_buffer_size={8 * MiB}"]),
    ("buffer-16m", [f"--write_buffer_size={16 * MiB}"]),
    ("buffer-64m", [f"--write_buffer_size={64 * MiB}", f"--max_bytes_for_level_base={64 * MiB}"]),
    ("buffers-4x2", ["--max_write_buffer_number=4", "--min_write_buffer_number_to_merge=2"]),
    ("l0-trigger-1", ["--level0_file_num_compaction_trigger=1"]),
    ("l0-trigger-2", ["--level0_file_num_compaction_trigger=2"]),
    ("l0-trigger-8", ["--level0_file_num_compaction_trigger=8"]),
    ("l0-stall-tight", ["--level0_slowdown_writes_trigger=6", "--level0_stop_writes_trigger=8"]),
    ("multiplier-4", ["--max_bytes_for_level_multiplier=4"]),
    ("multiplier-20", ["--max_bytes_for_level_multiplier=20"]),
    ("l1-4m", [f"--max_bytes_for_level_base={4 * MiB}"]),
    ("l1-64m", [f"--max_bytes_for_level_base={64 * MiB}"]),
    ("files-1m", [f"--target_file_size_base={MiB}"]),
    ("files-16m", [f"--target_file_size_base={16 * MiB}"]),
    ("dynamic-levels", ["--level_compaction_dynamic_level_bytes=true"]),
    ("jobs-1", ["--max_background_jobs=1"]),
    ("jobs-4", ["--max_background_jobs=4"]),
    ("pri-by-size", ["--compaction_pri=0"]),
    ("universal", ["--compaction_style=1"]),
    ("universal-trigger-8", ["--compaction_style=1", "--level0_file_num_compaction_trigger=8"]),
    ("cache-64m", [f"--cache_size={64 * MiB}"]),
    ("cache-1m", [f"--cache_size={MiB}"]),
    ("bloom-5", ["--bloom_bits=5"]),
    ("block-16k", ["--block_size=16384"]),
    ("no-wal", ["--disable_wal=1"]),
    # stall-prone shapes a user meets when the background cannot keep up (the 800 KB buffers and files with
    # L0 trigger 1; tight L0 stall triggers on small buffers; RocksDB's rate limiter on flush and compaction writes)
    (
        "stall-prone",
        ["--write_buffer_size=819200", "--target_file_size_base=819200", "--level0_file_num_compaction_trigger=1"],
    ),
    (
        "stall-triggers-1m",
        [
            f"--write_buffer_size={MiB}",
            "--level0_file_num_compaction_trigger=2",
            "--level0_slowdown_writes_trigger=3",
            "--level0_stop_writes_trigger=5",
        ],
    ),
    ("rate-limit-16m", [f"--rate_limiter_bytes_per_sec={16 * MiB}"]),
    ("rate-limit-4m", [f"--rate_limiter_bytes_per_sec={4 * MiB}"]),
]

STATS = ["--histogram=1", "--statistics=1"]
WORKLOADS: dict[str, list[str]] = {
    "write": ["--benchmarks=fillrandom,stats", "--threads=1", *STATS],
    "mixed": [
        "--benchmarks=readrandomwriterandom,stats",
        "--use_existing_db=1",
        "--threads=2",
        "--readwritepercent=50",
        f"--duration={DURATION}",
        *STATS,
    ],
    "read_heavy": [
        "--benchmarks=readwhilewriting,stats",
        "--use_existing_db=1",
        "--threads=2",
        f"--duration={DURATION}",
        *STATS,
    ],
}
METRICS = ("throughput", "p99", "stall_s", "w_amp")
LOWER_IS_BETTER = {"throughput": False, "p99": True, "stall_s": True, "w_amp": True}


def dbbench_args(option_set: str, workload: str) -> list[str]:
    flags = dict(OPTION_SETS)[option_set]
    return [*WORKLOADS[workload], *BASE, *flags]


# ------------------------------------------------------------------ the real side
def real_metrics(workload: str, r: DbBenchRun) -> dict[str, float]:
    """The four metrics of one db_bench invocation."""
    bench = next(iter(r.ops_per_sec))
    op = "write" if workload == "write" else "read"
    hist = r.histograms.get(bench, {}).get(op, {})
    return {
        "throughput": r.ops_per_sec[bench],
        "p99": hist.get("P99", math.nan) * 1e-6,
        "stall_s": r.statistics.get("rocksdb.stall.micros", 0) / 1e6,
        "w_amp": r.until_stats().w_amp,
        # context, not judged: the writes of the invocation (readwhilewriting's writer is not in its ops/sec), and
        # every operation type's latency histogram (us: Average, P50, P75, P99, P99.9, P99.99)
        "writes": float(r.statistics.get("rocksdb.number.keys.written", 0)),
        "seconds": r.seconds[bench],
        "histograms": {
            o: {k: h[k] for k in ("Count", "Average", "P50", "P75", "P99", "P99.9", "P99.99") if k in h}
            for o, h in r.histograms.get(bench, {}).items()
        },
    }


def record(
    path: Path, repeat: int = 3, sets: list[str] | None = None, progress: bool = True, calibration: Path | None = None
) -> dict:
    """Run every option set's three workloads `repeat` times on db_bench and keep the metrics in `path` (JSON,
    written atomically after each repeat of each set, so an interrupted recording resumes where it stopped). The
    repeats go round the option sets (set 1..N, then again), so that the VM's drift touches every set alike.
    `calibration`: the measurements `lsmsim calibrate --measurements FILE` took just before, kept with the runs and
    fitted to the costs they are judged on (`recorded_costs`)."""
    from ..atomic import atomic_write
    from .regimes import recorded_costs

    data = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault("host", {**host_facts(), "date": datetime.date.today().isoformat()})
    data.setdefault("db_bench", "Debian rocksdb-tools 7.8.3")
    data.setdefault("num", NUM)
    data.setdefault("duration_s", DURATION)
    if calibration is not None and "calibration" not in data:
        data["calibration"] = json.loads(calibration.read_text())
        data["costs"] = recorded_costs(data["calibration"])  # regimes.py: the costs fitted from it
    runs = data.setdefault("runs", {})
    names = sets or [name for name, _ in OPTION_SETS]
    for i in range(repeat):
        for name in names:
            have = runs.setdefault(name, [])
            if len(have) > i:
                continue
            d = Path(tempfile.mkdtemp(prefix="lsmsim-fidelity-"))
            t0 = time.perf_counter()
            try:
                rep = {w: real_metrics(w, run_db_bench(dbbench_args(name, w), db=d / "db")) for w in WORKLOADS}
            finally:
                shutil.rmtree(d, ignore_errors=True)
            have.append(rep)
            atomic_write(path, lambda p: Path(p).write_text(json.dumps(data, indent=1)))
            if progress:
                shown = ", ".join(f"{w} {m['throughput']:,.0f}/s W-Amp {m['w_amp']:.2f}" for w, m in rep.items())
                print(f"  #{i + 1} {name} ({time.perf_counter() - t0:.0f} s): {shown}", file=sys.stderr, flush=True)
    return data


# ------------------------------------------------------------------ the simulated side
def sim_config(option_set: str, workload: str, device: str = "local-fio") -> dict:
    """The lsmsim config of an option set's sequence up to `workload` (earlier workloads unmeasured), on device preset
    `device`."""
    from ..formats.dbbench_args import dbbench_config

    order = list(WORKLOADS)
    cfg, _ = dbbench_config(" ".join(dbbench_args(option_set, "write")))
    phases = []
    for w in order[: order.index(workload) + 1]:
        c, _ = dbbench_config(" ".join(dbbench_args(option_set, w)))
        p = c["workload"]["phases"]
        assert len(p) == 1
        phases.append({**p[0], "name": w, "measure": w == workload})
    for p in phases[:-1]:  # the next invocation reopens the DB, which flushes the memtable it recovers from the WAL
        p["flush"] = True
    # each invocation alone does not know the keys written before it; the one simulation of them all does: a Get finds
    # its key as often as the keys the fill, the mixed phase and its own phase wrote so far are live (found: live)
    for p, w in zip(phases, order):
        if w != "write":
            p["found"] = "live"
    cfg["workload"]["phases"] = phases
    cfg["name"] = f"fidelity-{option_set}-{workload}"
    cfg["seed"] = 1
    cfg["device"] = {"preset": device, "ftl": {"enabled": False}}
    cfg.setdefault("sim", {})["drain"] = False  # db_bench's figures are taken when the benchmark ends
    return cfg


def sim_metrics(option_set: str, machine: str | None = None, costs: dict | None = None) -> dict[str, dict[str, float]]:
    """lsmsim's four metrics per workload for one option set (three runs: each workload measured after the
    unmeasured ones before it; the runs share their prefix exactly, so a window's stall and bytes are differences),
    on machine preset `machine` and its host's disk, or on a recording's `costs` (regimes.recorded_costs)."""
    import pandas as pd

    from ..api import run
    from ..loading import load_config
    from .host_disk import host_device

    sets = [f"machine.preset={machine}"] if machine and costs is None else []
    device = host_device(machine)  # the host's disk (its syncs), when calibrate measured it
    out: dict[str, dict[str, float]] = {}
    prev_stall = 0.0
    for w in WORKLOADS:
        cfg = sim_config(option_set, w, device)
        if costs is not None:
            cfg["machine"] = {**cfg.get("machine", {}), **costs["machine"]}
            cfg["device"] = {**cfg["device"], "preset": "local-fio"}
            if costs.get("sync_latency_s"):
                cfg["device"]["sync_latency"] = f"{costs['sync_latency_s'] * 1e6:.3f}us"
            if costs.get("sync_bandwidth"):
                cfg["device"]["sync_bandwidth"] = f"{costs['sync_bandwidth'] / 2**20:.1f}MiB/s"
        r = run(load_config(cfg, sets), progress=False)
        s = r.summary
        t0 = s["sim_time_s"] - s["measured_time_s"]
        jobs = r.compactions
        if jobs.empty:  # nothing flushed (the phase fits in the memtables)
            jobs = pd.DataFrame({"start": [], "end": [], "kind": [], "write_bytes": []})
        # the invocation's LOG holds the jobs its process started (regimes.sim_figures: not the recovered WAL's flush)
        jobs = jobs[(jobs["start"] >= t0 - 1e-9) & (jobs["kind"] != "trivial_move")]
        flush = float(jobs.loc[jobs["kind"] == "flush", "write_bytes"].sum())
        stall = s["stall_stop_s"] + s["stall_slowdown_s"]
        if w == "write":
            tput, p99 = s["phase_write_ops_per_s"], s.get("latency_write_p99_s", math.nan)
        elif w == "mixed":
            tput, p99 = s["phase_mixed_ops_per_s"], s.get("phase_mixed_lookup_p99_s", math.nan)
        else:
            tput = s["throughput_get_ops_per_s"] + s["throughput_get_empty_ops_per_s"]
            p99 = s.get("phase_read_heavy_lookup_p99_s", math.nan)
        out[w] = {
            "throughput": tput,
            "p99": p99,
            "stall_s": stall - prev_stall,
            "w_amp": float(jobs["write_bytes"].sum()) / flush if flush else math.nan,
            "writes": s["ops_write"],
            "seconds": s["measured_time_s"],
        }
        prev_stall = stall
    return out


# ------------------------------------------------------------------ the comparison
@dataclass
class Fidelity:
    """Per option set, workload and metric: db_bench's mean and spread, and lsmsim's figure; `self_rank` per
    workload and metric: db_bench against itself, the mean Spearman between pairs of its repeats (the ceiling any
    model's ranking can reach on this noisy host)."""

    table: object  # pandas DataFrame: option_set, workload, metric, db_bench, spread, lsmsim, rel_err
    self_rank: dict = field(default_factory=dict)
    repeats: int = 1  # db_bench runs behind each mean

    def scores(self):
        """Per workload and metric: Spearman's rho, median and p90 |relative error|, and the best option set."""
        import numpy as np
        import pandas as pd
        from scipy.stats import spearmanr

        rows = []
        for (w, m), g in self.table.groupby(["workload", "metric"], sort=False):
            g = g.dropna(subset=["db_bench", "lsmsim"])
            if len(g) < 3:
                continue
            if g["db_bench"].nunique() < 2 or g["lsmsim"].nunique() < 2:
                rho = math.nan  # no ranking to compare (e.g. no option set stalls)
            else:
                rho = float(spearmanr(g["db_bench"], g["lsmsim"]).statistic)
            err = g["rel_err"].abs().replace([np.inf], np.nan).dropna()
            low = LOWER_IS_BETTER[m]
            real_best = g.loc[g["db_bench"].idxmin() if low else g["db_bench"].idxmax()]
            sim_best = g.loc[g["lsmsim"].idxmin() if low else g["lsmsim"].idxmax()]
            # within db_bench's own spread of its best: the real figure of lsmsim's pick is no further from the
            # best than the two sets' spreads (max - min over the repeats) allow
            gap = abs(sim_best["db_bench"] - real_best["db_bench"])
            allow = (sim_best["spread"] + real_best["spread"]) / 2 * abs(real_best["db_bench"])
            rows.append(
                {
                    "workload": w,
                    "metric": m,
                    "sets": len(g),
                    "spearman": rho,
                    "db_bench_self": self.self_rank.get((w, m), math.nan),
                    "attainable": attainable(self.self_rank.get((w, m), math.nan), self.repeats),
                    "median_err": float(err.median()) if len(err) else math.nan,
                    "p90_err": float(err.quantile(0.9)) if len(err) else math.nan,
                    "db_bench_best": real_best["option_set"],
                    "lsmsim_best": sim_best["option_set"],
                    "best_agrees": bool(sim_best["option_set"] == real_best["option_set"] or gap <= allow),
                }
            )
        return pd.DataFrame(rows)


def compare(recorded: dict, sims: dict[str, dict[str, dict[str, float]]]) -> Fidelity:
    """The table of every option set, workload and metric: db_bench's mean over its repeats, its spread
    ((max - min) / mean) and lsmsim's figure."""
    import pandas as pd

    rows = []
    for name, reps in recorded["runs"].items():
        if name not in sims:
            continue
        for w in WORKLOADS:
            for m in METRICS:
                xs = [rep[w][m] for rep in reps if not math.isnan(rep[w][m])]
                if not xs:
                    continue
                mean = statistics.fmean(xs)
                spread = (max(xs) - min(xs)) / abs(mean) if mean else 0.0
                s = sims[name][w][m]
                if mean:
                    err = (s - mean) / abs(mean)
                else:
                    err = 0.0 if abs(s) < 0.01 else math.inf  # stall seconds: none against none
                rows.append(
                    {
                        "option_set": name,
                        "workload": w,
                        "metric": m,
                        "db_bench": mean,
                        "spread": spread,
                        "lsmsim": s,
                        "rel_err": err,
                    }
                )
    names = [n for n in recorded["runs"] if n in sims]
    repeats = min(len(recorded["runs"][n]) for n in names) if names else 1
    return Fidelity(pd.DataFrame(rows), self_rank(recorded, names), repeats)


def attainable(self_rho: float, repeats: int) -> float:
    """The highest rank correlation any model can reach against the mean of `repeats` db_bench runs whose repeats
    agree with each other by `self_rho`: the mean's reliability by the Spearman-Brown formula, rho_k = k rho / (1 +
    (k - 1) rho), bounds the correlation of a noise-free predictor with it by sqrt(rho_k) (the attenuation bound of
    classical test theory, Spearman 1904; exact for Pearson's r, close for ranks). Repeats that do not agree at all
    (rho <= 0) leave nothing to rank: 0."""
    if math.isnan(self_rho):
        return math.nan
    if self_rho <= 0:
        return 0.0
    k = max(1, repeats)
    return math.sqrt(k * self_rho / (1 + (k - 1) * self_rho))


def self_rank(recorded: dict, names: list[str]) -> dict:
    """Per workload and metric, the mean Spearman's rho between two repeats of db_bench over the option sets."""
    from itertools import combinations

    from scipy.stats import spearmanr

    out = {}
    reps = min(len(recorded["runs"][n]) for n in names) if names else 0
    for w in WORKLOADS:
        for m in METRICS:
            rhos = []
            for i, j in combinations(range(reps), 2):
                pairs = [(recorded["runs"][n][i][w][m], recorded["runs"][n][j][w][m]) for n in names]
                pairs = [(a, b) for a, b in pairs if not (math.isnan(a) or math.isnan(b))]
                if len(pairs) >= 3 and len({a for a, _ in pairs}) > 1 and len({b for _, b in pairs}) > 1:
                    rhos.append(float(spearmanr(*zip(*pairs)).statistic))
            out[(w, m)] = statistics.fmean(rhos) if rhos else math.nan
    return out


# Issue 34's goals: Spearman's rho at least 0.9 for throughput and W-Amp, 0.8 for p99 and stall time; median
# relative error at most 10%
GOALS = {"throughput": 0.9, "w_amp": 0.9, "p99": 0.8, "stall_s": 0.8}
MEDIAN_GOAL = 0.10


def missed(scores) -> dict[tuple[str, str, str], float]:
    """The goals the scores miss: (workload, metric, "spearman" or "median_err") -> the figure."""
    out = {}
    for _, r in scores.iterrows():
        if not r.spearman >= GOALS[r.metric]:  # NaN (no ranking to compare) misses too
            out[(r.workload, r.metric, "spearman")] = r.spearman
        if not r.median_err <= MEDIAN_GOAL:
            out[(r.workload, r.metric, "median_err")] = r.median_err
    return out


__all__ = [
    "GOALS",
    "MEDIAN_GOAL",
    "missed",
    "METRICS",
    "NUM",
    "OPTION_SETS",
    "WORKLOADS",
    "Fidelity",
    "compare",
    "dbbench_args",
    "real_metrics",
    "record",
    "sim_config",
    "sim_metrics",
]
