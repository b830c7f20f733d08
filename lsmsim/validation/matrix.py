"""The validation matrix: db_bench cases run on real RocksDB and on lsmsim side by side.

Each `Case` names db_bench invocations (Debian's rocksdb-tools 7.8.3, one thread, no compression,
16-byte keys and 100-byte values, 4 MiB write buffers, 16 MiB L1, 4 MiB files, 10 bloom bits) and
the lsmsim config of the same workload. `compare` puts the figures of one case side by side, each
with its relative error and its budget (issue 13): write-amp (RocksDB's `Sum` W-Amp) 10%, bytes
written into each level 15%, trivial moves equal (fillseq), us/op of each read benchmark 25%, and
the simulated duration of write-only cases 20% of db_bench's.

db_bench's figures come from `dbbench.run_db_bench` (live) or from a recorded reference
(`benchmarks/validation/dbbench.json`, written by `benchmarks/validation_matrix.py --record`), so
that CI compares against real runs without running db_bench.
"""

from __future__ import annotations

import copy
import datetime
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .dbbench import DbBenchRun, run_db_bench
from .host_disk import compaction_sync_bandwidth

COMMON = [
    "--key_size=16",
    "--value_size=100",
    "--write_buffer_size=4194304",
    "--max_bytes_for_level_base=16777216",
    "--target_file_size_base=4194304",
    "--level0_file_num_compaction_trigger=4",
    "--compression_type=none",
    "--bloom_bits=10",
    "--threads=1",
]  # no --seed: every db_bench process would draw the same keys, so reads would follow the fill's writes

MACHINE = "epyc-2vcpu-24g"  # the machine preset calibrated on the host of the recorded runs (AMD EPYC)
LEVELS = 7  # RocksDB's num_levels default: bytes written into each are compared
BUDGET = {"w_amp": 0.10, "level_bytes": 0.15, "us_per_op": 0.25, "duration": 0.20}


def _base(name: str, policy: dict, workload: dict, lsm: dict | None = None) -> dict:
    return {
        "name": f"matrix-{name}",
        "seed": 1,
        "machine": {"preset": MACHINE},
        "device": {"preset": "local-fio", "ftl": {"enabled": False}},
        "lsm": {"write_buffer_size": "4MiB", "bloom_bits_per_key": 10, **(lsm or {})},
        "policy": (
            {
                "max_bytes_for_level_base": "16MiB",
                "target_file_size_base": "4MiB",
                "level0_file_num_compaction_trigger": 4,
                **policy,
            }
            if policy["name"] == "leveled"
            else policy
        ),
        "workload": {"key_size": "16B", "value_size": "100B", **workload},
        # db_bench's figures are taken when its last benchmark ends, with compactions still pending
        "sim": {"drain": False},
    }


@dataclass(frozen=True)
class Case:
    """One row group of the matrix: db_bench invocations (run in order on one DB) and the config."""

    name: str
    about: str
    dbbench: list[list[str]]
    config: dict
    kind: str = "write"  # "write": W-Amp, bytes per level, duration; "read": us/op per benchmark
    # read cases: db_bench benchmark (as it prints it, with a suffix per invocation) -> lsmsim phase
    reads: dict[str, str] = field(default_factory=dict)
    phase: str = ""  # write cases: the lsmsim phase whose duration is compared with db_bench's run
    # the device's read latency is the one db_bench measured (rocksdb.sst.read.micros) in the same run:
    # this VM's disk drifts by 2x within minutes, and the device model is issue 14's, not this matrix's
    device_from_db_bench: bool = False


def _fill(num: str, *extra: str, bench: str = "fillrandom") -> list[str]:
    return [f"--benchmarks={bench},stats", f"--num={num}", *COMMON, *extra]


def _uniform_puts(operations: str) -> dict:
    return {"name": "fillrandom", "operations": operations, "mix": {"insert": 1.0}, "keys": {"distribution": "uniform"}}


def _write_case(
    name: str, about: str, num: str, policy: dict, workload: dict, *flags: str, bench: str = "fillrandom"
) -> Case:
    """One db_bench write benchmark (`bench`, `num` keys, `flags`) and the same workload on lsmsim."""
    workload = {"preset": bench, **workload}
    if workload["preset"] is None:
        del workload["preset"]
    return Case(name, about, [_fill(num, *flags, bench=bench)], _base(name, policy, workload), phase=bench)


READS = 100_000
DIRECT_READS = 20_000


