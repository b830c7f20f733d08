"""EcoTune (Wang et al., SIGMOD 2025): the dynamic programs of Sec. 4.3 that choose the main-level compaction
schedule of a compaction round, and the `ecotune` compaction policy that follows it (policy.py).

model.py the inputs and score terms q, q', MergeScore; dp.py the DPs (`solve`) and the interpretations I1-I11 of
the paper; _kernels.py their numba kernels; reference.py the plain-Python references, the event-by-event cost
model and the brute force; schedule.py the solved schedule and its table; paper_tables.py Tables 5-8."""

from .dp import ALGORITHMS, MAX_R, SolveResult, solve
from .model import EcoTuneParamError, EcoTuneParams, merge_score, q, q_mlc
from .paper_tables import PAPER_TABLES, paper_schedule
from .reference import brute_force, count_schedules, evaluate_schedule, solve_reference
from .schedule import Merge, Schedule, TMCStep, format_layout

__all__ = [
    "ALGORITHMS",
    "MAX_R",
    "PAPER_TABLES",
    "EcoTuneParamError",
    "EcoTuneParams",
    "Merge",
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
