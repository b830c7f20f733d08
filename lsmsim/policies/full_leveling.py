"""Full-level leveling with preemption (Spooky PVLDB'22 §2 "Full Merge", Fig. 4; Eq. 4).

Each level Li (i >= 1) is one sorted run with capacity C_i = (T - 1) * T^(i-1) * B, where B is the
mean flushed-file size. A flush lands in L0; it is then merged with whole levels. With preemption,
the merge goes straight to the first level j whose run can absorb L0..Lj (sum <= C_j), merging all
of them at once, so data skips levels that would only overflow again. Without it, L0 merges into L1
and a level that exceeds its capacity merges whole into the next one. Write-amp under unique uniform
inserts: 1 (flush) + (T - 1)/2 per level (Spooky Eq. 4).
With `dca` (dynamic capacity adaptation, Spooky §2 and Eq. 3) the levels below the last one, L, take their
capacities from its data: C_i = N_L / T^(L-i). (Spooky with X = L is the same Full Merge with DCA, in Spooky's
own level structure: `policy: {name: spooky, X: L}`.)
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..fields import Bytes
from ..lsm.tree import Tree
from .base import Compaction, Policy, PolicyOptions
from .registry import register
from .view import View


class FullLevelingOptions(PolicyOptions):
    """Full-level leveling with preemption (Spooky §2 'Full Merge', Eq. 4)."""

    name: Literal["full_leveling"]
    size_ratio: float = Field(10.0, gt=1)
    preemption: bool = True
    target_file_size: Bytes | None = Field(None, gt=0, description="Output file size; default: one file per level.")
    dca: bool = Field(False, description="Dynamic capacity adaptation: C_i = N_L / T^(L-i) below the last level L.")


@register
class FullLeveling(Policy):
    name = "full_leveling"
    Options = FullLevelingOptions

    def capacity(self, level: int, tree: Tree | None = None) -> float:
        T = self.options.size_ratio
        if self.options.dca and tree is not None:
            last = tree.last_nonempty_level()
            if 1 <= level < last:
                return tree.level_bytes(last) / T ** (last - level)
        B = self.flush_bytes_avg or self.lsm.write_buffer_size
        return (T - 1) * T ** (level - 1) * B

    def _slack(self) -> float:
        return 0.5 * (self.flush_bytes_avg or self.lsm.write_buffer_size)

    def _busy(self, tree: Tree) -> bool:
        return any(f.being_compacted for f in tree.files())

    def needs_compaction(self, view: View) -> bool:
        """L0 holds files, or (without preemption) a level outgrew its capacity."""
        tree = view.tree
        return bool(tree.files_at(0)) or any(
            tree.levels[i].bytes > self.capacity(i, tree) + self._slack() for i in range(1, len(tree.levels))
        )

    def pick(self, view: View) -> Compaction | None:
        tree = view.tree
        if self._busy(tree):
            return None  # one whole-level merge at a time: it owns the levels it spans
        l0 = tree.files_at(0)
        if self.options.preemption:
            if not l0:
                return None
            total = sum(f.bytes for f in l0)
            j = 1
            while True:
                total += tree.level_bytes(j)
                # half a buffer of slack: level sizes are whole flushes, which vary by a few bytes
                if (
                    total <= self.capacity(j, tree) + self._slack()
                    or j >= len(tree.levels) - 1
                    and tree.level_bytes(j) == 0
                ):
                    break
                j += 1
            inputs = [f for i in range(0, j + 1) for f in tree.files_at(i)]
            return Compaction(
                inputs=inputs,
                output_level=j,
                target_file_size=self.options.target_file_size,
                reason=f"preemptive L0..L{j}",
                io_class="compaction_l0" if j == 1 else "compaction",
            )
        if l0:
            inputs = l0 + tree.files_at(1)
            return Compaction(
                inputs=inputs,
                output_level=1,
                target_file_size=self.options.target_file_size,
                reason="L0 -> L1",
                io_class="compaction_l0",
            )
        for i in range(1, len(tree.levels)):
            if tree.levels[i].bytes > self.capacity(i, tree) + self._slack():
                inputs = tree.files_at(i) + tree.files_at(i + 1)
                return Compaction(
                    inputs=inputs,
                    output_level=i + 1,
                    target_file_size=self.options.target_file_size,
                    reason=f"L{i} full",
                    start_level=i,
                )
        return None
