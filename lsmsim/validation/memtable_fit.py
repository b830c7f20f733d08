"""The memtable's CPU on this host (`lsmsim calibrate`, section 3's end): the skiplist walk per log2 of its
entries (`memtable_search`, from readrandom with full memtables against flushed ones) and the walk's cache misses
once a memtable outgrows the CPU's last-level cache (`memtable_miss`, from fillrandom without the WAL at 64 MiB
against 4 MiB memtables; `memtable_cache`, the host's last-level cache from /sys).

Measured on the AMD EPYC host (2 vCPUs, a 32 MiB L3), db_bench 7.8.3 fillrandom 2M keys without the WAL: 2.81,
2.91 and 4.78 us/write at 4, 16 and 64 MiB memtables (two runs each), where log2 of the entries explains 0.15 us of
the last step: the visits beyond the cache cost that much more (memtable/inlineskiplist.h: every node visit of
FindSpliceForLevel is a dependent load).
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..config import LsmConfig
from ..lsm.costs import memtable_walks
from .contention import _say
from .dbbench import run_db_bench
from .matrix import COMMON

MEMTABLE_ENTRY_OVERHEAD = LsmConfig.model_fields["memtable_entry_overhead"].default
BIG_MEMTABLE = 64 * 2**20  # RocksDB's default write_buffer_size: twice a 32 MiB last-level cache
CAL_MEMTABLE = 4 * 2**20  # the calibration's fills (matrix.COMMON)
ENTRY = 16 + 100 + MEMTABLE_ENTRY_OVERHEAD


MEMTABLE_NUM = 500_000
MEMTABLE_READS = 300_000


def measure_memtable(repeat: int) -> list[dict]:
    """readrandom on a DB whose memtables hold the fill's last writes, and on the same DB flushed (section 3's
    `memtable_search`): fillrandom NUM keys, [flush,] waitforcompaction, readrandom twice, in one process (the
    memtables survive only in it). The two differ by the Gets' skiplist walks; rocksdb.memtable.hit tells how
    many entries the memtables held."""
    out = []
    args = [
        f"--num={MEMTABLE_NUM}",
        f"--reads={MEMTABLE_READS}",
        *[a for a in COMMON if not a.startswith("--num")],
        "--disable_wal=1",
        "--statistics=1",
    ]
    for i in range(repeat):
        for full in (True, False):
            bench = "fillrandom," + ("" if full else "flush,") + "waitforcompaction,readrandom,readrandom"
            r = run_db_bench([f"--benchmarks={bench}", *args])
            us = r.micros_per_op["readrandom"]  # the last of the two (the first warms the block cache)
            hits = r.statistics.get("rocksdb.memtable.hit", 0)
            out.append({"full": full, "us_per_get": us, "memtable_hits": hits, "gets": 2 * MEMTABLE_READS})
            _say(f"readrandom #{i + 1}, memtables {'full' if full else 'flushed'}: {us:.2f} us/get ({hits} hits)")
    return out


def fit_memtable(runs: list[dict]) -> tuple[float, float]:
    """`memtable_search` (seconds per log2 of the entries walked) and the entries the full memtables held: the
    medians' difference over log2 of the entries, which a found Get's chance to hit the memtables gives (keys
    present after fillrandom with replacement: (1 - 1/e) NUM, of which the memtables hold that share)."""
    full = float(np.median([r["us_per_get"] for r in runs if r["full"]])) * 1e-6
    empty = float(np.median([r["us_per_get"] for r in runs if not r["full"]])) * 1e-6
    found = 1.0 - math.exp(-1.0)
    share = float(np.median([r["memtable_hits"] / (r["gets"] * found) for r in runs if r["full"]]))
    entries = share * found * MEMTABLE_NUM
    return (max(0.0, full - empty) / math.log2(entries) if entries > 1 else 0.0), entries


def last_level_cache(root: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> int | None:
    """Bytes of this host's last-level CPU cache (the highest `level` under /sys's cache index), or None."""
    best = (0, None)
    for d in sorted(root.glob("index*")) if root.is_dir() else ():
        try:
            level = int((d / "level").read_text())
            text = (d / "size").read_text().strip().upper()
        except (OSError, ValueError):
            continue
        scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
        try:
            size = int(float(text.rstrip("KMG")) * scale)
        except ValueError:
            continue
        if level >= best[0]:
            best = (level, size)
    return best[1]


def measure_big_memtable(num: int, repeat: int) -> list[dict]:
    """fillrandom without the WAL at 64 MiB memtables (`memtable_miss`), `repeat` runs."""
    args = [
        "--benchmarks=fillrandom,stats",
        f"--num={num}",
        *[a for a in COMMON if not a.startswith("--write_buffer_size")],
        f"--write_buffer_size={BIG_MEMTABLE}",
        "--disable_wal=1",
        "--statistics=1",
    ]
    out = []
    for _ in range(repeat):
        r = run_db_bench(args)
        stall = r.statistics.get("rocksdb.stall.micros", 0) / 1e6
        per = (r.seconds["fillrandom"] - stall) / num
        out.append({"kind": "big-memtable", "buffer": BIG_MEMTABLE, "per_write_s": per, "stall_s": stall})
        _say(f"fillrandom {num:,} at {BIG_MEMTABLE >> 20} MiB memtables without the WAL: {per * 1e6:.2f} us/write")
    return out


def fit_memtable_miss(small_s: float, big: list[dict], search: float, cache: int | None) -> float:
    """`memtable_miss`: the 64 MiB fills' seconds per write (median) less the 4 MiB ones' (`small_s`), less what
    the longer walk costs at `search` per level, over the walk's expected visits beyond `cache` bytes (lsm/costs.py's
    `memtable_walks`, the same expectation lsmsim charges). 0 without a cache size or the runs."""
    if not big or not cache:
        return 0.0
    big_s = float(np.median([r["per_write_s"] for r in big]))

    def walk(buffer: int, search: float, miss: float) -> float:
        cpu = SimpleNamespace(memtable_search=search, memtable_miss=miss, memtable_cache=cache)
        return memtable_walks(cpu, buffer, buffer / ENTRY)(None)

    longer = walk(BIG_MEMTABLE, search, 0.0) - walk(CAL_MEMTABLE, search, 0.0)
    visits = walk(BIG_MEMTABLE, 0.0, 1.0) - walk(CAL_MEMTABLE, 0.0, 1.0)
    return max(0.0, (big_s - small_s - longer) / visits) if visits > 0 else 0.0
