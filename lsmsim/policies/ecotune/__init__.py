"""EcoTune (Wang et al., SIGMOD 2025): the dynamic programs of Sec. 4.3 that choose the main-level compaction
schedule of a compaction round, and the `ecotune` compaction policy that follows it (policy.py).

model.py the inputs and score terms q, q', MergeScore; dp.py the DPs (`solve`) and the interpretations I1-I11 of
the paper; _kernels.py their numba kernels; reference.py the plain-Python references, the event-by-event cost
model and the brute force; schedule.py the solved schedule and its table; paper_tables.py Tables 5-8."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_getattr

if TYPE_CHECKING:
    from .dp import SolveResult, solve
    from .model import ALGORITHMS, MAX_R, EcoTuneParamError, EcoTuneParams, merge_score, q, q_mlc
    from .paper_tables import PAPER_TABLES, paper_schedule
    from .reference import brute_force, count_schedules, evaluate_schedule, solve_reference
    from .schedule import Merge, Schedule, TMCStep, format_layout

_LAZY = {
    "ALGORITHMS": "model",
    "MAX_R": "model",
    "SolveResult": "dp",
    "solve": "dp",
    "EcoTuneParamError": "model",
    "EcoTuneParams": "model",
    "merge_score": "model",
    "q": "model",
    "q_mlc": "model",
    "PAPER_TABLES": "paper_tables",
    "paper_schedule": "paper_tables",
    "brute_force": "reference",
    "count_schedules": "reference",
    "evaluate_schedule": "reference",
    "solve_reference": "reference",
    "Merge": "schedule",
    "Schedule": "schedule",
    "TMCStep": "schedule",
    "format_layout": "schedule",
}
__all__ = [
    "ALGORITHMS",
    "EcoTuneParamError",
    "EcoTuneParams",
    "MAX_R",
    "Merge",
    "PAPER_TABLES",
    "Schedule",
    "SolveResult",
    "TMCStep",
    "brute_force",
    "count_schedules",
    "evaluate_schedule",
    "format_layout",
    "merge_score",
    "paper_schedule",
    "q",
    "q_mlc",
    "solve",
    "solve_reference",
]
__getattr__ = lazy_getattr(__name__, _LAZY, globals())
