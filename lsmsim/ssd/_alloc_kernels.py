"""The numba kernels of the extent allocator (`alloc.ExtentAllocator` calls them): next-fit through a bucket
max-tree, taking pages from a free extent, and giving extents back with coalescing.

Every `@njit` function of the allocator lives here (numba's cache does not see edits to functions defined in other
files, numba issue 1833). The plain-Python reference of the same algorithm, which the tests compare with these
kernels call by call, is `alloc_reference.ReferenceAllocator`.

State (arrays owned by `alloc.ExtentAllocator`; N logical pages):
  run[p]    > 0: a free extent of run[p] pages starts at page p; < 0: page p ends a free extent of -run[p] pages
            (extents longer than one page carry both marks); 0: neither. Finding the free neighbours of a returned
            extent is then two array reads, and no step walks the free list.
  tree      max-tree over buckets of `width` pages: leaf b (at size + b) holds the largest free extent starting in
            bucket b, each inner node the larger of its children's; tree[1] is the largest free extent.
  meta      int64 scalars, slots M_* below.
"""

from __future__ import annotations

import numpy as np

from .._numba import numba

M_CURSOR, M_FREE, M_WIDTH, M_SIZE, M_EXTENTS = range(5)  # slots of `meta`
NMETA = 5
OK, OVERLAP = 0, 1  # give_back's return codes


@numba.njit(cache=True)
def touch(run, tree, meta, page):
    """Recompute the leaf of the bucket holding `page` (the largest extent starting in it) and its ancestors."""
    w, size = meta[M_WIDTH], meta[M_SIZE]
    b = page // w
    lo = b * w
    hi = min(lo + w, run.size)
    m = 0
    for p in range(lo, hi):
        if run[p] > m:
            m = run[p]
    i = b + size
    tree[i] = m
    i >>= 1
    while i:
        v = max(tree[2 * i], tree[2 * i + 1])
        if tree[i] == v:
            break
        tree[i] = v
        i >>= 1


@numba.njit(cache=True)
def first_bucket(tree, size, lo, need):
    """First bucket >= lo whose largest free extent has >= need pages, or -1."""
    if lo >= size:
        return -1
    i = lo + size
    while tree[i] < need:
        while i & 1:  # a right child: its parent's later half is done too
            i >>= 1
            if i == 0:
                return -1
        i += 1  # the next subtree to the right
    while i < size:
        i = 2 * i if tree[2 * i] >= need else 2 * i + 1
    return i - size


@numba.njit(cache=True)
def last_bucket(tree, size, hi, need):
    """Last bucket <= hi whose largest free extent has >= need pages, or -1."""
    if hi < 0:
        return -1
    i = hi + size
    while tree[i] < need:
        while not i & 1:  # a left child: its parent's later half holds nothing earlier
            i >>= 1
        if i == 1:
            return -1
        i -= 1  # the previous subtree to the left
    while i < size:
        i = 2 * i + 1 if tree[2 * i + 1] >= need else 2 * i
    return i - size


@numba.njit(cache=True)
def prev_start(run, tree, meta, page):
    """Last page <= `page` starting a free extent, or -1."""
    w = meta[M_WIDTH]
    b0 = page // w
    for p in range(page, b0 * w - 1, -1):
        if run[p] > 0:
            return p
    b = last_bucket(tree, meta[M_SIZE], b0 - 1, 1)
    if b < 0:
        return -1
    for p in range(min((b + 1) * w, run.size) - 1, b * w - 1, -1):
        if run[p] > 0:
            return p
    return -1  # unreachable while the tree is consistent


@numba.njit(cache=True)
def next_start(run, tree, meta, page, need):
    """First page >= `page` starting a free extent of >= need pages, or -1 (no wrap)."""
    n = run.size
    if page >= n:
        return -1
    w = meta[M_WIDTH]
    b0 = page // w
    for p in range(page, min((b0 + 1) * w, n)):  # the rest of page's bucket
        if run[p] >= need:
            return p
    b = first_bucket(tree, meta[M_SIZE], b0 + 1, need)
    if b < 0:
        return -1
    for p in range(b * w, min((b + 1) * w, n)):
        if run[p] >= need:
            return p
    return -1  # unreachable while the tree is consistent


