"""ARCE (Liu, Xie, Luo, "ArceKV", PVLDB 19(5), 2026), Sections 3-4: the count-window cost model, ElasticLSM's
compaction candidates, the effectiveness score (model.py) and FindBestParams (search.py).

This package only holds the numeric core (numpy arrays in, numbers out); it registers no policy. Import the
pieces from the submodules, e.g. ``from lsmsim.policies.arce.model import TreeState, best_compaction`` and
``from lsmsim.policies.arce.search import find_best_params``.
"""
