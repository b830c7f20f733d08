"""ARCE's effectiveness score and the compaction it starts (ArceKV, PVLDB 19(5) 2026, Sec. 3.3 and 4).

Score, for a candidate removing ``y`` runs in ``t`` windows (Eq. 5 + R14) from a tree of ``s`` runs::

    E_s(s, t) = I_r t (r + alpha p) + u k max(0, s + t - c)      Eq. 9   short-term penalty
    E_l(y)    = (r + alpha p) I_r y                              Eq. 10  long-term benefit
    E(s,t,y)  = M E_l(y) - E_s(s, t)                             Eq. 11  effectiveness

The highest score wins if it is > 0 (R12). ``short_term_penalty``, ``long_term_benefit`` and ``effectiveness`` are
the literal equations; ``candidate_table``, ``best_compaction`` and ``best_compaction_frontier`` run the numba
kernels (their plain-Python counterparts are in reference.py). R-numbers refer to docs/arce-readings.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._kernels import MCK, _choose_nb, _table_nb
from .cost import ArceParams, CostParams, Workload, model_consts
from .state import TreeState

__all__ = [
    "short_term_penalty",
    "long_term_benefit",
    "effectiveness",
    "mck",
    "candidate_table",
    "score_candidates",
    "Choice",
    "best_compaction",
    "best_compaction_frontier",
]

_EMPTY_CANDS = np.empty((0, 4), dtype=np.int64)


def short_term_penalty(
    s: int, t: int, workload: Workload, cost: CostParams, c: int, k: float, idle_workers: int = 1
) -> float:
    """Eq. 9: E_s(s, t) = I_r t (r + alpha p) + u k max(0, s + t - c); 0 with >= 2 idle workers (R15). The read
    term is weighted by ``cost.es_read_weight`` (1: the paper; R29)."""
    if idle_workers >= 2:
        return 0.0
    w = workload
    return cost.es_read_weight * cost.I_r * t * (w.r + cost.alpha * w.p) + w.u * k * max(0, s + t - c)


def long_term_benefit(y: int, workload: Workload, cost: CostParams) -> float:
    """Eq. 10: E_l(y) = (r + alpha p) I_r y."""
    return (workload.r + cost.alpha * workload.p) * cost.I_r * y


def effectiveness(
    s: int,
    t: int,
    y: int,
    workload: Workload,
    cost: CostParams,
    params: ArceParams,
    idle_workers: int = 1,
    saturated: bool = False,
) -> float:
    """Eq. 11: E(s, t, y) = M E_l(y) - E_s(s, t), minus the saturation penalty without an idle worker (R15)."""
    e = params.M * long_term_benefit(y, workload, cost) - short_term_penalty(
        s, t, workload, cost, int(params.c), params.k, idle_workers
    )
    if saturated or idle_workers <= 0:
        e = e - cost.saturation_penalty
    return e


def mck(params: ArceParams) -> MCK:
    """The kernels' view of (M, c, k)."""
    return MCK(float(params.M), int(params.c), float(params.k))


def _idle(idle_workers: int, saturated: bool) -> int:
    return 0 if saturated else int(idle_workers)


def _table(state, workload, cost, params, candidates, idle_workers, saturated):
    if candidates is None:
        cands = _EMPTY_CANDS
        enum = True
    else:
        cands = np.ascontiguousarray(np.asarray(candidates, dtype=np.int64).reshape(-1, 4))
        enum = False
    return _table_nb(
        state._counts,
        state.size,
        enum,
        cands,
        model_consts(workload, cost),
        mck(params),
        _idle(idle_workers, saturated),
        float(cost.saturation_penalty),
    )


def candidate_table(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    params: ArceParams,
    candidates=None,
    idle_workers: int = 1,
    saturated: bool = False,
) -> dict:
    """Every candidate with its X (bytes), y (runs removed), t (windows, Eq. 5 + R14) and score E (Eq. 11), as
    a dict of arrays (numba). ``candidates`` defaults to ``enumerate_candidates(state, cost.p3_min_span)``."""
    cands, X, Y, T, E, _ = _table(state, workload, cost, params, candidates, idle_workers, saturated)
    return {"candidates": cands, "X": X, "y": Y, "t": T, "score": E}


def score_candidates(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    params: ArceParams,
    candidates=None,
    idle_workers: int = 1,
    saturated: bool = False,
) -> np.ndarray:
    """Effectiveness score (Eq. 11) of every candidate (numba). See ``candidate_table``."""
    return candidate_table(state, workload, cost, params, candidates, idle_workers, saturated)["score"]


@dataclass(frozen=True)
class Choice:
    """A selected compaction: candidate row fields, its input runs (canonical indices and the caller's ids),
    X (bytes), y (runs removed), t (windows) and score; ``index`` is its position in the candidate list."""

    pattern: int
    first_run: int
    last_run: int
    target_level: int
    run_ids: tuple
    X: float
    y: int
    t: int
    score: float
    index: int

    @property
    def runs(self) -> tuple:
        return tuple(range(self.first_run, self.last_run + 1))


def best_compaction(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    params: ArceParams,
    idle_workers: int = 1,
    saturated: bool = False,
) -> Choice | None:
    """The compaction ARCE starts now (numba): the highest-scoring candidate if its score is > 0, else None (R12)."""
    cands, X, Y, T, E, j = _table(state, workload, cost, params, None, idle_workers, saturated)
    if j < 0:
        return None
    first, last = int(cands[j, 1]), int(cands[j, 2])
    return Choice(
        int(cands[j, 0]),
        first,
        last,
        int(cands[j, 3]),
        tuple(state.run_id[first : last + 1].tolist()),
        float(X[j]),
        int(Y[j]),
        int(T[j]),
        float(E[j]),
        int(j),
    )


def best_compaction_frontier(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams):
    """(first_run, y, X, t, score) of the frontier chooser used by FindBestParams (single worker, R15), or None.
    Same choice as ``best_compaction`` up to which of several targets the runs go to."""
    n = state.total_runs
    m = max(n, 1)
    bx = np.empty(m)
    ba, bi, fy = (np.empty(m, dtype=np.int64) for _ in range(3))
    a, y, _, x, t, e, _ = _choose_nb(
        state.size, state.level_counts(), model_consts(workload, cost), mck(params), bx, ba, bi, fy, fy, -1.0, 0.0
    )
    if y == 0:
        return None
    return int(a), int(y), float(x), int(t), float(e)
