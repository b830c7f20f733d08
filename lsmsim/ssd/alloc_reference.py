"""The extent allocator in plain Python: the reference the tests check `alloc.ExtentAllocator`'s numba kernels
against call by call, and (with next-fit as a walk, `WalkingAllocator`) the baselines of benchmarks/extent_alloc.py.

Files -> logical page extents: a next-fit extent allocator with coalesced free space.

Like a file system's block allocator over the SSD's logical pages: `alloc` hands a file the next
free extent large enough (next-fit: the search starts where the previous allocation ended and
wraps around), or, when free space is too fragmented for one extent, several extents taken in the
same order. `free` returns the file's extents so the caller can TRIM them, and merges them back
into the sorted free list, coalescing with free neighbours.

Next-fit over a free list fragmented into many holes smaller than a file walks past every one of them
(Spooky's paper-scale Partial Merge: 78% of the run's time in that walk). A max-tree over buckets of the
page space (the largest free extent starting in each) finds the same extent in O(log) steps, so an
allocation's cost does not grow with the number of free extents; the tests check it against the walk.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import chain

from ..errors import InvariantError
from .alloc import FileExtents

__all__ = ["ReferenceAllocator", "WalkingAllocator"]

_LEAVES = 1 << 16  # buckets of the max-tree: at most this many, each at least one page wide


class ReferenceAllocator(FileExtents):
    """Allocates logical pages [0, total_pages) to files as lists of (start, length) extents."""

    def __init__(self, total_pages: int):
        total_pages = int(total_pages)
        if total_pages <= 0:
            raise ValueError(f"total_pages must be > 0, got {total_pages}")
        self.total_pages = total_pages
        self._starts: list[int] = [0]  # sorted starts of free extents
        self._lens: dict[int, int] = {0: total_pages}
        self._free = total_pages
        self._files: dict[object, list[tuple[int, int]]] = {}
        self._cursor = 0  # next-fit rover: where the last allocation ended
        # max-tree over page buckets: leaf b holds the largest free extent starting in [b W, (b + 1) W)
        self._width = -(-total_pages // _LEAVES)
        buckets = -(-total_pages // self._width)
        self._size = 1 << max(0, (buckets - 1).bit_length())
        self._tree = [0] * (2 * self._size)
        self._touch(0)

    # ---------------------------------------------------------------- queries
    @property
    def free_pages(self) -> int:
        return self._free

    @property
    def free_extents(self) -> list[tuple[int, int]]:
        return [(s, self._lens[s]) for s in self._starts]

    @property
    def largest_free_extent(self) -> int:
        return self._tree[1]

    # ---------------------------------------------------------------- alloc / free
    def _take(self, need: int) -> list[tuple[int, int]]:
        starts, lens = self._starts, self._lens
        k = bisect_left(starts, self._cursor)
        j = self._next_fit(k, need)
        if j is not None:  # next fit: one extent
            out = [(starts[j], need)]
            self._take_from(j, need)
        else:  # fragmented: consecutive extents in next-fit order
            out, left = [], need
            for j in chain(range(k, len(starts)), range(0, k)):
                s = starts[j]
                t = min(lens[s], left)
                out.append((s, t))
                left -= t
                if not left:
                    break
            for s, t in out:
                self._take_from(bisect_left(starts, s), t)
        self._free -= need
        self._cursor = out[-1][0] + out[-1][1]
        if self._cursor >= self.total_pages:
            self._cursor = 0
        return out

    def _next_fit(self, k: int, need: int) -> int | None:
        """Index of the first free extent of at least `need` pages from index k on, wrapping; None if none."""
        if self._tree[1] < need:
            return None
        starts, lens, w = self._starts, self._lens, self._width
        b0 = self._cursor // w
        end = bisect_left(starts, (b0 + 1) * w, k)
        for j in range(k, end):  # the cursor's bucket, from the cursor on
            if lens[starts[j]] >= need:
                return j
        b = self._first_bucket(b0 + 1, need)
        if b < 0:
            b = self._first_bucket(0, need)  # wrap: the extent found lies before the cursor
        j = bisect_left(starts, b * w)
        while lens[starts[j]] < need:
            j += 1
        return j

    def _first_bucket(self, lo: int, need: int) -> int:
        """First bucket >= lo whose largest free extent has >= need pages, or -1."""
        size, t = self._size, self._tree
        if lo >= size:
            return -1
        i = lo + size
        while t[i] < need:
            while i & 1:  # a right child: its parent's later half is done too
                i >>= 1
                if i == 0:
                    return -1
            i += 1  # the next subtree to the right
        while i < size:
            i = 2 * i if t[2 * i] >= need else 2 * i + 1
        return i - size

    def _touch(self, page: int) -> None:
        """Recompute the max-tree leaf of the bucket holding `page` and its ancestors."""
        starts, lens, w = self._starts, self._lens, self._width
        b = page // w
        lo = bisect_left(starts, b * w)
        hi = bisect_left(starts, (b + 1) * w, lo)
        m = max((lens[starts[j]] for j in range(lo, hi)), default=0)
        t = self._tree
        i = b + self._size
        t[i] = m
        i >>= 1
        while i:
            v = max(t[2 * i], t[2 * i + 1])
            if t[i] == v:
                break
            t[i] = v
            i >>= 1

    def _take_from(self, j: int, n: int) -> None:
        """Remove the first n pages of free extent number j."""
        s = self._starts[j]
        length = self._lens.pop(s)
        if length > n:
            self._starts[j] = s + n
            self._lens[s + n] = length - n
            if (s + n) // self._width != s // self._width:  # the rest starts in the next bucket
                self._touch(s + n)
        else:
            del self._starts[j]
        self._touch(s)

    def _release(self, extents: list[tuple[int, int]]) -> None:
        for s, n in extents:
            self._give_back(s, n)

    def _give_back(self, s: int, n: int) -> None:
        starts, lens = self._starts, self._lens
        i = bisect_right(starts, s)
        # overlap with a free neighbour means a double free or a corrupted list
        if (i > 0 and starts[i - 1] + lens[starts[i - 1]] > s) or (i < len(starts) and s + n > starts[i]):
            raise InvariantError(f"extent ({s}, {n}) overlaps free space")
        self._free += n
        if i > 0 and starts[i - 1] + lens[starts[i - 1]] == s:  # merge left
            i -= 1
            s = starts[i]
            n += lens[s]
        else:
            starts.insert(i, s)
        right = -1
        if i + 1 < len(starts) and s + n == starts[i + 1]:  # merge right
            right = starts[i + 1]
            n += lens.pop(right)
            del starts[i + 1]
        lens[s] = n
        self._touch(s)
        if right >= 0:
            self._touch(right)


class WalkingAllocator(ReferenceAllocator):
    """The same allocator with next-fit as a plain walk over the free list: the reference the tests check the
    max-tree search against, and the baseline of benchmarks/extent_alloc.py."""

    def _next_fit(self, k: int, need: int) -> int | None:
        starts, lens = self._starts, self._lens
        order = chain(range(k, len(starts)), range(0, k))
        return next((j for j in order if lens[starts[j]] >= need), None)
