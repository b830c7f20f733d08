"""EcoTune's dynamic programs (Wang et al., "Rethinking The Compaction Policies in LSM-trees", SIGMOD 2025, Sec. 4.3).

The model (R TMCs a round, unit runs, T_w, T_c, q(e), q'(e), the score) is in model.py. Solvers (each a numba
kernel of `_kernels.py` over preallocated memo/argmax arrays, plus a plain-Python reference in reference.py):

    alg 0  the simplified recurrence of Sec. 4.3.1, f(e, c)          O(R^3)
    alg 1  Algorithm 1, f(e, c, m)  (queries during MLC, Sec. 4.3.2)  O(R^4)
    alg 2  Algorithm 2, f(e, b, c, m) with MergeScore (Sec. 4.3.3)   O(R^5)

`solve(params, alg)` runs the numba kernel, `reference.solve_reference(params, alg)` the reference (a literal
transcription of the recurrence / pseudo-code with lru_cache and the paper's `ans` map). Both return a
`SolveResult` whose `schedule` is reconstructed from the argmax table (`_walk01`, `_walk2`), printed by
`Schedule.table()` (schedule.py) as Tables 5-8 print it. `reference.brute_force(params, alg)` enumerates every
schedule of the alg-0/1 space for small R and scores each with `reference.evaluate_schedule`, an event-by-event
cost model that does not share code with the DPs.

Interpretations of the paper (each pinned by a test in tests/test_ecotune_dp.py):

I1  Simplified recurrence, x = 1. The paper writes (T_w - x T_c) q(e+1) for every x, but a first final run of one
    unit run needs no MLC; we use T_w q(e+1) for x = 1, as Algorithm 1 line 6 and Algorithm 2 line 14 do.
    Base f(e, 1) = 0 (f excludes the first T_w of a problem); x ranges over 1..c-1 (x = c would make f(e, c) refer
    to itself; the last final run of the root is never merged before the global compaction).
I2  Simplified root score = T_w q(0) + f(0, R) (Algorithm 1 line 14's convention, so alg 0 and alg 1 scores are
    comparable); no global-compaction term because assumption (1) allows no query during compactions.
I3  Assumption (2) (an MLC ends within T_w) is not enforced by algs 0 and 1: an MLC with x T_c > T_w is charged the
    literal (T_w - x T_c) q(e+1) < 0 "idle time". Algorithm 2 is the version that handles long MLCs.
I4  Algorithm 1 is implemented literally, including line 4: the MLC ending the right-most sub-problem (e, 1, m) is
    charged q'(e), i.e. one run fewer than are physically present then (the e runs plus the unit run just made);
    the global compaction is charged (C R + R) T_c q'(e) the same way. `evaluate_schedule(.., alg=1)` uses this rule.
I5  Algorithm 2 typos: T_e (line 3) is T_c and T_cc (line 17) is T_w. Reason: line 5 charges m T_c - Delta_b T_w,
    so Delta_b in line 3 counts the whole T_w periods in an MLC of m T_c; line 24 charges Delta_b T_w - x T_c, the
    idle time from the end of an x T_c MLC to the next TMC, so line 17's Delta_b = ceil(x T_c / T_w).
I6  MergeScore with m T_c an exact multiple k T_w: Delta_b = k - 1 and the last period is a full T_w at
    q'(e + k - 1) (the literal formula; the TMC at the MLC's end is not counted during it). Delta_b is clamped at
    0 (unreachable: m >= 1 and T_c > 0).
I7  Algorithm 2's root score is f(0, 0, R, C R) alone (line 33): its first T_w is counted by line 14 (T_w q(e)
    before the first unit run exists), unlike Algorithm 1 whose f excludes it and adds T_w q(0) at line 14.
I8  Algorithm 2, x <= b merges the *oldest* x pending unit runs into the first final run; the other b - x stay
    pending (the first final run of a problem always holds its oldest unit runs). Pending runs are unit runs.
I9  Ties: strict `best.score < score` (Alg. 1 line 10, Alg. 2 line 29), so the smallest x wins, x = 1 (no MLC)
    first. Both the kernels and the references scan x upward.
I10 C may be any real >= 0 (C R S = last-level data). m only matters at the base case, through the size of the
    final merge m + b + c, which is invariant along a chain of right sub-problems. The kernels index memo layers
    by that size M (M = x for a left sub-problem; layer R stands for the root chain, whose final merge is the
    global compaction of C R + R units) instead of m; the reference keeps m. With C R integral both evaluate the
    same float operations in the same order and agree bit for bit.
I11 Tables 5-8: one row per TMC at which an MLC starts, "layout before -> layout after", plus the layout at TMC
    R; "n[1]" is n consecutive size-1 runs. The layout after TMC t is the compaction picker's target: merges that
    start at t are applied although they may still be running (as Table 4 shows "31" at TMC 4 while f8 is still
    being built). `PAPER_TABLES` (paper_tables.py) holds the paper's Tables 5-8 as schedules; three printed rows
    do not add up to their TMC (Table 6 rows 23 and 25, Table 7 row 29) and are read as the consistent schedule
    noted there.

Kernel shortcuts (exact; the tests compare every reachable argmax entry with the reference): states are computed
bottom-up over all (e, b, c) with e + b + c <= R (<= R - 1 inside a left sub-problem); when T_c <= T_w, pending
runs never exceed B = ceil((R-1) T_c / T_w); the x loop stops at the first x with b' > available (Delta_b grows
with x while the available runs shrink, so no larger x is feasible).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ._kernels import KernelParams, alg0_kernel, alg1_kernel, alg2_kernel
from .model import ALGORITHMS, MAX_R, EcoTuneParamError, EcoTuneParams
from .schedule import Schedule

__all__ = ["ALGORITHMS", "MAX_R", "SolveResult", "solve"]


def _check(p: EcoTuneParams, alg: int) -> int:
    if alg not in ALGORITHMS:
        raise EcoTuneParamError(f"alg must be 0 (simplified), 1 (Algorithm 1) or 2 (Algorithm 2), got {alg!r}")
    if p.R > MAX_R[alg]:
        raise EcoTuneParamError(f"R = {p.R} is too large for alg {alg} (at most {MAX_R[alg]})")
    return int(alg)


# ----------------------------------------------------------------------------------------------------------------
# results and reconstruction (shared with reference.py)


@dataclass(frozen=True)
class SolveResult:
    """Optimal score, argmax table and reconstructed schedule of one solver run.

    argmax (x = size of the first final run chosen in each state):
      numba alg 0: ndarray [e, c];  alg 1: ndarray [M, e, c];  alg 2: tuple of ndarrays, argmax[M][e, b, c]
      with b <= min(M, B), B the bound on pending runs (`_pending_bound`); M = m + b + c, the size of the
      problem's final merge (I10; M = R stands for the root chain). Unreachable states hold 0.
      reference: dict {(e, c) | (e, c, m) | (e, b, c, m): x}, the paper's `ans` map.
    Use `choice(e, c, b=, m=)` to read it with the paper's state."""

    alg: int
    params: EcoTuneParams
    score: float
    schedule: Schedule
    argmax: object = field(repr=False)
    solver: str = "numba"
    seconds: float = 0.0

    def choice(self, e: int, c: int, b: int = 0, m: float = 0) -> int:
        if isinstance(self.argmax, dict):
            key = (e, c) if self.alg == 0 else (e, c, m) if self.alg == 1 else (e, b, c, m)
            return int(self.argmax[key])
        if self.alg == 0:
            return int(self.argmax[e, c])
        total = m + b + c
        M = self.params.R if total >= self.params.R else int(total)
        return int(self.argmax[M, e, c]) if self.alg == 1 else int(self.argmax[M][e, b, c])


