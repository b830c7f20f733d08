"""Plain-Python references for EcoTune's dynamic programs (Wang et al., SIGMOD 2025, Sec. 4.3), used to check the
numba kernels of `_kernels.py` (tests/test_ecotune_dp.py, `lsmsim ecotune solve --reference`, benchmarks).

`solve_reference(params, alg)` is a literal transcription of the simplified recurrence (Sec. 4.3.1), Algorithm 1
(Sec. 4.3.2) and Algorithm 2 (Sec. 4.3.3) with lru_cache and the paper's `ans` map; the comments give the
pseudo-code's line numbers and the interpretations I1-I10 of dp.py. `evaluate_schedule` scores any schedule
event by event without sharing code with the DPs, and `brute_force` enumerates every alg-0/1 schedule for small R.
Slow: small R only.
"""

from __future__ import annotations

import math
import sys
import time
from functools import cache

from ...tolerances import REL_EPS
from .dp import SolveResult, _check, _walk01, _walk2
from .model import EcoTuneParamError, EcoTuneParams, merge_score
from .schedule import Merge, Schedule

__all__ = ["solve_reference", "evaluate_schedule", "brute_force", "count_schedules"]


def _reference_alg0(p: EcoTuneParams):
    T_w, T_c = p.T_w, p.T_c
    ans: dict = {}

    @cache
    def f(e, c):
        if c == 1:
            ans[(e, c)] = 1
            return 0.0
        best, bx = T_w * p.q(e + 1) + f(e + 1, c - 1), 1  # x = 1: no MLC (I1)
        for x in range(2, c):
            s = f(e, x) + (T_w - x * T_c) * p.q(e + 1)
            s = s + f(e + 1, c - x)
            if best < s:
                best, bx = s, x
        ans[(e, c)] = bx
        return best

    return T_w * p.q(0) + f(0, p.R), ans  # I2


def _reference_alg1(p: EcoTuneParams):
    T_w, T_c = p.T_w, p.T_c
    ans: dict = {}

    @cache
    def f(e, c, m):
        if c == 1:  # lines 3-5
            ans[(e, c, m)] = 1
            return (m + c) * T_c * p.q_mlc(e)
        best, bx = T_w * p.q(e + 1) + f(e + 1, c - 1, m + 1), 1  # line 6
        for x in range(2, c):  # lines 7-11
            s = f(e, x, 0) + (T_w - x * T_c) * p.q(e + 1)
            s = s + f(e + 1, c - x, m + x)
            if best < s:
                best, bx = s, x
        ans[(e, c, m)] = bx
        return best

    return T_w * p.q(0) + f(0, p.R, p.C * p.R), ans  # line 14


def _reference_alg2(p: EcoTuneParams):
    T_w, T_c = p.T_w, p.T_c
    ans: dict = {}

    @cache
    def f(e, b, c, m):
        if c == 0:  # lines 8-10
            ans[(e, b, c, m)] = 1
            return merge_score(p, e + b, m + b)
        if b > 0:  # lines 11-14
            score = f(e + 1, b - 1, c, m + 1)
        else:
            score = T_w * p.q(e) + f(e + 1, 0, c - 1, m + 1)
        best, bx = score, 1
        for x in range(2, b + c):  # lines 16-30
            db = math.ceil(x * T_c / T_w)  # I5: T_cc -> T_w
            if x <= b:
                score = merge_score(p, e + b, x)
                bp = b - x + db
            else:
                score = f(e, b, x - b, 0)
                bp = db
            available = b + c - x
            if bp > available:  # (line 24 moved after the check: its value is
                continue  #  discarded when the branch is skipped)
            score = score + (db * T_w - x * T_c) * p.q(e + bp)
            score = score + f(e + 1, bp, available - bp, m + x)
            if best < score:
                best, bx = score, x
        ans[(e, b, c, m)] = bx
        return best

    return f(0, 0, p.R, p.C * p.R), ans  # line 33


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
    return SolveResult(alg, p, float(score), Schedule.from_merges(p.R, merges, p.T_c / p.T_w), ans, "python", secs)


# ----------------------------------------------------------------------------------------------------------------
# independent cost model and brute force


def evaluate_schedule(params: EcoTuneParams, merges, alg: int) -> float:  # noqa: C901 (a reference that replays the schedule step by step, as the paper describes it)
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
        runs[idx[0] : idx[-1] + 1] = [[lo, hi]]
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
    eps = REL_EPS * p.T_w
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


def _schedules01(R: int):
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


def count_schedules(R: int) -> int:
    """Number of schedules `brute_force` enumerates for R."""
    return len(_schedules01(R))


def brute_force(params: EcoTuneParams, alg: int = 0) -> tuple[float, list]:
    """Best score and schedule over every alg-0/1 schedule (small R only), scored by `evaluate_schedule`."""
    if alg not in (0, 1):
        raise EcoTuneParamError("brute_force covers the schedule space of alg 0 and 1")
    if params.R > 11:
        raise EcoTuneParamError(f"brute_force: R = {params.R} is too large (at most 11)")
    best, best_m = -math.inf, None
    for merges in _schedules01(params.R):
        s = evaluate_schedule(params, merges, alg)
        if s > best:
            best, best_m = s, merges
    return best, best_m
