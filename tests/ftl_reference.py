"""A plain-Python reference of the FTL of lsmsim/ssd/ftl/ (lists, dicts, a deque), for tests/test_ftl.py, which
compares it with the numba `FTL` counter for counter and page for page on small inputs.

It lives with the tests, not in the package: nothing else uses it (EcoTune's references, by contrast, also serve
`lsmsim ecotune solve --reference` and the benchmarks, and stay in lsmsim/policies/ecotune/reference.py).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from lsmsim.errors import InvariantError
from lsmsim.ssd.ftl import FTLConfig, FTLCounters
from lsmsim.ssd.ftl.base import FTLBase

__all__ = ["FTLReference"]


class FTLReference(FTLBase):
    """The same algorithm in plain Python (lists, dicts, a deque): slow, for checking `FTL`.

    Buckets are insertion-ordered dicts (first key = block in the bucket longest), the free list a
    deque, and every step is written from the algorithm's description rather than from the kernels.
    """

    def __init__(self, cfg: FTLConfig):
        self.cfg = cfg
        L, P, N, F = cfg.logical_pages, cfg.pages_per_block, cfg.physical_blocks, cfg.frontiers
        self.P, self.N, self.F = P, N, F
        self.l2p_list = [-1] * L
        self.p2l_list = [-1] * (N * P)
        self.valid = [0] * N
        self.state = ["free"] * N
        self.stamp = [0] * N
        self.ecount = [0] * N
        self.buckets = [dict() for _ in range(P + 1)]
        self.free = deque(range(N))
        self.open = [None] * (F + 1)
        self.fill = [0] * (F + 1)
        self.counts = {k: 0 for k in ("host", "flash", "gc", "erase", "fg", "bg", "trim", "mapped")}

    @property
    def counters(self) -> FTLCounters:
        c = self.counts
        return FTLCounters(
            host_pages=c["host"],
            flash_pages=c["flash"],
            gc_copies=c["gc"],
            erases=c["erase"],
            fg_gc_copies=c["fg"],
            bg_gc_copies=c["bg"],
            trimmed_pages=c["trim"],
            mapped_pages=c["mapped"],
            free_blocks=len(self.free),
        )

    @property
    def l2p(self) -> np.ndarray:
        return np.array(self.l2p_list, dtype=np.int64)

    @property
    def erase_counts(self) -> np.ndarray:
        return np.array(self.ecount, dtype=np.int64)

    # -- pieces
    def _drop_page(self, ppn: int) -> None:
        b = ppn // self.P
        self.p2l_list[ppn] = -1
        if self.state[b] == "closed":
            del self.buckets[self.valid[b]][b]
            self.buckets[self.valid[b] - 1][b] = None
        self.valid[b] -= 1

    def _take_free(self):
        if not self.free:
            return None
        b = self.free.popleft()
        self.state[b] = "open"
        self.stamp[b] = 0
        return b

    def _close(self, b: int) -> None:
        self.state[b] = "closed"
        self.buckets[self.valid[b]][b] = None

    def _victim(self):
        if self.cfg.victim == "greedy" or self.buckets[0]:
            for v in range(self.P + 1):
                if self.buckets[v]:
                    return next(iter(self.buckets[v]))
            return None
        now = self.counts["host"]
        best, best_s = None, -1.0
        for b in range(self.N):
            if self.state[b] == "closed":
                v = self.valid[b]
                s = (now - self.stamp[b] + 1) * (self.P - v) / (2.0 * v)
                if s > best_s:
                    best, best_s = b, s
        return best

    def _clean(self, victim: int, fg: bool) -> int:
        P, F = self.P, self.F
        del self.buckets[self.valid[victim]][victim]
        self.state[victim] = "victim"
        copies = 0
        for ppn in range(victim * P, victim * P + P):
            lpn = self.p2l_list[ppn]
            if lpn < 0:
                continue
            g = self.open[F]
            if g is None:
                g = self._take_free()
                if g is None:
                    raise InvariantError("reference FTL: no free block for GC")
                self.open[F], self.fill[F] = g, 0
            dst = g * P + self.fill[F]
            self.p2l_list[dst] = lpn
            self.l2p_list[lpn] = dst
            self.p2l_list[ppn] = -1
            self.valid[g] += 1
            self.stamp[g] = self.counts["host"]
            self.fill[F] += 1
            copies += 1
            if self.fill[F] == P:
                self._close(g)
                self.open[F] = None
        self.valid[victim] = 0
        self.state[victim] = "free"
        self.ecount[victim] += 1
        self.counts["erase"] += 1
        self.free.append(victim)
        self.counts["gc"] += copies
        self.counts["flash"] += copies
        self.counts["fg" if fg else "bg"] += copies
        return copies

    # -- API
    def write(self, lpns, frontier=0) -> None:
        a = self._check_lpns(lpns)
        fr, bcast = self._check_frontier(frontier, a.size)
        for i, lpn in enumerate(a.tolist()):
            f = int(fr[0] if bcast else fr[i])
            if self.open[f] is None:
                while len(self.free) < self.cfg.free_low:
                    vb = self._victim()
                    if vb is None or self.valid[vb] >= self.P:
                        break
                    self._clean(vb, True)
                b = self._take_free()
                if b is None:
                    raise InvariantError("reference FTL: no free block for a host write")
                self.open[f], self.fill[f] = b, 0
            b = self.open[f]
            if self.l2p_list[lpn] >= 0:
                self._drop_page(self.l2p_list[lpn])
            else:
                self.counts["mapped"] += 1
            dst = b * self.P + self.fill[f]
            self.l2p_list[lpn] = dst
            self.p2l_list[dst] = lpn
            self.valid[b] += 1
            self.counts["host"] += 1
            self.counts["flash"] += 1
            self.stamp[b] = self.counts["host"]
            self.fill[f] += 1
            if self.fill[f] == self.P:
                self._close(b)
                self.open[f] = None

    def trim(self, lpns) -> None:
        for lpn in self._check_lpns(lpns).tolist():
            if self.l2p_list[lpn] >= 0:
                self._drop_page(self.l2p_list[lpn])
                self.l2p_list[lpn] = -1
                self.counts["trim"] += 1
                self.counts["mapped"] -= 1

    def idle_gc(self, max_copies: int) -> int:
        done = 0
        if max_copies <= 0:
            return 0
        while len(self.free) < self.cfg.free_high:
            vb = self._victim()
            if vb is None:
                break
            v = self.valid[vb]
            if v >= self.P or v > max_copies - done:
                break
            done += self._clean(vb, False)
        return done
