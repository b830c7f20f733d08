"""EcoTune's dynamic programs (Wang et al., "Rethinking The Compaction Policies in LSM-trees", SIGMOD 2025, Sec. 4.3).

Model (Sec. 4.2-4.3). A compaction round has R TMCs (top-to-main compactions). TMC t (t = 1..R) ends at time
t*T_w and adds one *unit run* (size S) to the main level. MLC threads rewrite S data in T_c; only one MLC runs at
a time and it starts right after a TMC. After TMC R the global compaction merges the main level (R*S) and the
last level (C*R*S). With e main-level runs a long scan costs e + 2 I/Os (one top-level, one last-level run), so

    q(e)  = 1 / ((e + 2) r + (1 - r)(1 + f))        (Sec. 4.3; r = long-range-scan ratio, f = filter FPR)
    q'(e) = beta * q(e)                             (Sec. 4.3.2; query speed while an MLC runs)

and a policy's *score* is query speed integrated over time (number of queries served in the round).

Solvers (each a numba kernel over preallocated memo/argmax arrays plus a plain-Python reference):

    alg 0  the simplified recurrence of Sec. 4.3.1, f(e, c)          O(R^3)
    alg 1  Algorithm 1, f(e, c, m)  (queries during MLC, Sec. 4.3.2)  O(R^4)
    alg 2  Algorithm 2, f(e, b, c, m) with MergeScore (Sec. 4.3.3)   O(R^5)

`solve(params, alg)` runs the numba kernel, `solve_reference(params, alg)` the reference (a literal transcription
of the recurrence / pseudo-code with lru_cache and the paper's `ans` map). Both return a `SolveResult` whose
`policy` is the schedule reconstructed from the argmax table, printed by `Policy.table()` as Tables 5-8 print it.
`brute_force(params, alg)` enumerates every policy of the alg-0/1 policy space for small R and scores each with
`evaluate_policy`, an event-by-event cost model that does not share code with the DPs.

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
    the global compaction is charged (C R + R) T_c q'(e) the same way. `evaluate_policy(.., alg=1)` uses this rule.
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
    being built). `PAPER_TABLES` holds the paper's Tables 5-8 as schedules; three printed rows do not add up to
    their TMC (Table 6 rows 23 and 25, Table 7 row 29) and are read as the consistent schedule noted there.

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
from functools import lru_cache

import numpy as np
from numba import njit

__all__ = [
    "ALGORITHMS", "MAX_R", "EcoTuneParamError", "EcoTuneParams", "Merge", "TMCStep", "Policy", "SolveResult",
    "q", "q_mlc", "merge_score", "solve", "solve_reference", "evaluate_policy", "brute_force", "count_policies",
    "format_layout", "time_solve", "PAPER_TABLES", "paper_policy",
]

ALGORITHMS = {0: "simplified recurrence (Sec. 4.3.1)", 1: "Algorithm 1 (Sec. 4.3.2)",
              2: "Algorithm 2 (Sec. 4.3.3)"}
MAX_R = {0: 1000, 1: 160, 2: 64}  # memory: alg 1 (R+1)^3, alg 2 about R^4/3 memo entries


class EcoTuneParamError(ValueError):
    """A parameter of the EcoTune DP is out of range (the CLI turns it into exit code 2)."""


def _finite(name: str, v) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise EcoTuneParamError(f"{name} must be a number, got {v!r}") from None
    if not math.isfinite(x):
        raise EcoTuneParamError(f"{name} must be finite, got {v!r}")
    return x


@dataclass(frozen=True)
class EcoTuneParams:
    """Inputs of the DP (Table 1, Sec. 4.3). Times in any one unit (seconds in the CLI).

    R     number of TMCs (unit runs) in a compaction round
    C     capped size ratio last level : main level (the last level holds C*R unit runs)
    T_w   time between two consecutive TMCs
    T_c   time for the MLC threads to rewrite one unit run (S data)
    beta  q'/q, query speed during an MLC over query speed without one
    r     long-range-scan ratio of the query mix
    f     false-positive rate of the range filters
    """
    R: int
    C: float
    T_w: float
    T_c: float
    beta: float
    r: float
    f: float

    def __post_init__(self):
        R = self.R
        if isinstance(R, bool) or not isinstance(R, (int, np.integer)):
            if isinstance(R, float) and R.is_integer():
                R = int(R)
            else:
                raise EcoTuneParamError(f"R must be an integer >= 1, got {self.R!r}")
        if R < 1:
            raise EcoTuneParamError(f"R must be an integer >= 1, got {R}")
        object.__setattr__(self, "R", int(R))
        for name in ("C", "T_w", "T_c", "beta", "r", "f"):
            object.__setattr__(self, name, _finite(name, getattr(self, name)))
        if self.C < 0:
            raise EcoTuneParamError(f"C must be >= 0 (last-level size / main-level size), got {self.C:g}")
        if self.T_w <= 0:
            raise EcoTuneParamError(f"T_w must be > 0 (time between TMCs), got {self.T_w:g}")
        if self.T_c <= 0:
            raise EcoTuneParamError(f"T_c must be > 0 (time to rewrite one unit run), got {self.T_c:g}")
        if not 0.0 <= self.beta <= 1.0:
            raise EcoTuneParamError(f"beta must be in [0, 1] (q'/q), got {self.beta:g}")
        if not 0.0 <= self.r <= 1.0:
            raise EcoTuneParamError(f"r must be in [0, 1] (long-range-scan ratio), got {self.r:g}")
        if not 0.0 <= self.f <= 1.0:
            raise EcoTuneParamError(f"f must be in [0, 1] (filter false-positive rate), got {self.f:g}")

    def q(self, e: int) -> float:
        return q(e, self.r, self.f)

    def q_mlc(self, e: int) -> float:
        return q_mlc(e, self.beta, self.r, self.f)


def q(e: int, r: float, f: float) -> float:
    """Query speed with e main-level runs, q(e) = 1 / ((e+2) r + (1-r)(1+f)) (Sec. 4.3)."""
    return 1.0 / ((e + 2) * r + (1.0 - r) * (1.0 + f))


def q_mlc(e: int, beta: float, r: float, f: float) -> float:
    """Query speed during an MLC, q'(e) = beta q(e) (Sec. 4.3.2)."""
    return beta * q(e, r, f)


