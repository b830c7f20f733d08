"""FindBestParams (ArceKV, PVLDB 19(5) 2026, Algorithm 1, Sec. 3.4 and 4): choose the score parameters (M, c, k)
by simulating ARCE's compaction decisions under each candidate tuple and keeping the one with the lowest average
cost (Eq. 7).

For each tuple, starting from the current tree ``S`` and workload ``(r, u, p)``, ``MaxIterTime`` (400) times:
select the compaction with the highest effectiveness score (Eq. 11) on the simulated tree ``S'`` (none when no
score is > 0), add ``f(|S'|, t)`` (Eq. 4) to the cost and ``t (r + u + p)`` to the operations, and let ``S'``
evolve: remove the compacted runs, install their merge, add the ``t`` runs flushed meanwhile (Eq. 8).

``find_best_params`` evaluates the tuples in parallel (numba ``prange``, ``parallel=True, cache=True``); each
simulation scores only the (X, y) Pareto frontier of the candidates, which selects exactly the compaction the full
candidate list would (see ``model._choose_nb``). The kernels (``model._simulate_nb``, ``model._grid_parallel_nb``,
...) live in model.py next to the kernels they call: numba's on-disk cache is keyed on the defining file only, so
a kernel here would keep running stale code after an edit of model.py. ``find_best_params_reference`` is the
literal plain-Python transcription (every candidate scored by ``model.candidate_table_reference``, the tree a
``TreeState`` whose timestamp order is checked after every step). The tests check that both agree.

Readings of the paper (continuing model.py's R1-R17):

R18 Algorithm 1 runs ``MaxIterTime`` iterations (``range(400)``; the pseudo-code's "0 to MaxIterTime" read as
    exclusive), ``totalOps`` starts at 0 (not shown in the pseudo-code), an iteration without a compaction
    lasts one window (R12), flushed runs have ``F`` bytes and go to level 0, and the simulation has one
    background worker (R15). Ties between tuples go to the first in grid order (strict ``<``, line 13).
R19 Grid (Sec. 4, "Parameter Pruning"). ``k`` = 6, 12, 24 (6 doubled twice); ``c`` = 2, 4, 6, ... below
    4 x the current run count (at least {2}); ``M`` = 5, 10, ... up to the smallest multiple of 5 whose
    selection on the current tree is a candidate with the largest run reduction y (the "upper-right" candidate
    of Fig. 6(a)). That cap depends on (c, k), so it is computed per (c, k) and the grid is the union of the
    (M, c, k) tuples, ordered by M, then c, then k. The paper gives the cap no bound; under write-heavy mixes
    it can be in the thousands, so it is limited to ``M_limit = 100`` (20 values; the public code also stops
    below 100): when no M <= 100 selects the largest merge, M = 5..100. When r = p = 0 the benefit E_l is 0
    and M has no effect: M = {5}. The run count is the current ``|S|``; k is in the unit of I_r (R3).
R20 Re-selection (Sec. 3.4): new parameters are computed when any of the tree's total bytes, its run count, or
    the workload's r, u, p changed by a relative amount strictly greater than d = 0.1 since the last
    computation (``|new - old| > d |old|``; from 0, any change counts).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .model import (ArceParams, CostParams, TreeState, Workload, _grid_parallel_nb, _grid_serial_nb, _m_caps_nb,
                    _scalars, _simulate_nb, add_flushes, apply_compaction, best_compaction_reference,
                    enumerate_candidates, enumerate_candidates_reference, foreground_cost)

__all__ = ["MAX_ITER_TIME", "RESELECT_D", "BestParams", "SimResult", "param_grid", "param_grid_reference",
           "simulate", "simulate_reference", "find_best_params", "find_best_params_reference", "grid_objectives",
           "selection_key", "needs_reselection", "ParamSelector"]

MAX_ITER_TIME = 400     # Sec. 4
RESELECT_D = 0.1        # Sec. 3.4
M_STEP, M_LIMIT, C_STEP, C_FACTOR, K0, K_DOUBLINGS = 5, 100, 2, 4, 6.0, 2


class BestParams(NamedTuple):
    """Output of FindBestParams: the tuple and its average cost (Eq. 7, time per operation)."""
    M: float
    c: int
    k: float
    objective: float

    @property
    def params(self) -> ArceParams:
        return ArceParams(self.M, self.c, self.k)


class SimResult(NamedTuple):
    """One simulated tuple: average cost (totalCost / totalOps), totalCost, totalOps."""
    objective: float
    total_cost: float
    total_ops: float


# ------------------------------------------------------------------------------------------------------- grid

def _c_values(s: int, c_step: int = C_STEP, c_factor: int = C_FACTOR) -> list[int]:
    vals = list(range(c_step, c_factor * s, c_step))
    return vals or [c_step]


def _k_values(k0: float = K0, k_doublings: int = K_DOUBLINGS) -> list[float]:
    return [k0 * 2 ** i for i in range(k_doublings + 1)]


def _assemble(cs, ks, caps, m_step):
    tuples = []
    for c, k, cap in zip(cs, ks, caps):
        M = m_step
        while M <= cap:
            tuples.append((float(M), int(c), float(k)))
            M += m_step
    tuples.sort()
    Ms = np.array([t[0] for t in tuples], dtype=np.float64)
    Cs = np.array([t[1] for t in tuples], dtype=np.int64)
    Ks = np.array([t[2] for t in tuples], dtype=np.float64)
    return Ms, Cs, Ks


def param_grid(state: TreeState, workload: Workload, cost: CostParams, *, M_step: int = M_STEP,
               M_limit: int = M_LIMIT, c_step: int = C_STEP, c_factor: int = C_FACTOR, k0: float = K0,
               k_doublings: int = K_DOUBLINGS):
    """The paper's (M, c, k) grid for this tree and workload (R19): three arrays, ordered by M, c, k (numba)."""
    cs0, ks0 = _c_values(state.total_runs, c_step, c_factor), _k_values(k0, k_doublings)
    cs = np.array([c for c in cs0 for _ in ks0], dtype=np.int64)
    ks = np.array([k for _ in cs0 for k in ks0], dtype=np.float64)
    cands = enumerate_candidates(state, cost.p3_min_span)
    y_max = int((cands[:, 2] - cands[:, 1]).max()) if cands.shape[0] else 0
    caps = np.empty(cs.size, dtype=np.int64)
    r, u, p, Ir, Iw, B, alpha, flush_w, g = _scalars(workload, cost)
    _m_caps_nb(state.size, state.level_counts(), int(cost.p3_min_span), cs, ks, y_max, int(M_step), int(M_limit),
               r, u, p, Ir, Iw, B, alpha, flush_w, g, caps)
    return _assemble(cs, ks, caps, M_step)


