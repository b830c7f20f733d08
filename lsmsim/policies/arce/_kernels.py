"""ARCE's per-decision numba kernels (ArceKV, PVLDB 19(5) 2026, Sections 3-4): Eq. 4-5's costs, the candidates,
Eq. 9-11's scores and the frontier chooser, and the two parameter tuples they take. FindBestParams' kernels,
which call these, are in _search_kernels.py.

numba's on-disk cache (``cache=True``) is keyed on the defining file only: a kernel calling a kernel of another
file keeps running stale code after an edit of that file (numba issue 1833). So _search_kernels.py carries this
file's fingerprint, and tests/test_architecture.py fails until it is renewed, which renews that file's cache.

``ModelConsts`` holds the constants of one (workload, cost) pair (``cost.model_consts`` builds it), ``MCK`` the
score parameters (M, c, k). Each kernel has a plain-Python counterpart that transcribes the equations (cost.py,
score.py, reference.py); the tests check that they agree. R-numbers refer to docs/arce-readings.md.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..._numba import njit
from ...tolerances import REL_EPS, ROUND_EPS


class ModelConsts(NamedTuple):
    """Cost-model constants of one workload and device (Sec. 3.2), in the units of ``CostParams``."""

    r: float  # range lookups per window
    u: float  # updates per window
    p: float  # point lookups per window
    I_r: float
    I_w: float  # Eq. 5's per-block time minus I_r, so that I_r + I_w carries R21's compaction_block
    B: float
    alpha: float
    flush_w: float  # flush time charged per window (R2)
    g: float  # Amdahl speed-up (R14)
    F: float
    span: int  # smallest j - i of pattern 3 (R9)
    es_w: float  # weight of Eq. 9's read term (R29)


class MCK(NamedTuple):
    """The score parameters (M, c, k) of Eq. 9-11."""

    M: float
    c: int
    k: float


# ------------------------------------------------------------------------------------ cost model (Eq. 4-5)


@njit(cache=True)
def _fg_cost_nb(s, t, a, b, uk, c):
    """Eq. 4 in closed form: sum_{i<t} a + b (s+i) + uk 1(s+i > c), with a = p I_r + flush, b = (r + alpha p) I_r
    and uk = u k."""
    t0 = c + 1 - s
    if t0 < 0:
        t0 = 0
    ns = t - t0
    if ns < 0:
        ns = 0
    return a * t + b * (s * t + 0.5 * t * (t - 1)) + uk * ns


@njit(cache=True)
def _ceil_root_nb(qa, qb, qc):
    """About the smallest integer t >= 1 with qa t^2 + qb t >= qc (qa >= 0, qc > 0); callers correct it."""
    den = qb + math.sqrt(qb * qb + 4.0 * qa * qc)
    if not den > 0.0:
        return 1
    x = 2.0 * qc / den
    if x > 1e15:
        x = 1e15
    t = np.int64(math.ceil(x))
    return t if t > 1 else 1


@njit(cache=True)
def _raw_windows_nb(q, s, a, b, uk, c):
    """Eq. 5: min t >= 1 with f(s, t) >= q, from the roots of the two quadratic pieces of f, corrected (the
    corrections walk to the exact minimum from any start, f being increasing in t)."""
    A = a + b * s
    qa = 0.5 * b
    t = _ceil_root_nb(qa, A - qa, q)
    t0 = c + 1 - s
    if t0 < 0:
        t0 = 0
    if t > t0:
        t2 = _ceil_root_nb(qa, A - qa + uk, q + uk * t0)
        t = t2 if t2 > t0 + 1 else t0 + 1
    while t > 1 and _fg_cost_nb(s, t - 1, a, b, uk, c) >= q:
        t -= 1
    while _fg_cost_nb(s, t, a, b, uk, c) < q:
        t += 1
    return t


@njit(cache=True)
def _windows_nb(q, s, a, b, uk, c, g):
    """Eq. 5 then Amdahl (R14)."""
    t = _raw_windows_nb(q, s, a, b, uk, c)
    if g == 1.0:
        return t
    tt = np.int64(math.ceil(t / g - ROUND_EPS))
    return tt if tt > 1 else 1


# ------------------------------------------------------------------------- candidates and score (Eq. 9-11)


@njit(cache=True)
def _effect_nb(s, t, y, P, K, idle_workers, sat_pen):
    """Eq. 9-11 with the reference's operation order (bit-identical results)."""
    r, u, p, Ir, alpha = P.r, P.u, P.p, P.I_r, P.alpha
    M, c, k = K.M, K.c, K.k
    el = (r + alpha * p) * Ir * y
    if idle_workers >= 2:
        es = 0.0
    else:
        m = s + t - c
        if m < 0:
            m = 0
        es = P.es_w * Ir * t * (r + alpha * p) + u * k * m
    e = M * el - es
    if idle_workers <= 0:
        e = e - sat_pen
    return e