def merge_score(p: EcoTuneParams, e: int, m: float) -> float:
    """Algorithm 2 MergeScore(e, m): queries served during an MLC of m unit runs starting at a TMC with e runs
    (I5: Delta_b = ceil(m T_c / T_w) - 1; I6)."""
    db = max(math.ceil(m * p.T_c / p.T_w) - 1, 0)
    score = 0.0
    for i in range(db):
        score = score + p.T_w * p.q_mlc(e + i)
    score = score + p.q_mlc(e + db) * (m * p.T_c - db * p.T_w)
    return score


def _check(p: EcoTuneParams, alg: int) -> int:
    if alg not in ALGORITHMS:
        raise EcoTuneParamError(f"alg must be 0 (simplified), 1 (Algorithm 1) or 2 (Algorithm 2), got {alg!r}")
    if p.R > MAX_R[alg]:
        raise EcoTuneParamError(f"R = {p.R} is too large for alg {alg} (at most {MAX_R[alg]})")
    return int(alg)


# ----------------------------------------------------------------------------------------------------------------
# numba kernels

@njit(cache=True)
def _qn(e, r, f):
    return 1.0 / ((e + 2) * r + (1.0 - r) * (1.0 + f))


@njit(cache=True)
def _merge_score_n(n, mm, T_w, T_c, beta, r, f):
    db = math.ceil(mm * T_c / T_w) - 1
    if db < 0:
        db = 0
    s = 0.0
    for i in range(db):
        s = s + T_w * (beta * _qn(n + i, r, f))
    s = s + (beta * _qn(n + db, r, f)) * (mm * T_c - db * T_w)
    return s