def _walk01(R: int, CR: float, choose) -> list[tuple[int, int, int]]:
    """Alg 0/1 schedule from the argmax: choose(e, c, m) -> x. Returns (tmc, lo, hi) MLCs in time order."""
    merges: list[tuple[int, int, int]] = []
    if sys.getrecursionlimit() < 10 * R + 100:
        sys.setrecursionlimit(10 * R + 100)

    def walk(e, c, m, u0):  # units u0+1 .. u0+c, created at TMC u0+1 .. u0+c
        if c == 1:
            return
        x = choose(e, c, m)
        if x == 1:
            walk(e + 1, c - 1, m + 1, u0 + 1)
            return
        walk(e, x, 0, u0)
        merges.append((u0 + x, u0 + 1, u0 + x))
        walk(e + 1, c - x, m + x, u0 + x)

    walk(0, R, CR, 0)
    return merges


def _walk2(p: EcoTuneParams, choose) -> list[tuple[int, int, int]]:
    """Alg 2 schedule from the argmax: choose(e, b, c, m) -> x. Time t = TMCs done; pending units t-b+1..t."""
    merges: list[tuple[int, int, int]] = []
    if sys.getrecursionlimit() < 10 * p.R + 100:
        sys.setrecursionlimit(10 * p.R + 100)

    def walk(e, b, c, m, t, u_start, root):
        if c == 0:
            if root:
                assert t == p.R, "root ended before TMC R"
            else:
                merges.append((t, u_start, t))  # the left sub-problem's final MLC
            return t
        x = choose(e, b, c, m)
        if x == 1:
            if b > 0:
                return walk(e + 1, b - 1, c, m + 1, t, u_start, root)
            return walk(e + 1, 0, c - 1, m + 1, t + 1, u_start, root)
        db = math.ceil(x * p.T_c / p.T_w)
        if x <= b:
            lo = t - b + 1
            merges.append((t, lo, lo + x - 1))
            bp = b - x + db
            return walk(e + 1, bp, b + c - x - bp, m + x, t + db, u_start, root)
        t_end = walk(e, b, x - b, 0, t, t - b + 1, False)
        assert t_end == t + x - b
        return walk(e + 1, db, b + c - x - db, m + x, t_end + db, u_start, root)

    walk(0, 0, p.R, p.C * p.R, 0, 1, True)
    return merges


