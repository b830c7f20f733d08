"""Merge kernels on key samples, numba-compiled, with plain-Python references for the tests.

A sample is (key uint64, seqno uint64, value length uint32, tombstone uint8). Inputs to a k-way merge
are sorted by key with unique keys per input (a sorted run's file); the memtable may hold several
versions of a key and is deduplicated by `dedup_versions` before it is flushed. Newest version
(highest seqno) wins; tombstones are dropped only when the output is the bottommost data for its key
range, as RocksDB does (compaction_iterator.cc, `bottommost_level`).
"""

from __future__ import annotations

import numpy as np

from .._numba import numba


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
def merge2(ak, aseq, av, at, bk, bseq, bv, bt, drop_tombstones):
    """Two sorted inputs merged with two pointers (no heap); newest version of each key wins."""
    return _merge2_impl(ak, aseq, av, at, 0, ak.shape[0], bk, bseq, bv, bt, 0, bk.shape[0], drop_tombstones)


@numba.njit(cache=True)
def _merge2(keys, seqs, vlens, tombs, a0, a1, b0, b1, drop_tombstones):
    return _merge2_impl(keys, seqs, vlens, tombs, a0, a1, keys, seqs, vlens, tombs, b0, b1, drop_tombstones)


@numba.njit(cache=True)
def _merge2_impl(keys, seqs, vlens, tombs, a0, a1, kb_, sb_, vb_, tb_, b0, b1, drop_tombstones):
    """Two-input merge without a heap (the common leveled case: one file into one run)."""
    n = (a1 - a0) + (b1 - b0)
    ok = np.empty(n, np.uint64)
    os_ = np.empty(n, np.uint64)
    ov = np.empty(n, np.uint32)
    ot = np.empty(n, np.uint8)
    i, j, m = a0, b0, 0
    while i < a1 or j < b1:
        from_a = True
        if j >= b1:
            p = i
            i += 1
        elif i >= a1:
            p = j
            j += 1
            from_a = False
        else:
            ka = keys[i]
            kb = kb_[j]
            if ka < kb:
                p = i
                i += 1
            elif kb < ka:
                p = j
                j += 1
                from_a = False
            else:  # same key: keep the newer, skip the other
                if seqs[i] >= sb_[j]:
                    p = i
                else:
                    p = j
                    from_a = False
                i += 1
                j += 1
        if from_a:
            if drop_tombstones and tombs[p] != 0:
                continue
            ok[m] = keys[p]
            os_[m] = seqs[p]
            ov[m] = vlens[p]
            ot[m] = tombs[p]
        else:
            if drop_tombstones and tb_[p] != 0:
                continue
            ok[m] = kb_[p]
            os_[m] = sb_[p]
            ov[m] = vb_[p]
            ot[m] = tb_[p]
        m += 1
    return ok[:m], os_[:m], ov[:m], ot[:m]


@numba.njit(cache=True)
def kway_merge(keys, seqs, vlens, tombs, offsets, drop_tombstones):
    """Merge k sorted inputs laid end to end (input i is offsets[i]:offsets[i+1]).

    Returns (keys, seqs, vlens, tombs) of the output, sorted by key, one version per key.
    O(n log k) with a binary heap of input heads; two inputs take a plain two-pointer merge.
    """
    k = offsets.shape[0] - 1
    if k == 2:
        return _merge2(keys, seqs, vlens, tombs, offsets[0], offsets[1], offsets[1], offsets[2], drop_tombstones)
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


def merge_samples(parts, drop_tombstones: bool):
    """Merge sorted sample sets (objects with keys/seqs/vlens/tombs) into one, newest version per
    key. Inputs are merged two at a time, smallest first (Huffman order), so a large run is passed
    over once however many small L0 files join it; deletions are dropped only in the last merge."""
    import heapq

    heap = [(p.keys.shape[0], i, (p.keys, p.seqs, p.vlens, p.tombs)) for i, p in enumerate(parts)]
    if not heap:
        return (np.empty(0, np.uint64), np.empty(0, np.uint64), np.empty(0, np.uint32), np.empty(0, np.uint8))
    heapq.heapify(heap)
    nxt = len(heap)
    while len(heap) > 1:
        _, _, a = heapq.heappop(heap)
        _, _, b = heapq.heappop(heap)
        last = not heap
        out = merge2(*a, *b, drop_tombstones and last)
        heapq.heappush(heap, (out[0].shape[0], nxt, out))
        nxt += 1
    arrays = heap[0][2]
    if len(parts) == 1 and drop_tombstones:
        keep = arrays[3] == 0
        arrays = tuple(x[keep] for x in arrays)
    return arrays


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


@numba.njit(cache=True)
def _radix_order(keys):
    """Stable LSD radix sort by uint64 key (16-bit digits; passes over constant digits skipped)."""
    n = keys.shape[0]
    order = np.arange(n)
    tmp = np.empty(n, np.int64)
    hi = np.uint64(0)
    for i in range(n):
        hi |= keys[i]
    shift = 0
    count = np.empty(65537, np.int64)
    while shift < 64 and (hi >> np.uint64(shift)) != 0:
        count[:] = 0
        for i in range(n):
            d = (keys[order[i]] >> np.uint64(shift)) & np.uint64(0xFFFF)
            count[d + 1] += 1
        for d in range(65536):
            count[d + 1] += count[d]
        for i in range(n):
            d = (keys[order[i]] >> np.uint64(shift)) & np.uint64(0xFFFF)
            tmp[count[d]] = order[i]
            count[d] += 1
        order, tmp = tmp, order
        shift += 16
    return order


def dedup_versions(keys, seqs, vlens, tombs):
    """Sort memtable samples by key and keep the newest version of each key (what a flush writes).

    Samples arrive in seqno order, so a stable sort by key keeps each key's versions oldest to
    newest and the last of each group is the newest."""
    if seqs.shape[0] > 1 and not np.all(seqs[1:] >= seqs[:-1]):
        order = np.lexsort((seqs, keys))
    else:
        order = _radix_order(keys)
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
