"""A page-mapped flash translation layer with erase-unit garbage collection: the mapping and erase-unit state,
driven by the numba kernels of `_kernels.py`.

The logical space is cut into *mapping units* (logical pages, 4 KiB by default); the flash into
*erase units* (blocks) of `pages_per_block` physical pages. Host writes go, in arrival order, to
the open block of the write frontier they name (several frontiers model multi-stream / placement
hints); each write invalidates the page's previous physical copy. When fewer than `gc_free_low`
blocks are free, foreground GC picks a victim among the full (closed) blocks, copies its valid
pages to the GC frontier (a frontier of its own) and erases it, before the host write continues
(the three steps of SSD GC in Spooky, Dayan et al., PVLDB 2022, Sec. 2; pages of different
lifetimes mixed in one erase unit are what GC has to copy, its Sec. 3 "Garbage-Collection
Write-Amp"). `idle_gc` does the same while the device is idle, up to `gc_free_high` free blocks.

Victim selection (`_kernels._select`)
  * greedy: the closed block with the fewest valid pages. Closed blocks sit in buckets by valid
    count (doubly-linked lists, appended at the tail), so selection is O(1) amortised; ties go to
    the block that has been in the lowest bucket longest (FIFO).
  * cost_benefit (Rosenblum & Ousterhout, "The design and implementation of a log-structured file
    system", SOSP 1991; Kawaguchi, Nishioka & Motoda, "A flash-memory based file system", USENIX
    1995): the closed block maximising  age * (1 - u) / (2u),  u = valid / pages_per_block, found
    by an O(blocks) scan (ties: lowest block id); a block with no valid page is taken first (it is
    free to reclaim). Time is the host page write counter; a block's timestamp is the time it was
    last written (by the host or by a GC copy), age = now - timestamp + 1 (>= 1, so every block with
    an invalid page scores > 0). LFS's alternative, where GC copies keep the victim's timestamp (the
    age of the data rather than of the block), was tried: on 90%-of-writes-to-10%-of-pages traffic
    it did no better (WA 3.42 vs 3.34 at sf = 0.1) and on uniform traffic it did worse (5.75 vs
    5.23), so the simpler rule stays.

Over-provisioning (spare factor vs OP ratio) is described in config.py. tests/ftl_reference.py is a
plain-Python implementation of exactly the same algorithm, used by the tests on small inputs.
Page numbers are stored as int32 when they fit (half the memory and cache footprint), else int64.

Performance (benchmarks/ftl.py, 1 GiB logical, 4 KiB pages, 256 pages per block, uniform random
overwrites, batches of 2^20 pages, shared 2-core machine): greedy ~13M host writes/s at sf = 0.07
(WA 7.3, ~95M flash writes/s) and ~22M/s at sf = 0.28; cost-benefit ~7.6M/s and ~16M/s, its
O(blocks) scan per GC costing ~1.2 ns per block. A host write's cost is two dependent cache misses
(l2p[lpn], then p2l[old]); the write kernel prefetches both `_PF` writes ahead, and writes the
invalidation out inline, since a call to a helper kernel increments and decrements the refcount of
every array argument (together these took it from ~3M to ~20M writes/s at sf = 0.28).
"""

from __future__ import annotations

import numpy as np

from ...errors import InvariantError
from ._kernels import (
    C_FREE_COUNT,
    C_MINB,
    CLOSED,
    COST_BENEFIT,
    FREE,
    GREEDY,
    NCTR,
    idle_gc_kernel,
    trim_kernel,
    write_kernel,
)
from .base import FTLBase
from .config import FTLConfig
from .counters import SLOTS, FTLCounters

__all__ = ["FTL"]


