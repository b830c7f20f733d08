"""FindBestParams' numba kernels (ArceKV, PVLDB 19(5) 2026, Algorithm 1): one tuple's simulated trajectory
(``_simulate_nb``), the grid over tuples with trajectories shared where c and k cannot matter, and R19's M caps.
They call _kernels.py's chooser and cost model; ``search.py`` is their Python API and ``reference.py`` the
plain-Python transcription the tests check them against. R-numbers refer to docs/arce-readings.md.
"""

# numba cache: built on _kernels.py sha256 f53f007eaa943896
# (numba's cache does not see edits to _kernels.py; tests/test_architecture.py checks this line, and renewing it
# after such an edit renews this file's cache.)

from __future__ import annotations

import numpy as np

from ..._numba import njit, prange
from ._kernels import MCK, _choose_nb, _fg_cost_nb


@njit(cache=True)
def _target_nb(cnt, i, last, span):
    """Shallowest target level of the candidate starting at level i's first run and ending at run ``last`` (R11)."""
    e = -1
    for l in range(i + 1):
        e += cnt[l]
    if last <= e:
        return i  # pattern 1
    e += cnt[i + 1]
    if last <= e:
        return i + 1  # pattern 2
    j = i + 1
    while j < i + span:
        j += 1
        e += cnt[j]
    # now e is the end of level j = max(i + 1, i + span); pattern 3 with levels i..j, then deeper
    while True:
        e += cnt[j + 1]
        if last <= e:
            return j + 1
        j += 1


@njit(cache=True)
def _simulate_nb(sizes0, cnt0, P, K, max_iter, probe_uk=-1.0, probe_ukmin=0.0):
    """Lines 4-11 of Algorithm 1 for one (M, c, k); returns (totalCost, totalOps, qm).

    c and k enter only through max(0, s + t - c) (Eq. 4's 1(s + i > c), Eq. 9's stall term, and Eq. 5's duration
    through both). With ``probe_uk`` = u k_max (>= 0) and ``probe_ukmin`` = u k_min, qm is the smallest C such
    that every (M, c' in [C, c], k' in [k_min, k_max]) makes the same choices (``_choose_nb``'s probe mode) and
    pays the same window costs (no s + t above c'): it follows the same trajectory to the same bits, and
    ``_grid_*_nb`` give it this tuple's objective. Otherwise qm is 0."""
    r, u, p, Ir, alpha, flush_w, F, span = P.r, P.u, P.p, P.I_r, P.alpha, P.flush_w, P.F, P.span
    c, k = K.c, K.k
    L = cnt0.size
    n = sizes0.size
    cap = 2 * n + 64
    sizes = np.empty(cap)
    sizes[:n] = sizes0
    cnt = cnt0.copy()
    bx = np.empty(cap)
    ba = np.empty(cap, dtype=np.int64)
    bi = np.empty(cap, dtype=np.int64)
    fy = np.empty(cap, dtype=np.int64)
    ft = np.empty(cap, dtype=np.int64)
    a_ = p * Ir + flush_w
    b_ = r * Ir + p * alpha * Ir
    uk = u * k
    ops_w = r + u + p
    total_cost = 0.0
    total_ops = 0.0
    qm = 0
    for _ in range(max_iter):
        s = n
        first, y, i0, x, t, e, qc = _choose_nb(sizes[:n], cnt, P, K, bx, ba, bi, fy, ft, probe_uk, probe_ukmin)
        if y == 0:
            t = 1  # no compaction: one window passes (R12)
        if probe_uk >= 0.0:
            qm = max(qm, qc, s + t)
        total_cost += _fg_cost_nb(s, t, a_, b_, uk, c)
        total_ops += t * ops_w
        need = n + t + 1
        if need > cap:
            cap = 2 * need + 64
            ns = np.empty(cap)
            ns[:n] = sizes[:n]
            sizes = ns
            bx = np.empty(cap)
            ba = np.empty(cap, dtype=np.int64)
            bi = np.empty(cap, dtype=np.int64)
            fy = np.empty(cap, dtype=np.int64)
            ft = np.empty(cap, dtype=np.int64)
        if y > 0:
            last = first + y
            tgt = _target_nb(cnt, i0, last, span)
            pos = 0
            for l in range(L):  # remove runs first..last
                lo = pos
                hi = pos + cnt[l] - 1
                pos += cnt[l]
                if hi >= first and lo <= last:
                    ov = (hi if hi < last else last) - (lo if lo > first else first) + 1
                    cnt[l] -= ov
            for q in range(last + 1, n):
                sizes[q - y - 1] = sizes[q]
            n -= y + 1
            start = 0  # install the merged run at its sorted place in tgt
            for l in range(tgt):
                start += cnt[l]
            pos = start + cnt[tgt]
            while pos > start and sizes[pos - 1] > x:
                pos -= 1
            for q in range(n - 1, pos - 1, -1):
                sizes[q + 1] = sizes[q]
            sizes[pos] = x
            cnt[tgt] += 1
            n += 1
        pos = cnt[0]  # t flushes of F bytes into level 0 (Eq. 8)
        while pos > 0 and sizes[pos - 1] > F:
            pos -= 1
        for q in range(n - 1, pos - 1, -1):
            sizes[q + t] = sizes[q]
        for q in range(pos, pos + t):
            sizes[q] = F
        cnt[0] += t
        n += t
    return total_cost, total_ops, qm


