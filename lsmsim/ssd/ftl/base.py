"""What every FTL implementation offers on top of its own state: geometry from its `FTLConfig`, the checks of
write/trim arguments, the counters (an `FTLCounters`, also read as attributes: `ftl.host_pages`), wear spread and
snapshots. Implementations: `model.FTL` (numba) and the tests' plain-Python reference (tests/ftl_reference.py),
which the tests compare counter for counter.
"""

from __future__ import annotations

import abc
from dataclasses import asdict

import numpy as np

from .config import FTLConfig
from .counters import SLOTS, FTLCounters

__all__ = ["FTLBase"]


class FTLBase(abc.ABC):
    """The shared Python side of an FTL; a subclass holds the state and provides `counters` and `erase_counts`."""

    cfg: FTLConfig

    @property
    @abc.abstractmethod
    def counters(self) -> FTLCounters:
        """The counts so far."""

    @property
    @abc.abstractmethod
    def erase_counts(self) -> np.ndarray:
        """Erases per erase block."""

    def _counter(self, name: str) -> int:
        return getattr(self.counters, name)

    def __getattr__(self, name: str):
        # the counters read as attributes too, ftl.host_pages (lsmsim/devices/ssd.py reads two per host write)
        if name in SLOTS:
            return self._counter(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def write_amp(self) -> float:
        """flash_pages / host_pages since creation (nan before the first write)."""
        return self.counters.write_amp

    # geometry
    @property
    def pages_per_block(self) -> int:
        return self.cfg.pages_per_block

    @property
    def logical_pages(self) -> int:
        return self.cfg.logical_pages

    @property
    def physical_blocks(self) -> int:
        return self.cfg.physical_blocks

    @property
    def physical_pages(self) -> int:
        return self.physical_blocks * self.pages_per_block

    @property
    def spare_factor(self) -> float:
        """Effective spare factor after rounding the flash up to whole erase blocks."""
        return (self.physical_pages - self.logical_pages) / self.physical_pages

    @property
    def op_ratio(self) -> float:
        return (self.physical_pages - self.logical_pages) / self.logical_pages

    def wear_spread(self) -> tuple[int, float]:
        """(max - min erase count, coefficient of variation std/mean; 0.0 before any erase)."""
        ec = np.asarray(self.erase_counts, dtype=np.float64)
        mean = ec.mean()
        return int(ec.max() - ec.min()), (float(ec.std() / mean) if mean > 0 else 0.0)

    def snapshot(self) -> dict:
        """The counters as a dict (`window_write_amp` compares two)."""
        return asdict(self.counters)

    @staticmethod
    def window_write_amp(before: dict, after: dict) -> float:
        """Write amplification between two snapshots."""
        h = after["host_pages"] - before["host_pages"]
        return (after["flash_pages"] - before["flash_pages"]) / h if h else float("nan")

    def _check_lpns(self, lpns) -> np.ndarray:
        a = np.ascontiguousarray(lpns, dtype=np.int64).ravel()
        if a.size and (a.min() < 0 or a.max() >= self.logical_pages):
            raise ValueError(f"logical page out of range [0, {self.logical_pages}): min {a.min()}, max {a.max()}")
        return a

    def _check_frontier(self, frontier, n: int) -> tuple[np.ndarray, bool]:
        F = self.cfg.frontiers
        if np.ndim(frontier) == 0:
            f = int(frontier)
            if not 0 <= f < F:
                raise ValueError(f"frontier {f} out of range [0, {F})")
            return np.array([f], dtype=np.int64), True
        a = np.ascontiguousarray(frontier, dtype=np.int64).ravel()
        if a.size != n:
            raise ValueError(f"{a.size} frontiers for {n} pages")
        if a.size and (a.min() < 0 or a.max() >= F):
            raise ValueError(f"frontier out of range [0, {F}): min {a.min()}, max {a.max()}")
        return a, False
