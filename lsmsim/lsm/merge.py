"""Merge kernels on key samples, numba-compiled, with plain-Python references for the tests.

A sample is (key uint64, seqno uint64, value length uint32, tombstone uint8). Inputs to a k-way merge
are sorted by key with unique keys per input (a sorted run's file); the memtable may hold several
versions of a key and is deduplicated by `dedup_versions` before it is flushed. Newest version
(highest seqno) wins; tombstones are dropped only when the output is the bottommost data for its key
range, as RocksDB does (compaction_iterator.cc, `bottommost_level`).
"""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def _before(keys, seqs, pos, a, b):
    """Heap order: smaller key first; for equal keys the newer version (higher seqno) first."""
    ka = keys[pos[a]]
    kb = keys[pos[b]]
    if ka != kb:
        return ka < kb
    return seqs[pos[a]] > seqs[pos[b]]


@numba.njit(cache=True)
def _sift_down(heap, size, i, keys, seqs, pos):
    while True:
        left = 2 * i + 1
        if left >= size:
            return
        best = left
        right = left + 1
        if right < size and _before(keys, seqs, pos, heap[right], heap[left]):
            best = right
        if _before(keys, seqs, pos, heap[best], heap[i]):
            heap[i], heap[best] = heap[best], heap[i]
            i = best
        else:
            return


@numba.njit(cache=True)
def kway_merge(keys, seqs, vlens, tombs, offsets, drop_tombstones):
    """Merge k sorted inputs laid end to end (input i is offsets[i]:offsets[i+1]).

    Returns (keys, seqs, vlens, tombs) of the output, sorted by key, one version per key.
    O(n log k) with a binary heap of input heads.
    """
    k = offsets.shape[0] - 1
    n = offsets[k]
    ok = np.empty(n, np.uint64)
    os_ = np.empty(n, np.uint64)
    ov = np.empty(n, np.uint32)
    ot = np.empty(n, np.uint8)
    pos = offsets[:k].copy()
    end = offsets[1:].copy()
    heap = np.empty(k, np.int64)
    size = 0
    for i in range(k):
        if pos[i] < end[i]:
            heap[size] = i
            size += 1
    for i in range(size // 2 - 1, -1, -1):
        _sift_down(heap, size, i, keys, seqs, pos)
    m = 0
    have_last = False
    last = np.uint64(0)
    while size > 0:
        src = heap[0]
        p = pos[src]
        key = keys[p]
        if not (have_last and key == last):
            have_last = True
            last = key
            if not (drop_tombstones and tombs[p] != 0):
                ok[m] = key
                os_[m] = seqs[p]
                ov[m] = vlens[p]
                ot[m] = tombs[p]
                m += 1
        pos[src] = p + 1
        if pos[src] >= end[src]:
            size -= 1
            heap[0] = heap[size]
        _sift_down(heap, size, 0, keys, seqs, pos)
    return ok[:m], os_[:m], ov[:m], ot[:m]


def kway_merge_py(inputs, drop_tombstones):
    """Reference: inputs is a list of lists of (key, seq, vlen, tomb) tuples."""
    best = {}
    for run in inputs:
        for key, seq, vlen, tomb in run:
            if key not in best or seq > best[key][1]:
                best[key] = (key, seq, vlen, tomb)
    out = [best[k] for k in sorted(best)]
    if drop_tombstones:
        out = [e for e in out if not e[3]]
    return out


def dedup_versions(keys, seqs, vlens, tombs):
    """Sort memtable samples by key and keep the newest version of each key (what a flush writes).

    Samples arrive in seqno order, so a stable sort by key (radix sort for integers in NumPy) keeps
    each key's versions oldest to newest and the last of each group is the newest."""
    if seqs.shape[0] > 1 and not np.all(seqs[1:] >= seqs[:-1]):
        order = np.lexsort((seqs, keys))
    else:
        order = np.argsort(keys, kind="stable")
    keys, seqs, vlens, tombs = keys[order], seqs[order], vlens[order], tombs[order]
    keep = np.ones(keys.shape[0], bool)
    keep[:-1] = keys[:-1] != keys[1:]
    return keys[keep], seqs[keep], vlens[keep], tombs[keep]


@numba.njit(cache=True)
def newer_first_violations(keys, seqs, offsets):
    """Count keys whose version in an older input (higher index) is newer than in a younger one.

    Inputs are runs from youngest to oldest; each sorted by key. Used by the invariant check: a key's
    newer versions must always be in younger runs.
    """
    k = offsets.shape[0] - 1
    total = offsets[k]
    # order all samples by key, then input index; check seqnos decrease along each key group
    bad = 0
    idx = np.empty(total, np.int64)
    order_key = np.empty(total, np.uint64)
    for i in range(k):
        for p in range(offsets[i], offsets[i + 1]):
            idx[p] = i
            order_key[p] = keys[p]
    perm = np.argsort(order_key, kind="mergesort")  # stable: keeps input order for equal keys
    for j in range(1, total):
        a = perm[j - 1]
        b = perm[j]
        if keys[a] == keys[b] and idx[a] < idx[b] and seqs[a] <= seqs[b]:
            bad += 1
    return bad