@njit(cache=True)
def _alg0_kernel(R, T_w, T_c, r, f, F, X):
    """Simplified recurrence (Sec. 4.3.1) into F[e, c], X[e, c] (e + c <= R). Returns T_w q(0) + f(0, R)."""
    qv = np.empty(R + 2)
    for e in range(R + 2):
        qv[e] = _qn(e, r, f)
    for e in range(R, -1, -1):
        if e + 1 <= R:
            F[e, 1] = 0.0
            X[e, 1] = 1
        for c in range(2, R - e + 1):
            best = T_w * qv[e + 1] + F[e + 1, c - 1]
            bx = 1
            for x in range(2, c):
                s = F[e, x] + (T_w - x * T_c) * qv[e + 1]
                s = s + F[e + 1, c - x]
                if best < s:
                    best = s
                    bx = x
            F[e, c] = best
            X[e, c] = bx
    return T_w * qv[0] + F[0, R]


@njit(cache=True)
def _alg1_kernel(R, CR, T_w, T_c, beta, r, f, G, X):
    """Algorithm 1 into G[M, e, c], X[M, e, c], M = m + c (layer R = root chain, M = C R + R). Returns the score."""
    qv = np.empty(R + 2)
    for e in range(R + 2):
        qv[e] = _qn(e, r, f)
    for M in range(min(2, R), R + 1):  # layers 2..R-1 (left sub-problems), then R (root chain)
        Mv = CR + R if M == R else float(M)
        cmax = M if M < R else R
        for e in range(R, -1, -1):
            for c in range(1, min(cmax, R - e) + 1):
                if c == 1:
                    G[M, e, 1] = Mv * T_c * (beta * qv[e])
                    X[M, e, 1] = 1
                    continue
                best = T_w * qv[e + 1] + G[M, e + 1, c - 1]
                bx = 1
                for x in range(2, c):
                    s = G[x, e, x] + (T_w - x * T_c) * qv[e + 1]
                    s = s + G[M, e + 1, c - x]
                    if best < s:
                        best = s
                        bx = x
                G[M, e, c] = best
                X[M, e, c] = bx
    return T_w * qv[0] + G[R, 0, R]


@njit(cache=True)
def _alg2_kernel(R, CR, T_w, T_c, beta, r, f, B, off, G, X):
    """Algorithm 2 into flat layers: G[off[M] + (e*(BM+1) + b)*(M+1) + c], BM = min(M, B), M = m + b + c (layer
    R = root chain, whose final merge is the global compaction of C R + R units). b <= B in every reachable state
    (see `_pending_bound`). Returns f(0, 0, R, C R)."""
    qv = np.empty(R + 2)
    for e in range(R + 2):
        qv[e] = _qn(e, r, f)
    dbs = np.empty(R + 1, np.int64)
    for x in range(R + 1):
        dbs[x] = math.ceil(x * T_c / T_w)
    # MergeScore(n, M) for the left sub-problems' final merges (M <= R - 1) and for the global compaction.
    ms = np.full((R + 1, R + 1), np.nan)
    for M in range(2, R):
        if dbs[M] <= R + 1:  # a longer MLC leaves no room in the round: its branch is always skipped
            for n in range(R + 1):
                ms[n, M] = _merge_score_n(n, float(M), T_w, T_c, beta, r, f)
    ms_root = np.empty(R + 1)
    for n in range(R + 1):
        ms_root[n] = _merge_score_n(n, CR + R, T_w, T_c, beta, r, f)
    idle = np.empty(R + 1)  # Delta_b T_w - x T_c, line 24
    bws = np.empty(R + 1, np.int64)
    for x in range(R + 1):
        idle[x] = dbs[x] * T_w - x * T_c
        bws[x] = min(x, B) + 1
    # Per (b, x): b' of line 20/23; per (e, b, x): line 19 or 22 plus line 24, the part of an x-branch's score that
    # does not depend on c or m (filled for x > b once layer x is done).
    BP = np.empty((B + 1, R + 1), np.int64)
    for b in range(B + 1):
        for x in range(R + 1):
            BP[b, x] = b - x + dbs[x] if x <= b else dbs[x]
    LP = np.full((R + 1, B + 1, R + 1), np.nan)
    for e in range(R + 1):
        for b in range(B + 1):
            for x in range(2, b + 1):
                if dbs[x] <= R and e + BP[b, x] <= R:
                    LP[e, b, x] = ms[e + b, x] + idle[x] * qv[e + BP[b, x]]
    for M in range(min(2, R), R + 1):  # layers 2..R-1 (left sub-problems), then R (root chain)
        W = M + 1
        BW = bws[M]
        o = off[M]
        for e in range(R, -1, -1):
            # reachable: e + b + c <= R, and e + b + c <= R - 1 in a left sub-problem (it starts at e0 <= R-M-1
            # and has finalised at most m = M - b - c runs since)
            smax = min(M, R - e) if M == R else min(M, R - 1 - e)
            if smax < 0:
                continue
            row = o + e * BW * W
            row1 = o + (e + 1) * BW * W
            for b in range(min(smax, B) + 1):
                for c in range(smax - b + 1):
                    s = b + c
                    i = row + b * W + c
                    if c == 0:
                        G[i] = ms_root[e + b] if M == R else ms[e + b, M]
                        X[i] = 1
                        continue
                    if b > 0:
                        best = G[row1 + (b - 1) * W + c]
                    else:
                        best = T_w * qv[e] + G[row1 + c - 1]
                    bx = 1
                    for x in range(2, s):
                        bp = BP[b, x]
                        if bp > s - x:  # b' > available, and for every larger x too (Delta_b grows)
                            break
                        sc = LP[e, b, x] + G[row1 + bp * W + s - x - bp]
                        if best < sc:
                            best = sc
                            bx = x
                    G[i] = best
                    X[i] = bx
        if M < R and dbs[M] <= R:
            for e in range(R - M + 1):
                for b in range(min(M - 1, B) + 1):
                    if e + dbs[M] <= R:
                        LP[e, b, M] = G[o + (e * BW + b) * W + M - b] + idle[M] * qv[e + dbs[M]]
    return G[off[R] + R]