@numba.njit(cache=True)
def _mark(run, s, n):
    """Free extent [s, s + n): its start and (when longer than a page) its end marks."""
    if n > 1:
        run[s + n - 1] = -n
    run[s] = n


@numba.njit(cache=True)
def _unmark(run, s):
    n = run[s]
    if n > 1:
        run[s + n - 1] = 0
    run[s] = 0
    return n


@numba.njit(cache=True)
def take(run, tree, meta, s, n):
    """Remove the first n pages of the free extent starting at s."""
    length = _unmark(run, s)
    if length > n:
        _mark(run, s + n, length - n)
        if (s + n) // meta[M_WIDTH] != s // meta[M_WIDTH]:  # the rest starts in the next bucket
            touch(run, tree, meta, s + n)
    else:
        meta[M_EXTENTS] -= 1
    touch(run, tree, meta, s)


@numba.njit(cache=True)
def alloc(run, tree, meta, need, out_start, out_len):
    """Take `need` pages (need <= free): one extent by next fit from the cursor when one is large enough, else
    consecutive extents in next-fit order (fragmented). Writes them to out_*; returns how many."""
    cursor = meta[M_CURSOR]
    k = 0
    if tree[1] >= need:
        s = next_start(run, tree, meta, cursor, need)
        if s < 0:
            s = next_start(run, tree, meta, 0, need)  # wrap: the extent lies before the cursor
        take(run, tree, meta, s, need)
        out_start[0], out_len[0] = s, need
        k = 1
    else:
        left, at = need, cursor
        while left:
            s = next_start(run, tree, meta, at, 1)
            if s < 0:
                s = next_start(run, tree, meta, 0, 1)
            t = min(run[s], left)
            at = s + run[s]
            take(run, tree, meta, s, t)
            out_start[k], out_len[k] = s, t
            k += 1
            left -= t
    meta[M_FREE] -= need
    end = out_start[k - 1] + out_len[k - 1]
    meta[M_CURSOR] = end if end < run.size else 0
    return k


@numba.njit(cache=True)
def give_back(run, tree, meta, starts, lens):
    """Return extents to free space, merging each with free neighbours. OVERLAP (and the extents before it given
    back) when one overlaps free space: a double free or a corrupted state."""
    n_pages = run.size
    for i in range(starts.size):
        s, n = starts[i], lens[i]
        p = prev_start(run, tree, meta, s)
        q = next_start(run, tree, meta, s, 1)
        if (p >= 0 and p + run[p] > s) or (0 <= q < s + n):
            return OVERLAP
        meta[M_FREE] += n
        meta[M_EXTENTS] += 1
        new_s, new_n = s, n
        if s > 0 and run[s - 1] != 0:  # merge left: an extent ends at s - 1
            v = run[s - 1]
            new_s = s - 1 if v == 1 else s + v
            new_n = _unmark(run, new_s) + n
            meta[M_EXTENTS] -= 1
        right = -1
        if s + n < n_pages and run[s + n] > 0:  # merge right
            right = s + n
            new_n += _unmark(run, right)
            meta[M_EXTENTS] -= 1
        _mark(run, new_s, new_n)
        touch(run, tree, meta, new_s)
        if right >= 0:
            touch(run, tree, meta, right)
    return OK


@numba.njit(cache=True)
def extent_pages(starts, lens):
    """The pages of (start, length) extents, in order (int64)."""
    total = 0
    for i in range(lens.size):
        total += lens[i]
    out = np.empty(total, np.int64)
    k = 0
    for i in range(lens.size):
        for p in range(starts[i], starts[i] + lens[i]):
            out[k] = p
            k += 1
    return out
