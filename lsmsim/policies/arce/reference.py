"""Plain-Python references of ARCE's numba kernels (ArceKV, PVLDB 19(5) 2026, Sec. 3.1-3.4, Algorithm 1).

Each transcribes the paper literally and slowly, for the tests (and benchmarks/arce.py) to check the kernels
against: every candidate built as an explicit list of runs (Sec. 3.1), Eq. 4 and 5 summed window by window
(cost.py), Eq. 9-11 per candidate (score.py), Algorithm 1 with the tree a ``TreeState`` whose timestamp order is
checked after every step. The simulator never calls them. R-numbers refer to docs/arce-readings.md.
"""

from __future__ import annotations

import math

import numpy as np

from .candidates import ADJACENT, INTRA, MULTI, Candidate, candidate_runs, runs_target
from .cost import ArceParams, CostParams, Workload, compaction_windows, foreground_cost
from .score import Choice, effectiveness
from .search import (
    C_FACTOR,
    C_STEP,
    K0,
    K_DOUBLINGS,
    M_LIMIT,
    M_STEP,
    MAX_ITER_TIME,
    BestParams,
    SimResult,
    _assemble,
    _c_values,
    _grid_arrays,
    _k_values,
)
from .state import TreeState, add_flushes, apply_compaction

__all__ = [
    "enumerate_candidates_reference",
    "candidate_table_reference",
    "score_candidates_reference",
    "best_compaction_reference",
    "param_grid_reference",
    "simulate_reference",
    "find_best_params_reference",
]


# ------------------------------------------------------------------------------------------------- candidates


def enumerate_candidates_reference(state: TreeState, p3_min_span: int = 1) -> list[Candidate]:
    """The three patterns of Sec. 3.1 with the paper's pruning, literally: each level's runs sorted by size
    (R11), then built up one run at a time. Plain Python."""
    L = state.num_levels
    by_level = [[] for _ in range(L)]
    for i in range(state.total_runs):
        by_level[int(state.level[i])].append(i)
    for runs in by_level:
        runs.sort(key=lambda i: (float(state.size[i]), float(state.ts_hi[i]), float(state.ts_lo[i]), i))
    out = []
    for i in range(L):
        top = by_level[i]
        if not top:
            continue
        # Pattern 1 (intra-level): > 1 runs of level i, result at level i
        for m in range(2, len(top) + 1):
            out.append(Candidate(INTRA, tuple(top[:m]), i))
        # Pattern 2 (adjacent-level): all runs of level i with zero or more runs of level i+1, result at i+1
        if i + 1 < L:
            nxt = by_level[i + 1]
            for m in range(0, len(nxt) + 1):
                runs = top + nxt[:m]
                if len(runs) > 1:
                    out.append(Candidate(ADJACENT, tuple(runs), i + 1))
        # Pattern 3 (multi-level): all runs of levels i..j with zero or more of level j+1, result at j+1
        for j in range(i + max(1, int(p3_min_span)), L - 1):
            whole = [x for lv in range(i, j + 1) for x in by_level[lv]]
            nxt = by_level[j + 1]
            for m in range(0, len(nxt) + 1):
                runs = whole + nxt[:m]
                if len(runs) > 1:
                    out.append(Candidate(MULTI, tuple(runs), j + 1))
    return out


# ---------------------------------------------------------------------------------------------------- score


def candidate_table_reference(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    params: ArceParams,
    candidates=None,
    idle_workers: int = 1,
    saturated: bool = False,
) -> list[dict]:
    """Plain-Python ``candidate_table``: for each candidate X = sum of its runs, y = #runs - 1, t by Eq. 5
    (window by window) with R14's Amdahl rounding, E by Eq. 9-11."""
    if candidates is None:
        candidates = enumerate_candidates_reference(state, cost.p3_min_span)
    elif isinstance(candidates, np.ndarray):
        candidates = candidate_runs(candidates)
    s, c, k = state.total_runs, int(params.c), float(params.k)
    rows = []
    for cand in candidates:
        runs, target = runs_target(cand)
        x = 0.0
        for i in runs:
            x += float(state.size[i])
        y = len(runs) - 1
        t = compaction_windows(x, s, workload, cost, c, k)
        e = effectiveness(s, t, y, workload, cost, params, idle_workers, saturated)
        rows.append({"candidate": cand, "X": x, "y": y, "t": t, "score": e})
    return rows