def _pending_bound(p: "EcoTuneParams") -> int:
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


# ----------------------------------------------------------------------------------------------------------------
# results and reconstruction

@dataclass(frozen=True)
class Merge:
    """One MLC: starts right after TMC `tmc` and merges the runs holding unit runs lo..hi (1-based, by creation)."""
    tmc: int
    lo: int
    hi: int
    inputs: tuple[int, ...] = ()   # sizes (unit runs) of the merged runs, oldest first

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1


@dataclass(frozen=True)
class TMCStep:
    """The main-level layout (run sizes in unit runs, oldest first) right after TMC `tmc` created its unit run
    (`before`) and after the MLC the policy starts then (`after`, I11)."""
    tmc: int
    before: tuple[int, ...]
    after: tuple[int, ...]
    merge: Merge | None


def format_layout(sizes) -> str:
    """Run sizes as the paper prints them: '14 7 4[1]' (n[1] = n consecutive size-1 runs)."""
    out, ones = [], 0
    for s in sizes:
        if s == 1:
            ones += 1
            continue
        if ones:
            out.append(f"{ones}[1]")
            ones = 0
        out.append(str(s))
    if ones:
        out.append(f"{ones}[1]")
    return " ".join(out) if out else "-"


@dataclass(frozen=True)
class Policy:
    """A main-level compaction schedule for one round: the MLCs and the layout after every TMC."""
    R: int
    merges: tuple[Merge, ...]
    steps: tuple[TMCStep, ...]
    T_ratio: float = 0.0  # T_c / T_w, for the MLC-duration column

    @classmethod
    def from_merges(cls, R: int, merges, T_c_over_T_w: float = 0.0) -> "Policy":
        runs: list[tuple[int, int]] = []
        by_tmc: dict[int, list[tuple[int, int, int]]] = {}
        for tmc, lo, hi in merges:
            if not 1 <= tmc <= R or not 1 <= lo < hi <= tmc:
                raise ValueError(f"bad MLC (tmc={tmc}, units {lo}..{hi}) for R={R}")
            by_tmc.setdefault(tmc, []).append((tmc, lo, hi))
        steps, done = [], []
        for t in range(1, R + 1):
            runs.append((t, t))
            before = tuple(h - l + 1 for l, h in runs)
            mg = None
            for tmc, lo, hi in by_tmc.get(t, []):
                idx = [i for i, (l, h) in enumerate(runs) if lo <= l and h <= hi]
                if not idx or runs[idx[0]][0] != lo or runs[idx[-1]][1] != hi or len(idx) < 2 \
                        or idx != list(range(idx[0], idx[-1] + 1)):
                    raise ValueError(f"MLC at TMC {t} over units {lo}..{hi} does not merge whole runs")
                mg = Merge(t, lo, hi, tuple(runs[i][1] - runs[i][0] + 1 for i in idx))
                done.append(mg)
                runs[idx[0]:idx[-1] + 1] = [(lo, hi)]
            steps.append(TMCStep(t, before, tuple(h - l + 1 for l, h in runs), mg))
        return cls(R, tuple(done), tuple(steps), T_c_over_T_w)

    @property
    def layouts(self) -> list[tuple[int, ...]]:
        """Main-level layout after each TMC 1..R (after the MLC started then)."""
        return [s.after for s in self.steps]

    @property
    def n_merges(self) -> int:
        """Number of MLCs in the round (the global compaction not counted)."""
        return len(self.merges)

    @property
    def mlc_work(self) -> int:
        """Unit runs rewritten by MLCs in the round (the global compaction not counted)."""
        return sum(m.size for m in self.merges)

    @property
    def mean_runs(self) -> float:
        """Main-level runs after each TMC, averaged over the R TMCs (laziness: higher = lazier)."""
        return sum(len(s.after) for s in self.steps) / self.R

    def table(self, all_rows: bool = False) -> str:
        """The paper's Tables 5-8: '# TMC | Main Level Layout' (before -> after), rows where an MLC starts and the
        last TMC; `all_rows` prints every TMC."""
        rows = [("# TMC", "Main Level Layout", "MLC (units, time/T_w)" if self.T_ratio > 0 else "MLC (units)")]
        for s in self.steps:
            if s.merge is None and s.tmc != self.R and not all_rows:
                continue
            lay = format_layout(s.before) if s.merge is None else \
                f"{format_layout(s.before)} -> {format_layout(s.after)}"
            mlc = "" if s.merge is None else f"{s.merge.size} ({s.merge.size * self.T_ratio:.2f})" \
                if self.T_ratio > 0 else str(s.merge.size)
            rows.append((str(s.tmc), lay, mlc))
        w = [max(len(r[i]) for r in rows) for i in range(3)]
        return "\n".join(f"{a:>{w[0]}}  {b:<{w[1]}}  {c}".rstrip() for a, b, c in rows)


