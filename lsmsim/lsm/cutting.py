"""Where a compaction's output is cut into files: the rules, as objects a policy hands the kernel.

`Tree.build_files` takes the start index of every output file (`starts`); a `Cut` computes them from
the merged samples' keys and real bytes. Three rules:

- `BySize(target)`: a file ends once it holds `target` bytes (RocksDB's plain size cut).
- `AtKeys(keys, target)`: a file also ends before each of `keys` (a partitioned merge cuts at the
  next level's file boundaries or at fixed key ranges, as Spooky's does; PVLDB'22 §4).
- `SplitEvenly(max_bytes)`: the fewest files of at most `max_bytes` each, of equal size (Spooky's
  partitioned merge into the largest level: an output projected above file_max is split in two
  equal files, §4.1).
- `RocksDBLevelCut`: RocksDB 7.8's `CompactionOutputs::ShouldStopBefore`
  (db/compaction/compaction_outputs.cc) for leveled compaction, with
  `level_compaction_dynamic_file_size` (default true since 7.8.0): a non-bottommost output may
  grow to 2x the target (`Compaction::Compaction`, db/compaction/compaction.cc,
  `max_output_file_size_`) and is cut at a grandparent (output level + 1) file boundary once it
  holds 50% of the target, +5% per boundary it has crossed, at most 90%; it is also cut before a key
  that skips a whole grandparent file larger than target / 8, and whenever the file plus the
  grandparent bytes it overlaps would exceed `max_compaction_bytes`. Output files then end where
  next-level files end, so later compactions pull in fewer next-level bytes.

The size of a file is the sum of its samples' real bytes before the key (RocksDB's
`EstimatedFileSize` after the previous key), so cuts fall on sample granularity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .._numba import numba
from .sstable import SSTFile


class Cut(Protocol):
    """A rule that places output-file boundaries in a compaction's merged, sorted samples."""

    def starts(self, keys: np.ndarray, sample_bytes: np.ndarray) -> np.ndarray:
        """Start index of each output file (first is 0), int64, for non-empty `keys`."""
        ...


def size_starts(sample_bytes: np.ndarray, target: float) -> np.ndarray:
    """Files of `target` bytes: a file ends once it holds at least `target` (the key that reaches it
    is its last)."""
    n = len(sample_bytes)
    cum = np.cumsum(sample_bytes)
    out = [0]
    base = 0.0
    while True:
        j = int(np.searchsorted(cum, base + target, side="left")) + 1
        if j >= n:
            break
        out.append(j)
        base = float(cum[j - 1])
    return np.asarray(out, np.int64)


@dataclass(frozen=True)
class BySize:
    """RocksDB's size cut: files of `target` bytes (the last one smaller)."""

    target: float

    def starts(self, keys: np.ndarray, sample_bytes: np.ndarray) -> np.ndarray:
        return size_starts(sample_bytes, self.target)


@dataclass(frozen=True)
class AtKeys:
    """Cut before each key in `keys` (sorted), and by size within each part when `target` is set."""

    keys: np.ndarray
    target: float | None = None

    def starts(self, keys: np.ndarray, sample_bytes: np.ndarray) -> np.ndarray:
        bounds = np.unique(np.searchsorted(keys, np.asarray(self.keys, np.uint64), side="left"))
        parts = np.concatenate([[0], bounds[(bounds > 0) & (bounds < len(keys))], [len(keys)]])
        out = []
        for a, z in zip(parts[:-1], parts[1:]):
            if self.target is None:
                out.append(np.array([a], np.int64))
            else:
                out.append(a + size_starts(sample_bytes[a:z], self.target))
        return np.concatenate(out)


