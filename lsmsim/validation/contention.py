"""What calibrate and the regimes' recordings measure of writers beside each other: the WAL's sync, which a write group
waits for (lsm.wal_sync, device.sync_latency), and readrandomwriterandom 50/50's speed-up from 1 to 2 threads, which
the writes' spin for each other's write groups sets (machine.cpu.write_wait, `fit_write_wait`; docs/design.md,
"Writers spin for each other's write groups"). db_bench is Debian's rocksdb-tools 7.8.3, on the
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
    """readrandomwriterandom 50/50 from 1 and from 2 threads on one DB (`_mixed_invocations`), in the order 1, 2, 2, 1
    after the fill, so that the VM's drift and the DB's growth over the four runs weigh on both alike: how much less
    than twice one thread two threads do (`mixed_speed_up`). Run 1 then 2, two repeats measured 0.96x and 1.35x on the
    Xeon host, where five other repeats that day gave 1.34-1.42x."""
    out = []
    for i in range(repeat):
        d = Path(tempfile.mkdtemp(prefix="lsmsim-calibrate-"))
        fill, one, two = _mixed_invocations()
        try:
            runs = [run_db_bench(args, db=d / "db") for args in (fill, one, two, two, one)]
        finally:
            shutil.rmtree(d, ignore_errors=True)
        ops = [r.ops_per_sec["readrandomwriterandom"] for r in runs[1:]]
        out.append({"ops_per_s_1": (ops[0] + ops[3]) / 2, "ops_per_s_2": (ops[1] + ops[2]) / 2, "order_1221": ops})
        _say(
            f"readrandomwriterandom 50/50 #{i + 1}: {ops[0]:,.0f} and {ops[3]:,.0f} ops/s from 1 thread, {ops[1]:,.0f} "
            f"and {ops[2]:,.0f} from 2 ({out[-1]['ops_per_s_2'] / out[-1]['ops_per_s_1']:.2f}x)"
        )
    return out


MIXED_PHASE = "readrandomwriterandom"  # `_mixed_config`'s measured phase


def _mixed_config(threads: int, machine: dict) -> dict:
    """lsmsim's config of `_mixed_invocations`' fill and its readrandomwriterandom from `threads` threads (measured),
    on the calibrated `machine` section."""
    from .sequence import sequence_config

    fill, one, two = _mixed_invocations()
    return sequence_config((fill, one if threads == 1 else two), f"calibrate-mixed-{threads}t", NUM, machine)


def fit_write_wait(runs: list[dict], machine: dict, lo: float = 0.0, hi: float = 4.0) -> float:
    """machine.cpu.write_wait (foreground.write_thread_spin) at which lsmsim's readrandomwriterandom 50/50 from 2
    threads runs `mixed_speed_up(runs)` x its 1 thread, on the calibrated `machine` (bisection: more spin, less
    speed-up). 0.5, the spin of holds that keep their core, when not measured or when the write thread is not
    (write_serial 0)."""
    from ..api import run
    from ..units import parse_duration

    target = mixed_speed_up(runs)
    serial = machine.get("cpu", {}).get("write_serial", 0)
    if target <= 0 or parse_duration(serial) <= 0:
        return 0.5

    def ops(threads: int, k: float) -> float:
        m = {**machine, "cpu": {**machine["cpu"], "write_wait": k}}
        return run(_mixed_config(threads, m), progress=False).summary[f"phase_{MIXED_PHASE}_ops_per_s"]

    one = ops(1, 0.0)  # one writer does not spin

    def speed_up(k: float) -> float:
        return ops(2, k) / one

    if speed_up(hi) >= target:
        return hi
    if speed_up(lo) <= target:
        return lo
    while hi - lo > 0.05:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if speed_up(mid) > target else (lo, mid)
    return round(0.5 * (lo + hi), 3)


def mixed_speed_up(runs: list[dict]) -> float:
    """readrandomwriterandom 50/50's speed-up from 1 to 2 threads, the median over runs (0 when not measured)."""
    ups = [r["ops_per_s_2"] / r["ops_per_s_1"] for r in runs if r.get("ops_per_s_1")]
    return float(np.median(ups)) if ups else 0.0


__all__ = ["fit_write_wait", "measure_interference", "measure_sync", "mixed_speed_up", "sync_latency"]
