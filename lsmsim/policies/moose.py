"""Moose (Liu et al., "Structural Designs Meet Optimality", SIGMOD'24): every level i has its own
size ratio T_i and run limit K_i, which spans the design space from tiering (K_i = T_i) to leveling
(K_i = 1) level by level.

Level 0 receives flushes. Level i holds at most K_i runs and about B * T_0 * ... * T_{i-1} bytes
(B = a flush); when it reaches either bound, all its runs merge into level i + 1: into its run when
K_{i+1} = 1 (leveling), as a new run otherwise. The last level takes everything that reaches it.
"""
from __future__ import annotations

from ..lsm.tree import Tree
from .base import Compaction, Policy
from .registry import register


@register
class Moose(Policy):
    name = "moose"

    def capacity(self, level: int) -> float:
        B = self.flush_bytes_avg or self.lsm.write_buffer_size
        cap = B * self.options.runs_per_level[0]
        for t in self.options.size_ratios[:level]:
            cap *= t
        return cap

    def compaction_trigger_count(self) -> int:
        return self.options.runs_per_level[0]

    def pick(self, tree: Tree) -> Compaction | None:
        o = self.options
        last = len(o.runs_per_level) - 1
        for i in range(last):
            runs = tree.runs_at(i)
            if not runs or not all(self.free(r.files) for r in runs):
                continue
            full = len(runs) >= o.runs_per_level[i] or sum(r.bytes for r in runs) >= self.capacity(i) * 1.0001
            if not full:
                continue
            inputs = [f for r in runs for f in r.files]
            nxt = i + 1
            if o.runs_per_level[nxt] == 1 and tree.runs_at(nxt):
                below = tree.files_at(nxt)
                if not self.free(below):
                    continue
                inputs += below  # leveled next level: merge into its single run
            return Compaction(inputs=inputs, output_level=nxt, target_file_size=o.target_file_size,
                              start_level=i, reason=f"L{i} full ({len(runs)} runs)",
                              io_class="compaction_l0" if i == 0 else "compaction")
        return None
