"""Sweeps: YAML expansion (spec), result store (store), executors (local, Dask) and the runner."""

from .results import SweepResults
from .runner import SweepRun, run_sweep
from .spec import Point, Sweep, load_sweep
from .store import Store

__all__ = ["load_sweep", "run_sweep", "Sweep", "Point", "SweepRun", "SweepResults", "Store"]
