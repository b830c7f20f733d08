"""Moose (Liu et al., "Structural Designs Meet Optimality", SIGMOD'24): every level i has its own
size ratio T_i and run limit K_i, which spans the design space from tiering (K_i = T_i) to leveling
(K_i = 1) level by level.

Level 0 receives flushes and spills into level 1 when it holds K_0 runs. Level i holds about
C_i = B * K_0 * T_0 * ... * T_{i-1} bytes (B = a flush) in at most K_i runs of C_i / K_i each: a spill
from above merges into the level's youngest ("active") run while that run is below C_i / K_i, and
starts a new run otherwise (Dostoevsky's fluid LSM, which Moose generalises; ArceKV PVLDB'26 Table 1:
capacities r_1 F, r_1 r_2 F, ..., runs per level, compaction on "fullness of a level"). A level whose
bytes reach C_i spills all its runs into level i + 1. The last level takes everything that reaches it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..fields import Bytes
from ..lsm.tree import Tree
from .base import Compaction, Policy, PolicyOptions
from .registry import register
from .view import View
from .write_control import WriteControl


class MooseOptions(PolicyOptions):
    """Moose (Liu et al., SIGMOD'24): per-level size ratios and run counts. EcoTune's setting:
    runs_per_level [3, 3, 3, 3, 1], size_ratios [7, 7, 7, 6]; ARCE's: size_ratios [40, 40, 41] with
    6 runs per level."""

    name: Literal["moose"]
    size_ratios: list[float] = Field([7, 7, 7, 6], min_length=1, description="T_i between level i and i+1.")
    runs_per_level: list[int] = Field([3, 3, 3, 3, 1], min_length=2, description="K_i, runs level i may hold.")
    target_file_size: Bytes | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _lengths(self):
        if len(self.runs_per_level) != len(self.size_ratios) + 1:
            raise ValueError("runs_per_level needs one entry more than size_ratios (one per level)")
        if any(t <= 1 for t in self.size_ratios) or any(k < 1 for k in self.runs_per_level):
            raise ValueError("size ratios must be > 1 and run counts >= 1")
        return self


@register
class Moose(Policy):
    name = "moose"
    Options = MooseOptions

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        self.write_control = WriteControl(compaction_trigger=options.runs_per_level[0])

    def capacity(self, level: int) -> float:
        B = self.flush_bytes_avg or self.lsm.write_buffer_size
        cap = B * self.options.runs_per_level[0]
        for t in self.options.size_ratios[:level]:
            cap *= t
        return cap

    def full(self, tree: Tree, i: int) -> bool:
        runs = tree.runs_at(i)
        if i == 0:
            return len(runs) >= self.options.runs_per_level[0]
        return sum(r.bytes for r in runs) >= self.capacity(i) * 1.0001 or len(runs) > self.options.runs_per_level[i]

    def needs_compaction(self, view: View) -> bool:
        return any(self.full(view.tree, i) for i in range(len(self.options.runs_per_level) - 1))

    def pick(self, view: View) -> Compaction | None:
        o, tree = self.options, view.tree
        last = len(o.runs_per_level) - 1
        # the deepest full level spills first: with L0 picked first, a flush that arrives during every L0 -> L1
        # merge would keep L1 busy forever, so L1 never spilled and grew without bound (2.4 GB L1, write-amp 408
        # on ArceKV's paper-scale Workload I); a level merged into must have room, as "fullness of a level" says
        for i in reversed(range(last)):
            runs = tree.runs_at(i)
            if not runs or not all(self.free(r.files) for r in runs) or not self.full(tree, i):
                continue
            inputs = [f for r in runs for f in r.files]
            nxt = i + 1
            below = tree.runs_at(nxt)
            if o.runs_per_level[nxt] == 1:
                absorb = below  # leveled next level: merge into its single run
            else:  # fluid: merge into the active run while it is below its share of the level
                active = below[0] if below else None
                absorb = (
                    [active] if active is not None and active.bytes < self.capacity(nxt) / o.runs_per_level[nxt] else []
                )
            files = [f for r in absorb for f in r.files]
            if not self.free(files):
                continue
            return Compaction(
                inputs=inputs + files,
                output_level=nxt,
                target_file_size=o.target_file_size,
                start_level=i,
                reason=f"L{i} full ({len(runs)} runs)",
                io_class="compaction_l0" if i == 0 else "compaction",
            )
        return None
