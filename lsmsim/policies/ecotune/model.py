"""EcoTune's cost model (Wang et al., "Rethinking The Compaction Policies in LSM-trees", SIGMOD 2025, Sec. 4.3):
the DP's inputs and the score terms. The paper numbers no equations; each term names its section or line.

A compaction round has R TMCs (top-to-main compactions). TMC t (t = 1..R) ends at time t*T_w and adds one *unit
run* (size S) to the main level. MLC threads rewrite S data in T_c; only one MLC runs at a time and it starts
right after a TMC. After TMC R the global compaction merges the main level (R*S) and the last level (C*R*S).
With e main-level runs a long scan costs e + 2 I/Os (one top-level, one last-level run), so

    q(e)  = 1 / ((e + 2) r + (1 - r)(1 + f))        (Sec. 4.3; r = long-range-scan ratio, f = filter FPR)
    q'(e) = beta * q(e)                             (Sec. 4.3.2; query speed while an MLC runs)

and a schedule's *score* is query speed integrated over time (number of queries served in the round).
Algorithm 2's MergeScore (Sec. 4.3.3) is the score during one MLC that may outlast T_w (`merge_score`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ALGORITHMS = {0: "simplified recurrence (Sec. 4.3.1)", 1: "Algorithm 1 (Sec. 4.3.2)", 2: "Algorithm 2 (Sec. 4.3.3)"}
MAX_R = {0: 1000, 1: 160, 2: 64}  # memory: alg 1 (R+1)^3, alg 2 about R^4/3 memo entries

__all__ = ["ALGORITHMS", "MAX_R", "EcoTuneParamError", "EcoTuneParams", "q", "q_mlc", "merge_score"]


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


Q_SUM_EXACT = 2048  # terms of a q-sum added one by one; the rest by Euler-Maclaurin (relative error < 1e-13)


def q_sum(n: int, k: int, r: float, f: float) -> float:
    """sum_{i < k} q(n + i). An MLC many T_w long (T_c >> T_w, a first-round guess or a slow device) has as many
    terms: beyond Q_SUM_EXACT, the tail of q(x) = 1 / (r x + a) is its integral plus Euler-Maclaurin's two terms."""
    exact = min(k, Q_SUM_EXACT)
    s = 0.0
    for i in range(exact):
        s += q(n + i, r, f)
    if k > exact:
        a = 2 * r + (1.0 - r) * (1.0 + f)
        lo, hi = n + exact, n + k - 1
        if r == 0.0:
            s += (k - exact) / a
        else:
            g_lo, g_hi = 1.0 / (r * lo + a), 1.0 / (r * hi + a)
            s += math.log((r * hi + a) / (r * lo + a)) / r + (g_lo + g_hi) / 2 + r * (g_lo**2 - g_hi**2) / 12
    return s


def merge_score(p: EcoTuneParams, e: int, m: float) -> float:
    """Algorithm 2 MergeScore(e, m): queries served during an MLC of m unit runs starting at a TMC with e runs
    (I5: Delta_b = ceil(m T_c / T_w) - 1; I6; interpretations in dp.py)."""
    db = max(math.ceil(m * p.T_c / p.T_w) - 1, 0)
    score = p.T_w * p.beta * q_sum(e, db, p.r, p.f)
    score = score + p.q_mlc(e + db) * (m * p.T_c - db * p.T_w)
    return score
