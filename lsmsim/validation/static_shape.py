"""EcoTune §4.1's read path on a real RocksDB: Gets of last-level keys and Seeks on a static tree of many runs.

Table 3's I/Os per query come from two terms lsmsim models (lsm/costs.py): a Get of a key in the last level reads
one data block plus a false positive's block for every run above whose filter passes, and a Seek positions every
run it cannot rule out. RocksDB can hold many sorted runs only in L0 (each L0 file is one run; L1 and below hold
one each), so the real shape here is `upper` L0 runs over one run in the last level: the same number of runs
above the last level as a shape with tiered L1 and L2, which a Get of a last-level key sees alike (it probes every
run's filter in turn: `Version::Get`, db/version_set.cc, through `FilePicker` over L0's files then each level's).

`measure_shape` builds it (keys partitioned at random, each key in one run, no compaction after the bottom run is
moved down with CompactRange's target_level), runs Gets of bottom-run keys and Seeks of random keys, and reads the
block-cache and Bloom tickers (`rocksdb.block.cache.data.{hit,miss}`, `rocksdb.bloom.filter.full.{positive,true.
positive}`): data-block accesses per operation and the filter's false-positive rate.
"""

from __future__ import annotations

import struct
import tempfile

import numpy as np

from ..rocksdb.bridge import RocksDB
from ..rocksdb.options import Options

TICKERS = (
    "rocksdb.block.cache.data.miss",
    "rocksdb.block.cache.data.hit",
    "rocksdb.bloom.filter.useful",
    "rocksdb.bloom.filter.full.positive",
    "rocksdb.bloom.filter.full.true.positive",
)


def _key(k: int, key_size: int) -> bytes:
    return struct.pack(">Q", int(k)) + b"\0" * (key_size - 8)


def _tickers(db: RocksDB) -> np.ndarray:
    s = db.statistics()
    return np.array([float(s.get(t, 0)) for t in TICKERS])


def measure_shape(
    upper: list[int],
    num: int,
    ops: int = 2000,
    key_size: int = 8,
    value_size: int = 256,
    bloom_bits_per_key: float = 10.0,
    seed: int = 0,
    path: str | None = None,
) -> dict:
    """Build `num` keys as one last-level run (L3 of 4) plus L0 runs of `upper` entries each (youngest first),
    then run `ops` Gets of last-level keys and `ops` Seeks. Returns data-block accesses per Get and per Seek,
    the filter's false positives per Get, its false-positive rate over the runs it ruled on, and the run count."""
    rng = np.random.default_rng(seed)
    keys = rng.permutation(num)
    value = rng.bytes(value_size)
    sizes = list(upper)
    bottom = keys[sum(sizes) :]
    opts = Options(
        num_levels=4,
        disable_auto_compactions=True,
        disable_wal=True,
        write_buffer_size=1 << 30,
        level0_slowdown_writes_trigger=1 << 20,
        level0_stop_writes_trigger=1 << 20,
        bloom_bits_per_key=bloom_bits_per_key,
        block_cache_size=64 << 10,  # tiny: nearly every data-block access misses, as on the paper's 53 GB tree
        target_file_size_base=1 << 30,  # one file per run
    )
    with tempfile.TemporaryDirectory(dir=path) as d:
        db = RocksDB.open(d, opts)
        try:
            for k in np.sort(bottom):
                db.put(_key(k, key_size), value)
            db.flush()
            db.compact_range(target_level=3)
            at = 0
            for n in reversed(sizes):  # oldest first, so the youngest run is the newest L0 file
                for k in np.sort(keys[at : at + n]):
                    db.put(_key(k, key_size), value)
                at += n
                db.flush()
            runs = db.num_files_at_level(0) + sum(1 for lv in (1, 2, 3) if db.num_files_at_level(lv))
            t0 = _tickers(db)
            for k in rng.choice(bottom, ops):
                db.get(_key(k, key_size))
            t1 = _tickers(db)
            for k in rng.integers(0, num, ops):
                # a fresh iterator per Seek: a reused one keeps its current block when the next target falls in it
                # (BlockBasedTableIterator::SeekImpl), which on small runs saves accesses a random Seek pays
                with db.iterator() as it:
                    it.seek(_key(k, key_size))
            t2 = _tickers(db)
        finally:
            db.close()
    g, s = t1 - t0, t2 - t1
    positive, true_positive, useful = g[3], g[4], g[2]
    false_pos = positive - true_positive
    return {
        "runs": runs,
        "data_blocks_per_get": (g[0] + g[1]) / ops,
        "false_positives_per_get": false_pos / ops,
        "filter_fpr": false_pos / max(1.0, false_pos + useful),
        "data_blocks_per_seek": (s[0] + s[1]) / ops,
    }
