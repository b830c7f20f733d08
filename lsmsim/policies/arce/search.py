"""FindBestParams (ArceKV, PVLDB 19(5) 2026, Algorithm 1, Sec. 3.4 and 4): choose the score parameters (M, c, k)
by simulating ARCE's compaction decisions under each candidate tuple and keeping the one with the lowest average
cost (Eq. 7).

For each tuple, starting from the current tree ``S`` and workload ``(r, u, p)``, ``MaxIterTime`` (400) times:
select the compaction with the highest effectiveness score (Eq. 11) on the simulated tree ``S'`` (none when no
score is > 0), add ``f(|S'|, t)`` (Eq. 4) to the cost and ``t (r + u + p)`` to the operations, and let ``S'``
evolve: remove the compacted runs, install their merge, add the ``t`` runs flushed meanwhile (Eq. 8).

``find_best_params`` evaluates the tuples in parallel (numba ``prange``, ``parallel=True, cache=True``); each
simulation scores only the (X, y) Pareto frontier of the candidates, which selects exactly the compaction the full
candidate list would (see ``_kernels._choose_nb``). Tuples share trajectories where they provably coincide: c and
k enter Algorithm 1 only through the stall terms max(0, s + t - c), so each M's tuple with the largest c runs
first and every tuple of that M whose c lies above every s + t that could have decided or charged its trajectory
takes its objective, the same bits (R28). The kernels are in _search_kernels.py.
``reference.find_best_params_reference`` is the literal plain-Python transcription; the tests check that both
agree. Readings: R18 (Algorithm 1), R19 (grid), R20 (re-selection), R28 (sharing), in docs/arce-readings.md.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._search_kernels import _grid_parallel_nb, _grid_serial_nb, _m_caps_nb, _simulate_nb
from .candidates import enumerate_candidates
from .cost import ArceParams, CostParams, Workload, model_consts
from .score import mck
from .state import TreeState

__all__ = [
    "MAX_ITER_TIME",
    "RESELECT_D",
    "BestParams",
    "SimResult",
    "param_grid",
    "simulate",
    "find_best_params",
    "grid_objectives",
    "selection_key",
    "needs_reselection",
    "ParamSelector",
]

MAX_ITER_TIME = 400  # Sec. 4
RESELECT_D = 0.1  # Sec. 3.4
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
    return [k0 * 2**i for i in range(k_doublings + 1)]


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


def param_grid(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    *,
    M_step: int = M_STEP,
    M_limit: int = M_LIMIT,
    c_step: int = C_STEP,
    c_factor: int = C_FACTOR,
    k0: float = K0,
    k_doublings: int = K_DOUBLINGS,
):
    """The paper's (M, c, k) grid for this tree and workload (R19): three arrays, ordered by M, c, k (numba)."""
    cs0, ks0 = _c_values(state.total_runs, c_step, c_factor), _k_values(k0, k_doublings)
    cs = np.array([c for c in cs0 for _ in ks0], dtype=np.int64)
    ks = np.array([k for _ in cs0 for k in ks0], dtype=np.float64)
    cands = enumerate_candidates(state, cost.p3_min_span)
    y_max = int((cands[:, 2] - cands[:, 1]).max()) if cands.shape[0] else 0
    caps = np.empty(cs.size, dtype=np.int64)
    _m_caps_nb(
        state.size, state.level_counts(), model_consts(workload, cost), cs, ks, y_max, int(M_step), int(M_limit), caps
    )
    return _assemble(cs, ks, caps, M_step)


