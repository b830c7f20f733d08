"""FTL geometry and GC settings (`FTLConfig`), and the two definitions of over-provisioning in use.

  * spare factor  sf = (physical - logical) / physical   (MQSim, SimpleSSD, Desnoyers' S_f);
  * OP ratio      op = (physical - logical) / logical    (the industry's "7%", "28%").
  sf = op / (1 + op),  op = sf / (1 - sf).  Physical blocks = ceil(logical_pages / (1 - sf) /
  pages_per_block): nothing is added, so the free-block reserve of GC comes out of the spare space.

`FTLConfig.op_definition` says which one `over_provisioning` is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import ConfigError
from ...tolerances import ROUND_EPS

__all__ = ["VICTIMS", "FTLConfig", "spare_factor_to_ratio", "ratio_to_spare_factor"]


def spare_factor_to_ratio(sf: float) -> float:
    """(P - L) / P  ->  (P - L) / L."""
    if not 0 <= sf < 1:
        raise ValueError(f"spare factor must be in [0, 1), got {sf}")
    return sf / (1.0 - sf)


def ratio_to_spare_factor(op: float) -> float:
    """(P - L) / L  ->  (P - L) / P."""
    if op < 0:
        raise ValueError(f"over-provisioning ratio must be >= 0, got {op}")
    return op / (1.0 + op)


VICTIMS = ("greedy", "cost_benefit")


@dataclass
class FTLConfig:
    """FTL geometry and policy. Sizes in bytes.

    over_provisioning: read as a spare factor or an OP ratio according to `op_definition`
    ('spare_factor': (phys - log) / phys; 'ratio': (phys - log) / log, the default).
    gc_free_low: foreground GC runs when fewer blocks than this are free (>= 2; default
    2*frontiers + 2, lowered to fit small spare spaces). GC always makes progress when the spare
    space holds gc_free_low + frontiers + 1 erase blocks, which is checked. gc_free_high: idle GC
    target (default 2 * gc_free_low). seed: unused (the FTL is deterministic), kept so configs can
    carry one.
    """

    logical_bytes: int
    mapping_unit: int = 4096
    erase_unit: int = 256 * 4096
    over_provisioning: float = 0.07
    op_definition: str = "ratio"
    frontiers: int = 1
    victim: str = "greedy"
    gc_free_low: int | None = None
    gc_free_high: int | None = None
    seed: int = 0

    def __post_init__(self):
        errs = []
        if int(self.mapping_unit) <= 0:
            errs.append(("mapping_unit", "must be > 0"))
        elif int(self.erase_unit) <= 0 or int(self.erase_unit) % int(self.mapping_unit):
            errs.append(("erase_unit", f"must be a positive multiple of mapping_unit ({self.mapping_unit})"))
        if int(self.logical_bytes) <= 0:
            errs.append(("logical_bytes", "must be > 0"))
        if self.op_definition not in ("spare_factor", "ratio"):
            errs.append(("op_definition", "must be 'spare_factor' or 'ratio'"))
        elif self.op_definition == "spare_factor" and not 0 <= self.over_provisioning < 1:
            errs.append(("over_provisioning", "a spare factor must be in [0, 1)"))
        elif self.op_definition == "ratio" and self.over_provisioning < 0:
            errs.append(("over_provisioning", "an OP ratio must be >= 0"))
        if int(self.frontiers) < 1:
            errs.append(("frontiers", "must be >= 1"))
        if self.victim not in VICTIMS:
            errs.append(("victim", f"must be one of {', '.join(VICTIMS)}"))
        if errs:
            raise ConfigError("ftl", errs)
        low = self.free_low
        if low < 2:
            errs.append(("gc_free_low", "must be >= 2 (GC needs a free block for its own frontier)"))
        if self.free_high < low:
            errs.append(("gc_free_high", f"must be >= gc_free_low ({low})"))
        spare_pages = self.physical_blocks * self.pages_per_block - self.logical_pages
        need = (low + self.frontiers + 1) * self.pages_per_block
        if spare_pages < need:
            errs.append(
                (
                    "over_provisioning",
                    f"{spare_pages} spare pages cannot hold the GC reserve of gc_free_low + frontiers + 1 "
                    f"= {low + self.frontiers + 1} erase blocks ({need} pages): raise over_provisioning "
                    f"or the device size, or lower gc_free_low / frontiers / erase_unit",
                )
            )
        if errs:
            raise ConfigError("ftl", errs)

    # derived geometry
    @property
    def pages_per_block(self) -> int:
        return int(self.erase_unit) // int(self.mapping_unit)

    @property
    def logical_pages(self) -> int:
        return -(-int(self.logical_bytes) // int(self.mapping_unit))

    @property
    def spare_factor(self) -> float:
        """The configured OP as a spare factor (before rounding up to whole blocks)."""
        if self.op_definition == "spare_factor":
            return float(self.over_provisioning)
        return ratio_to_spare_factor(float(self.over_provisioning))

    @property
    def op_ratio(self) -> float:
        return spare_factor_to_ratio(self.spare_factor)

    @property
    def physical_blocks(self) -> int:
        # small epsilon so that e.g. sf = 0.2 on 4 logical blocks gives exactly 5, not 6
        return max(1, math.ceil(self.logical_pages / (1.0 - self.spare_factor) / self.pages_per_block - ROUND_EPS))

    @property
    def free_low(self) -> int:
        """gc_free_low, or its default 2*frontiers + 2, lowered (not below 2) to what the spare space holds."""
        if self.gc_free_low is not None:
            return int(self.gc_free_low)
        spare_blocks = (self.physical_blocks * self.pages_per_block - self.logical_pages) // self.pages_per_block
        return max(2, min(2 * int(self.frontiers) + 2, spare_blocks - int(self.frontiers) - 1))

    @property
    def free_high(self) -> int:
        return int(self.gc_free_high) if self.gc_free_high is not None else 2 * self.free_low
