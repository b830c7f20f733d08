"""What calibrate and the regimes' recordings measure of writers beside each other: the WAL's sync, which a write group
waits for (lsm.wal_sync, device.sync_latency), and readrandomwriterandom 50/50's speed-up from 1 to 2 threads, which
lsmsim does not model (docs/design.md, "Readers beside writers"). db_bench is Debian's rocksdb-tools 7.8.3, on the
validation matrix's shape (lsmsim/validation/matrix.py COMMON)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from .dbbench import run_db_bench
from .matrix import COMMON

NUM = 500_000


def _say(text: str) -> None:
    print(f"  {text}", file=sys.stderr, flush=True)


def _sync_args() -> list[str]:
    return ["--benchmarks=fillrandom", f"--num={SYNC_NUM}", *COMMON, "--statistics=1", "--sync=1"]


SYNC_NUM = 20_000


def measure_sync(repeat: int) -> list[dict]:
    """fillrandom SYNC_NUM with --sync=1, one thread: each write's group syncs the WAL (DBImpl::WriteToWAL), which
    db_bench's rocksdb.wal.file.sync.micros times (the device's sync latency: device.sync_latency)."""
    out = []
    for _ in range(repeat):
        r = run_db_bench(_sync_args())
        h = r.statistics.get("rocksdb.wal.file.sync.micros", {})
        per = r.seconds["fillrandom"] / SYNC_NUM
        out.append({"syncs": h.get("COUNT", 0), "sync_micros": h.get("SUM", 0), "per_write_s": per})
        mean = h.get("SUM", 0) / h["COUNT"] if h.get("COUNT") else float("nan")
        _say(f"fillrandom {SYNC_NUM:,} --sync=1: {per * 1e6:.1f} us/write, WAL sync {mean:.1f} us")
    return out


def sync_latency(runs: list[dict]) -> float:
    """Seconds per WAL sync: the median over the runs of rocksdb.wal.file.sync.micros' mean."""
    means = [r["sync_micros"] / r["syncs"] * 1e-6 for r in runs if r.get("syncs")]
    return float(np.median(means)) if means else 0.0


MIXED_SECONDS = 3


def _mixed_invocations() -> list[list[str]]:
    """fillrandom NUM, then readrandomwriterandom 50/50 from 1 thread and from 2 threads on it."""
    common = [f"--num={NUM}", *[a for a in COMMON if not a.startswith(("--num", "--threads"))]]
    mixed = ["--use_existing_db=1", "--readwritepercent=50", f"--duration={MIXED_SECONDS}", *common]
    return [
        ["--benchmarks=fillrandom", "--threads=1", *common],
        ["--benchmarks=readrandomwriterandom", "--threads=1", *mixed],
        ["--benchmarks=readrandomwriterandom", "--threads=2", *mixed],
    ]


def measure_interference(repeat: int) -> list[dict]:
    """readrandomwriterandom 50/50 from 1 and from 2 threads on one DB (`_mixed_invocations`): how much less than
    twice one thread two threads do (`mixed_speed_up`)."""
    out = []
    for i in range(repeat):
        d = Path(tempfile.mkdtemp(prefix="lsmsim-calibrate-"))
        try:
            runs = [run_db_bench(args, db=d / "db") for args in _mixed_invocations()]
        finally:
            shutil.rmtree(d, ignore_errors=True)
        one, two = (r.ops_per_sec["readrandomwriterandom"] for r in runs[1:])
        out.append({"ops_per_s_1": one, "ops_per_s_2": two})
        _say(
            f"readrandomwriterandom 50/50 #{i + 1}: {one:,.0f} ops/s from 1 thread, {two:,.0f} from 2 "
            f"({two / one:.2f}x)"
        )
    return out


def mixed_speed_up(runs: list[dict]) -> float:
    """readrandomwriterandom 50/50's speed-up from 1 to 2 threads, the median over runs (0 when not measured)."""
    ups = [r["ops_per_s_2"] / r["ops_per_s_1"] for r in runs if r.get("ops_per_s_1")]
    return float(np.median(ups)) if ups else 0.0


__all__ = ["measure_interference", "measure_sync", "mixed_speed_up", "sync_latency"]
