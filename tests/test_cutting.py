"""Output-file cutting (lsm/cutting.py): the numba kernel against the plain-Python transcription of
RocksDB 7.8.3's CompactionOutputs (tests/cutting_reference.py), and what the rules guarantee."""

import math

import numpy as np
import pytest

from lsmsim.lsm.cutting import AtKeys, BySize, RocksDBLevelCut, size_starts
from lsmsim.lsm.sstable import Samples
from lsmsim.lsm.tree import Tree

from .cutting_reference import starts as reference_starts


def _grandparents(rng, n_files, key_space, tree):
    """Disjoint files spread over the key space (sorted), as SSTFiles of `tree`."""
    bounds = np.sort(rng.choice(key_space, 2 * n_files, replace=False)).reshape(-1, 2)
    files = []
    for lo, hi in bounds:
        k = np.unique(np.linspace(lo, hi, 5).astype(np.uint64))
        s = Samples(
            k, np.arange(1, k.size + 1, dtype=np.uint64), np.full(k.size, 100, np.uint32), np.zeros(k.size, np.uint8)
        )
        f = tree.build_files(s, 2, None, 0.0)[0]
        f.bytes = int(rng.integers(1, 8)) * 1_000_000
        files.append(f)
    return files


@pytest.mark.parametrize("seed", range(12))
def test_kernel_matches_reference(seed):
    rng = np.random.default_rng(seed)
    tree = Tree(16, 6, 1)
    keys = np.unique(rng.integers(0, 1_000_000, 5000).astype(np.uint64))
    sizes = rng.uniform(100, 20_000, keys.size)
    gp = _grandparents(rng, int(rng.integers(0, 40)), 1_000_000, tree)
    target = float(rng.choice([200_000, 1_000_000, 4_000_000]))
    mcb = float(rng.choice([math.inf, 25 * target, 3 * target]))
    for dynamic in (True, False):
        cut = RocksDBLevelCut(target, gp, mcb, dynamic)
        got = cut.starts(keys, sizes).tolist()
        want = reference_starts(
            keys.tolist(), sizes.tolist(), [(f.min_key, f.max_key, f.bytes) for f in gp], target, mcb, dynamic
        )
        assert got == want


def test_without_grandparents_or_dynamic_sizing_it_is_the_size_cut():
    rng = np.random.default_rng(3)
    keys = np.arange(10_000, dtype=np.uint64)
    sizes = rng.uniform(50, 500, keys.size)
    by_size = size_starts(sizes, 100_000).tolist()
    assert RocksDBLevelCut(100_000).starts(keys, sizes).tolist() == by_size
    gp = _grandparents(rng, 10, 10_000, Tree(16, 6, 1))
    assert RocksDBLevelCut(100_000, gp, dynamic_file_size=False).starts(keys, sizes).tolist() == by_size
    # a file ends once it reaches the target: every file but the last holds >= target, < target + a sample
    cum = np.concatenate([[0.0], np.cumsum(sizes)])
    ends = by_size[1:] + [keys.size]
    held = [cum[z] - cum[a] for a, z in zip(by_size, ends)]
    assert all(100_000 <= h < 100_000 + 500 for h in held[:-1])


def test_dynamic_cuts_fall_on_grandparent_boundaries_and_stay_under_twice_the_target():
    """With grandparents, a file is cut between 50% and 200% of the target, and (unless it hit 2x) at a
    key that crosses a grandparent boundary, so no grandparent file is split between two outputs
    more often than the size cut splits them."""
    rng = np.random.default_rng(5)
    tree = Tree(16, 6, 1)
    keys = np.unique(rng.integers(0, 10_000_000, 200_000).astype(np.uint64))
    sizes = np.full(keys.size, 122.0)
    gp = _grandparents(rng, 120, 10_000_000, tree)
    target = 1_000_000.0
    st = RocksDBLevelCut(target, gp).starts(keys, sizes)
    held = np.diff(np.concatenate([st, [keys.size]])) * 122.0
    assert held[:-1].min() >= 0.5 * target and held.max() <= 2 * target + 122
    gp_lo = np.array([f.min_key for f in gp], np.uint64)
    gp_hi = np.array([f.max_key for f in gp], np.uint64)

    def split(starts):  # grandparent files whose key range an output boundary falls strictly inside
        inside = 0
        for i in starts[1:]:
            a, b = keys[i - 1], keys[i]
            inside += int(np.any((gp_lo <= a) & (b <= gp_hi)))
        return inside

    by_size = size_starts(sizes, target)
    assert split(st) < 0.25 * split(by_size)


def test_at_keys_cuts_before_each_key_and_by_size_within():
    keys = np.arange(0, 1000, dtype=np.uint64)
    sizes = np.full(1000, 10.0)
    assert AtKeys(np.array([100, 400], np.uint64)).starts(keys, sizes).tolist() == [0, 100, 400]
    assert AtKeys(np.array([100], np.uint64), target=3000).starts(keys, sizes).tolist() == [0, 100, 400, 700]
    assert BySize(2500).starts(keys, sizes).tolist() == [0, 250, 500, 750]


def test_build_files_takes_the_cut():
    tree = Tree(16, 6, 1)
    keys = np.arange(0, 1000, dtype=np.uint64)
    s = Samples(keys, keys + 1, np.full(1000, 100, np.uint32), np.zeros(1000, np.uint8))
    files = tree.build_files(s, 1, None, 0.0, AtKeys(np.array([10, 500], np.uint64)))
    assert [(f.min_key, f.max_key) for f in files] == [(0, 9), (10, 499), (500, 999)]
    assert sum(f.bytes for f in files) == 1000 * 122
