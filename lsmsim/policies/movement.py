"""Data movement: which file of a level a partial compaction takes first (Sarkar et al. PVLDB'21 §3.1.4).

RocksDB ranks a level's files once per version by `compaction_pri` (VersionStorageInfo::
UpdateFilesByCompactionPri, db/version_set.cc) and the picker takes the first free one. The orders here are
RocksDB's, by its option names, plus the paper's least overlap with the grandparent (LO+2, which RocksDB lacks):

- `min_overlapping_ratio` (LO+1): next-level bytes overlapped * 1024 // the file's compensated size, ties to the
  smaller key (SortFileByOverlappingRatio);
- `min_overlapping_ratio_grandparent` (LO+2): the same against level + 2 (the paper's §4.1, after LevelDB's
  grandparent-overlap bookkeeping); against the parent where no level + 2 exists;
- `by_compensated_size` (the paper's "most tombstones"): largest compensated size first, where a file whose
  deletions are at least half its entries counts (2 * deletions - entries) * average value size * 2 more bytes
  (VersionStorageInfo::ComputeCompensatedSizes, kDeletionWeightOnCompaction = 2);
- `oldest_largest_seq_first` (the paper's "coldest": the file whose newest entry is oldest);
- `oldest_smallest_seq_first` (the paper's "oldest": the file holding the oldest entry);
- `round_robin` (RR): the first file at or after the level's compaction cursor, then on from the start
  (SortFileByRoundRobin); L0, whose files overlap, goes oldest smallest seqno first there.

Each order is a list of indices into the run's files, computed from the run's key arrays (numpy, no binary
search per file), so a pick costs O(files log files) as RocksDB's sort does.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..lsm.sstable import Run, SSTFile

CompactionPri = Literal[
    "min_overlapping_ratio",
    "min_overlapping_ratio_grandparent",
    "by_compensated_size",
    "oldest_largest_seq_first",
    "oldest_smallest_seq_first",
    "round_robin",
]
DELETION_WEIGHT = 2  # kDeletionWeightOnCompaction


def compensated_size(f: SSTFile, avg_value_size: float) -> float:
    """ComputeCompensatedSizes: the file size, plus deletions beyond half the entries weighted as values."""
    return f.bytes + max(0, 2 * f.tombstones - f.entries) * avg_value_size * DELETION_WEIGHT


def compensated_sizes(src: Run, avg_value_size: float) -> np.ndarray:
    """`compensated_size` of every file of `src`, in key order (the plain sizes when the run holds no deletion)."""
    size = np.diff(src.key_arrays()[2])
    if not src.tombstones:
        return size
    return np.fromiter((compensated_size(f, avg_value_size) for f in src.files), np.float64, len(src.files))


def average_value_size(runs: list[Run]) -> float:
    """GetAverageValueSize's stand-in: bytes per non-deletion entry over the runs (lsmsim keeps no raw value
    bytes per file; keys and per-entry overhead are included, which only scales the deletion weight)."""
    entries = sum(r.entries - r.tombstones for r in runs)
    return sum(r.bytes for r in runs) / entries if entries > 0 else 0.0


def order(
    pri: CompactionPri,
    src: Run,
    below: Run | None,
    grandparent: Run | None = None,
    cursor: int | None = None,
    avg_value_size: float = 0.0,
) -> list[int]:
    """Indices of `src`'s files, first to compact first."""
    files = src.files
    n = len(files)
    if n == 0:
        return []
    mins, maxs, cum = src.key_arrays()
    if pri in ("min_overlapping_ratio", "min_overlapping_ratio_grandparent"):
        against = grandparent if pri.endswith("grandparent") and grandparent is not None else below
        size = np.maximum(1, compensated_sizes(src, avg_value_size).astype(np.int64))
        over = against.overlap_bytes(mins, maxs) if against is not None and against.files else np.zeros(n, np.int64)
        return np.lexsort((mins, over * 1024 // size)).tolist()
    if pri == "by_compensated_size":
        return np.lexsort((mins, -compensated_sizes(src, avg_value_size).astype(np.float64))).tolist()
    if pri == "oldest_largest_seq_first":
        return np.lexsort((mins, np.fromiter((f.max_seq for f in files), np.uint64, n))).tolist()
    if pri == "oldest_smallest_seq_first":
        return np.lexsort((mins, np.fromiter((f.min_seq for f in files), np.uint64, n))).tolist()
    if pri == "round_robin":
        start = 0 if cursor is None else int(np.searchsorted(mins, np.uint64(cursor), "left"))
        if start >= n:
            start = 0
        return list(range(start, n)) + list(range(start))
    raise ValueError(f"unknown compaction_pri {pri!r}")


def l0_order(pri: CompactionPri, l0: list[SSTFile], avg_value_size: float = 0.0) -> list[SSTFile] | None:
    """L0's order for the priorities that do not look below (L0 files overlap, so no cursor: round robin goes
    oldest smallest seqno first there, as SortFileByRoundRobin does); None where the caller ranks by overlap."""
    if pri in ("min_overlapping_ratio", "min_overlapping_ratio_grandparent"):
        return None
    if pri == "by_compensated_size":
        return sorted(l0, key=lambda f: (-compensated_size(f, avg_value_size), f.min_key))
    if pri == "oldest_largest_seq_first":
        return sorted(l0, key=lambda f: (f.max_seq, f.min_key))
    return sorted(l0, key=lambda f: (f.min_seq, f.min_key))