# ----------------------------------------------------------------------------------------------------------------
# the numba solver


def _pending_bound(p: EcoTuneParams) -> int:
    """Largest b (pending unit runs) in any state reachable from the root of Algorithm 2. New pending runs come
    from Delta_b = ceil(x T_c / T_w) <= Delta_b(R-1); when T_c <= T_w an MLC of x pending runs leaves
    b - x + Delta_b(x) <= b, so b <= Delta_b(R-1). Otherwise b is only bounded by R."""
    R = p.R
    if R < 3:
        return R
    dbs = [math.ceil(x * p.T_c / p.T_w) for x in range(2, R)]
    if all(d <= x for d, x in zip(dbs, range(2, R))):
        return min(R, max(dbs))
    return R


def _alg2_offsets(R: int, B: int) -> np.ndarray:
    M = np.arange(R + 1, dtype=np.int64)
    off = np.zeros(R + 2, np.int64)
    np.cumsum((R + 1) * (np.minimum(M, B) + 1) * (M + 1), out=off[1:])
    return off


def solve(params: EcoTuneParams, alg: int = 2) -> SolveResult:
    """Solve with the numba kernel of `alg` (0 simplified, 1 Algorithm 1, 2 Algorithm 2)."""
    p, alg = params, _check(params, alg)
    R, CR = p.R, p.C * p.R
    k = KernelParams(R, CR, p.T_w, p.T_c, p.beta, p.r, p.f)
    t0 = time.perf_counter()
    if alg == 0:
        F = np.zeros((R + 2, R + 1))
        X = np.zeros((R + 2, R + 1), np.int16)
        score = float(alg0_kernel(k, F, X))
        argmax = X[: R + 1]
        merges = _walk01(R, CR, lambda e, c, m: int(X[e, c]))
    elif alg == 1:
        G = np.zeros((R + 1, R + 2, R + 1))
        X = np.zeros((R + 1, R + 2, R + 1), np.int16)
        score = float(alg1_kernel(k, G, X))
        argmax = X[:, : R + 1, :]
        merges = _walk01(R, CR, lambda e, c, m: int(X[R if m + c >= R else int(m + c), e, c]))
    else:
        B = _pending_bound(p)
        off = _alg2_offsets(R, B)
        G = np.empty(off[-1])
        X = np.zeros(off[-1], np.int16)
        score = float(alg2_kernel(k, B, off, G, X))
        argmax = tuple(X[off[M] : off[M + 1]].reshape(R + 1, min(M, B) + 1, M + 1) for M in range(R + 1))

        def choose(e, b, c, m):
            M = R if m + b + c >= R else int(m + b + c)
            return int(argmax[M][e, b, c])

        merges = _walk2(p, choose)
    secs = time.perf_counter() - t0
    return SolveResult(alg, p, score, Schedule.from_merges(R, merges, p.T_c / p.T_w), argmax, "numba", secs)