@dataclass(frozen=True)
class SolveResult:
    """Optimal score, argmax table and reconstructed policy of one solver run.

    argmax (x = size of the first final run chosen in each state):
      numba alg 0: ndarray [e, c];  alg 1: ndarray [M, e, c];  alg 2: tuple of ndarrays, argmax[M][e, b, c]
      with b <= min(M, B), B the bound on pending runs (`_pending_bound`); M = m + b + c, the size of the
      problem's final merge (I10; M = R stands for the root chain). Unreachable states hold 0.
      reference: dict {(e, c) | (e, c, m) | (e, b, c, m): x}, the paper's `ans` map.
    Use `choice(e, c, b=, m=)` to read it with the paper's state."""
    alg: int
    params: EcoTuneParams
    score: float
    policy: Policy
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


# The paper's solved policies (Sec. 5.2, Tables 5-8; 10 cores, R = 29, C = 3; T_w, T_c, beta, f not given) as MLCs
# (tmc, lo, hi) over unit runs lo..hi. Two misprints are read as the consistent schedule (rows must add up to the TMC).
PAPER_TABLES = {
    5: {"caption": "10 cores + 10% Long Range Scan", "r": (0.1,),
        "merges": ((7, 1, 7), (14, 8, 14), (21, 15, 21), (24, 22, 24)), "note": ""},
    6: {"caption": "10 cores + 20% Long Range Scan", "r": (0.2,),
        "merges": ((3, 1, 3), (8, 1, 8), (11, 9, 11), (15, 9, 15), (18, 16, 18), (22, 16, 22), (25, 23, 25)),
        "note": "printed rows '23: 8 7 3 4[1] -> 8 7 7' and '25: 8 7 7 4[1] -> 8 7 7 3' add up to 22 and 26; "
                "read as TMC 22 (8 7 3 4[1] -> 8 7 7) and TMC 25 (8 7 7 3[1] -> 8 7 7 3)"},
    7: {"caption": "10 cores + 30% - 80% Long Range Scan", "r": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8),
        "merges": ((3, 1, 3), (7, 1, 7), (10, 8, 10), (14, 1, 14), (17, 15, 17), (21, 15, 21), (25, 22, 25)),
        "note": "printed last row '29: 14 7 4[1]' adds up to 25; read as 14 7 4 4[1]"},
    8: {"caption": "10 cores + 90% - 100% Long Range Scan", "r": (0.9, 1.0),
        "merges": ((3, 1, 3), (7, 1, 7), (10, 8, 10), (13, 1, 13), (16, 14, 16), (20, 14, 20), (23, 21, 23),
                   (26, 24, 26)), "note": ""},
}


