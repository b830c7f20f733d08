"""EcoTune (Wang et al., SIGMOD 2025): the dynamic programs of Sec. 4.3 that choose the main-level compaction
schedule of a compaction round. See dp.py."""
from .dp import (ALGORITHMS, MAX_R, PAPER_TABLES, EcoTuneParamError, EcoTuneParams, Merge, Policy, SolveResult,
                 TMCStep, brute_force, count_policies, evaluate_policy, format_layout, merge_score, paper_policy, q,
                 q_mlc, solve, solve_reference, time_solve)

__all__ = ["ALGORITHMS", "MAX_R", "PAPER_TABLES", "EcoTuneParamError", "EcoTuneParams", "Merge", "Policy",
           "SolveResult", "TMCStep", "brute_force", "count_policies", "evaluate_policy", "format_layout",
           "merge_score", "paper_policy", "q", "q_mlc", "solve", "solve_reference", "time_solve"]