def param_grid_reference(state: TreeState, workload: Workload, cost: CostParams, *, M_step: int = M_STEP,
                         M_limit: int = M_LIMIT, c_step: int = C_STEP, c_factor: int = C_FACTOR, k0: float = K0,
                         k_doublings: int = K_DOUBLINGS):
    """Plain-Python ``param_grid`` (M caps found with ``best_compaction_reference``)."""
    cands = enumerate_candidates_reference(state, cost.p3_min_span)
    y_max = max((len(cd.runs) - 1 for cd in cands), default=0)
    benefit = (workload.r + cost.alpha * workload.p) * cost.I_r
    cs, ks, caps = [], [], []
    for c in _c_values(state.total_runs, c_step, c_factor):
        for k in _k_values(k0, k_doublings):
            cap = M_step
            if y_max > 0 and benefit > 0:
                cap = M_limit
                for M in range(M_step, M_limit + 1, M_step):
                    ch = best_compaction_reference(state, workload, cost, ArceParams(float(M), c, k))
                    if ch is not None and ch.y == y_max:
                        cap = M
                        break
            cs.append(c)
            ks.append(k)
            caps.append(cap)
    return _assemble(cs, ks, caps, M_step)


def _grid_arrays(state, workload, cost, grid, M_values, c_values, k_values, grid_fn, grid_kw):
    if grid is not None:
        Ms, Cs, Ks = (np.asarray(a) for a in grid)
        return (np.ascontiguousarray(Ms, dtype=np.float64), np.ascontiguousarray(Cs, dtype=np.int64),
                np.ascontiguousarray(Ks, dtype=np.float64))
    if M_values is None and c_values is None and k_values is None:
        return grid_fn(state, workload, cost, **grid_kw)
    Mv = [float(m) for m in (M_values if M_values is not None else range(M_STEP, M_LIMIT + 1, M_STEP))]
    cv = [int(c) for c in (c_values if c_values is not None else _c_values(state.total_runs))]
    kv = [float(k) for k in (k_values if k_values is not None else _k_values())]
    tuples = sorted((M, c, k) for M in Mv for c in cv for k in kv)
    return (np.array([t[0] for t in tuples], dtype=np.float64), np.array([t[1] for t in tuples], dtype=np.int64),
            np.array([t[2] for t in tuples], dtype=np.float64))