@njit(cache=True)
def _enumerate_nb(counts, span, out, fill):
    """Candidate rows (pattern, first, last, target) in the canonical order (R9-R11); returns their number.
    With fill False only counts (``out`` unused)."""
    L = counts.size
    st = np.zeros(L + 1, dtype=np.int64)
    for i in range(L):
        st[i + 1] = st[i] + counts[i]
    nc = 0
    for i in range(L):
        ni = counts[i]
        if ni == 0:
            continue
        a = st[i]
        for m in range(2, ni + 1):  # pattern 1: smallest runs, one more at a time
            if fill:
                out[nc, 0] = 1
                out[nc, 1] = a
                out[nc, 2] = a + m - 1
                out[nc, 3] = i
            nc += 1
        if i + 1 < L:  # pattern 2: all of level i + 0..all of level i+1
            for m in range(0, counts[i + 1] + 1):
                b = st[i + 1] - 1 + m
                if b > a:
                    if fill:
                        out[nc, 0] = 2
                        out[nc, 1] = a
                        out[nc, 2] = b
                        out[nc, 3] = i + 1
                    nc += 1
        j0 = i + span
        if j0 < i + 1:
            j0 = i + 1
        for j in range(j0, L - 1):  # pattern 3: all of levels i..j + 0..all of level j+1
            for m in range(0, counts[j + 1] + 1):
                b = st[j + 1] - 1 + m
                if b > a:
                    if fill:
                        out[nc, 0] = 3
                        out[nc, 1] = a
                        out[nc, 2] = b
                        out[nc, 3] = j + 1
                    nc += 1
    return nc


@njit(cache=True)
def _score_nb(sizes, cands, s, P, K, idle_workers, sat_pen, X, Y, T, E):
    """X, y, t (Eq. 5 + R14) and E (Eq. 11) of every candidate row."""
    r, u, p, Ir, Iw, B, alpha, flush_w, g = P.r, P.u, P.p, P.I_r, P.I_w, P.B, P.alpha, P.flush_w, P.g
    c, k = K.c, K.k
    a = p * Ir + flush_w
    b = r * Ir + p * alpha * Ir
    uk = u * k
    rw = Ir + Iw
    for j in range(cands.shape[0]):
        first = cands[j, 1]
        last = cands[j, 2]
        x = 0.0
        for i in range(first, last + 1):
            x += sizes[i]
        y = last - first
        t = _windows_nb(x / B * rw, s, a, b, uk, c, g)
        X[j] = x
        Y[j] = y
        T[j] = t
        E[j] = _effect_nb(s, t, y, P, K, idle_workers, sat_pen)


@njit(cache=True)
def _best_index_nb(X, Y, E):
    """R12: the candidate with the highest E > 0 (ties: larger y, smaller X, earlier); -1 if none."""
    best = -1
    for j in range(E.size):
        e = E[j]
        if not e > 0.0:
            continue
        if best < 0:
            best = j
            continue
        eb = E[best]
        if e > eb or (e == eb and (Y[j] > Y[best] or (Y[j] == Y[best] and X[j] < X[best]))):
            best = j
    return best


@njit(cache=True)
def _table_nb(counts, sizes, enum, cands, P, K, idle_workers, sat_pen):
    """One call: enumerate (if ``enum``), score, pick (R12). Returns (cands, X, y, t, E, best index or -1)."""
    if enum:
        nc = _enumerate_nb(counts, P.span, cands, False)
        cands = np.empty((nc, 4), dtype=np.int64)
        _enumerate_nb(counts, P.span, cands, True)
    nc = cands.shape[0]
    X = np.empty(nc)
    Y = np.empty(nc, dtype=np.int64)
    T = np.empty(nc, dtype=np.int64)
    E = np.empty(nc)
    _score_nb(sizes, cands, sizes.size, P, K, idle_workers, sat_pen, X, Y, T, E)
    return cands, X, Y, T, E, _best_index_nb(X, Y, E)