def _read_case(name: str, about: str, flags: list[str], lsm: dict, reads: int, device: bool = False) -> Case:
    """fillrandom 1M, wait for compactions, then readrandom, readmissing and seekrandom with 0, 10
    and 100 Next, each from a fresh db_bench process on the same DB."""
    common = ["--num=1000000", f"--reads={reads}", "--use_existing_db=1", *COMMON, *flags]
    if device:
        common.append("--statistics=1")  # for rocksdb.sst.read.micros
    found = 1.0 - (1.0 - 1.0 / 1_000_000) ** 1_000_000  # keys of [0, num) that fillrandom wrote
    phases = [
        {
            "name": "fill",
            "operations": "1M",
            "mix": {"insert": 1.0},
            "keys": {"distribution": "uniform"},
            "measure": False,
            "wait_for_compactions": True,  # db_bench's waitforcompaction
            # each read invocation is a new db_bench process: the reopened DB flushes the WAL it recovers into a 4th
            # L0 file, which starts an L0 -> L1 compaction, so the reads see L1 and L2 where the fill left 3 L0 files
            "flush": True,
        },
        {"name": "readrandom", "operations": reads, "mix": {"get": found, "get_empty": 1 - found}},
        {"name": "readmissing", "operations": reads, "mix": {"get_empty": 1.0}},
        {"name": "seek0", "operations": reads, "mix": {"short_scan": 1.0}, "short_scan_length": 1},
        {"name": "seek10", "operations": reads, "mix": {"short_scan": 1.0}, "short_scan_length": 11},
        {"name": "seek100", "operations": reads, "mix": {"short_scan": 1.0}, "short_scan_length": 101},
    ]
    for p in phases[1:]:
        p["keys"] = {"distribution": "uniform"}
    return Case(
        name=name,
        about=about,
        kind="read",
        dbbench=[
            ["--benchmarks=fillrandom,waitforcompaction,stats", "--num=1000000", *COMMON],
            ["--benchmarks=readrandom,readmissing,seekrandom", "--seek_nexts=0", *common],
            ["--benchmarks=seekrandom", "--seek_nexts=10", *common],
            ["--benchmarks=seekrandom", "--seek_nexts=100", *common],
        ],
        config=_base("read-" + name, {"name": "leveled"}, {"num": "1M", "phases": phases}, lsm),
        device_from_db_bench=device,
        reads={
            "readrandom@1": "readrandom",
            "readmissing@1": "readmissing",
            "seekrandom@1": "seek0",
            "seekrandom@2": "seek10",
            "seekrandom@3": "seek100",
        },
    )


CASES: list[Case] = [
    _write_case(
        "leveled-t10",
        "fillrandom 2M, leveled, T = 10",
        "2000000",
        {"name": "leveled"},
        {"num": "2M"},
        "--max_bytes_for_level_multiplier=10",
    ),
    _write_case(
        "leveled-t5",
        "fillrandom 2M, leveled, T = 5",
        "2000000",
        {"name": "leveled", "max_bytes_for_level_multiplier": 5},
        {"num": "2M"},
        "--max_bytes_for_level_multiplier=5",
    ),
    _write_case(
        "leveled-4m",
        "fillrandom 4M, leveled, T = 10",
        "4000000",
        {"name": "leveled"},
        {"num": "4M"},
        "--max_bytes_for_level_multiplier=10",
    ),
    _write_case(
        "fillseq",
        "fillseq 2M, leveled: files move down by trivial moves",
        "2000000",
        {"name": "leveled"},
        {"preset": "fillseq", "num": "2M"},
        bench="fillseq",
    ),
    _write_case(
        "overwrite",
        "500K keys, 2M uniform random puts (4 versions per key), leveled",
        "500000",
        {"name": "leveled"},
        {"num": "500K", "preset": None, "phases": [_uniform_puts("2M")]},
        "--writes=2000000",
    ),
    _write_case(
        "universal",
        "fillrandom 2M, universal compaction (RocksDB 7.8 defaults)",
        "2000000",
        {"name": "universal", "level0_file_num_compaction_trigger": 4},
        {"num": "2M"},
        "--compaction_style=1",
    ),
    _read_case(
        "buffered-8mib",
        "reads after fillrandom 1M: 8 MiB block cache, buffered reads (the OS page cache holds the data)",
        ["--cache_size=8388608"],
        {"block_cache_size": "8MiB"},
        READS,
    ),
    _read_case(
        "cache-1gib",
        "reads after fillrandom 1M: 1 GiB block cache (all data cached)",
        ["--cache_size=1073741824"],
        {"block_cache_size": "1GiB"},
        READS,
    ),
    _read_case(
        "direct-8mib",
        "reads after fillrandom 1M: 8 MiB block cache, direct reads (misses go to the device)",
        ["--cache_size=8388608", "--use_direct_reads=1"],
        {"block_cache_size": "8MiB", "use_direct_reads": True},
        DIRECT_READS,
        device=True,
    ),
]


def case(name: str) -> Case:
    for c in CASES:
        if c.name == name:
            return c
    raise KeyError(f"no matrix case {name!r}; cases: {', '.join(c.name for c in CASES)}")