def score_candidates_reference(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    params: ArceParams,
    candidates=None,
    idle_workers: int = 1,
    saturated: bool = False,
) -> list[float]:
    """Plain-Python ``score_candidates``."""
    return [
        row["score"]
        for row in candidate_table_reference(state, workload, cost, params, candidates, idle_workers, saturated)
    ]


def best_compaction_reference(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    params: ArceParams,
    idle_workers: int = 1,
    saturated: bool = False,
) -> Choice | None:
    """Plain-Python ``best_compaction`` over the literal candidate list (R12's rule as a sort key)."""
    rows = candidate_table_reference(state, workload, cost, params, None, idle_workers, saturated)
    best = None
    for j, row in enumerate(rows):
        if not row["score"] > 0:
            continue
        key = (row["score"], row["y"], -row["X"], -j)
        if best is None or key > best[0]:
            best = (key, j, row)
    if best is None:
        return None
    _, j, row = best
    cand = row["candidate"]
    runs = list(cand.runs)
    return Choice(
        cand.pattern,
        runs[0],
        runs[-1],
        cand.target,
        tuple(int(state.run_id[i]) for i in runs),
        row["X"],
        row["y"],
        row["t"],
        row["score"],
        j,
    )


# ------------------------------------------------------------------------------------------- FindBestParams


def param_grid_reference(
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


def simulate_reference(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    params: ArceParams,
    max_iter: int = MAX_ITER_TIME,
    trace: list | None = None,
) -> SimResult:
    """Algorithm 1, lines 4-12, literally (plain Python). ``trace`` collects one (s, y, t) per iteration."""
    total_cost, total_ops = 0.0, 0.0
    S = state
    c, k = int(params.c), float(params.k)
    for _ in range(int(max_iter)):  # line 6
        s = S.total_runs
        ch = best_compaction_reference(S, workload, cost, params)  # line 7: select by (M, c, k)
        t, y = (1, 0) if ch is None else (ch.t, ch.y)
        total_cost += foreground_cost(s, t, workload, cost, c, k)  # line 9: f(|S'|, t)
        total_ops += t * (workload.r + workload.u + workload.p)  # line 10
        if ch is not None:  # line 11: remove runs, install result
            S = apply_compaction(S, ch.runs, ch.target_level)
        S = add_flushes(S, t, cost.F)  # ... and the t runs flushed meanwhile
        if trace is not None:
            trace.append((s, y, t))
    return SimResult(total_cost / total_ops, total_cost, total_ops)  # line 12


def find_best_params_reference(
    state: TreeState,
    workload: Workload,
    cost: CostParams,
    *,
    max_iter: int = MAX_ITER_TIME,
    grid=None,
    M_values=None,
    c_values=None,
    k_values=None,
    **grid_kw,
) -> BestParams:
    """Algorithm 1 literally (plain Python, ``simulate_reference`` per tuple, grid by ``param_grid_reference``)."""
    Ms, Cs, Ks = _grid_arrays(state, workload, cost, grid, M_values, c_values, k_values, param_grid_reference, grid_kw)
    best_cost, best = math.inf, None  # lines 1-2
    for M, c, k in zip(Ms.tolist(), Cs.tolist(), Ks.tolist()):  # line 3
        avg = simulate_reference(state, workload, cost, ArceParams(M, c, k), max_iter).objective
        if avg < best_cost:  # line 13
            best_cost, best = avg, (M, c, k)
    if best is None:
        raise ValueError("empty parameter grid")
    return BestParams(float(best[0]), int(best[1]), float(best[2]), float(best_cost))