def paper_policy(table: int) -> Policy:
    """The paper's Table 5, 6, 7 or 8 as a Policy (R = 29)."""
    return Policy.from_merges(29, PAPER_TABLES[table]["merges"])


# ----------------------------------------------------------------------------------------------------------------
# public solvers

def solve(params: EcoTuneParams, alg: int = 2) -> SolveResult:
    """Solve with the numba kernel of `alg` (0 simplified, 1 Algorithm 1, 2 Algorithm 2)."""
    p, alg = params, _check(params, alg)
    R, CR = p.R, p.C * p.R
    t0 = time.perf_counter()
    if alg == 0:
        F = np.zeros((R + 2, R + 1))
        X = np.zeros((R + 2, R + 1), np.int16)
        score = float(_alg0_kernel(R, p.T_w, p.T_c, p.r, p.f, F, X))
        argmax = X[:R + 1]
        merges = _walk01(R, CR, lambda e, c, m: int(X[e, c]))
    elif alg == 1:
        G = np.zeros((R + 1, R + 2, R + 1))
        X = np.zeros((R + 1, R + 2, R + 1), np.int16)
        score = float(_alg1_kernel(R, CR, p.T_w, p.T_c, p.beta, p.r, p.f, G, X))
        argmax = X[:, :R + 1, :]
        merges = _walk01(R, CR, lambda e, c, m: int(X[R if m + c >= R else int(m + c), e, c]))
    else:
        B = _pending_bound(p)
        off = _alg2_offsets(R, B)
        G = np.empty(off[-1])
        X = np.zeros(off[-1], np.int16)
        score = float(_alg2_kernel(R, CR, p.T_w, p.T_c, p.beta, p.r, p.f, B, off, G, X))
        argmax = tuple(X[off[M]:off[M + 1]].reshape(R + 1, min(M, B) + 1, M + 1) for M in range(R + 1))

        def choose(e, b, c, m):
            M = R if m + b + c >= R else int(m + b + c)
            return int(argmax[M][e, b, c])
        merges = _walk2(p, choose)
    secs = time.perf_counter() - t0
    return SolveResult(alg, p, score, Policy.from_merges(R, merges, p.T_c / p.T_w), argmax, "numba", secs)


def _reference_alg0(p: EcoTuneParams):
    T_w, T_c = p.T_w, p.T_c
    ans: dict = {}

    @lru_cache(maxsize=None)
    def f(e, c):
        if c == 1:
            ans[(e, c)] = 1
            return 0.0
        best, bx = T_w * p.q(e + 1) + f(e + 1, c - 1), 1        # x = 1: no MLC (I1)
        for x in range(2, c):
            s = f(e, x) + (T_w - x * T_c) * p.q(e + 1)
            s = s + f(e + 1, c - x)
            if best < s:
                best, bx = s, x
        ans[(e, c)] = bx
        return best

    return T_w * p.q(0) + f(0, p.R), ans                          # I2


def _reference_alg1(p: EcoTuneParams):
    T_w, T_c = p.T_w, p.T_c
    ans: dict = {}

    @lru_cache(maxsize=None)
    def f(e, c, m):
        if c == 1:                                                 # lines 3-5
            ans[(e, c, m)] = 1
            return (m + c) * T_c * p.q_mlc(e)
        best, bx = T_w * p.q(e + 1) + f(e + 1, c - 1, m + 1), 1   # line 6
        for x in range(2, c):                                      # lines 7-11
            s = f(e, x, 0) + (T_w - x * T_c) * p.q(e + 1)
            s = s + f(e + 1, c - x, m + x)
            if best < s:
                best, bx = s, x
        ans[(e, c, m)] = bx
        return best

    return T_w * p.q(0) + f(0, p.R, p.C * p.R), ans                # line 14