# ------------------------------------------------------------------ the real side
def record_case(c: Case, repeat: int = 3) -> list[list[DbBenchRun]]:
    """Run the case's db_bench invocations `repeat` times, each time on a fresh DB."""
    runs = []
    for i in range(repeat):
        d = Path(tempfile.mkdtemp(prefix="lsmsim-matrix-"))
        try:
            invocations = []
            for args in c.dbbench:
                t0 = time.perf_counter()
                invocations.append(run_db_bench(args, db=d / "db"))
                shown = " ".join(a for a in args if a.startswith(("--bench", "--seek")))
                print(f"  {c.name} #{i + 1}: {shown} {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            runs.append(invocations)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return runs


def machine_facts() -> dict:
    """What the recorded runs ran on."""
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    return {
        "cpu": next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), ""),
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "date": datetime.date.today().isoformat(),
    }


def real_figures(c: Case, runs: list[list[DbBenchRun]]) -> dict[str, float]:
    """The mean over repeats of what db_bench measured for case `c` (one list of invocations each)."""
    per_repeat = [_real_once(c, invocations) for invocations in runs]
    keys = per_repeat[0].keys()
    return {k: statistics.fmean(r[k] for r in per_repeat) for k in keys}


def real_spread(c: Case, runs: list[list[DbBenchRun]]) -> dict[str, float]:
    """db_bench's own spread over repeats, per figure: (max - min) / mean."""
    per_repeat = [_real_once(c, invocations) for invocations in runs]
    out = {}
    for k in per_repeat[0]:
        xs = [r[k] for r in per_repeat]
        mean = statistics.fmean(xs)
        out[k] = (max(xs) - min(xs)) / mean if mean else 0.0
    return out


def _real_once(c: Case, invocations: list[DbBenchRun]) -> dict[str, float]:
    out: dict[str, float] = {}
    if c.kind == "write":
        r = invocations[0].until_stats()
        out["w_amp"] = r.w_amp
        for lvl in range(LEVELS):
            out[f"bytes_written_L{lvl}"] = float(r.written_bytes(lvl))
        out["compactions"] = float(len(r.compactions))
        out["trivial_moves"] = float(len(r.trivial_moves))
        out["duration_s"] = next(iter(r.seconds.values()))
        bw = compaction_sync_bandwidth([{"compactions": r.compactions}])  # the disk behind the records
        if bw:
            out["sync_bandwidth"] = bw
        return out
    seen: dict[str, int] = {}
    if c.device_from_db_bench:
        hists = [r.statistics.get("rocksdb.sst.read.micros", {}) for r in invocations[1:]]
        count = sum(h.get("COUNT", 0) for h in hists)
        out["device_read_us"] = sum(h.get("SUM", 0) for h in hists) / count if count else float("nan")
    for r in invocations[1:]:
        for bench, us in r.micros_per_op.items():
            seen[bench] = seen.get(bench, 0) + 1
            key = f"{bench}@{seen[bench]}"
            if key in c.reads:
                out[f"us_per_op_{c.reads[key]}"] = us
    return out


# ------------------------------------------------------------------ the simulated side
def sim_config(c: Case, real: dict[str, float], preset: str | None = None, costs: dict | None = None) -> dict:
    """The case's lsmsim config, with the device read latency db_bench measured when the case asks, on machine
    preset `preset` (default: the case's own, the built-in costs' EPYC host), or on `costs`, the machine section a
    host's records carry: the calibration measured beside them (this VM's speed moves by 2x from one day to the
    next, so records are judged on their own day's costs, not on a preset calibrated since)."""
    cfg = copy.deepcopy(c.config)
    if costs is not None:
        cfg["machine"] = {**cfg.get("machine", {}), "preset": "default", **copy.deepcopy(costs)}
    elif preset is not None:
        cfg["machine"] = {**cfg.get("machine", {}), "preset": preset}
    if c.device_from_db_bench:
        cfg["device"].setdefault("read", {})["latency"] = f"{real['device_read_us']:.3f}us"
    if "sync_bandwidth" in real:  # the disk behind the records, measured in their own LOG (`_real_once`)
        cfg["device"]["sync_bandwidth"] = f"{real['sync_bandwidth'] / 2**20:.1f}MiB/s"
    return cfg


