"""Tiering and lazy leveling (the compaction design space, PVLDB'21 §2; Dostoevsky, SIGMOD'18).

Tiering: flushes add runs to L0; a level with T runs merges them all into one new run of the next
level, so each entry is written once per level (write-amp ~ L, the number of levels).
Lazy leveling: tiering at every level but the last, which is one run: the T runs of the level above
merge into it. When the last level outgrows its capacity T^L * B it moves down a level unchanged (no
rewrite) and the level it left becomes tiered.
"""
from __future__ import annotations

from ..lsm.tree import Tree
from .base import Compaction, Policy
from .registry import register


@register
class Tiering(Policy):
    name = "tiering"

    def pick(self, tree: Tree) -> Compaction | None:
        T = self.options.size_ratio
        for lvl in tree.levels:
            runs = [r for r in lvl.runs if self.free(r.files)]
            if len(runs) >= T:
                merge = runs[-T:]  # the T oldest runs of the level
                inputs = [f for r in merge for f in r.files]
                return Compaction(inputs=inputs, output_level=lvl.index + 1,
                                  target_file_size=self.options.target_file_size, start_level=lvl.index,
                                  reason=f"L{lvl.index} has {len(runs)} runs",
                                  io_class="compaction_l0" if lvl.index == 0 else "compaction")
        return None

    def stall_trigger_count(self, tree: Tree) -> int:
        return len(tree.runs_at(0))

    def compaction_trigger_count(self) -> int:
        return self.options.size_ratio


@register
class LazyLeveling(Policy):
    name = "lazy_leveling"

    def capacity(self, level: int) -> float:
        B = self.flush_bytes_avg or self.lsm.write_buffer_size
        return self.options.size_ratio ** level * B

    def compaction_trigger_count(self) -> int:
        return self.options.size_ratio

    def pick(self, tree: Tree) -> Compaction | None:
        T = self.options.size_ratio
        last = tree.last_nonempty_level()
        if last >= 1 and tree.level_bytes(last) > self.capacity(last):
            run = tree.runs_at(last)[0]
            if self.free(run.files):
                return Compaction(inputs=list(run.files), output_level=last + 1, trivial_move=True,
                                  reason=f"L{last} outgrew its capacity", start_level=last)
        for lvl in tree.levels:
            runs = [r for r in lvl.runs if self.free(r.files)]
            if len(runs) < T:
                continue
            merge = runs[-T:]
            inputs = [f for r in merge for f in r.files]
            nxt = lvl.index + 1
            if nxt >= tree.last_nonempty_level() and tree.runs_at(nxt):
                # the next level is the last: leveled, merge into its single run
                target_files = [f for r in tree.runs_at(nxt) for f in r.files]
                if not self.free(target_files):
                    continue
                inputs += target_files
            return Compaction(inputs=inputs, output_level=nxt,
                              target_file_size=self.options.target_file_size, start_level=lvl.index,
                              reason=f"L{lvl.index} has {len(runs)} runs",
                              io_class="compaction_l0" if lvl.index == 0 else "compaction")
        return None
