"""The numba kernels of EcoTune's dynamic programs (Wang et al., SIGMOD 2025, Sec. 4.3); `dp.solve` calls them.

Every `@njit` function of the DP lives here: numba's cache does not see edits to functions defined in other
files (numba issue 1833). Each kernel fills preallocated memo/argmax arrays bottom-up; its plain-Python
reference (a literal transcription of the paper) is in `reference.py`, and the tests compare every reachable
argmax entry. The scalars of the model travel as one `KernelParams` (numba types it as a heterogeneous
NamedTuple); the arithmetic is that of the references, in the same order (I10 in dp.py).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..._numba import njit


class KernelParams(NamedTuple):
    """The model's scalars as the kernels take them (`EcoTuneParams` in model.py; CR = C R, the last level's
    unit runs)."""

    R: int
    CR: float
    T_w: float
    T_c: float
    beta: float
    r: float
    f: float


@njit(cache=True)
def _qn(e, r, f):
    """q(e) (Sec. 4.3), as model.q."""
    return 1.0 / ((e + 2) * r + (1.0 - r) * (1.0 + f))


@njit(cache=True)
def _q_sum(n, count, r, f):
    """sum_{i < count} q(n + i), as model.q_sum (exact up to Q_SUM_EXACT terms, Euler-Maclaurin beyond)."""
    exact = min(count, 2048)
    s = 0.0
    for i in range(exact):
        s += _qn(n + i, r, f)
    if count > exact:
        a = 2 * r + (1.0 - r) * (1.0 + f)
        lo, hi = n + exact, n + count - 1
        if r == 0.0:
            s += (count - exact) / a
        else:
            g_lo, g_hi = 1.0 / (r * lo + a), 1.0 / (r * hi + a)
            s += math.log((r * hi + a) / (r * lo + a)) / r + (g_lo + g_hi) / 2 + r * (g_lo**2 - g_hi**2) / 12
    return s


@njit(cache=True)
def _merge_score_n(n, mm, k):
    """Algorithm 2's MergeScore(n, mm), as model.merge_score (I5, I6)."""
    db = math.ceil(mm * k.T_c / k.T_w) - 1
    if db < 0:
        db = 0
    s = k.T_w * k.beta * _q_sum(n, db, k.r, k.f)
    s = s + (k.beta * _qn(n + db, k.r, k.f)) * (mm * k.T_c - db * k.T_w)
    return s


@njit(cache=True)
def alg0_kernel(k, F, X):
    """Simplified recurrence (Sec. 4.3.1) into F[e, c], X[e, c] (e + c <= R). Returns T_w q(0) + f(0, R)."""
    R, T_w, T_c, r, f = k.R, k.T_w, k.T_c, k.r, k.f
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
def alg1_kernel(k, G, X):
    """Algorithm 1 into G[M, e, c], X[M, e, c], M = m + c (layer R = root chain, M = C R + R). Returns the score."""
    R, CR, T_w, T_c, beta, r, f = k.R, k.CR, k.T_w, k.T_c, k.beta, k.r, k.f
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
def alg2_kernel(k, B, off, G, X):  # noqa: C901 (numba kernel: Algorithm 2 line by line, kept in the paper's shape)
    """Algorithm 2 into flat layers: G[off[M] + (e*(BM+1) + b)*(M+1) + c], BM = min(M, B), M = m + b + c (layer
    R = root chain, whose final merge is the global compaction of C R + R units). b <= B in every reachable state
    (see `dp._pending_bound`). Returns f(0, 0, R, C R)."""
    R, CR, T_w, T_c, r, f = k.R, k.CR, k.T_w, k.T_c, k.r, k.f
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
                ms[n, M] = _merge_score_n(n, float(M), k)
    ms_root = np.empty(R + 1)
    for n in range(R + 1):
        ms_root[n] = _merge_score_n(n, CR + R, k)
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