def _reference_alg2(p: EcoTuneParams):
    T_w, T_c = p.T_w, p.T_c
    ans: dict = {}

    @lru_cache(maxsize=None)
    def f(e, b, c, m):
        if c == 0:                                                 # lines 8-10
            ans[(e, b, c, m)] = 1
            return merge_score(p, e + b, m + b)
        if b > 0:                                                  # lines 11-14
            score = f(e + 1, b - 1, c, m + 1)
        else:
            score = T_w * p.q(e) + f(e + 1, 0, c - 1, m + 1)
        best, bx = score, 1
        for x in range(2, b + c):                                  # lines 16-30
            db = math.ceil(x * T_c / T_w)                          # I5: T_cc -> T_w
            if x <= b:
                score = merge_score(p, e + b, x)
                bp = b - x + db
            else:
                score = f(e, b, x - b, 0)
                bp = db
            available = b + c - x
            if bp > available:                                     # (line 24 moved after the check: its value is
                continue                                           #  discarded when the branch is skipped)
            score = score + (db * T_w - x * T_c) * p.q(e + bp)
            score = score + f(e + 1, bp, available - bp, m + x)
            if best < score:
                best, bx = score, x
        ans[(e, b, c, m)] = bx
        return best

    return f(0, 0, p.R, p.C * p.R), ans                            # line 33


def solve_reference(params: EcoTuneParams, alg: int = 2) -> SolveResult:
    """Solve with the plain-Python reference (literal recurrence / pseudo-code, lru_cache). Slow: small R only."""
    p, alg = params, _check(params, alg)
    if sys.getrecursionlimit() < 20 * p.R + 200:
        sys.setrecursionlimit(20 * p.R + 200)
    t0 = time.perf_counter()
    score, ans = (_reference_alg0, _reference_alg1, _reference_alg2)[alg](p)
    secs = time.perf_counter() - t0
    CR = p.C * p.R
    if alg == 0:
        merges = _walk01(p.R, CR, lambda e, c, m: ans[(e, c)])
    elif alg == 1:
        merges = _walk01(p.R, CR, lambda e, c, m: ans[(e, c, m)])
    else:
        merges = _walk2(p, lambda e, b, c, m: ans[(e, b, c, m)])
    return SolveResult(alg, p, float(score), Policy.from_merges(p.R, merges, p.T_c / p.T_w), ans, "python", secs)


# ----------------------------------------------------------------------------------------------------------------
# independent cost model and brute force

