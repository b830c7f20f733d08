"""Files -> logical page extents: a next-fit extent allocator with coalesced free space.

Like a file system's block allocator over the SSD's logical pages: `alloc` hands a file the next
free extent large enough (next-fit: the search starts where the previous allocation ended and
wraps around), or, when free space is too fragmented for one extent, several extents taken in the
same order. `free` returns the file's extents so the caller can TRIM them, and merges them back
into the sorted free list, coalescing with free neighbours.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import chain

import numpy as np

from ..errors import InvariantError, LsmsimError

__all__ = ["DeviceFullError", "ExtentAllocator"]


class DeviceFullError(LsmsimError, ValueError):
    """An allocation asked for more logical pages than are free."""


class ExtentAllocator:
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

    # ---------------------------------------------------------------- queries
    @property
    def used_pages(self) -> int:
        return self.total_pages - self._free

    @property
    def free_pages(self) -> int:
        return self._free

    @property
    def free_extents(self) -> list[tuple[int, int]]:
        return [(s, self._lens[s]) for s in self._starts]

    @property
    def largest_free_extent(self) -> int:
        return max(self._lens.values(), default=0)

    def __contains__(self, file_id) -> bool:
        return file_id in self._files

    def extents(self, file_id) -> list[tuple[int, int]]:
        return list(self._get(file_id))

    def pages(self, file_id) -> np.ndarray:
        """The file's logical pages in file order (int64)."""
        ex = self._get(file_id)
        if not ex:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([np.arange(s, s + n, dtype=np.int64) for s, n in ex])

    def _get(self, file_id):
        try:
            return self._files[file_id]
        except KeyError:
            raise KeyError(f"no file {file_id!r} in the allocator") from None

    # ---------------------------------------------------------------- alloc / free
    def alloc(self, file_id, npages: int) -> list[tuple[int, int]]:
        """Give `file_id` npages more pages; returns the new extents in file order.

        One extent when a free extent is large enough, else several (fragmentation). A file id
        that already exists grows. Raises DeviceFullError when fewer than npages pages are free.
        """
        need = int(npages)
        if need < 0:
            raise ValueError(f"npages must be >= 0, got {npages}")
        if need > self._free:
            raise DeviceFullError(
                f"cannot allocate {need} pages for file {file_id!r}: only {self._free} of "
                f"{self.total_pages} logical pages are free"
            )
        out: list[tuple[int, int]] = []
        if need:
            starts, lens = self._starts, self._lens
            k = bisect_left(starts, self._cursor)
            order = chain(range(k, len(starts)), range(0, k))
            j = next((j for j in order if lens[starts[j]] >= need), None)
            if j is not None:  # next fit: one extent
                s = starts[j]
                out.append((s, need))
                self._take(j, need)
            else:  # fragmented: consecutive extents in next-fit order
                picks, left = [], need
                for j in chain(range(k, len(starts)), range(0, k)):
                    s = starts[j]
                    t = min(lens[s], left)
                    picks.append((s, t))
                    left -= t
                    if not left:
                        break
                for s, t in picks:
                    self._take(bisect_left(starts, s), t)
                out = picks
            self._free -= need
            self._cursor = out[-1][0] + out[-1][1]
            if self._cursor >= self.total_pages:
                self._cursor = 0
        ex = self._files.setdefault(file_id, [])
        for s, n in out:  # merge with the file's last extent when contiguous
            if ex and ex[-1][0] + ex[-1][1] == s:
                ex[-1] = (ex[-1][0], ex[-1][1] + n)
            else:
                ex.append((s, n))
        return out

    def _take(self, j: int, n: int) -> None:
        """Remove the first n pages of free extent number j."""
        s = self._starts[j]
        length = self._lens.pop(s)
        if length > n:
            self._starts[j] = s + n
            self._lens[s + n] = length - n
        else:
            del self._starts[j]

    def free(self, file_id) -> list[tuple[int, int]]:
        """Release the file; returns its extents (to TRIM). KeyError for an unknown file."""
        ex = self._get(file_id)
        del self._files[file_id]
        for s, n in ex:
            self._give_back(s, n)
        return ex

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
        if i + 1 < len(starts) and s + n == starts[i + 1]:  # merge right
            n += lens.pop(starts[i + 1])
            del starts[i + 1]
        lens[s] = n
