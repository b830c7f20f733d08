"""ARCE (Liu, Xie, Luo, "ArceKV", PVLDB 19(5), 2026), Sections 3-4, cut along the paper:

    cost.py        the count-window cost model (Sec. 3.2, Eq. 1-8) and its inputs (CostParams, Workload, ArceParams)
    state.py       the ElasticLSM tree the scoring sees (TreeState, the timestamp order of Sec. 3.1)
    candidates.py  the three compaction patterns, pruned (Sec. 3.1)
    score.py       the effectiveness score (Sec. 3.3, Eq. 9-11) and the compaction ARCE starts
    search.py      FindBestParams (Algorithm 1, Sec. 3.4 and 4) and re-selection
    _kernels.py    every numba kernel of the above (one file for numba's cache)
    reference.py   plain-Python references of the kernels, for the tests
    policy.py      the simulator policy

Where the paper is ambiguous the code follows the readings R1-R26 of docs/arce-readings.md. Only ``policy`` is
registered as a policy; import the numeric pieces from their modules, e.g.
``from lsmsim.policies.arce.score import best_compaction``.
"""
