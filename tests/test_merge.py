import numpy as np
import pytest

from lsmsim.lsm.merge import dedup_versions, kway_merge, kway_merge_py, merge_samples, newer_first_violations
from lsmsim.lsm.sstable import Samples


def _random_inputs(rng, k, n, key_space):
    inputs, seq = [], 1
    for _ in range(k):
        keys = np.unique(rng.integers(0, key_space, n).astype(np.uint64))
        run = []
        for key in keys:
            run.append((int(key), seq, int(rng.integers(0, 200)), int(rng.random() < 0.2)))
            seq += 1
        inputs.append(run)
    return inputs


def _arrays(inputs):
    flat = [e for run in inputs for e in run]
    offsets = np.zeros(len(inputs) + 1, np.int64)
    offsets[1:] = np.cumsum([len(r) for r in inputs])
    cols = list(zip(*flat)) if flat else [[], [], [], []]
    return (
        np.array(cols[0], np.uint64),
        np.array(cols[1], np.uint64),
        np.array(cols[2], np.uint32),
        np.array(cols[3], np.uint8),
        offsets,
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("drop", [False, True])
def test_kway_merge_matches_reference(seed, drop):
    rng = np.random.default_rng(seed)
    inputs = _random_inputs(rng, k=int(rng.integers(1, 9)), n=int(rng.integers(0, 400)), key_space=500)
    k, s, v, t, off = _arrays(inputs)
    got = list(zip(*(a.tolist() for a in kway_merge(k, s, v, t, off, drop))))
    assert got == kway_merge_py(inputs, drop)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("drop", [False, True])
def test_pairwise_merge_matches_reference(seed, drop):
    rng = np.random.default_rng(100 + seed)
    inputs = _random_inputs(rng, k=int(rng.integers(1, 9)), n=int(rng.integers(0, 400)), key_space=500)
    parts = []
    for run in inputs:
        k, s, v, t, _ = _arrays([run])
        parts.append(Samples(k, s, v, t))
    got = list(zip(*(a.tolist() for a in merge_samples(parts, drop))))
    assert got == kway_merge_py(inputs, drop)


def test_newest_version_wins_and_tombstones_drop_only_at_bottom():
    old = [(5, 1, 100, 0), (7, 2, 100, 0)]
    new = [(5, 10, 0, 1), (6, 11, 50, 0)]
    k, s, v, t, off = _arrays([new, old])
    keys, seqs, vl, tb = kway_merge(k, s, v, t, off, False)
    assert keys.tolist() == [5, 6, 7] and seqs.tolist() == [10, 11, 2] and tb.tolist() == [1, 0, 0]
    keys, *_ = kway_merge(k, s, v, t, off, True)
    assert keys.tolist() == [6, 7]


def test_dedup_versions_keeps_newest():
    keys = np.array([3, 1, 3, 2, 1], np.uint64)
    seqs = np.arange(1, 6, dtype=np.uint64)
    k, s, v, t = dedup_versions(keys, seqs, np.arange(5, dtype=np.uint32), np.zeros(5, np.uint8))
    assert k.tolist() == [1, 2, 3] and s.tolist() == [5, 4, 3]


def test_newer_first_violations_detects_misordered_runs():
    # run 0 is younger and must hold the newer version of key 4
    keys = np.array([4, 9, 4], np.uint64)
    good = np.array([10, 11, 3], np.uint64)
    bad = np.array([2, 11, 3], np.uint64)
    off = np.array([0, 2, 3], np.int64)
    assert newer_first_violations(keys, good, off) == 0
    assert newer_first_violations(keys, bad, off) == 1
