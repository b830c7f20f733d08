"""Hand-built LSM shapes and a static view, for testing policies without running a simulation.

In the spirit of RocksDB's picker tests (db/compaction/compaction_picker_test.cc, `Add(level, file,
"150", "200")`): describe the tree, hand it to a policy through a `StaticView`, check what it picks.

    tree = TreeBuilder().run(2, (0, 99_500, 3000), (100_000, 199_000, 200)).run(1, (0, 99_000, 1000)).build()
    c = policy.pick(StaticView(tree))
"""

from __future__ import annotations

import numpy as np

from .lsm.sstable import Samples
from .lsm.tree import Tree
from .policies.view import StaticView

# (smallest key, largest key, sampled entries spread evenly between them[, tombstone share[, first seqno]]):
# the share of the file's entries that are tombstones (every k-th one), and the file's seqnos from a given start
FileSpec = tuple


class TreeBuilder:
    """Describe a tree run by run; `build()` makes it with older data at lower sequence numbers (deeper
    levels first, and within a level the later-listed, older runs first), as an LSM-tree holds it."""

    def __init__(self, key_size: int = 16, entry_overhead: int = 8, entries_per_sample: int = 1, value_size: int = 100):
        self.key_size, self.entry_overhead, self.eps = key_size, entry_overhead, entries_per_sample
        self.value_size = value_size
        self._runs: dict[int, list[list[FileSpec]]] = {}

    def run(self, level: int, *files: FileSpec) -> TreeBuilder:
        """Add a sorted run of `files` (non-overlapping, in key order) to `level`; the runs of one level
        are given youngest first, so each call adds a run older than the level's previous ones."""
        self._runs.setdefault(level, []).append(list(files))
        return self

    def levels(self, shape: dict[int, list[list[FileSpec]]]) -> TreeBuilder:
        """Add every run of `shape`: {level: [run, ...] youngest first, each run a list of files}."""
        for level, runs in shape.items():
            for files in runs:
                self.run(level, *files)
        return self

    def build(self) -> Tree:
        tree = Tree(self.key_size, self.entry_overhead, self.eps)
        seq = 1
        for level in sorted(self._runs, reverse=True):
            for files in reversed(self._runs[level]):
                built = []
                for lo, hi, n, *extra in files:
                    keys = np.unique(np.linspace(lo, hi, n).astype(np.uint64))
                    share = extra[0] if extra else 0.0
                    first = extra[1] if len(extra) > 1 else seq
                    seqs = np.arange(first, first + keys.size, dtype=np.uint64)
                    seq = max(seq, first + keys.size)
                    tombs = np.zeros(keys.size, np.uint8)
                    if share > 0:
                        tombs[:: max(1, round(1 / share))] = 1
                    vlens = np.where(tombs == 1, 0, self.value_size).astype(np.uint32)
                    s = Samples(keys, seqs, vlens, tombs)
                    built.append(tree.build_files(s, level, None, 0.0)[0])
                tree.level(level).runs.insert(0, tree.new_run(built))
        tree.version += 1  # a changed tree is a new version (what caches per version key on)
        return tree


__all__ = ["StaticView", "TreeBuilder"]