def evaluate_policy(params: EcoTuneParams, merges, alg: int) -> float:
    """Score of a schedule `merges` [(tmc, lo, hi) or Merge] under the cost model of `alg`, simulated event by
    event (no code shared with the DPs).

    alg 0/1 (slot model, assumptions (1)-(2)): TMC t at t T_w; an MLC of x units started at TMC t takes x T_c and
    the rest of the slot, T_w - x T_c, serves queries at q(runs after it). Alg 0: no queries during compactions;
    alg 1: q'(runs present - 1) during an MLC and during the global compaction of C R + R units (I4).
    alg 2 (timeline): run counts change when a TMC adds a unit run and when an MLC ends; queries at q'(runs
    present) while an MLC or the global compaction (C R + R units, from TMC R) runs, q(runs present) otherwise;
    TMCs go on every T_w during the global compaction. MLCs must not overlap."""
    p = params
    ms = sorted(((m.tmc, m.lo, m.hi) if isinstance(m, Merge) else tuple(m)) for m in merges)
    by_tmc: dict[int, tuple[int, int, int]] = {}
    for mg in ms:
        if mg[0] in by_tmc:
            raise ValueError(f"two MLCs start at TMC {mg[0]}")
        by_tmc[mg[0]] = mg
    runs: list[list[int]] = []

    def apply(lo, hi):
        idx = [i for i, (l, h) in enumerate(runs) if lo <= l and h <= hi]
        if len(idx) < 2 or runs[idx[0]][0] != lo or runs[idx[-1]][1] != hi:
            raise ValueError(f"MLC over units {lo}..{hi} does not merge whole runs")
        runs[idx[0]:idx[-1] + 1] = [[lo, hi]]
        return len(idx)

    if alg in (0, 1):
        score = p.T_w * p.q(0)
        for t in range(1, p.R + 1):
            runs.append([t, t])
            n = len(runs)
            if t == p.R:
                if t in by_tmc:
                    raise ValueError("no MLC at TMC R: the global compaction follows")
                if alg == 1:
                    score += (p.C * p.R + p.R) * p.T_c * p.q_mlc(n - 1)
                break
            if t in by_tmc:
                _, lo, hi = by_tmc[t]
                x = hi - lo + 1
                apply(lo, hi)
                if alg == 1:
                    score += x * p.T_c * p.q_mlc(n - 1)
                score += (p.T_w - x * p.T_c) * p.q(len(runs))
            else:
                score += p.T_w * p.q(n)
        return score

    if alg != 2:
        raise EcoTuneParamError(f"alg must be 0, 1 or 2, got {alg!r}")
    eps = 1e-9 * p.T_w
    now, score = 0.0, 0.0
    active = None  # (end_time, lo, hi)

    def advance(to):
        nonlocal now, score
        speed = p.q_mlc(len(runs)) if active is not None else p.q(len(runs))
        score += (to - now) * speed
        now = to

    for t in range(1, p.R + 1):
        tb = t * p.T_w
        if active is not None and active[0] <= tb + eps:
            advance(min(active[0], tb))
            apply(active[1], active[2])
            active = None
        advance(tb)
        runs.append([t, t])
        if t in by_tmc:
            if active is not None:
                raise ValueError(f"MLC at TMC {t} starts while another runs")
            _, lo, hi = by_tmc[t]
            active = (tb + (hi - lo + 1) * p.T_c, lo, hi)
    if active is not None:
        raise ValueError("an MLC is still running at TMC R")
    active = (now + (p.C * p.R + p.R) * p.T_c, 0, 0)  # global compaction
    k = p.R + 1
    while k * p.T_w < active[0] - eps:
        advance(k * p.T_w)
        runs.append([k, k])
        k += 1
    advance(active[0])
    return score


def _policies01(R: int):
    """All alg-0/1 schedules: after TMC t < R merge the newest k >= 1 runs (k = 1: no MLC)."""
    out = []

    def rec(t, runs, merges):
        if t == R:
            out.append(list(merges))
            return
        runs = runs + [(t, t)]
        rec(t + 1, runs, merges)
        for k in range(2, len(runs) + 1):
            lo = runs[-k][0]
            rec(t + 1, runs[:-k] + [(lo, t)], merges + [(t, lo, t)])

    rec(1, [], [])
    return out


def count_policies(R: int) -> int:
    """Number of schedules `brute_force` enumerates for R."""
    return len(_policies01(R))


def brute_force(params: EcoTuneParams, alg: int = 0) -> tuple[float, list]:
    """Best score and schedule over every alg-0/1 policy (small R only), scored by `evaluate_policy`."""
    if alg not in (0, 1):
        raise EcoTuneParamError("brute_force covers the policy space of alg 0 and 1")
    if params.R > 11:
        raise EcoTuneParamError(f"brute_force: R = {params.R} is too large (at most 11)")
    best, best_m = -math.inf, None
    for merges in _policies01(params.R):
        s = evaluate_policy(params, merges, alg)
        if s > best:
            best, best_m = s, merges
    return best, best_m


def time_solve(params: EcoTuneParams, alg: int, reference: bool = False, repeat: int = 3) -> float:
    """Wall time (s) of one solve, best of `repeat`, numba kernels warmed up first."""
    if not reference:
        solve(EcoTuneParams(3, params.C, params.T_w, params.T_c, params.beta, params.r, params.f), alg)
    fn = solve_reference if reference else solve
    best = math.inf
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn(params, alg)
        best = min(best, time.perf_counter() - t0)
    return best
