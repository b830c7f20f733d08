"""RocksDB's leveled compaction, as RocksDB 7.8 picks it.

- Scores (VersionStorageInfo::ComputeCompactionScore): L0 = max(L0 files not being compacted /
  level0_file_num_compaction_trigger, L0 bytes / max_bytes_for_level_base); Li = bytes not being
  compacted / MaxBytesForLevel(i); with dynamic level bytes, 7.8's refinements (see `scores`).
  The level with the highest score >= 1 compacts first.
- Level targets: L1 = max_bytes_for_level_base, Li = L1 * multiplier^(i-1); with
  level_compaction_dynamic_level_bytes, targets are derived from the last level downwards and L0
  compacts into the base level (VersionStorageInfo::CalculateBaseBytes).
- L0 -> base: all L0 files plus the overlapping base-level files; while that is blocked, L0 -> L0
  of the youngest free L0 files (PickIntraL0Compaction).
- Li -> Li+1: the file with the minimum overlapping ratio (compaction_pri=kMinOverlappingRatio, the
  default): overlapping bytes in Li+1 / file bytes; then Li inputs are expanded while that adds no
  Li+1 file and stays under max_compaction_bytes (CompactionPicker::SetupOtherInputs).
- Trivial move: inputs that overlap nothing in the output level move without a rewrite.
- Pending compaction bytes: VersionStorageInfo::EstimatedCompactionNeededBytes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .. import units
from ..fields import Bytes
from ..lsm.sstable import SSTFile
from ..lsm.tree import Tree
from .base import Compaction, Policy, PolicyOptions
from .registry import register
from .view import View
from .write_control import WriteControl

K_SCORE_SCALE = 10.0  # version_storage_info.cc: scores over 1 are scaled to make room for priorities


def _range(files: list[SSTFile]) -> tuple[int, int]:
    return min(f.min_key for f in files), max(f.max_key for f in files)


class LeveledOptions(PolicyOptions):
    """RocksDB's leveled compaction (compaction_picker_level.cc), RocksDB 7.8 option names."""

    name: Literal["leveled"]
    num_levels: int = Field(7, ge=2)
    level0_file_num_compaction_trigger: int = Field(4, ge=1)
    max_bytes_for_level_base: Bytes = Field(units.parse_size("256MiB"), gt=0)
    max_bytes_for_level_multiplier: float = Field(10.0, gt=1)
    target_file_size_base: Bytes = Field(units.parse_size("64MiB"), gt=0)
    target_file_size_multiplier: float = Field(1.0, ge=1)
    level_compaction_dynamic_level_bytes: bool = False
    max_compaction_bytes: Bytes | None = Field(None, description="Default: 25 x target_file_size_base.")
    trivial_move: bool = True