def _grid_arrays(state, workload, cost, grid, M_values, c_values, k_values, grid_fn, grid_kw):
    if grid is not None:
        Ms, Cs, Ks = (np.asarray(a) for a in grid)
        return (
            np.ascontiguousarray(Ms, dtype=np.float64),
            np.ascontiguousarray(Cs, dtype=np.int64),
            np.ascontiguousarray(Ks, dtype=np.float64),
        )
    if M_values is None and c_values is None and k_values is None:
        return grid_fn(state, workload, cost, **grid_kw)
    Mv = [float(m) for m in (M_values if M_values is not None else range(M_STEP, M_LIMIT + 1, M_STEP))]
    cv = [int(c) for c in (c_values if c_values is not None else _c_values(state.total_runs))]
    kv = [float(k) for k in (k_values if k_values is not None else _k_values())]
    tuples = sorted((M, c, k) for M in Mv for c in cv for k in kv)
    return (
        np.array([t[0] for t in tuples], dtype=np.float64),
        np.array([t[1] for t in tuples], dtype=np.int64),
        np.array([t[2] for t in tuples], dtype=np.float64),
    )


# ------------------------------------------------------------------------------------------------- simulation


def simulate(
    state: TreeState, workload: Workload, cost: CostParams, params: ArceParams, max_iter: int = MAX_ITER_TIME
) -> SimResult:
    """Algorithm 1, lines 4-12, for one tuple (numba)."""
    tc, to, _ = _simulate_nb(state.size, state.level_counts(), model_consts(workload, cost), mck(params), int(max_iter))
    return SimResult(tc / to, tc, to)


# ----------------------------------------------------------------------------------------------- FindBestParams


def grid_objectives(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    *,
    max_iter: int = MAX_ITER_TIME,
    grid=None,
    M_values=None,
    c_values=None,
    k_values=None,
    parallel: bool = True,
    share: bool = True,
    stats: dict | None = None,
    **grid_kw,
):
    """(Ms, cs, ks, objectives) of every tuple (numba; prange over tuples when ``parallel``).

    ``share``: each M's tuple with the largest c runs first as a probe; a tuple of that M whose c is above every
    s + t the probe's trajectory could have charged (or been decided by) takes the probe's objective, the same
    bits (``_search_kernels._simulate_nb``). False simulates every tuple. ``stats`` (a dict) gets "tuples" and
    "simulated" added to it."""
    Ms, Cs, Ks = _grid_arrays(state, workload, cost, grid, M_values, c_values, k_values, param_grid, grid_kw)
    out = np.empty(Ms.size)
    if Ms.size:
        order = np.random.default_rng(12345).permutation(Ms.size).astype(np.int64)  # balance the threads
        fn = _grid_parallel_nb if parallel else _grid_serial_nb
        consts = model_consts(workload, cost)
        ran = fn(state.size, state.level_counts(), consts, Ms, Cs, Ks, order, int(max_iter), out, bool(share))
        if stats is not None:
            stats["tuples"] = stats.get("tuples", 0) + int(Ms.size)
            stats["simulated"] = stats.get("simulated", 0) + int(ran)
    return Ms, Cs, Ks, out


def find_best_params(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    *,
    max_iter: int = MAX_ITER_TIME,
    grid=None,
    M_values=None,
    c_values=None,
    k_values=None,
    parallel: bool = True,
    **grid_kw,
) -> BestParams:
    """Algorithm 1 (FindBestParams): the (M, c, k) with the lowest simulated average cost, and that cost.

    The grid is the paper's (``param_grid``; ``grid_kw`` passes its options) unless ``grid=(Ms, cs, ks)`` or
    any of ``M_values``, ``c_values``, ``k_values`` (their product; a missing one takes the paper's values) is
    given. Returns ``BestParams(M, c, k, objective)``, a 4-tuple."""
    Ms, Cs, Ks, obj = grid_objectives(
        state,
        workload,
        cost,
        max_iter=max_iter,
        grid=grid,
        M_values=M_values,
        c_values=c_values,
        k_values=k_values,
        parallel=parallel,
        **grid_kw,
    )
    if Ms.size == 0:
        raise ValueError("empty parameter grid")
    j = int(np.argmin(obj))  # first minimum: ties go to the earlier tuple (R18)
    return BestParams(float(Ms[j]), int(Cs[j]), float(Ks[j]), float(obj[j]))


# ------------------------------------------------------------------------------------------------ re-selection


