"""The validation matrix in the regime users compare in (issue 34, 5): mixed reads and writes from 1, 2 and 4 threads,
reads while a writer runs, several writers, a stall-prone fill, a rate-limited one and WAL syncs.

Each `Regime` is db_bench invocations run in order on one fresh DB (Debian's rocksdb-tools 7.8.3, the matrix's
shape: 16-byte keys, 100-byte values, 4 MiB buffers and files, 16 MiB L1, no compression, 10 bloom bits); the last
one is measured. lsmsim runs the same invocations as phases (`formats.dbbench_args`), earlier ones unmeasured and
ending with a flush (db_bench's next process reopens the DB and flushes the WAL it recovers).

Figures of the measured invocation, per operation type as db_bench's --histogram reports them (`read`: Gets found
and not; `write`): ops/s (the type's count over the benchmark's seconds), p99 and p99.9; stall time
(rocksdb.stall.micros; lsmsim's stopped and slowed-down seconds of the phase); W-Amp and bytes written into each
level (the invocation's LOG). Budgets (issue 34): ops/s and stall time 15% or db_bench's own spread over its
repeats where larger, p99 25% or the spread, W-Amp 10%, a level's bytes 15% or the spread; p99.9 is shown. A stall
time under 2% of the benchmark's seconds, and bytes into a level db_bench barely writes, are shown, not judged.

This VM's speed drifts by up to 2x within an hour (docs/validation.md), so a recording keeps the host's
calibration measured beside it (`lsmsim calibrate`'s write and read costs and the WAL's sync latency), and lsmsim
runs each regime on the costs of that calibration: the regimes judge the model, not the drift. Records live in
benchmarks/validation/hosts/<host>-regimes.json, one file per host.
"""

from __future__ import annotations

import datetime
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..preset_files import host_facts
from .dbbench import DbBenchRun, run_db_bench
from .matrix import COMMON

NUM = 500_000
DURATION = 5
SYNC_WRITES = 20_000  # a synced write takes ~80 us on this project's hosts: 1.6 s
MiB = 1 << 20
# the matrix's shape (its threads are each regime's own), with per-type histograms and statistics
BASE = [*(a for a in COMMON if not a.startswith("--threads")), "--histogram=1", "--statistics=1"]
BUDGET = {"ops_per_s": 0.15, "stall_s": 0.15, "p99": 0.25, "w_amp": 0.10, "level_bytes": 0.15}
LEVELS = 7
STALL_FLOOR = 0.02  # of the benchmark's seconds: a stall time below it is shown, not judged


@dataclass(frozen=True)
class Regime:
    """db_bench invocations run in order on one DB (the last measured) and what they stand for."""

    name: str
    about: str
    invocations: tuple[tuple[str, ...], ...]


def _fill(*extra: str, num: int = NUM, threads: int = 1) -> tuple[str, ...]:
    return ("--benchmarks=fillrandom,stats", f"--num={num}", f"--threads={threads}", *BASE, *extra)


def _then(bench: str, threads: int, *extra: str) -> tuple[tuple[str, ...], ...]:
    """fillrandom NUM, then `bench` for DURATION seconds from `threads` threads on that DB."""
    run = (
        f"--benchmarks={bench},stats",
        "--use_existing_db=1",
        f"--num={NUM}",
        f"--threads={threads}",
        f"--duration={DURATION}",
        *BASE,
        *extra,
    )
    return (_fill(), run)


