"""The SSD model's page-mapped flash translation layer with erase-unit garbage collection.

config.py the geometry, GC settings and over-provisioning definitions (`FTLConfig`); model.py the FTL, its mapping
and erase-unit state (`FTL`); _kernels.py its numba kernels, GC victim selection (greedy, cost-benefit) included;
counters.py what it counts (`FTLCounters`); base.py what every FTL implementation shares (the tests' plain-Python
reference, tests/ftl_reference.py, is the other one). Closed-form write-amp of greedy GC: lsmsim.ssd.gc_theory.
"""

from .config import VICTIMS, FTLConfig, ratio_to_spare_factor, spare_factor_to_ratio
from .counters import FTLCounters
from .model import FTL

__all__ = ["FTL", "FTLConfig", "FTLCounters", "VICTIMS", "ratio_to_spare_factor", "spare_factor_to_ratio"]
