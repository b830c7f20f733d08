"""Spooky's partitions and the groups of a partitioned merge (PVLDB'22 §4.1-4.3, Figs. 8, 10, 11).

The largest level's files cut the key space into partitions: partition j holds the keys from file j's smallest
key up to file j+1's (the first partition also holds the keys below the first file, the last the keys above
the last). Dividing merges cut level X's outputs at these keys, and every partitioned merge into a level z < L
cuts its outputs at them too, so each file of levels X..L-1 lies in one partition and overlaps at most one file
of level L.

A partitioned merge from X into z processes, in key order, one *group* at a time: the upper files (levels
X..z-1) of the partition holding the smallest key left in them, with every file of levels X..z that overlaps
their key span, repeated until the span stops growing (a file crossing a boundary pulls in its neighbour,
which happens only when the boundaries moved under files cut earlier). A level-z file that no group's span
reaches is not rewritten: skewed updates leave the largest level's other files untouched (§4.3, Fig. 11A).
Into the largest level (z = L), seamless adaptation (§4.1) takes the following partitions into the group while
they also hold upper files and the group's bytes stay within file_max ("we merge them all into one file"); the
output is then split evenly into files of at most file_max (`SplitEvenly`: two when the projected size is
above file_max, as the paper prints, and more when a file must shrink by more than 2x, after a new level made
file_max T times smaller).

Cost: one binary search per run of levels X..z per group, not a pass over the level's files.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...lsm.sstable import Run, SSTFile
from ...lsm.tree import Tree

KEY_END = 2**64  # one past the largest uint64 key


def boundaries(tree: Tree, largest: int) -> np.ndarray:
    """The keys that start partitions 1.. : the smallest key of every level-L file after the first (sorted)."""
    runs = tree.runs_at(largest)
    if not runs or not runs[-1].files:
        return np.zeros(0, np.uint64)
    mins, _, _ = runs[-1].key_arrays()  # the oldest run of level L sets the boundaries (§4.4 for tiering)
    return mins[1:]


def partition_range(cuts: np.ndarray, j: int) -> tuple[int, int]:
    """[lo, hi) of partition j."""
    lo = 0 if j == 0 else int(cuts[j - 1])
    hi = KEY_END if j >= len(cuts) else int(cuts[j])
    return lo, hi


def partition_of(cuts: np.ndarray, key: int) -> int:
    return int(np.searchsorted(cuts, np.uint64(key), side="right"))


@dataclass
class Group:
    """One partitioned merge: its input files and the partitions [first, last] it spans."""

    inputs: list[SSTFile]
    first: int
    last: int


def _files_in(runs: list[Run], lo: int, hi: int) -> list[SSTFile]:
    """Files of `runs` that intersect keys [lo, hi) (hi exclusive)."""
    if hi <= lo:
        return []
    return [f for r in runs for f in r.overlapping(lo, hi - 1)]


def first_upper_key(upper: list[Run]) -> int | None:
    """The smallest key in levels X..z-1, where the next group starts (runs are sorted: their first files)."""
    keys = [r.files[0].min_key for r in upper if r.files]
    return min(keys) if keys else None


def _closure(runs: list[Run], files: list[SSTFile]) -> list[SSTFile]:
    """`files` with every file of `runs` that overlaps their key span, until the span stops growing."""
    lo, hi = min(f.min_key for f in files), max(f.max_key for f in files)
    while True:
        out = [f for r in runs for f in r.overlapping(lo, hi)]
        new_lo, new_hi = min(f.min_key for f in out), max(f.max_key for f in out)
        if (new_lo, new_hi) == (lo, hi):
            return out
        lo, hi = new_lo, new_hi


def next_group(
    tree: Tree, x: int, z: int, cuts: np.ndarray, file_max: float | None, merge_target: bool = True
) -> Group | None:
    """The next group of a partitioned merge from level x into level z, or None when levels x..z-1 are empty.

    `file_max` (z = L only) turns on seamless adaptation's merging of adjacent partitions. Without `merge_target`
    (a tiered level z, §4.4) the group's output is a new run and level z's files are not among its inputs."""
    upper = [r for i in range(x, z) for r in tree.runs_at(i)]
    start = first_upper_key(upper)
    if start is None:
        return None
    spanned = upper + (tree.runs_at(z) if merge_target else [])
    j = partition_of(cuts, start)
    files = _closure(spanned, _files_in(upper, *partition_range(cuts, j)))
    group = Group(files, j, partition_of(cuts, max(f.max_key for f in files)))
    if file_max is None:
        return group
    while group.last < len(cuts):  # seamless adaptation: absorb the next partitions while the group fits in one file
        lo, hi = partition_range(cuts, group.last + 1)
        new_upper = [f for f in _files_in(upper, lo, hi) if f.min_key >= lo]
        if not new_upper:
            break  # the next partition has no new data: left untouched (§4.3)
        grown = _closure(spanned, group.inputs + new_upper)
        if sum(f.bytes for f in grown) > file_max:
            break
        group = Group(grown, group.first, partition_of(cuts, max(f.max_key for f in grown)))
    return group