def sim_figures(c: Case, result) -> dict[str, float]:
    """The same figures from a lsmsim `Result` of `c.config`."""
    s = result.summary
    out: dict[str, float] = {}
    if c.kind == "write":
        out["w_amp"] = s["write_amp_rocksdb"]
        jobs = result.compactions
        for lvl in range(LEVELS):
            rows = jobs[(jobs["output_level"] == lvl) & (jobs["kind"] != "trivial_move")]
            out[f"bytes_written_L{lvl}"] = float(rows["write_bytes"].sum())
        out["compactions"] = float(s["compactions"])
        out["trivial_moves"] = float(s["trivial_moves"])
        out["duration_s"] = s["measured_time_s"]
        out["sync_bandwidth"] = result.config.device.sync_bandwidth
        return out
    for phase in c.reads.values():
        out[f"us_per_op_{phase}"] = 1e6 / s[f"phase_{phase}_ops_per_s"]
    if c.device_from_db_bench:
        out["device_read_us"] = result.config.device.read.latency * 1e6
    return out


def budget_of(metric: str) -> float | None:
    """The relative error allowed for a metric (None: shown, not judged)."""
    if metric == "w_amp":
        return BUDGET["w_amp"]
    if metric.startswith("bytes_written_L"):
        return BUDGET["level_bytes"]
    if metric.startswith("us_per_op_"):
        return BUDGET["us_per_op"]
    if metric == "duration_s":
        return BUDGET["duration"]
    if metric == "trivial_moves":
        return 0.0
    if metric == "device_read_us":
        return None  # an input of the simulated side, shown
    return None


# Figures still over budget, and why (issue 13's closing note has the experiments behind each): the test expects them
# to fail (strict xfail), so that one that comes within budget is noticed. The leveled W-Amp gaps of issues 13-34
# closed when the write cases took the disk's sync bandwidth from their own records (`_real_once`): the EPYC
# records' compactions wrote 220-254 MiB per second they waited beyond their CPU, where the local-fio preset has 260
# (and this project's Xeon host 495-555, where lsmsim on 260 had W-Amp -9% and L2's bytes -19% to -22%).
KNOWN_GAPS: dict[tuple[str, str], str] = {}

# The same, for the records of other hosts (benchmarks/validation/hosts/<preset>-matrix.json), judged on that host's
# calibrated preset: by preset name.
HOST_GAPS: dict[str, dict[tuple[str, str], str]] = {
    "intel-xeon-processor-2vcpu-24g": {
        ("universal", "bytes_written_L2"): "which sorted runs a universal compaction merges, and so the level its "
        "output lands in, moves with each compaction's timing: db_bench's runs wrote 13.0, 13.0 and 16.2 MiB into L2 "
        "here and 0, 13.0 and 22.7 on the EPYC host, lsmsim 19.3 (+37% against these three's 23% spread)",
    },
}


def compare(
    c: Case,
    real: dict[str, float],
    sim: dict[str, float],
    spread: dict[str, float] | None = None,
    gaps: dict[tuple[str, str], str] | None = None,
) -> pd.DataFrame:
    """One row per figure: db_bench, lsmsim, relative error, budget, whether it holds, and the known
    gap (`gaps`, default `KNOWN_GAPS`: another host's records have their own, `HOST_GAPS`) when it does not.

    Bytes into a level that db_bench barely writes (under 2% of its flush bytes) are not judged:
    a relative error of a near-zero figure says nothing. A level's bytes are judged against the
    larger of 15% and db_bench's own spread over its repeats (universal compaction's split between
    levels moves by 40% from one db_bench run to the next), and so is a read's us/op (25% or the spread: this
    VM's reads move by up to 60% between runs). Trivial moves are judged on fillseq only."""
    rows = []
    floor = 0.02 * real.get("bytes_written_L0", 0.0)
    for metric, r in real.items():
        s = sim.get(metric, float("nan"))
        err = (s - r) / r if r else (0.0 if s == r else float("inf"))
        budget = budget_of(metric)
        if metric.startswith("bytes_written_L"):
            budget = None if r < floor else max(budget or 0.0, (spread or {}).get(metric, 0.0))
        elif metric.startswith("us_per_op_"):  # a time: its budget, or db_bench's own spread where larger (issue 34)
            budget = max(budget or 0.0, (spread or {}).get(metric, 0.0))
        if metric == "trivial_moves" and c.name != "fillseq":
            budget = None
        ok = None if budget is None else bool(abs(err) <= budget + 1e-12)
        rows.append(
            {
                "case": c.name,
                "metric": metric,
                "db_bench": r,
                "spread": (spread or {}).get(metric, float("nan")),
                "lsmsim": s,
                "rel_err": err,
                "budget": budget,
                "ok": ok,
                "known_gap": (KNOWN_GAPS if gaps is None else gaps).get((c.name, metric), "") if ok is False else "",
            }
        )
    return pd.DataFrame(rows)


__all__ = [
    "BUDGET",
    "CASES",
    "HOST_GAPS",
    "KNOWN_GAPS",
    "Case",
    "case",
    "compare",
    "machine_facts",
    "real_figures",
    "real_spread",
    "record_case",
    "sim_config",
    "sim_figures",
]