class FTL(FTLBase):
    """The numba FTL. See the module docstring for the algorithm."""

    def __init__(self, cfg: FTLConfig):
        self.cfg = cfg
        L, P, N, F = cfg.logical_pages, cfg.pages_per_block, cfg.physical_blocks, cfg.frontiers
        # 32-bit page numbers whenever they fit: half the memory and cache footprint
        idx = np.int32 if max(L, N * P) < 2**31 - 1 else np.int64
        self._l2p = np.full(L, -1, dtype=idx)
        self._p2l = np.full(N * P, -1, dtype=idx)
        self._valid = np.zeros(N, dtype=np.int32)
        self._bstate = np.zeros(N, dtype=np.int8)
        self._btime = np.zeros(N, dtype=np.int64)
        self._ecnt = np.zeros(N, dtype=np.int64)
        self._bnext = np.full(N, -1, dtype=np.int32)
        self._bprev = np.full(N, -1, dtype=np.int32)
        self._bhead = np.full(P + 1, -1, dtype=np.int32)
        self._btail = np.full(P + 1, -1, dtype=np.int32)
        self._ring = np.arange(N, dtype=np.int32)
        self._open = np.full(F + 1, -1, dtype=np.int64)  # F host frontiers, then the GC frontier
        self._wp = np.zeros(F + 1, dtype=np.int64)
        self._ctr = np.zeros(NCTR, dtype=np.int64)
        self._ctr[C_FREE_COUNT] = N
        self._ctr[C_MINB] = P + 1
        self._kind = GREEDY if cfg.victim == "greedy" else COST_BENEFIT
        self._P, self._F = P, F
        self._low, self._high = cfg.free_low, cfg.free_high

    @property
    def counters(self) -> FTLCounters:
        return FTLCounters.from_array(self._ctr)

    def _counter(self, name: str) -> int:  # one slot, not a whole FTLCounters: the device reads two per write
        return int(self._ctr[SLOTS[name]])

    def _blocks(self):
        return (
            self._l2p,
            self._p2l,
            self._valid,
            self._bstate,
            self._btime,
            self._ecnt,
            self._bnext,
            self._bprev,
            self._bhead,
            self._btail,
            self._ring,
            self._open,
            self._wp,
            self._ctr,
        )

    def write(self, lpns, frontier=0) -> None:
        """Host writes of logical pages in arrival order; frontier: one for all, or one per page."""
        a = self._check_lpns(lpns)
        if not a.size:
            return
        fr, bcast = self._check_frontier(frontier, a.size)
        r = write_kernel(a, fr, bcast, self._P, self._F, self._low, self._kind, *self._blocks())
        if r >= 0:
            raise InvariantError(
                f"FTL: no free erase block for host write {r} of the batch "
                f"(free={self.free_blocks}); the GC reserve check should prevent this"
            )

    def trim(self, lpns) -> None:
        """Invalidate pages without writing (TRIM / discard); unmapped pages are ignored."""
        a = self._check_lpns(lpns)
        if a.size:
            trim_kernel(
                a,
                self._P,
                self._l2p,
                self._p2l,
                self._valid,
                self._bstate,
                self._bnext,
                self._bprev,
                self._bhead,
                self._btail,
                self._ctr,
            )

    def idle_gc(self, max_copies: int) -> int:
        """Background GC up to gc_free_high free blocks, copying at most max_copies pages. Pages copied."""
        max_copies = int(max_copies)
        if max_copies <= 0 or self.free_blocks >= self._high:
            return 0
        r = idle_gc_kernel(max_copies, self._high, self._P, self._F, self._kind, *self._blocks())
        if r < 0:
            raise InvariantError("FTL: idle GC found no free erase block for its frontier")
        return int(r)

    # state views (read-only)
    @staticmethod
    def _ro(a: np.ndarray) -> np.ndarray:
        v = a.view()
        v.flags.writeable = False
        return v

    @property
    def l2p(self) -> np.ndarray:
        return self._ro(self._l2p)

    @property
    def p2l(self) -> np.ndarray:
        return self._ro(self._p2l)

    @property
    def valid_counts(self) -> np.ndarray:
        return self._ro(self._valid)

    @property
    def erase_counts(self) -> np.ndarray:
        return self._ro(self._ecnt)

    def check_invariants(self) -> None:
        """Raise InvariantError unless the mapping, valid counts, buckets and free ring agree."""
        P, N = self._P, self.physical_blocks
        l2p, p2l = self._l2p.astype(np.int64), self._p2l.astype(np.int64)
        mapped = np.flatnonzero(l2p >= 0)
        errs = []
        if mapped.size != self.mapped_pages:
            errs.append(f"mapped pages {mapped.size} != counter {self.mapped_pages}")
        if np.any(p2l[l2p[mapped]] != mapped):
            errs.append("l2p and p2l disagree")
        if np.count_nonzero(p2l >= 0) != mapped.size:
            errs.append("p2l holds stale pages")
        vc = np.count_nonzero(p2l.reshape(N, P) >= 0, axis=1)
        if np.any(vc != self._valid):
            errs.append("valid counts disagree with p2l")
        if int(np.count_nonzero(self._bstate == FREE)) != self.free_blocks:
            errs.append("free ring count != free blocks")
        closed = np.flatnonzero(self._bstate == CLOSED)
        seen = 0
        for v in range(P + 1):
            b = int(self._bhead[v])
            while b >= 0:
                if self._valid[b] != v or self._bstate[b] != CLOSED:
                    errs.append(f"block {b} in bucket {v} has {self._valid[b]} valid, state {self._bstate[b]}")
                    break
                seen += 1
                b = int(self._bnext[b])
        if seen != closed.size:
            errs.append(f"{seen} blocks in buckets, {closed.size} closed")
        if int(self._ecnt.sum()) != self.erases:
            errs.append("erase counts do not sum to erases")
        if self.flash_pages != self.host_pages + self.gc_copies:
            errs.append("flash pages != host pages + GC copies")
        if errs:
            raise InvariantError("FTL: " + "; ".join(errs))
