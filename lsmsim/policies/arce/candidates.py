"""ElasticLSM's compaction candidates (ArceKV, PVLDB 19(5) 2026, Sec. 3.1): the three patterns, pruned.

Pattern 1 (intra-level) merges > 1 runs of level i into level i; pattern 2 (adjacent-level) all runs of level i
with zero or more runs of level i+1 into i+1; pattern 3 (multi-level) all runs of levels i..j with zero or more
runs of level j+1 into j+1 (j >= i + 1, R9). As the paper prunes them, a level's runs are sorted by size and added
one at a time (R11). In the canonical order of ``TreeState`` every candidate is then a contiguous range of runs
``[first, last]`` starting at the first run of a level, so a candidate is a row
``(pattern, first_run, last_run, target_level)``; it merges ``last - first + 1`` runs, removes ``y = last - first``
runs and has ``X = sum(size[first:last+1])``. R-numbers refer to docs/arce-readings.md.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ._kernels import _enumerate_nb
from .state import TreeState, apply_compaction

__all__ = [
    "INTRA",
    "ADJACENT",
    "MULTI",
    "PATTERN_NAMES",
    "Candidate",
    "count_candidates",
    "enumerate_candidates",
    "candidate_runs",
    "apply_candidate",
]

INTRA, ADJACENT, MULTI = 1, 2, 3
PATTERN_NAMES = {INTRA: "intra-level", ADJACENT: "adjacent-level", MULTI: "multi-level"}

Candidate = namedtuple("Candidate", "pattern runs target")
Candidate.__doc__ = "A compaction: its pattern (1-3), input runs (canonical indices, ascending) and target level."


def count_candidates(state: TreeState, p3_min_span: int = 1) -> int:
    """Number of candidates ``enumerate_candidates`` lists."""
    return int(_enumerate_nb(state.level_counts(), int(p3_min_span), np.empty((0, 4), dtype=np.int64), False))


def enumerate_candidates(state: TreeState, p3_min_span: int = 1) -> np.ndarray:
    """All pruned candidates as int64 rows (pattern, first_run, last_run, target_level) (numba; R9-R11).
    Run indices are canonical (``state.run_id[first:last+1]`` are the caller's runs)."""
    counts = state.level_counts()
    nc = _enumerate_nb(counts, int(p3_min_span), np.empty((0, 4), dtype=np.int64), False)
    out = np.empty((nc, 4), dtype=np.int64)
    _enumerate_nb(counts, int(p3_min_span), out, True)
    return out


def candidate_runs(candidates) -> list[Candidate]:
    """Rows (pattern, first, last, target) as ``Candidate`` tuples with explicit run lists."""
    return [Candidate(int(c[0]), tuple(range(int(c[1]), int(c[2]) + 1)), int(c[3])) for c in np.asarray(candidates)]


def runs_target(candidate) -> tuple[list[int], int]:
    """(input runs, target level) of a ``Candidate`` or a row ``(pattern, first_run, last_run, target_level)``."""
    if isinstance(candidate, Candidate):
        return list(candidate.runs), int(candidate.target)
    c = np.asarray(candidate).reshape(-1)
    return list(range(int(c[1]), int(c[2]) + 1)), int(c[3])


def apply_candidate(state: TreeState, candidate) -> TreeState:
    """``apply_compaction`` for a row ``(pattern, first_run, last_run, target_level)`` or a ``Candidate``."""
    runs, target = runs_target(candidate)
    return apply_compaction(state, runs, target)
