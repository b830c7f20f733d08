"""Tiering and lazy leveling (the compaction design space, PVLDB'21 §2; Dostoevsky, SIGMOD'18).

Tiering: flushes add runs to L0; a level with T runs merges them all into one new run of the next
level, so each entry is written once per level (write-amp ~ L, the number of levels).
Lazy leveling: tiering at every level but the last, which is one run: the T runs of the level above
merge into it. When the last level outgrows its capacity T^L * B it moves down a level unchanged (no
rewrite) and the level it left becomes tiered.
With `dca` (dynamic capacity adaptation, Spooky PVLDB'22 §2, applied there to every baseline) a level i above the
last one, L, is also full once it holds N_L / T^(L-i) bytes, whatever its run count: capacities follow the data at
the last level rather than the buffer, which bounds the smaller levels' share of the data.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..fields import Bytes
from ..lsm.tree import Tree
from .base import Compaction, Policy, PolicyOptions
from .registry import register
from .view import View
from .write_control import WriteControl


class TieringOptions(PolicyOptions):
    """Tiering: a level merges its T runs into one run of the next level (design-space paper §2)."""

    name: Literal["tiering"]
    size_ratio: int = Field(10, ge=2)
    target_file_size: Bytes | None = Field(None, gt=0)
    dca: bool = Field(False, description="Dynamic capacity adaptation: level i < L also full at N_L / T^(L-i) bytes.")


class LazyLevelingOptions(PolicyOptions):
    """Lazy leveling (Dostoevsky, SIGMOD'18): tiering at levels 1..L-1, leveling at the last level."""

    name: Literal["lazy_leveling"]
    size_ratio: int = Field(10, ge=2)
    target_file_size: Bytes | None = Field(None, gt=0)
    dca: bool = Field(False, description="Dynamic capacity adaptation: level i < L also full at N_L / T^(L-i) bytes.")


def _level_full(tree: Tree, index: int, runs: list, T: int, dca: bool) -> bool:
    """Level `index` holds T runs not being compacted, or (with DCA, below the last level) N_L / T^(L-i) bytes."""
    if len(runs) >= T:
        return True
    last = tree.last_nonempty_level()
    if not dca or not runs or index < 1 or index >= last or len(runs) < len(tree.runs_at(index)):
        return False  # (with a run of the level in a merge, its younger runs must wait: key order)
    return sum(r.bytes for r in runs) >= tree.level_bytes(last) / T ** (last - index)


def _tiered_level_full(tree: Tree, T: int, dca: bool = False) -> bool:
    """Some level is full (`_level_full`)."""
    return any(
        _level_full(tree, lvl.index, [r for r in lvl.runs if Policy.free(r.files)], T, dca) for lvl in tree.levels
    )


@register
class Tiering(Policy):
    name = "tiering"
    Options = TieringOptions

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        self.write_control = WriteControl(compaction_trigger=options.size_ratio)

    def needs_compaction(self, view: View) -> bool:
        return _tiered_level_full(view.tree, self.options.size_ratio, self.options.dca)

    def pick(self, view: View) -> Compaction | None:
        T, tree = self.options.size_ratio, view.tree
        for lvl in tree.levels:
            runs = [r for r in lvl.runs if self.free(r.files)]
            if _level_full(tree, lvl.index, runs, T, self.options.dca):
                merge = runs[-T:]  # the T oldest runs of the level (all of them when DCA found it full)
                inputs = [f for r in merge for f in r.files]
                return Compaction(
                    inputs=inputs,
                    output_level=lvl.index + 1,
                    target_file_size=self.options.target_file_size,
                    start_level=lvl.index,
                    reason=f"L{lvl.index} has {len(runs)} runs",
                    io_class="compaction_l0" if lvl.index == 0 else "compaction",
                )
        return None


@register
class LazyLeveling(Policy):
    name = "lazy_leveling"
    Options = LazyLevelingOptions

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        self.write_control = WriteControl(compaction_trigger=options.size_ratio)

    def capacity(self, level: int) -> float:
        B = self.flush_bytes_avg or self.lsm.write_buffer_size
        return self.options.size_ratio**level * B

    def _last_level_outgrown(self, tree: Tree) -> bool:
        last = tree.last_nonempty_level()
        return last >= 1 and tree.level_bytes(last) > self.capacity(last)

    def needs_compaction(self, view: View) -> bool:
        return self._last_level_outgrown(view.tree) or _tiered_level_full(
            view.tree, self.options.size_ratio, self.options.dca
        )

    def pick(self, view: View) -> Compaction | None:
        T, tree = self.options.size_ratio, view.tree
        last = tree.last_nonempty_level()
        if last >= 1 and tree.level_bytes(last) > self.capacity(last):
            run = tree.runs_at(last)[0]
            if self.free(run.files):
                return Compaction(
                    inputs=list(run.files),
                    output_level=last + 1,
                    trivial_move=True,
                    reason=f"L{last} outgrew its capacity",
                    start_level=last,
                )
        for lvl in tree.levels:
            runs = [r for r in lvl.runs if self.free(r.files)]
            if not _level_full(tree, lvl.index, runs, T, self.options.dca):
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
            return Compaction(
                inputs=inputs,
                output_level=nxt,
                target_file_size=self.options.target_file_size,
                start_level=lvl.index,
                reason=f"L{lvl.index} has {len(runs)} runs",
                io_class="compaction_l0" if lvl.index == 0 else "compaction",
            )
        return None