@register
class Leveled(Policy):
    name = "leveled"
    Options = LeveledOptions

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        o = options
        self.max_compaction_bytes = o.max_compaction_bytes or 25 * o.target_file_size_base
        self.write_control = WriteControl(
            compaction_trigger=o.level0_file_num_compaction_trigger, pending_bytes=self.pending_compaction_bytes
        )

    # ---------------------------------------------------------------- level targets
    def base_level(self, tree: Tree) -> int:
        return self._targets(tree)[0]

    def max_bytes_for_level(self, tree: Tree, level: int) -> float:
        base, targets = self._targets(tree)
        return targets.get(level, float("inf"))

    def _targets(self, tree: Tree) -> tuple[int, dict[int, float]]:
        o = self.options
        n = o.num_levels
        mult = o.max_bytes_for_level_multiplier
        base_max = float(o.max_bytes_for_level_base)
        if not o.level_compaction_dynamic_level_bytes:
            return 1, {i: base_max * mult ** (i - 1) for i in range(1, n)}
        sizes = [tree.level_bytes(i) for i in range(n)]
        first_nonempty = next((i for i in range(1, n) if sizes[i] > 0), None)
        max_size = max(sizes[1:]) if n > 1 else 0
        if first_nonempty is None or max_size == 0:
            base_level, base_size = n - 1, base_max
        else:
            base_min = base_max / mult
            cur = float(max_size)
            for _ in range(n - 2, first_nonempty - 1, -1):
                cur /= mult
            base_level = first_nonempty
            if cur <= base_min:
                base_size = base_min + 1
            else:
                while base_level > 1 and cur > base_max:
                    base_level -= 1
                    cur /= mult
                base_size = min(base_max, cur)
        targets, size = {}, base_size
        for i in range(base_level, n):
            if i > base_level:
                size *= mult
            targets[i] = max(size, base_max)
        return base_level, targets

    def target_file_size(self, level: int, base_level: int = 1) -> int:
        """MaxFileSizeForLevel: with dynamic level bytes the base level counts as level 1."""
        o = self.options
        if o.level_compaction_dynamic_level_bytes:
            level = max(1, level - base_level + 1)
        return int(o.target_file_size_base * o.target_file_size_multiplier ** max(0, level - 1))

    # ---------------------------------------------------------------- scoring
    def scores(self, tree: Tree) -> list[tuple[float, int]]:
        """(score, level), highest first (VersionStorageInfo::ComputeCompactionScore, 7.8).

        With dynamic level bytes, 7.8 scales scores above 1 by kScoreScale = 10, lifts L0 to 1.01
        once it holds max_bytes_for_level_base, compares L0 with the base level's actual size,
        and divides a level's size by its target plus the bytes about to come down into it."""
        o = self.options
        base, targets = self._targets(tree)
        l0_free = [f for f in tree.files_at(0) if not f.being_compacted]
        l0_bytes = sum(f.bytes for f in l0_free)
        s0 = len(l0_free) / o.level0_file_num_compaction_trigger
        dynamic = o.level_compaction_dynamic_level_bytes
        if not dynamic:
            s0 = max(s0, l0_bytes / o.max_bytes_for_level_base)
        else:
            if l0_bytes >= o.max_bytes_for_level_base:
                s0 = max(s0, 1.01)
            if l0_bytes > targets[base]:
                s0 = max(s0, l0_bytes / max(tree.level_bytes(base), targets[base]))
            if s0 > 1.0:
                s0 *= K_SCORE_SCALE
        out = [(s0, 0)]
        downcompact = 0.0
        for i in range(base, min(o.num_levels - 1, len(tree.levels))):
            files = tree.files_at(i)
            free = sum(f.bytes for f in files if not f.being_compacted)
            total = sum(f.bytes for f in files)
            if not dynamic or free < targets[i]:
                score = free / targets[i]
            else:
                score = free / (targets[i] + downcompact) * K_SCORE_SCALE
            if total > targets[i]:
                downcompact += total - targets[i]
            out.append((score, i))
        out.sort(key=lambda x: -x[0])
        return out

    def needs_compaction(self, view: View) -> bool:
        """VersionStorageInfo's highest compaction score >= 1 (LevelCompactionPicker::NeedsCompaction)."""
        return self.scores(view.tree)[0][0] >= 1.0

    def pick(self, view: View) -> Compaction | None:
        tree = view.tree
        for score, level in self.scores(tree):
            if score < 1.0:
                return None
            c = self._pick_l0(tree) if level == 0 else self._pick_level(tree, level)
            if c is not None:
                return c
        return None

    # ---------------------------------------------------------------- L0 -> base level
    def _pick_l0(self, tree: Tree) -> Compaction | None:
        l0 = tree.files_at(0)
        if not l0:
            return None
        if not self.free(l0):  # RocksDB runs one L0->base compaction at a time
            return self._pick_intra_l0(tree)
        base = self.base_level(tree)
        lo, hi = _range(l0)
        run = tree.runs_at(base)[0] if tree.runs_at(base) else None
        below = run.overlapping(lo, hi) if run else []
        if not self.free(below):
            return self._pick_intra_l0(tree)
        trivial = self.options.trivial_move and not below and self._disjoint(l0)
        return Compaction(
            inputs=l0 + below,
            output_level=base,
            target_run=run,
            target_file_size=self.target_file_size(base, base),
            trivial_move=trivial,
            reason="L0 files",
            io_class="compaction_l0",
            start_level=0,
        )

    def _pick_intra_l0(self, tree: Tree) -> Compaction | None:
        """L0 -> L0 when L0 -> base is blocked (PickIntraL0Compaction): merge the youngest free L0
        files, at least 4 (kMinFilesForIntraL0Compaction), once L0 holds trigger + 2 files."""
        runs = tree.runs_at(0)
        if len(runs) < self.options.level0_file_num_compaction_trigger + 2:
            return None
        picked = []
        for r in runs:  # youngest first; stop at the first file already being compacted
            if not self.free(r.files):
                break
            picked.append(r)
        if len(picked) < 4 or sum(r.bytes for r in picked) > self.max_compaction_bytes:
            return None
        inputs = [f for r in picked for f in r.files]
        return Compaction(
            inputs=inputs,
            output_level=0,
            target_file_size=None,
            reason="intra-L0",
            io_class="compaction_l0",
            start_level=0,
        )

    @staticmethod
    def _disjoint(files: list[SSTFile]) -> bool:
        fs = sorted(files, key=lambda f: f.min_key)
        return all(a.max_key < b.min_key for a, b in zip(fs, fs[1:]))

    # ---------------------------------------------------------------- Li -> Li+1
    def _pick_level(self, tree: Tree, level: int) -> Compaction | None:
        if not tree.runs_at(level):
            return None
        src = tree.runs_at(level)[0]
        out_level = level + 1
        dst = tree.runs_at(out_level)[0] if tree.runs_at(out_level) else None
        best, best_ratio, best_below = None, None, None
        for f in src.files:
            if f.being_compacted:
                continue
            below = dst.overlapping(f.min_key, f.max_key) if dst else []
            if not self.free(below):
                continue
            ratio = sum(b.bytes for b in below) * 1024 / max(1, f.bytes)
            if best_ratio is None or ratio < best_ratio:
                best, best_ratio, best_below = f, ratio, below
        if best is None:
            return None
        inputs = [best]
        below = best_below
        if below:
            # expand the start level while that pulls in no further output-level file
            lo, hi = _range(inputs + below)
            expanded = [f for f in src.overlapping(lo, hi)]
            if len(expanded) > len(inputs) and self.free(expanded):
                lo2, hi2 = _range(expanded)
                below2 = dst.overlapping(lo2, hi2) if dst else []
                size = sum(f.bytes for f in expanded + below2)
                if len(below2) == len(below) and size < self.max_compaction_bytes:
                    inputs = expanded
        trivial = self.options.trivial_move and not below
        return Compaction(
            inputs=inputs + below,
            output_level=out_level,
            target_run=dst,
            target_file_size=self.target_file_size(out_level, self.base_level(tree)),
            trivial_move=trivial,
            reason=f"L{level} size",
            io_class="compaction",
            start_level=level,
        )

    # ---------------------------------------------------------------- stalls
    def pending_compaction_bytes(self, tree: Tree) -> float:
        o = self.options
        base, targets = self._targets(tree)
        l0 = tree.level(0)
        est = 0.0
        to_next = 0.0
        l0_triggered = False
        if len(l0.files) >= o.level0_file_num_compaction_trigger or l0.bytes >= o.max_bytes_for_level_base:
            l0_triggered = True
            est = to_next = float(l0.bytes)
        for i in range(base, o.num_levels - 1):
            size = float(tree.level_bytes(i))
            if i == base and l0_triggered:
                est += size
            size += to_next
            to_next = 0.0
            if size > targets[i]:
                to_next = size - targets[i]
                nxt = float(tree.level_bytes(i + 1))
                if nxt > 0:
                    est += to_next * (nxt / size + 1)
        return est
