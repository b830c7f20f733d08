"""The memtable's CPU on this host (`lsmsim calibrate`, section 3's end): the skiplist walk per log2 of its
entries (`memtable_search`, from readrandom with full memtables against flushed ones) and the walk's misses once a
memtable outgrows what the CPU keeps close (`memtable_miss` per visit beyond `memtable_cache` bytes, both fitted
from fillrandom without the WAL at 4, 8, 16 and 64 MiB memtables).

Measured on the AMD EPYC host (2 vCPUs, a 32 MiB L3), db_bench 7.8.3 fillrandom 1M keys without the WAL, three
runs each: 1.95, 2.19, 2.44, 2.94 and 3.43 us/write at 4, 8, 16, 32 and 64 MiB memtables. The cost climbs from
8 MiB on, not at the L3's 32 MiB; log2 of the entries explains 0.08 us per doubling of it. Fitted, the visits
beyond 8 MiB cost 96 ns more each (rms 50 ns over the five; with the cache at the L3's size, 295 ns and rms
247 ns): a DRAM load's latency. Not the TLB: with the memtable in 2 MiB huge pages (db_bench
--memtable_use_huge_page, pages reserved) the 64 MiB fills ran 3.13 against 3.35 us/write, 7% less. The L3 is
shared with the other cores of its complex (on a VM, other tenants'), and the fit finds this VM's share of it.
`lsmsim calibrate` runs 4, 8, 16 and 64 MiB twice each (within its 3 minutes): on that host it placed the cache at
4.76 MiB with 82 ns per missed visit.
memtable/inlineskiplist.h: every node visit of FindSpliceForLevel is a dependent load.
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
BIG_MEMTABLE = 64 * 2**20  # RocksDB's default write_buffer_size
# the fills that place memtable_cache, the calibration's 4 MiB among them: in one sweep, so that the VM's speed, which
# moves within minutes, moves them alike (a 32 MiB fill moved no fit on the AMD EPYC host: left out for time)
BIG_MEMTABLES = (4 * 2**20, 8 * 2**20, 16 * 2**20, BIG_MEMTABLE)
CAL_MEMTABLE = 4 * 2**20  # the calibration's fills (matrix.COMMON)
# memtable_cache's candidates: from the calibration's memtable (whose fills price memtable_insert without misses) to
# 16x it, in quarter octaves
CACHE_GRID = tuple(CAL_MEMTABLE * 2 ** (i / 4) for i in range(17))
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


def measure_big_memtable(num: int, repeat: int = 1, sizes: tuple[int, ...] = BIG_MEMTABLES) -> list[dict]:
    """fillrandom without the WAL at each memtable size of `sizes`, `repeat` rounds of the sizes in turn
    (`memtable_miss` and `memtable_cache`). One round is too few on a VM: on the AMD EPYC host single rounds placed
    the cache at 4, 4.8, 6.7, 8 and 13.5 MiB, one 16 MiB fill running slower than a 32 MiB one."""
    out = []
    for buffer in [b for _ in range(repeat) for b in sizes]:
        args = [
            "--benchmarks=fillrandom,stats",
            f"--num={num}",
            *[a for a in COMMON if not a.startswith("--write_buffer_size")],
            f"--write_buffer_size={buffer}",
            "--disable_wal=1",
            "--statistics=1",
        ]
        r = run_db_bench(args)
        stall = r.statistics.get("rocksdb.stall.micros", 0) / 1e6
        per = (r.seconds["fillrandom"] - stall) / num
        out.append({"kind": "big-memtable", "buffer": buffer, "per_write_s": per, "stall_s": stall})
        _say(f"fillrandom {num:,} at {buffer >> 20} MiB memtables without the WAL: {per * 1e6:.2f} us/write")
    return out


def _walk(buffer: float, search: float, miss: float, cache: float | None) -> float:
    """The active memtable's expected walk per write (lsm/costs.py's `memtable_walks`, what lsmsim charges)."""
    cpu = SimpleNamespace(memtable_search=search, memtable_miss=miss, memtable_cache=cache)
    return memtable_walks(cpu, buffer, buffer / ENTRY)(None)


def fit_memtable_miss(small_s: float, big: list[dict], search: float, llc: int | None) -> tuple[float, float | None]:
    """(`memtable_miss`, `memtable_cache`) from the fills without the WAL: `small_s` seconds per write at the
    calibration's 4 MiB memtables (unless `big` has its own) and `big`'s at larger ones. Per write, a fixed part,
    the walk at `search` per level and `memtable_miss` per visit beyond the cache: for each cache size of CACHE_GRID
    the fixed part and the miss by least squares over the sizes' medians; the cache whose fit leaves the least error.
    With one larger size (earlier calibrations: 64 MiB only) the cache cannot be placed: it is the last-level cache
    `llc` (/sys) and the miss the two sizes' difference. (0, None) without the runs; the miss is never negative."""
    sizes = sorted({r.get("buffer", BIG_MEMTABLE) for r in big} - {CAL_MEMTABLE})
    if not sizes:
        return 0.0, None
    x = [CAL_MEMTABLE, *sizes]
    y = np.array([np.median([r["per_write_s"] for r in big if r.get("buffer", BIG_MEMTABLE) == b]) for b in x[1:]])
    own = [r["per_write_s"] for r in big if r.get("buffer") == CAL_MEMTABLE]
    y = np.r_[np.median(own) if own else small_s, y]
    caches = CACHE_GRID if len(sizes) > 1 else ((llc,) if llc else ())
    best = (math.inf, 0.0, None)
    for cache in caches:
        base = np.array([_walk(b, search, 0.0, cache) for b in x])
        visits = np.array([_walk(b, 0.0, 1.0, cache) for b in x])
        if len(x) == 2:  # anchored at the 4 MiB fills, as the earlier calibrations were
            miss = (y[1] - y[0] - (base[1] - base[0])) / (visits[1] - visits[0]) if visits[1] > visits[0] else 0.0
            miss, err = max(0.0, float(miss)), 0.0
        else:
            a = np.c_[np.ones(len(x)), visits]
            (_, miss), *_ = np.linalg.lstsq(a, y - base, rcond=None)
            miss = max(0.0, float(miss))
            fixed = float(np.mean(y - base - miss * visits))
            err = float(np.sum((y - base - miss * visits - fixed) ** 2))
        if err < best[0]:
            best = (err, miss, cache)
    return (best[1], best[2]) if best[1] > 0 else (0.0, None)