REGIMES: list[Regime] = [
    Regime(
        "mixed-1t",
        "readrandomwriterandom 50/50, 1 thread, 5 s after fillrandom 500K",
        _then("readrandomwriterandom", 1, "--readwritepercent=50"),
    ),
    Regime(
        "mixed-2t",
        "readrandomwriterandom 50/50, 2 threads, 5 s after fillrandom 500K",
        _then("readrandomwriterandom", 2, "--readwritepercent=50"),
    ),
    Regime(
        "mixed-4t",
        "readrandomwriterandom 50/50, 4 threads on 2 cores, 5 s after fillrandom 500K",
        _then("readrandomwriterandom", 4, "--readwritepercent=50"),
    ),
    Regime(
        "read-mostly-2t",
        "readrandomwriterandom 90/10, 2 threads, 5 s after fillrandom 500K",
        _then("readrandomwriterandom", 2, "--readwritepercent=90"),
    ),
    Regime(
        "readwhilewriting",
        "readwhilewriting: 2 readers and 1 writer, 5 s after fillrandom 500K",
        _then("readwhilewriting", 2),
    ),
    Regime("writers-2", "fillrandom from 2 threads, 500K writes each", (_fill(threads=2),)),
    Regime(
        "stall-prone",
        "fillrandom 500K with 800 KB buffers and files, L0 trigger 1",
        (
            _fill(
                "--write_buffer_size=819200", "--target_file_size_base=819200", "--level0_file_num_compaction_trigger=1"
            ),
        ),
    ),
    Regime(
        "rate-limited",
        "fillrandom 500K, flush and compaction writes limited to 4 MiB/s",
        (_fill(f"--rate_limiter_bytes_per_sec={4 * MiB}"),),
    ),
    Regime(
        "wal-sync",
        f"fillrandom {SYNC_WRITES // 1000}K with --sync=1 (a WAL sync per write), 1 thread",
        (_fill("--sync=1", num=SYNC_WRITES),),
    ),
    Regime(
        "wal-sync-4t",
        f"fillrandom with --sync=1 from 4 threads, {SYNC_WRITES // 4000}K writes each (group commit)",
        (_fill("--sync=1", num=SYNC_WRITES // 4, threads=4),),
    ),
]


def regime(name: str) -> Regime:
    for r in REGIMES:
        if r.name == name:
            return r
    raise KeyError(f"no regime {name!r}; regimes: {', '.join(r.name for r in REGIMES)}")


# ------------------------------------------------------------------ the real side
def record(
    path: Path, repeat: int = 3, names: list[str] | None = None, calibration: Path | None = None, progress: bool = True
) -> dict:
    """Measure the host (`lsmsim calibrate`'s db_bench runs, or the measurements file `calibration` when given), then
    run every regime `repeat` times, round the regimes (1..N, then again) so that the VM's drift touches all alike.
    Kept in `path` (JSON, written atomically after each run, so that an interrupted recording resumes)."""
    import json

    from ..atomic import atomic_write
    from .calibrate import Measurements
    from .contention import measure_interference, measure_sync

    data = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault("host", {**host_facts(), "date": datetime.date.today().isoformat()})
    data.setdefault("db_bench", "Debian rocksdb-tools 7.8.3")

    def save():
        atomic_write(path, lambda p: Path(p).write_text(json.dumps(data, indent=1)))

    if "calibration" not in data:
        if calibration is not None and calibration.is_file():
            data["calibration"] = json.loads(calibration.read_text())
        else:
            from .calibrate import measure

            data["calibration"] = json.loads(measure().to_json())
        save()
    m = Measurements.from_json(json.dumps(data["calibration"]))
    if not m.sync or not m.interference:  # calibrate leaves out the mixed speed-up (and older files the sync)
        m.sync = m.sync or measure_sync(repeat=2)
        m.interference = m.interference or measure_interference(repeat=2)
        data["calibration"] = json.loads(m.to_json())
        data.pop("machine", None)
        save()
    if "machine" not in data:  # the costs fitted from the calibration (the read fit runs lsmsim for a minute)
        data["machine"], data["sync_latency_s"] = calibrated_machine(data["calibration"])
        save()
    runs = data.setdefault("runs", {})
    chosen = [regime(n) for n in names] if names else REGIMES
    for i in range(repeat):
        for r in chosen:
            have = runs.setdefault(r.name, [])
            if len(have) > i:
                continue
            d = Path(tempfile.mkdtemp(prefix="lsmsim-regime-"))
            t0 = time.perf_counter()
            try:
                out = [run_db_bench(list(args), db=d / "db") for args in r.invocations]
            finally:
                shutil.rmtree(d, ignore_errors=True)
            have.append(_slim(out[-1]))
            save()
            if progress:
                shown = ", ".join(f"{k} {v:,.3g}" for k, v in real_once(have[-1]).items() if k.startswith("ops"))
                print(f"  #{i + 1} {r.name} ({time.perf_counter() - t0:.0f} s): {shown}", file=sys.stderr, flush=True)
    return data


def _slim(run: DbBenchRun) -> dict:
    """What the regimes read of the measured invocation."""
    d = run.until_stats().to_dict()
    keep = ("rocksdb.stall", "rocksdb.wal", "rocksdb.number.keys.written")
    d["statistics"] = {k: v for k, v in d["statistics"].items() if k.startswith(keep)}
    return d


def real_once(d: dict) -> dict[str, float]:
    """The figures of one recorded run (`_slim`'s dict)."""
    r = DbBenchRun.from_dict(d)
    bench = next(iter(r.ops_per_sec))
    secs = r.seconds[bench]
    out: dict[str, float] = {}
    for op, h in sorted(r.histograms.get(bench, {}).items()):
        if op not in ("read", "write") or not h.get("Count"):
            continue
        out[f"ops_per_s_{op}"] = h["Count"] / secs
        out[f"p99_{op}"] = h["P99"] * 1e-6
        out[f"p999_{op}"] = h["P99.9"] * 1e-6
    if "ops_per_s_write" not in out and r.statistics.get("rocksdb.number.keys.written"):
        # readwhilewriting's writer is not in db_bench's histograms (BGWriter: SetExcludeFromMerge), nor its p99
        out["ops_per_s_write"] = r.statistics["rocksdb.number.keys.written"] / secs
    out["stall_s"] = r.statistics.get("rocksdb.stall.micros", 0) / 1e6
    out["seconds"] = secs
    if r.flushes:
        out["w_amp"] = r.w_amp
        for lvl in range(LEVELS):
            out[f"bytes_written_L{lvl}"] = float(r.written_bytes(lvl))
    return out


def real_figures(runs: list[dict]) -> tuple[dict[str, float], dict[str, float]]:
    """db_bench's mean over the repeats and its spread ((max - min) / mean), per figure."""
    each = [real_once(d) for d in runs]
    keys = [k for k in each[0] if all(k in e for e in each)]
    mean = {k: statistics.fmean(e[k] for e in each) for k in keys}
    spread = {k: (max(e[k] for e in each) - min(e[k] for e in each)) / mean[k] if mean[k] else 0.0 for k in keys}
    return mean, spread


# ------------------------------------------------------------------ the simulated side
def sim_config(r: Regime, machine: dict | None = None, sync_latency: float = 0.0) -> dict:
    """lsmsim's config of the regime: its invocations as phases, the last measured (`sequence.sequence_config`).
    `machine` and `sync_latency`: a recording's calibrated machine section and WAL sync seconds
    (`calibrated_machine`)."""
    from .sequence import sequence_config

    return sequence_config(r.invocations, f"regime-{r.name}", NUM, machine, sync_latency)


def calibrated_machine(calibration: dict) -> tuple[dict, float]:
    """The machine section fitted from a recording's calibration measurements (`calibrate.preset_text`: the read fit
    runs lsmsim for about a minute), and the WAL sync seconds it measured (0 when it did not)."""
    import json

    from .calibrate import Measurements, preset_text
    from .contention import sync_latency

    m = Measurements.from_json(json.dumps(calibration))
    preset, _ = preset_text(m, m.num, m.repeat)
    machine = {"preset": "default", **{k: preset[k] for k in ("cores", "memory", "cpu", "cpu_spread") if k in preset}}
    return machine, sync_latency(m.sync) if m.sync else 0.0


def recorded_costs(calibration: dict) -> dict:
    """What a recording is judged on: the machine section `lsmsim calibrate` fits from the calibration measured beside
    it (regimes.calibrated_machine) and its disk's syncs (host_disk.py), so that a preset calibrated since, on
    another day's speed, does not move its figures."""
    import json

    from .calibrate import Measurements
    from .host_disk import compaction_sync_bandwidth

    machine, sync = calibrated_machine(calibration)
    bw = compaction_sync_bandwidth(Measurements.from_json(json.dumps(calibration)).writes)
    return {"machine": machine, "sync_latency_s": sync, "sync_bandwidth": bw}


def sim_figures(r: Regime, result) -> dict[str, float]:
    """The regime's figures from a lsmsim `Result` of `sim_config(r)`."""
    s = result.summary
    phase = next(p["name"] for p in result.config.workload.model_dump()["phases"] if p["measure"])
    out: dict[str, float] = {}
    reads = s["throughput_get_ops_per_s"] + s["throughput_get_empty_ops_per_s"]
    if reads > 0:
        out["ops_per_s_read"] = reads
        out["p99_read"] = s[f"phase_{phase}_lookup_p99_s"]
        out["p999_read"] = s[f"phase_{phase}_lookup_p999_s"]
    if s["throughput_write_ops_per_s"] > 0:
        out["ops_per_s_write"] = s["throughput_write_ops_per_s"]
        out["p99_write"] = s["latency_write_p99_s"]
        out["p999_write"] = s["latency_write_p999_s"]
    out["stall_s"] = s[f"phase_{phase}_stall_s"]
    out["seconds"] = s["measured_time_s"]
    jobs = result.compactions
    if not jobs.empty:
        t0 = s["sim_time_s"] - s["measured_time_s"]
        # the measured invocation's LOG holds the jobs its process started: not the flush of the WAL it recovered at
        # open (no flush_finished event: db_impl_open.cc WriteLevel0TableForRecovery; the phase's flush, which ends
        # as the phase starts), nor the fill's compactions; the ones the fill's end cancelled start with the phase
        jobs = jobs[(jobs["start"] >= t0 - 1e-9) & (jobs["kind"] != "trivial_move")]
        flush = float(jobs.loc[jobs["kind"] == "flush", "write_bytes"].sum())
        if flush:
            out["w_amp"] = float(jobs["write_bytes"].sum()) / flush
        for lvl in range(LEVELS):
            out[f"bytes_written_L{lvl}"] = float(jobs.loc[jobs["output_level"] == lvl, "write_bytes"].sum())
    return out


def budget_of(metric: str, real: dict[str, float], spread: dict[str, float]) -> float | None:
    """The relative error allowed for `metric` (None: shown, not judged)."""
    s = spread.get(metric, 0.0)
    if metric.startswith("ops_per_s_"):
        return max(BUDGET["ops_per_s"], s)
    if metric.startswith("p99_"):
        return max(BUDGET["p99"], s)
    if metric == "stall_s":
        return max(BUDGET["stall_s"], s) if real["stall_s"] >= STALL_FLOOR * real["seconds"] else None
    if metric == "w_amp":
        return BUDGET["w_amp"]
    if metric.startswith("bytes_written_L"):
        floor = 0.02 * real.get("bytes_written_L0", 0.0)
        return max(BUDGET["level_bytes"], s) if real[metric] >= floor and real[metric] > 0 else None
    return None


# Figures over budget on each recorded host (its preset's name) and the cause found by experiment;
# tests/test_validation_regimes.py expects each to stay over (strict xfail), so that one that comes within budget is
# noticed.
_WAIT = (
    "a write that finds another thread's write in RocksDB's write thread waits for it (WriteThread::AwaitState: spin, "
    "yield, futex); lsmsim's spin for it (foreground.write_thread_spin) is the residual of a group whose holder keeps "
    "its core, fitted to the mean: not the rare waits behind a holder that lost its core for a scheduler slice"
)
_WINDOW = (
    "at 90/10 the 5 s window holds one or two compactions into L1 and L2: one more or less moves the W-Amp by a third "
    "(db_bench's own W-Amp spread over its 3 runs is 71%)"
)
_SYNC = (
    "a group of synced writes holds the write thread longer than its CPU and its sync: db_bench from 4 threads took "
    "103 us per group of 2 writes, lsmsim 84 (72.9 us of sync, 2 x 5.2 us of writes, 6.2 us of cold caches after "
    "the sync: machine.cpu.wal_sync_cpu); the sync drifted from 72.9 us (calibration) to 79.4 us (the runs), and "
    "the followers wake from WriteThread::AwaitState's futex (not modelled)"
)
XEON_GAPS: dict[tuple[str, str], str] = {
    ("mixed-1t", "w_amp"): "lsmsim 4.34 against 3.88: the window's ten compactions are db_bench's first two runs' "
    "ten within 2% each (L0 -> L1 29.1, 24.3, 21.5, 23.8 MB, into L2 7.5 to 12.7 MB), but lsmsim flushes 46 MB in "
    "the window where they flushed 50 MB (4.03), and the third run, slower, flushed 34 MB with seven compactions "
    "(3.63)",
    ("mixed-4t", "p99_write"): _WAIT + "; with 4 threads on 2 cores the thread it waits for is often descheduled "
    "(db_bench's write p99 294-640 us over the recordings)",
    ("read-mostly-2t", "p99_write"): _WAIT,
    ("read-mostly-2t", "w_amp"): _WINDOW,
    ("writers-2", "bytes_written_L2"): "lsmsim writes 25% less into L2 than db_bench from 2 writers in two recordings "
    "(where from 1 writer, the matrix's leveled-t10, it writes 23% more): cause not found yet",
    (
        "stall-prone",
        "stall_s",
    ): "the stall is a threshold effect of the compactions' pace: db_bench's runs stalled 0 to "
    "0.15 s (spread 168%) and lsmsim 0.10 to 0.35 s on the four recordings' calibrations",
    ("rate-limited", "w_amp"): "db_bench's own W-Amp spread over its 3 runs is 19%, above the 10% budget",
    ("wal-sync-4t", "ops_per_s_write"): _SYNC + "; from 4 threads db_bench passed 2.0 writes per sync, as the "
    "model's two cohorts do (foreground.group_commit), so the gap is each group's time",
    ("wal-sync-4t", "p99_write"): _SYNC,
}
_READERS = (
    "lsmsim's two readers beside one unthrottled writer read 25% more than db_bench's on the AMD EPYC host (206K "
    "against 165K/s, P99 11.6 against 16.3 us) while the writer's rate matches (130K/s); +42% while the Gets found "
    "the keys live at the phase's start and the recovered WAL's flush ran in the window. The cause, by perf "
    "(cpu-clock at 2999 Hz, 2026-11-28): db_bench's readers spent 6.8 us of CPU per Get, 1.6 of them in MemTable::Get "
    "on the memtable the writer inserts into and 0.3 in the immutable one, where readrandom on the same tree spent "
    "5.4 us and nothing in memtables; lsmsim charges the active memtable's walk 0.86 us, calibrated on a memtable no "
    "thread writes (the writer's inserts on the other core leave the skiplist's lines in its cache). Within budget "
    "on the Xeon host. What would close it: calibrate the walk beside a writer, and charge it to Gets whose "
    "memtable is written as they read"
)
EPYC_GAPS: dict[tuple[str, str], str] = {
    ("readwhilewriting", "ops_per_s_read"): _READERS,
    ("readwhilewriting", "p99_read"): _READERS,
    ("wal-sync-4t", "ops_per_s_write"): "lsmsim 30% faster (14.3K against 11.0K writes/s): as on the Xeon host, "
    + _SYNC,
    ("wal-sync-4t", "p99_write"): "lsmsim 370 against 674 us: " + _SYNC,
}
KNOWN_GAPS: dict[str, dict[tuple[str, str], str]] = {
    "intel-xeon-processor-2vcpu-24g": XEON_GAPS,
    "amd-epyc-2vcpu-24g": EPYC_GAPS,
}


def host_name(path) -> str:
    """The recorded host's preset name of a `<host>-regimes.json`."""
    return Path(path).name.removesuffix("-regimes.json")


def compare(
    r: Regime, real: dict[str, float], spread: dict[str, float], sim: dict[str, float], gaps: dict | None = None
) -> pd.DataFrame:
    """One row per figure: db_bench's mean and spread, lsmsim, relative error, budget, whether it holds, and the
    known gap of `gaps` (the host's `KNOWN_GAPS`) that explains a figure over budget."""
    gaps = gaps or {}
    rows = []
    for metric, v in real.items():
        if metric == "seconds":
            continue
        s = sim.get(metric, float("nan"))
        err = (s - v) / v if v else (0.0 if s == v else float("inf"))
        budget = budget_of(metric, real, spread)
        ok = None if budget is None else bool(abs(err) <= budget + 1e-12)
        rows.append(
            {
                "case": r.name,
                "metric": metric,
                "db_bench": v,
                "spread": spread.get(metric, float("nan")),
                "lsmsim": s,
                "rel_err": err,
                "budget": budget,
                "ok": ok,
                "known_gap": gaps.get((r.name, metric), "") if ok is False else "",
            }
        )
    return pd.DataFrame(rows)


def compare_all(recorded: dict, names: list[str] | None = None, gaps: dict | None = None) -> pd.DataFrame:
    """Every recorded regime (or `names`) on lsmsim, on the recording's calibrated costs (its `machine` and
    `sync_latency_s`, fitted when it was recorded), beside db_bench; `gaps`: the host's known gaps."""
    from ..api import run
    from ..loading import load_config

    tables = []
    for r in REGIMES:
        if (names and r.name not in names) or r.name not in recorded.get("runs", {}):
            continue
        real, spread = real_figures(recorded["runs"][r.name])
        res = run(load_config(sim_config(r, recorded["machine"], recorded["sync_latency_s"])), progress=False)
        tables.append(compare(r, real, spread, sim_figures(r, res), gaps))
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


__all__ = [
    "BUDGET",
    "KNOWN_GAPS",
    "host_name",
    "REGIMES",
    "Regime",
    "calibrated_machine",
    "recorded_costs",
    "compare",
    "compare_all",
    "real_figures",
    "record",
    "regime",
    "sim_config",
    "sim_figures",
]