@njit(cache=True)
def _probe_loses_nb(q, s, y, C, uk_max, uk_min, c_max, best_e, a_, b_, M, elc, els, g):
    """Whether a frontier point (q, y) scores below best_e (Eq. 11) for every c in [C, c_max] and k in
    [k_min, k_max]: E falls with t, which is least at c = C, k = k_max, and its stall term is least at c_max, k_min."""
    t = _raw_windows_nb(q, s, a_, b_, uk_max, C)
    if g != 1.0:
        t = max(1, np.int64(math.ceil(t / g - ROUND_EPS)))
    ub = M * elc * y - els * t - uk_min * max(0, s + t - c_max)
    return ub < best_e - REL_EPS * (abs(ub) + abs(best_e))


@njit(cache=True)
def _choose_nb(sizes, cnt, P, K, bx, ba, bi, fy, ft, probe_uk, probe_ukmin):  # noqa: C901 (numba kernel: one loop over candidates with early exits, split it and the JIT loses the fusion)
    """Best compaction of a tree given as per-level sorted sizes (canonical order), scoring only the (X, y)
    Pareto frontier. Returns (first, y, start level, X, t, E, qm); y = 0 when nothing has E > 0.

    Probe mode (``probe_uk`` = u k_max >= 0 and ``probe_ukmin`` = u k_min, for FindBestParams' sharing, see
    ``_search_kernels._simulate_nb``): qm is the smallest C such that every (c' in [C, c], k' in [k_min, k_max])
    makes the same choice with the same t and E, none of them charged a stall term. It takes s + 1 (the bound
    pen1), the winner's s + t, and for every other scanned point the smallest C from which it either scores as
    it did (C >= s + t) or cannot beat the winner (``_probe_loses_nb``, found by bisection). Points past the
    break lose for every c' >= s + 1. Probe mode scans without the skip, which never changes the choice, so that
    every scanned point has its t (in ``ft``). Otherwise qm is 0.

    Exactness: t is non-decreasing in X (f(s, .) fixed), so a candidate with X' <= X and y' >= y has E' >= E
    (Lemma 3.3); under R12's tie rule it also wins ties unless it has the same (X, y), where the earlier
    candidate is kept. Every candidate starts at the first run of a level, so for each y the smallest X over the
    start levels is all that matters. The frontier is scanned from the largest y down (ties keep the larger y);
    the scan stops when even t = 1 could not beat the best score (or be > 0), and skips a point whose duration,
    bounded below by q / (cost of the costliest window it could span), already rules it out. Scratch arrays bx,
    ba, bi, fy (and ft in probe mode) need >= sizes.size entries."""
    r, u, p, Ir, Iw, B, alpha, flush_w, g = P.r, P.u, P.p, P.I_r, P.I_w, P.B, P.alpha, P.flush_w, P.g
    span = P.span
    M, c, k = K.M, K.c, K.k
    L = cnt.size
    n = 0
    for i in range(L):
        n += cnt[i]
    elc = (r + alpha * p) * Ir
    els = P.es_w * elc  # Eq. 9's read term per window (R29)
    if n < 2 or not elc > 0.0:
        return -1, 0, -1, 0.0, 0, 0.0, 0
    s = n
    # upper bound of E at y with t >= 1: M elc y - els - u k max(0, s + 1 - c); nothing can be > 0 if it fails
    # at y = n - 1 (REL_EPS relative slack: far above rounding, so no candidate the full scan takes is skipped)
    st1 = s + 1 - c
    if st1 < 0:
        st1 = 0
    pen1 = els + u * k * st1
    probe = probe_uk >= 0.0
    hi = M * elc * (n - 1)
    if hi - pen1 <= -REL_EPS * (hi + pen1):
        return -1, 0, -1, 0.0, 0, 0.0, s + 1 if probe else 0
    for y in range(n):
        bx[y] = np.inf
    st_i = 0
    for i in range(L):
        ni = cnt[i]
        if ni == 0:
            continue
        a = st_i
        e_i = a + ni - 1
        # allowed last runs: P1 and P2 up to the end of level i+1 (if it exists), P3 from the end of level
        # i + span to the end of the tree (if level i + span + 1 exists)
        if i + 1 < L:
            hi1 = e_i + cnt[i + 1]
        else:
            hi1 = e_i
        jmin = i + span
        if jmin < i + 1:
            jmin = i + 1
        lo2 = n  # no P3 range
        if jmin <= L - 2:
            lo2 = a - 1
            for l in range(i, jmin + 1):
                lo2 += cnt[l]
        x = sizes[a]
        for bb in range(a + 1, n):
            x += sizes[bb]
            if bb > hi1:
                if lo2 >= n:
                    break
                if bb < lo2:
                    continue
            y = bb - a
            if x < bx[y]:
                bx[y] = x
                ba[y] = a
                bi[y] = i
        st_i += ni
    a_ = p * Ir + flush_w
    b_ = r * Ir + p * alpha * Ir
    uk = u * k
    rw = Ir + Iw
    # the Pareto frontier, largest y first: fy[0] > fy[1] > ... with bx[fy[j]] strictly decreasing
    m = 0
    runmin = np.inf
    for y in range(n - 1, 0, -1):
        x = bx[y]
        if x < runmin:
            runmin = x
            fy[m] = y
            m += 1
    # scan it from the largest y down; every later point has a smaller y and t >= 1, and t <= t_prev
    best_e = 0.0
    best_y = 0
    best_t = 0
    best_j = -1
    t_prev = -1  # raw duration of the previous (larger) frontier point
    scanned = m
    for j in range(m):
        y = fy[j]
        x = bx[y]
        hi = M * elc * y
        if hi - pen1 < best_e - REL_EPS * (hi + pen1 + best_e):
            scanned = j
            break  # no smaller y can beat best_e (or be > 0); REL_EPS: rounding slack
        q = x / B * rw
        if t_prev > 0 and not probe:
            # cheap lower bound of t: t <= t_prev, so each of its windows costs <= W and t >= q / W
            W = a_ + b_ * (s + t_prev - 1) + uk
            tl = np.int64(q / W)
            if tl > 1:
                if g != 1.0:
                    tl = np.int64(math.ceil(tl / g - ROUND_EPS))
                mm = s + tl - c
                if mm < 0:
                    mm = 0
                pen = els * tl + uk * mm
                if hi - pen < best_e - REL_EPS * (hi + pen + best_e):
                    continue  # cannot beat best_e (or be > 0)
        traw = _raw_windows_nb(q, s, a_, b_, uk, c)
        if probe:
            ft[j] = traw
        t_prev = traw
        t = traw
        if g != 1.0:
            t = np.int64(math.ceil(traw / g - ROUND_EPS))
            if t < 1:
                t = 1
        e = _effect_nb(s, t, y, P, K, 1, 0.0)
        if e > best_e:
            best_e = e
            best_y = y
            best_t = t
            best_j = j
    qm = 0
    if probe:
        qm = s + 1
        if best_j >= 0:
            qm = max(qm, s + ft[best_j])
        for j in range(scanned):
            if j == best_j or s + ft[j] <= qm:
                continue
            # the smallest C in [qm, s + t_j] from which point j cannot win: its E is at most
            # M elc y - els t(C, k_max), non-increasing in C (less stall term, more windows)
            q = bx[fy[j]] / B * rw
            lo, hi_c = qm, s + ft[j]
            if not _probe_loses_nb(q, s, fy[j], lo, probe_uk, probe_ukmin, c, best_e, a_, b_, M, elc, els, g):
                while hi_c - lo > 1:
                    mid = (lo + hi_c) // 2
                    if _probe_loses_nb(q, s, fy[j], mid, probe_uk, probe_ukmin, c, best_e, a_, b_, M, elc, els, g):
                        hi_c = mid
                    else:
                        lo = mid
                qm = hi_c
    if best_y == 0:
        return -1, 0, -1, 0.0, 0, 0.0, qm
    return ba[best_y], best_y, bi[best_y], bx[best_y], best_t, best_e, qm
