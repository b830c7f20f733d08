"""What a block-cache miss costs a Get on this host (machine.cpu.block_read and block_read_per_byte; calibrate §3).

A Get whose data block is not in RocksDB's block cache reads it: BlockBasedTable::MaybeReadBlockAndLoadToCache
(table/block_based/block_based_table_reader.cc) has BlockFetcher::ReadBlockContents (table/block_fetcher.cc) pread
the block and its 5-byte trailer into a heap buffer (the OS page cache serves it here: the data is a few tens of MB)
and verify its checksum over the whole block, then puts the block into the LRU cache, evicting others
(cache/lru_cache.cc). The copy and the checksum grow with the block; the call, the allocation and the cache's
bookkeeping do not. So a miss costs block_read + block_read_per_byte x block_size of CPU.

Measured directly: on one DB (fillrandom 500K, the decision-fidelity shape), readrandom from one thread with an
8 MiB block cache (db_bench's default: about half the Gets miss) and with a 64 MiB one (all but a few hit), in
turns; the thread's CPU per Get (schedstat, so that waits for a core do not count) over the misses per Get
(rocksdb.block.cache.data.miss) is the cost of one miss. At 4 and 16 KiB blocks the two costs give the line. On
the Xeon host (2026-11-28) a miss cost 1.2-2.0 us at 4 KiB and 3.2-4.7 us at 16 KiB over three measurements
(0.22-0.23 ns per byte each time), where the matrix's read fit had put block_read at 0.27 us: its two read cases
differ in the cache, but their 100K-read runs last a third of a second beside the reopen's compaction, and
readrandom ran faster with the 1 GiB cache than with 8 MiB in one calibration and slower in another. The
decision-fidelity recordings show what the miss decides: db_bench's readwhilewriting ran 28-38% faster with a
64 MiB cache than with 8 MiB, and 15% slower at 16 KiB blocks.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np

from .contention import _say
from .dbbench import run_db_bench
from .matrix import COMMON

NUM = 500_000
BLOCK_SIZES = (4096, 16384)
CACHES = (8 << 20, 64 << 20)  # db_bench's default block cache, and one that holds the DB's data
SECONDS = 2


def _args(block_size: int, *extra: str) -> list[str]:
    common = [a for a in COMMON if not a.startswith("--threads")]
    return [f"--num={NUM}", *common, f"--block_size={block_size}", "--statistics=1", "--threads=1", *extra]


def measure_block_reads(repeat: int) -> list[dict]:
    """Per block size: a fill, then `repeat` rounds of readrandom at each cache size (CACHES), one thread, SECONDS
    each: the reader's CPU per Get and the data-block misses per Get."""
    out = []
    for bs in BLOCK_SIZES:
        d = Path(tempfile.mkdtemp(prefix="lsmsim-calibrate-"))
        try:
            run_db_bench(["--benchmarks=fillrandom", *_args(bs)], db=d / "db")
            for i in range(repeat):
                for cache in CACHES:
                    args = ["--benchmarks=readrandom", "--use_existing_db=1", f"--duration={SECONDS}"]
                    r = run_db_bench([*args, *_args(bs, f"--cache_size={cache}")], db=d / "db", thread_cpu=True)
                    gets = r.statistics.get("rocksdb.number.keys.read", 0)
                    reader = r.thread_cpu.get("db_bench", 0.0)  # the benchmark's one thread (the main one apart)
                    if not gets or not reader:
                        continue
                    out.append(
                        {
                            "block_size": bs,
                            "cache": cache,
                            "round": i,
                            "cpu_per_get_s": reader / gets,
                            "miss_per_get": r.statistics.get("rocksdb.block.cache.data.miss", 0) / gets,
                        }
                    )
                    _say(
                        f"readrandom block_size={bs} cache={cache >> 20} MiB #{i + 1}: "
                        f"{reader / gets * 1e6:.2f} us of CPU per get, {out[-1]['miss_per_get']:.3f} misses per get"
                    )
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return out


def miss_costs(runs: list[dict]) -> dict[int, float]:
    """Seconds of CPU per block-cache miss at each block size: per round, the Get's CPU at the small cache less at
    the large one over the misses' difference; the median over the rounds."""
    costs: dict[int, list[float]] = {}
    for bs in sorted({r["block_size"] for r in runs}):
        rounds: dict[int, dict[int, dict]] = {}
        for r in runs:
            if r["block_size"] == bs:
                rounds.setdefault(r["round"], {})[r["cache"]] = r
        for pair in rounds.values():
            if len(pair) < 2:
                continue
            small, large = pair[min(pair)], pair[max(pair)]
            extra = small["miss_per_get"] - large["miss_per_get"]
            if extra > 0.05:  # too few more misses to tell their cost from noise
                costs.setdefault(bs, []).append((small["cpu_per_get_s"] - large["cpu_per_get_s"]) / extra)
    return {bs: float(np.median(c)) for bs, c in costs.items()}


def fit_block_read(runs: list[dict]) -> tuple[float, float] | None:
    """(block_read, block_read_per_byte) in seconds: the line through the miss costs at the block sizes measured
    (least squares; both kept >= 0), or None without two block sizes."""
    costs = miss_costs(runs)
    if len(costs) < 2:
        return None
    sizes = np.array(sorted(costs), float)
    y = np.array([costs[int(s)] for s in sizes])
    slope, intercept = np.polyfit(sizes, y, 1)
    if slope < 0:  # a larger block cannot cost less to copy and checksum: one cost for all sizes
        return max(0.0, float(y.mean())), 0.0
    if intercept < 0:
        return 0.0, float((y @ sizes) / (sizes @ sizes))
    return float(intercept), float(slope)


__all__ = ["BLOCK_SIZES", "CACHES", "fit_block_read", "measure_block_reads", "miss_costs"]