@dataclass(frozen=True)
class SplitEvenly:
    """ceil(total / max_bytes) files of equal bytes (one file when the output fits in max_bytes)."""

    max_bytes: float

    def starts(self, keys: np.ndarray, sample_bytes: np.ndarray) -> np.ndarray:
        cum = np.cumsum(sample_bytes)
        total = float(cum[-1]) if len(cum) else 0.0
        n = max(1, int(np.ceil(total / self.max_bytes))) if self.max_bytes > 0 else 1
        if n == 1:
            return np.zeros(1, np.int64)
        # file k starts at the first sample whose bytes before it reach k * total / n
        before = cum - sample_bytes
        cuts = np.searchsorted(before, total * np.arange(1, n) / n, side="left")
        return np.unique(np.concatenate([[0], cuts[(cuts > 0) & (cuts < len(keys))]])).astype(np.int64)


@numba.njit(cache=True)
def rocksdb_level_starts(  # noqa: C901 (one pass over the keys, as ShouldStopBefore is one function)
    keys, sample_bytes, target, max_file, gp_min, gp_max, gp_bytes, max_compaction_bytes, dynamic
):
    """CompactionOutputs::ShouldStopBefore / UpdateGrandparentBoundaryInfo (RocksDB 7.8.3), one key
    sample at a time. Grandparent files (gp_*) are sorted and disjoint; keys are unique."""
    n = keys.shape[0]
    g_n = gp_min.shape[0]
    out = np.empty(n, np.int64)
    m = 0
    g = 0
    in_gap = True  # being_grandparent_gap_
    seen = False  # seen_key_
    overlapped = 0.0  # grandparent_overlapped_bytes_
    switched = 0  # grandparent_boundary_switched_num_ (since the current file opened)
    cur = 0.0  # current_output_file_size_
    open_ = False
    pre_cut_unit = float(np.ceil(target / 100.0))
    for i in range(n):
        k = keys[i]
        previous = overlapped
        crossed = 0
        while g < g_n:
            if in_gap:
                if k < gp_min[g]:
                    break
                if seen:
                    crossed += 1
                    overlapped += gp_bytes[g]
                    switched += 1
                in_gap = False
            else:
                if k <= gp_max[g]:
                    break
                if seen:
                    crossed += 1
                    switched += 1
                in_gap = True
                g += 1
        if not seen and not in_gap:
            overlapped = gp_bytes[g]  # the first key lands inside a grandparent file
        seen = True
        if open_:
            stop = False
            if cur >= max_file:
                stop = True
            elif crossed > 0:
                if overlapped + cur > max_compaction_bytes:
                    stop = True
                elif dynamic and crossed >= (2 if in_gap else 3) and overlapped - previous > target / 8.0:
                    stop = True  # the key skips a whole grandparent file worth keeping out
                elif dynamic and cur >= pre_cut_unit * (50 + min(switched * 5, 40)):
                    stop = True  # pre-cut at a grandparent boundary
            if stop:
                open_ = False
                switched = 0
                overlapped = 0.0 if in_gap else gp_bytes[g]
        if not open_:
            out[m] = i
            m += 1
            open_ = True
            cur = 0.0
        cur += sample_bytes[i]
    return out[:m]


@dataclass(frozen=True)
class RocksDBLevelCut:
    """RocksDB 7.8's output cutting for leveled compaction (see the module docstring).

    `grandparents`: the output level + 1 files overlapping the compaction (RocksDB's
    `CompactionPicker::GetGrandparents`), sorted by key. Without them (a bottommost output) or with
    `dynamic_file_size` off, files are cut at `target` as before 7.8."""

    target: float
    grandparents: Sequence[SSTFile] = field(default=())
    max_compaction_bytes: float = float("inf")
    dynamic_file_size: bool = True

    def starts(self, keys: np.ndarray, sample_bytes: np.ndarray) -> np.ndarray:
        gp = self.grandparents
        dynamic = self.dynamic_file_size and len(gp) > 0
        return rocksdb_level_starts(
            keys,
            np.asarray(sample_bytes, np.float64),
            float(self.target),
            float(2 * self.target if dynamic else self.target),
            np.array([f.min_key for f in gp], np.uint64),
            np.array([f.max_key for f in gp], np.uint64),
            np.array([f.bytes for f in gp], np.float64),
            float(self.max_compaction_bytes),
            dynamic,
        )
