"""RocksDB universal compaction (compaction_picker_universal.cc, RocksDB 7.8).

Sorted runs are ordered youngest first. Nothing happens below level0_file_num_compaction_trigger
runs. Then, in RocksDB's order:
1. size amplification: if (bytes of all runs but the oldest) / (bytes of the oldest) * 100 >=
   max_size_amplification_percent, merge every run (a full compaction);
2. size ratio: from the youngest run, keep adding the next older run while its size is at most
   (100 + size_ratio)% of the candidate total; merge once min_merge_width..max_merge_width runs gather;
3. otherwise, if there are still too many runs not being compacted, merge the youngest
   (runs - trigger + 1) free ones regardless of size ratio.
Runs being compacted are skipped; candidates are contiguous free runs, as in RocksDB.
Runs live where RocksDB puts them with num_levels levels: every flush is a run in L0, and each
level below holds at most one run. A compaction's output goes to the last level when it takes the
oldest run, else to L0 when the next older run is an L0 file, else to the level just above the
next older run (UniversalCompactionBuilder::PickCompactionToReduceSortedRuns and
PickCompactionWithSortedRunRange, `output_level`). The trigger count for write stalls is the
number of sorted runs.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ..fields import Bytes
from ..lsm.sstable import Run
from ..lsm.tree import Tree
from .base import Compaction, Policy, PolicyOptions
from .registry import register
from .view import View
from .write_control import WriteControl


class UniversalOptions(PolicyOptions):
    """RocksDB universal compaction (compaction_picker_universal.cc), option names of
    CompactionOptionsUniversal."""

    name: Literal["universal"]
    num_levels: int = Field(7, ge=1)
    level0_file_num_compaction_trigger: int = Field(4, ge=1)
    size_ratio: float = Field(1.0, ge=0, description="Percent.")
    min_merge_width: int = Field(2, ge=2)
    max_merge_width: int = Field(2**31, ge=2)
    max_size_amplification_percent: float = Field(200.0, ge=0)
    target_file_size: Bytes | None = Field(
        None,
        gt=0,
        description="Split compaction outputs into files of this size, as RocksDB does at target_file_size_base "
        "x target_file_size_multiplier^level (options/cf_options.cc MaxFileSizeForLevel, which universal "
        "compaction also calls). None: one file per sorted run.",
    )

    @field_validator("max_merge_width")
    @classmethod
    def _width_order(cls, v: int, info):
        """A merge needs min_merge_width runs and may take max_merge_width: min above max never merges."""
        lo = info.data.get("min_merge_width")
        if lo is not None and v < lo:
            raise ValueError(f"must be at least min_merge_width ({lo})")
        return v


def sorted_runs(tree: Tree) -> int:
    """Universal compaction's l0_delay_trigger_count: every sorted run counts."""
    return len(tree.runs())


@register
class Universal(Policy):
    name = "universal"
    rocksdb_scheduler = True
    Options = UniversalOptions

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        self.write_control = WriteControl(
            compaction_trigger=options.level0_file_num_compaction_trigger, stall_count=sorted_runs
        )

    def needs_compaction(self, view: View) -> bool:
        """UniversalCompactionPicker::NeedsCompaction: sorted runs >= the trigger."""
        return len(view.tree.runs()) >= self.options.level0_file_num_compaction_trigger

    def _compaction(self, tree: Tree, runs: list[Run], reason: str) -> Compaction:
        order = tree.runs()
        levels = [lvl.index for lvl in tree.levels for _ in lvl.runs]  # of each run in `order`
        after = order.index(runs[-1]) + 1
        if after == len(order):
            out_level = self.options.num_levels - 1
        elif levels[after] == 0:
            out_level = 0
        else:
            out_level = levels[after] - 1
        inputs = [f for r in runs for f in r.files]
        return Compaction(
            inputs=inputs,
            output_level=out_level,
            target_file_size=self.options.target_file_size,
            reason=reason,
            io_class="compaction_l0",
            start_level=levels[order.index(runs[0])],
        )

    def pick(self, view: View) -> Compaction | None:
        o, tree = self.options, view.tree
        runs = tree.runs()
        if len(runs) < o.level0_file_num_compaction_trigger:
            return None
        busy = [not self.free(r.files) for r in runs]
        # 1. size amplification: every run from the youngest free one to the oldest, all free
        first = next((i for i, b in enumerate(busy) if not b), None)
        if first is not None and not any(busy[first:]) and len(runs) - first >= 2:
            older = sum(r.bytes for r in runs[first:-1])
            if runs[-1].bytes > 0 and older * 100.0 / runs[-1].bytes >= o.max_size_amplification_percent:
                return self._compaction(tree, runs[first:], "size amplification")
        # 2. size ratio: from each free run, gather following free runs of similar size
        for start in range(len(runs)):
            if busy[start]:
                continue
            cand = [runs[start]]
            total = float(runs[start].bytes)
            for j in range(start + 1, len(runs)):
                r = runs[j]
                if busy[j] or len(cand) >= o.max_merge_width or r.bytes > total * (100.0 + o.size_ratio) / 100.0:
                    break
                cand.append(r)
                total += r.bytes
            if len(cand) >= o.min_merge_width:
                return self._compaction(tree, cand, "size ratio")
        # 3. too many sorted runs not being compacted: merge the youngest free ones regardless of size
        free_runs = [r for r, b in zip(runs, busy) if not b]
        excess = len(free_runs) - o.level0_file_num_compaction_trigger + 1
        if excess >= o.min_merge_width:
            start = next(i for i, b in enumerate(busy) if not b)
            cand = []
            for j in range(start, len(runs)):
                if busy[j] or len(cand) >= min(excess, o.max_merge_width):
                    break
                cand.append(runs[j])
            if len(cand) >= o.min_merge_width:
                return self._compaction(tree, cand, "sorted run count")
        return None