@njit(cache=True)
def _probes_nb(Ms, cs, ks):
    """Group the tuples by M; each group's probe is its tuple with the largest c (the first such). Returns
    (group of each tuple, probe of each group, smallest and largest k of each group)."""
    um = np.unique(Ms)
    grp = np.searchsorted(um, Ms)
    probe = np.full(um.size, -1, dtype=np.int64)
    kmin = np.full(um.size, np.inf)
    kmax = np.zeros(um.size)
    for j in range(Ms.size):
        g = grp[j]
        if probe[g] < 0 or cs[j] > cs[probe[g]]:
            probe[g] = j
        kmin[g] = min(kmin[g], ks[j])
        kmax[g] = max(kmax[g], ks[j])
    return grp, probe, kmin, kmax


@njit(cache=True)
def _probe_nb(sizes0, cnt0, P, Ms, cs, ks, j, kmin, kmax, max_iter, out):
    """Simulate probe tuple j; returns the smallest c that shares its result (a huge value when none can)."""
    tc, to, qm = _simulate_nb(sizes0, cnt0, P, MCK(Ms[j], cs[j], ks[j]), max_iter, P.u * kmax, P.u * kmin)
    out[j] = tc / to
    return qm if cs[j] >= qm else np.iinfo(np.int64).max


@njit(cache=True)
def _tuple_nb(sizes0, cnt0, P, Ms, cs, ks, j, grp, probe, cmin, max_iter, out):
    """Tuple j's objective: its probe's when its c reaches the probe's shared range, else simulated. Returns
    1 if it simulated."""
    g = grp[j]
    if j == probe[g]:  # simulated as the probe
        return 0
    if cs[j] >= cmin[g]:
        out[j] = out[probe[g]]  # the same trajectory as the probe's (``_simulate_nb``)
        return 0
    tc, to, _ = _simulate_nb(sizes0, cnt0, P, MCK(Ms[j], cs[j], ks[j]), max_iter)
    out[j] = tc / to
    return 1


@njit(cache=True)
def _groups_nb(Ms, cs, ks, share):
    """``_probes_nb``'s groups and, per group, the smallest c that takes the probe's objective (none yet; without
    ``share`` no tuple is a probe, so every tuple is simulated)."""
    grp, probe, kmin, kmax = _probes_nb(Ms, cs, ks)
    if not share:
        probe[:] = -1
    return grp, probe, kmin, kmax, np.full(probe.size, np.iinfo(np.int64).max)


@njit(parallel=True, cache=True)
def _grid_parallel_nb(sizes0, cnt0, P, Ms, cs, ks, order, max_iter, out, share):
    """Every tuple's objective (prange over tuples); with ``share``, each M's probe first, then the tuples that
    cannot take its objective. Returns the number of simulations."""
    grp, probe, kmin, kmax, cmin = _groups_nb(Ms, cs, ks, share)
    for g in prange(probe.size if share else 0):
        cmin[g] = _probe_nb(sizes0, cnt0, P, Ms, cs, ks, probe[g], kmin[g], kmax[g], max_iter, out)
    ran = np.zeros(order.size, dtype=np.int64)
    for q in prange(order.size):
        ran[q] = _tuple_nb(sizes0, cnt0, P, Ms, cs, ks, order[q], grp, probe, cmin, max_iter, out)
    return (probe.size if share else 0) + ran.sum()


@njit(cache=True)
def _grid_serial_nb(sizes0, cnt0, P, Ms, cs, ks, order, max_iter, out, share):
    """``_grid_parallel_nb`` on one thread."""
    grp, probe, kmin, kmax, cmin = _groups_nb(Ms, cs, ks, share)
    for g in range(probe.size if share else 0):
        cmin[g] = _probe_nb(sizes0, cnt0, P, Ms, cs, ks, probe[g], kmin[g], kmax[g], max_iter, out)
    ran = probe.size if share else 0
    for q in range(order.size):
        ran += _tuple_nb(sizes0, cnt0, P, Ms, cs, ks, order[q], grp, probe, cmin, max_iter, out)
    return ran


@njit(cache=True)
def _m_caps_nb(sizes, cnt, P, cs, ks, y_max, m_step, m_limit, caps):
    """R19: for each (c, k), the smallest multiple of m_step (<= m_limit) whose choice has y = y_max."""
    n = sizes.size
    bx = np.empty(n + 1)
    ba = np.empty(n + 1, dtype=np.int64)
    bi = np.empty(n + 1, dtype=np.int64)
    fy = np.empty(n + 1, dtype=np.int64)
    elc = (P.r + P.alpha * P.p) * P.I_r
    for j in range(cs.size):
        if y_max <= 0 or not elc > 0.0:
            caps[j] = m_step
            continue
        caps[j] = m_limit
        M = m_step
        while M <= m_limit:
            res = _choose_nb(sizes, cnt, P, MCK(float(M), cs[j], ks[j]), bx, ba, bi, fy, fy, -1.0, 0.0)
            if res[1] == y_max:
                caps[j] = M
                break
            M += m_step