def selection_key(state: TreeState, workload: Workload) -> tuple:
    """What re-selection watches (R20): (total bytes, run count, r, u, p)."""
    return (float(state.total_bytes), float(state.total_runs), float(workload.r), float(workload.u), float(workload.p))


def _key(x) -> tuple:
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], TreeState):
        return selection_key(*x)
    return tuple(float(v) for v in x)


def needs_reselection(old, new, d: float = RESELECT_D, min_runs: int = 1) -> bool:
    """Whether (M, c, k) must be recomputed (R20): some quantity of ``selection_key`` changed by a relative
    amount > d. ``old`` and ``new`` are keys or ``(TreeState, Workload)`` pairs. ``min_runs`` adds hysteresis
    on the run count (key index 1): it counts as changed only when it also moved by at least that many runs."""
    a, b = _key(old), _key(new)
    if len(a) != len(b):
        raise ValueError("keys of different lengths")
    for i, (x, y) in enumerate(zip(a, b)):
        if i == 1 and min_runs > 1 and abs(y - x) < min_runs:
            continue
        if x == 0.0:
            if y != 0.0:
                return True
        elif abs(y - x) > d * abs(x):
            return True
    return False


class ParamSelector:
    """Keeps (M, c, k) and recomputes it with ``find_best_params`` only on the first call and when the tree or
    the workload drifted past ``d`` since the last computation (R20).

    ``decisions`` > 1 watches the run count as ArceKV's public code does (``ArceCompactionController::
    MaybeRefreshMc``, include/rocksdb/arce_dynamic_compaction.h): its mean over the compaction decisions since the
    last search, compared from the ``decisions``-th decision on with the mean that triggered the last search. One
    flush moves a small tree's run count past d, where the mean over ten decisions moves only with a trend (R20).
    The total bytes and r, u, p are compared as they are at each decision, as the paper's text says."""

    def __init__(
        self,
        cost: CostParams,
        d: float = RESELECT_D,
        max_iter: int = MAX_ITER_TIME,
        parallel: bool = True,
        min_runs: int = 1,
        decisions: int = 1,
        **grid_kw,
    ):
        self.cost, self.d, self.max_iter, self.parallel, self.grid_kw = cost, d, max_iter, parallel, grid_kw
        self.min_runs, self.decisions = min_runs, decisions
        self.key = None
        self.best: BestParams | None = None
        self.recomputations = 0
        self.last_grid_size = 0
        self._runs_sum, self._runs_n = 0.0, 0  # run counts of the decisions since the last search

    def _drifted(self, key: tuple) -> tuple[bool, tuple]:
        """Whether ``key`` (with the run count averaged when ``decisions`` > 1) drifted from the last search's."""
        if self.decisions <= 1:
            return needs_reselection(self.key, key, self.d, self.min_runs), key
        self._runs_sum += key[1]
        self._runs_n += 1
        averaged = key[:1] + (self._runs_sum / self._runs_n,) + key[2:]
        if needs_reselection(self.key[:1] + self.key[2:], key[:1] + key[2:], self.d):
            return True, averaged
        if self._runs_n >= self.decisions and needs_reselection(self.key, averaged, self.d, self.min_runs):
            return True, averaged
        return False, key

    def select(self, state: TreeState, workload: Workload) -> BestParams:
        key = selection_key(state, workload)
        drifted, reference = (True, key) if self.best is None else self._drifted(key)
        if drifted:
            Ms, Cs, Ks, obj = grid_objectives(
                state, workload, self.cost, max_iter=self.max_iter, parallel=self.parallel, **self.grid_kw
            )
            j = int(np.argmin(obj))  # as find_best_params: ties go to the earlier tuple (R18)
            self.best = BestParams(float(Ms[j]), int(Cs[j]), float(Ks[j]), float(obj[j]))
            self.key = reference
            self._runs_sum, self._runs_n = 0.0, 0
            self.recomputations += 1
            self.last_grid_size = int(Ms.size)
        return self.best
