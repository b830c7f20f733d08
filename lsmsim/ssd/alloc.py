"""Files -> logical page extents: a next-fit extent allocator with coalesced free space.

Like a file system's block allocator over the SSD's logical pages: `alloc` hands a file the next
free extent large enough (next-fit: the search starts where the previous allocation ended and
wraps around), or, when free space is too fragmented for one extent, several extents taken in the
same order. `free` returns the file's extents so the caller can TRIM them, and merges them back
into free space, coalescing with free neighbours.

Next-fit over a free list fragmented into many holes smaller than a file walks past every one of them
(Spooky's paper-scale Partial Merge: 78% of the run's time in that walk). A max-tree over buckets of the
page space (the largest free extent starting in each) finds the same extent in O(log) steps, so an
allocation's cost does not grow with the number of free extents. Free extents are marked in a page-indexed
array (their first and last pages), so returning an extent finds its free neighbours in two reads. The steps run
in numba (`_alloc_kernels`): in the Python reference they were a third of a Spooky quick figure's run time. The
tests check every call against the plain-Python reference (`alloc_reference.ReferenceAllocator`) and it against
the walk.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvariantError, LsmsimError
from . import _alloc_kernels as K

__all__ = ["DeviceFullError", "ExtentAllocator"]

_PAGES_PER_BUCKET = 64  # a bucket's max is recomputed by scanning it: at most this many pages...
_MAX_LEAVES = 1 << 20  # ...unless that needs more leaves than this (8 MiB of tree past 64Mi pages)


class DeviceFullError(LsmsimError, ValueError):
    """An allocation asked for more logical pages than are free."""


class FileExtents:
    """What both allocators share: files as lists of (start, length) extents, and the checks of `alloc` and `free`.
    A subclass takes pages (`_take`), returns them (`_release`) and counts them (`free_pages`)."""

    total_pages: int
    _files: dict[object, list[tuple[int, int]]]

    @property
    def free_pages(self) -> int:
        raise NotImplementedError

    @property
    def used_pages(self) -> int:
        return self.total_pages - self.free_pages

    def __contains__(self, file_id) -> bool:
        return file_id in self._files

    def extents(self, file_id) -> list[tuple[int, int]]:
        return list(self._get(file_id))

    def pages(self, file_id) -> np.ndarray:
        """The file's logical pages in file order (int64)."""
        return extent_pages(self._get(file_id))

    def _get(self, file_id):
        try:
            return self._files[file_id]
        except KeyError:
            raise KeyError(f"no file {file_id!r} in the allocator") from None

    def alloc(self, file_id, npages: int) -> list[tuple[int, int]]:
        """Give `file_id` npages more pages; returns the new extents in file order.

        One extent when a free extent is large enough, else several (fragmentation). A file id
        that already exists grows. Raises DeviceFullError when fewer than npages pages are free.
        """
        need = int(npages)
        if need < 0:
            raise ValueError(f"npages must be >= 0, got {npages}")
        free = self.free_pages
        if need > free:
            raise DeviceFullError(
                f"cannot allocate {need} pages for file {file_id!r}: only {free} of "
                f"{self.total_pages} logical pages are free"
            )
        out = self._take(need) if need else []
        ex = self._files.setdefault(file_id, [])
        for s, n in out:  # merge with the file's last extent when contiguous
            if ex and ex[-1][0] + ex[-1][1] == s:
                ex[-1] = (ex[-1][0], ex[-1][1] + n)
            else:
                ex.append((s, n))
        return out

    def free(self, file_id) -> list[tuple[int, int]]:
        """Release the file; returns its extents (to TRIM). KeyError for an unknown file."""
        ex = self._get(file_id)
        del self._files[file_id]
        if ex:
            self._release(ex)
        return ex

    def _take(self, need: int) -> list[tuple[int, int]]:
        raise NotImplementedError

    def _release(self, extents: list[tuple[int, int]]) -> None:
        raise NotImplementedError


class ExtentAllocator(FileExtents):
    """Allocates logical pages [0, total_pages) to files as lists of (start, length) extents."""

    def __init__(self, total_pages: int, width: int | None = None):
        total_pages = int(total_pages)
        if total_pages <= 0:
            raise ValueError(f"total_pages must be > 0, got {total_pages}")
        self.total_pages = total_pages
        if width is None:  # bucket width in pages (the tests vary it: the extents handed out do not depend on it)
            width = max(_PAGES_PER_BUCKET, -(-total_pages // _MAX_LEAVES))
        self._width = int(width)
        buckets = -(-total_pages // self._width)
        size = 1 << max(0, (buckets - 1).bit_length())
        self._run = np.zeros(total_pages, np.int32 if total_pages < 2**31 else np.int64)
        self._tree = np.zeros(2 * size, np.int64)
        self._meta = np.zeros(K.NMETA, np.int64)
        self._meta[[K.M_CURSOR, K.M_FREE, K.M_WIDTH, K.M_SIZE, K.M_EXTENTS]] = 0, total_pages, self._width, size, 1
        self._run[0] = total_pages
        if total_pages > 1:
            self._run[-1] = -total_pages
        K.touch(self._run, self._tree, self._meta, 0)
        self._files = {}

    @property
    def free_pages(self) -> int:
        return int(self._meta[K.M_FREE])

    @property
    def free_extents(self) -> list[tuple[int, int]]:
        starts = np.flatnonzero(self._run > 0)
        return [(int(s), int(self._run[s])) for s in starts]

    @property
    def largest_free_extent(self) -> int:
        return int(self._tree[1])

    def _take(self, need: int) -> list[tuple[int, int]]:
        room = min(need if self._tree[1] < need else 1, int(self._meta[K.M_EXTENTS]))
        starts, lens = np.empty(room, np.int64), np.empty(room, np.int64)
        k = K.alloc(self._run, self._tree, self._meta, need, starts, lens)
        return list(zip(starts[:k].tolist(), lens[:k].tolist()))

    def _release(self, extents: list[tuple[int, int]]) -> None:
        self._give_back(*np.array(extents, np.int64).T)

    def _give_back(self, starts, lens) -> None:
        starts, lens = np.atleast_1d(np.asarray(starts, np.int64)), np.atleast_1d(np.asarray(lens, np.int64))
        if K.give_back(self._run, self._tree, self._meta, starts, lens) != K.OK:
            raise InvariantError(f"an extent of {list(zip(starts.tolist(), lens.tolist()))} overlaps free space")


def extent_pages(extents: list[tuple[int, int]]) -> np.ndarray:
    """The logical pages of (start, length) extents, in order (int64)."""
    if len(extents) == 1:
        s, n = extents[0]
        return np.arange(s, s + n, dtype=np.int64)
    if not extents:
        return np.zeros(0, np.int64)
    a = np.array(extents, np.int64)
    return K.extent_pages(a[:, 0].copy(), a[:, 1].copy())