# ------------------------------------------------------------------------------------------------- simulation

def simulate(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams,
             max_iter: int = MAX_ITER_TIME) -> SimResult:
    """Algorithm 1, lines 4-12, for one tuple (numba)."""
    r, u, p, Ir, Iw, B, alpha, flush_w, g = _scalars(workload, cost)
    tc, to = _simulate_nb(state.size, state.level_counts(), int(cost.p3_min_span), float(params.M), int(params.c),
                          float(params.k), r, u, p, Ir, Iw, B, alpha, flush_w, float(cost.F), g, int(max_iter))
    return SimResult(tc / to, tc, to)


def simulate_reference(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams,
                       max_iter: int = MAX_ITER_TIME, trace: list | None = None) -> SimResult:
    """Algorithm 1, lines 4-12, literally (plain Python). ``trace`` collects one (s, y, t) per iteration."""
    total_cost, total_ops = 0.0, 0.0
    S = state
    c, k = int(params.c), float(params.k)
    for _ in range(int(max_iter)):                                    # line 6
        s = S.total_runs
        ch = best_compaction_reference(S, workload, cost, params)    # line 7: select by (M, c, k)
        t, y = (1, 0) if ch is None else (ch.t, ch.y)
        total_cost += foreground_cost(s, t, workload, cost, c, k)    # line 9: f(|S'|, t)
        total_ops += t * (workload.r + workload.u + workload.p)      # line 10
        if ch is not None:                                           # line 11: remove runs, install result
            S = apply_compaction(S, ch.runs, ch.target_level)
        S = add_flushes(S, t, cost.F)                                # ... and the t runs flushed meanwhile
        if trace is not None:
            trace.append((s, y, t))
    return SimResult(total_cost / total_ops, total_cost, total_ops)   # line 12


# ----------------------------------------------------------------------------------------------- FindBestParams

def grid_objectives(state: TreeState, workload: Workload, cost: CostParams, *, max_iter: int = MAX_ITER_TIME,
                    grid=None, M_values=None, c_values=None, k_values=None, parallel: bool = True, **grid_kw):
    """(Ms, cs, ks, objectives) of every tuple (numba; prange over tuples when ``parallel``)."""
    Ms, Cs, Ks = _grid_arrays(state, workload, cost, grid, M_values, c_values, k_values, param_grid, grid_kw)
    out = np.empty(Ms.size)
    if Ms.size:
        order = np.random.default_rng(12345).permutation(Ms.size).astype(np.int64)  # balance the threads
        r, u, p, Ir, Iw, B, alpha, flush_w, g = _scalars(workload, cost)
        fn = _grid_parallel_nb if parallel else _grid_serial_nb
        fn(state.size, state.level_counts(), int(cost.p3_min_span), Ms, Cs, Ks, order, r, u, p, Ir, Iw, B, alpha,
           flush_w, float(cost.F), g, int(max_iter), out)
    return Ms, Cs, Ks, out


def find_best_params(state: TreeState, workload: Workload, cost: CostParams, *, max_iter: int = MAX_ITER_TIME,
                     grid=None, M_values=None, c_values=None, k_values=None, parallel: bool = True,
                     **grid_kw) -> BestParams:
    """Algorithm 1 (FindBestParams): the (M, c, k) with the lowest simulated average cost, and that cost.

    The grid is the paper's (``param_grid``; ``grid_kw`` passes its options) unless ``grid=(Ms, cs, ks)`` or
    any of ``M_values``, ``c_values``, ``k_values`` (their product; a missing one takes the paper's values) is
    given. Returns ``BestParams(M, c, k, objective)``, a 4-tuple."""
    Ms, Cs, Ks, obj = grid_objectives(state, workload, cost, max_iter=max_iter, grid=grid, M_values=M_values,
                                      c_values=c_values, k_values=k_values, parallel=parallel, **grid_kw)
    if Ms.size == 0:
        raise ValueError("empty parameter grid")
    j = int(np.argmin(obj))                            # first minimum: ties go to the earlier tuple (R18)
    return BestParams(float(Ms[j]), int(Cs[j]), float(Ks[j]), float(obj[j]))


def find_best_params_reference(state: TreeState, workload: Workload, cost: CostParams, *,
                               max_iter: int = MAX_ITER_TIME, grid=None, M_values=None, c_values=None,
                               k_values=None, **grid_kw) -> BestParams:
    """Algorithm 1 literally (plain Python, ``simulate_reference`` per tuple, grid by ``param_grid_reference``)."""
    Ms, Cs, Ks = _grid_arrays(state, workload, cost, grid, M_values, c_values, k_values, param_grid_reference,
                              grid_kw)
    best_cost, best = math.inf, None                                 # lines 1-2
    for M, c, k in zip(Ms.tolist(), Cs.tolist(), Ks.tolist()):      # line 3
        avg = simulate_reference(state, workload, cost, ArceParams(M, c, k), max_iter).objective
        if avg < best_cost:                                          # line 13
            best_cost, best = avg, (M, c, k)
    if best is None:
        raise ValueError("empty parameter grid")
    return BestParams(float(best[0]), int(best[1]), float(best[2]), float(best_cost))


# ------------------------------------------------------------------------------------------------ re-selection

def selection_key(state: TreeState, workload: Workload) -> tuple:
    """What re-selection watches (R20): (total bytes, run count, r, u, p)."""
    return (float(state.total_bytes), float(state.total_runs), float(workload.r), float(workload.u),
            float(workload.p))


def _key(x) -> tuple:
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], TreeState):
        return selection_key(*x)
    return tuple(float(v) for v in x)


def needs_reselection(old, new, d: float = RESELECT_D) -> bool:
    """Whether (M, c, k) must be recomputed (R20): some quantity of ``selection_key`` changed by a relative
    amount > d. ``old`` and ``new`` are keys or ``(TreeState, Workload)`` pairs."""
    a, b = _key(old), _key(new)
    if len(a) != len(b):
        raise ValueError("keys of different lengths")
    for x, y in zip(a, b):
        if x == 0.0:
            if y != 0.0:
                return True
        elif abs(y - x) > d * abs(x):
            return True
    return False


class ParamSelector:
    """Keeps (M, c, k) and recomputes it with ``find_best_params`` only on the first call and when the tree or
    the workload drifted past ``d`` since the last computation (R20)."""

    def __init__(self, cost: CostParams, d: float = RESELECT_D, max_iter: int = MAX_ITER_TIME,
                 parallel: bool = True, **grid_kw):
        self.cost, self.d, self.max_iter, self.parallel, self.grid_kw = cost, d, max_iter, parallel, grid_kw
        self.key = None
        self.best: BestParams | None = None
        self.recomputations = 0
        self.last_grid_size = 0

    def select(self, state: TreeState, workload: Workload) -> BestParams:
        key = selection_key(state, workload)
        if self.best is None or needs_reselection(self.key, key, self.d):
            Ms, Cs, Ks, obj = grid_objectives(state, workload, self.cost, max_iter=self.max_iter,
                                              parallel=self.parallel, **self.grid_kw)
            j = int(np.argmin(obj))  # as find_best_params: ties go to the earlier tuple (R18)
            self.best = BestParams(float(Ms[j]), int(Cs[j]), float(Ks[j]), float(obj[j]))
            self.key = key
            self.recomputations += 1
            self.last_grid_size = int(Ms.size)
        return self.best
