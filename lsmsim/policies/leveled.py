"""RocksDB's leveled compaction, as RocksDB 7.8 picks it.

- Scores (VersionStorageInfo::ComputeCompactionScore): L0 = max(L0 files not being compacted /
  level0_file_num_compaction_trigger, L0 bytes / max_bytes_for_level_base); Li = bytes not being
  compacted / MaxBytesForLevel(i); with dynamic level bytes, 7.8's refinements (see `scores`).
  The level with the highest score >= 1 compacts first.
- Level targets: L1 = max_bytes_for_level_base, Li = L1 * multiplier^(i-1); with
  level_compaction_dynamic_level_bytes, targets are derived from the last level downwards and L0
  compacts into the base level (VersionStorageInfo::CalculateBaseBytes).
- Which level first (LevelCompactionBuilder::SetupInitialFiles, compaction_picker_level.cc): levels
  by score; when L0 -> base finds nothing, an intra-L0 compaction (PickIntraL0Compaction: the
  youngest free L0 files, at least 4, once L0 holds trigger + 2) and the base level waits.
- L0 -> base (PickFileToCompact, one L0 compaction at a time): a trivial move of the oldest L0 files
  that stay disjoint from each other and from a non-empty base level (TryPickL0TrivialMove); else
  the first L0 file in kMinOverlappingRatio order, every L0 file overlapping it
  (GetOverlappingL0Files) and the base-level files below. Into an empty base level with L0 files
  disjoint (fillseq), that first file is the one with the smallest key, moved alone.
- Li -> Li+1: the first file in `compaction_pri` order whose next-level files are free: by default
  kMinOverlappingRatio (SortFileByOverlappingRatio, version_set.cc: next-level bytes * 1024 /
  compensated file bytes in integers, ties to the smaller key); RocksDB's other orders and the
  design space's grandparent overlap are in `movement.py`. With nothing below it, a trivial move
  of it and up to 3 more files after it (TryExtendNonL0TrivialMove, kMaxMultiTrivialMove = 4);
  else the start level grows while that adds no next-level file and stays under
  max_compaction_bytes (CompactionPicker::SetupOtherInputs, with GetCleanInputsWithinInterval).
- A move also needs each file's next-level overlap under max_compaction_bytes
  (Compaction::IsTrivialMove).
- Outputs are cut by `lsm/cutting.py`'s `RocksDBLevelCut` over the grandparents (the first level
  below the output level that overlaps; CompactionPicker::GetGrandparents), honouring
  `level_compaction_dynamic_file_size` (RocksDB 7.8.0, default on).
- Pending compaction bytes: VersionStorageInfo::EstimatedCompactionNeededBytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from pydantic import Field

from .. import units
from ..fields import Bytes
from ..lsm.cutting import RocksDBLevelCut
from ..lsm.sstable import Run, SSTFile
from ..lsm.tree import Tree
from . import movement
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
    level_compaction_dynamic_file_size: bool = Field(
        True,
        description="RocksDB 7.8: non-bottommost outputs may grow to 2x the target file size and are cut at "
        "next-level file boundaries (lsm/cutting.py, CompactionOutputs::ShouldStopBefore).",
    )
    max_compaction_bytes: Bytes | None = Field(None, description="Default: 25 x target_file_size_base.")
    trivial_move: bool = True
    compaction_pri: movement.CompactionPri = Field(
        "min_overlapping_ratio",
        description="Which file of a level compacts first (RocksDB's CompactionPri; policies/movement.py): "
        "min_overlapping_ratio, by_compensated_size, oldest_largest_seq_first, oldest_smallest_seq_first, "
        "round_robin, or min_overlapping_ratio_grandparent (Sarkar et al.'s LO+2, not in RocksDB).",
    )


@register
class Leveled(Policy):
    name = "leveled"
    rocksdb_scheduler = True
    Options = LeveledOptions

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        o = options
        self.max_compaction_bytes = o.max_compaction_bytes or 25 * o.target_file_size_base
        self.cursor: dict[int, int] = {}  # round_robin: per level, the key the next pick starts at
        self.write_control = WriteControl(
            compaction_trigger=o.level0_file_num_compaction_trigger, pending_bytes=self.pending_compaction_bytes
        )
        self._targets_of: tuple = (None, -1, None)  # (tree, its version, _targets): level bytes change only with it

    # ---------------------------------------------------------------- level targets
    def base_level(self, tree: Tree) -> int:
        return self._targets(tree)[0]

    def max_bytes_for_level(self, tree: Tree, level: int) -> float:
        base, targets = self._targets(tree)
        return targets.get(level, float("inf"))

    def _targets(self, tree: Tree) -> tuple[int, dict[int, float]]:
        """(base level, target bytes per level), kept for the tree's version: the scores ask it at every pick."""
        if self._targets_of[0] is not tree or self._targets_of[1] != tree.version:
            self._targets_of = (tree, tree.version, self._compute_targets(tree))
        return self._targets_of[2]

    def _compute_targets(self, tree: Tree) -> tuple[int, dict[int, float]]:
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
            total = tree.level_bytes(i)
            free = total - tree.compacting_bytes(i)
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
        """LevelCompactionBuilder::SetupInitialFiles: levels by score; when L0 -> base is blocked,
        an intra-L0 compaction, and the base level waits so that L0 -> base does not starve."""
        tree = view.tree
        base = self.base_level(tree)
        skipped_l0 = False
        for score, level in self.scores(tree):
            if score < 1.0:
                return None
            if skipped_l0 and level == base:
                continue
            if level == 0:
                c = self._pick_l0(tree, base)
                if c is None:
                    skipped_l0 = True
                    c = self._pick_intra_l0(tree)
            else:
                c = self._pick_level(tree, level)
            if c is not None:
                return c
        return None

    # ---------------------------------------------------------------- shared steps
    @staticmethod
    def _by_overlap(files: list[SSTFile], below: Run | None, avg_value_size: float = 0.0) -> list[SSTFile]:
        """The free files in kMinOverlappingRatio order (SortFileByOverlappingRatio, version_set.cc):
        next-level bytes each overlaps * 1024 // its compensated bytes, ties to the smaller key."""

        def order(f: SSTFile) -> tuple[int, int]:
            over = sum(b.bytes for b in below.overlapping(f.min_key, f.max_key)) if below else 0
            return over * 1024 // max(1, int(movement.compensated_size(f, avg_value_size))), f.min_key

        return sorted((f for f in files if not f.being_compacted), key=order)

    @staticmethod
    def _overlap_order(src: Run, below: Run | None, avg_value_size: float = 0.0) -> Iterator[SSTFile]:
        """`_by_overlap` for a whole run, in numpy: the same order from the runs' key arrays, without a binary
        search per file (RocksDB computes it once per version, VersionStorageInfo::UpdateFilesByCompactionPri)."""
        files = src.files
        for i in movement.order("min_overlapping_ratio", src, below, avg_value_size=avg_value_size):
            if not files[i].being_compacted:
                yield files[i]

    @staticmethod
    def _avg_value_size(tree: Tree) -> float:
        """Only deletion-heavy files need it (ComputeCompensatedSizes): 0 while the tree holds no tombstone."""
        runs = tree.runs()
        return movement.average_value_size(runs) if any(r.tombstones for r in runs) else 0.0

    def _extend_trivial(self, files: list[SSTFile] | Run, first: SSTFile, below: Run | None) -> list[SSTFile]:
        """TryExtendNonL0TrivialMove (compaction_picker_level.cc): from `first`, take the files after
        it in the level's order while their range still overlaps nothing below, up to 4 files
        (kMaxMultiTrivialMove) and max_compaction_bytes."""
        picked, total = [first], first.bytes
        if isinstance(files, Run):
            start, files = files.index_of(first) + 1, files.files
        else:
            start = files.index(first) + 1
        for nxt in files[start : start + 4]:
            if len(picked) >= 4 or nxt.being_compacted:
                break
            lo, hi = min(first.min_key, nxt.min_key), max(first.max_key, nxt.max_key)
            if below is not None and below.overlapping(lo, hi):
                break
            total += nxt.bytes
            if total > self.max_compaction_bytes:
                break
            picked.append(nxt)
        return picked

    def _grandparents(self, tree: Tree, output_level: int, files: list[SSTFile]) -> list[SSTFile]:
        """CompactionPicker::GetGrandparents: files of the first level below the output level that
        overlaps the compaction's range."""
        lo, hi = _range(files)
        for level in range(output_level + 1, self.options.num_levels):
            found = [f for r in tree.runs_at(level) for f in r.overlapping(lo, hi)]
            if found:
                return found
        return []

    def _movable(self, tree: Tree, files: list[SSTFile], output_level: int) -> bool:
        """Compaction::IsTrivialMove's last test: no moved file lands on more than
        max_compaction_bytes of the level below its new one."""
        for f in files:
            gp = [g for r in tree.runs_at(output_level + 1) for g in r.overlapping(f.min_key, f.max_key)]
            if f.bytes + sum(g.bytes for g in gp) > self.max_compaction_bytes:
                return False
        return True

    def _compaction(
        self, tree: Tree, inputs: list[SSTFile], below: list[SSTFile], level: int, out_level: int, run, trivial: bool
    ) -> Compaction:
        base = self.base_level(tree)
        target = self.target_file_size(out_level, base)
        cut = RocksDBLevelCut(
            target,
            self._grandparents(tree, out_level, inputs + below),
            self.max_compaction_bytes,
            self.options.level_compaction_dynamic_file_size,
        )
        return Compaction(
            inputs=inputs + below,
            output_level=out_level,
            target_run=run,
            target_file_size=target,
            cut=None if trivial else cut,
            trivial_move=trivial,
            reason="L0 files" if level == 0 else f"L{level} size",
            io_class="compaction_l0" if level == 0 else "compaction",
            start_level=level,
        )

    def _expand(
        self, level_files: list[SSTFile] | Run, inputs: list[SSTFile], below: list[SSTFile], dst: Run | None
    ) -> list[SSTFile]:
        """CompactionPicker::SetupOtherInputs: grow the start level's inputs while that adds no
        output-level file and stays under max_compaction_bytes; first to every file overlapping the
        range, else to the files lying wholly inside it (GetCleanInputsWithinInterval)."""
        if not below:
            return inputs
        lo, hi = _range(inputs + below)
        below_bytes = sum(f.bytes for f in below)
        if isinstance(level_files, Run):  # a sorted run: binary search, not a scan of the level
            wide = level_files.overlapping(lo, hi)
        else:
            wide = [f for f in level_files if f.overlaps(lo, hi)]
        if (
            len(wide) > len(inputs)
            and self.free(wide)
            and below_bytes + sum(f.bytes for f in wide) < self.max_compaction_bytes
        ):
            lo2, hi2 = _range(wide)
            if len(dst.overlapping(lo2, hi2) if dst else []) == len(below):
                return wide
        inside = [f for f in wide if f.min_key >= lo and f.max_key <= hi]
        if (
            len(inside) > len(inputs)
            and self.free(inside)
            and below_bytes + sum(f.bytes for f in inside) < self.max_compaction_bytes
        ):
            return inside
        return inputs

    # ---------------------------------------------------------------- L0 -> base level
    def _l0_trivial_move(self, l0: list[SSTFile], run: Run) -> list[SSTFile]:
        """TryPickL0TrivialMove: from the oldest L0 file towards newer ones while the files' union
        grows without overlapping itself or the (non-empty) base level."""
        picked: list[SSTFile] = []
        lo = hi = 0
        for f in reversed(l0):  # oldest first
            if not picked:
                lo, hi = f.min_key, f.max_key
            elif f.max_key < lo:
                lo = f.min_key
            elif f.min_key > hi:
                hi = f.max_key
            else:
                break
            if run.overlapping(lo, hi):
                break
            picked.append(f)
        return sorted(picked, key=lambda f: f.min_key)

    def _pick_l0(self, tree: Tree, base: int) -> Compaction | None:
        """PickFileToCompact for L0 (RocksDB runs one L0 compaction at a time): a trivial move of the
        oldest L0 files when the base level is not empty; else the first L0 file by overlap ratio,
        extended to older files while that stays a move, then to every L0 file overlapping it
        (GetOverlappingL0Files) and the base-level files below. A move needs all of L0 disjoint
        (Compaction::IsTrivialMove, `level0_non_overlapping`)."""
        l0 = tree.files_at(0)  # youngest first
        if not l0 or not self.free(l0):
            return None
        run = tree.runs_at(base)[0] if tree.runs_at(base) else None
        if self.options.trivial_move and run is not None and run.files:
            moved = self._l0_trivial_move(l0, run)
            if moved and self._movable(tree, moved, base):
                return self._compaction(tree, moved, [], 0, base, run, trivial=True)
        avg = self._avg_value_size(tree)
        ranked = movement.l0_order(self.options.compaction_pri, l0, avg)
        if ranked is None:
            ordered = self._by_overlap(l0, run, avg)
        else:
            ordered = [f for f in ranked if not f.being_compacted]
        if not ordered:
            return None
        first = ordered[0]
        inputs = [first]
        if not (run.overlapping(first.min_key, first.max_key) if run else []):
            inputs = self._extend_trivial(l0, first, run)
        inputs = self._l0_overlapping(l0, inputs)
        lo, hi = _range(inputs)
        below = run.overlapping(lo, hi) if run else []
        if not self.free(below):
            return None
        inputs = self._expand(l0, inputs, below, run)
        trivial = self.options.trivial_move and not below and self._disjoint(l0) and self._movable(tree, inputs, base)
        return self._compaction(tree, inputs, below, 0, base, run, trivial)

    @staticmethod
    def _l0_overlapping(l0: list[SSTFile], inputs: list[SSTFile]) -> list[SSTFile]:
        """VersionStorageInfo::GetOverlappingInputs on L0: every L0 file overlapping the range, the
        range growing with each file added (in L0 order, youngest first)."""
        lo, hi = _range(inputs)
        while True:
            picked = [f for f in l0 if f.overlaps(lo, hi)]
            lo2, hi2 = _range(picked)
            if (lo2, hi2) == (lo, hi):
                return picked
            lo, hi = lo2, hi2

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
        """PickFileToCompact for Li > 0: the first file in kMinOverlappingRatio order whose
        next-level files are free; with none below, a move of up to 4 files (TryExtendNonL0TrivialMove);
        else SetupOtherInputs' expansion."""
        if not tree.runs_at(level):
            return None
        src = tree.runs_at(level)[0]
        out_level = level + 1
        dst = tree.runs_at(out_level)[0] if tree.runs_at(out_level) else None
        for first in self._file_order(tree, level, src, dst):
            below = dst.overlapping(first.min_key, first.max_key) if dst else []
            if self.free(below):
                break
        else:
            return None
        return self._from_file(tree, level, src, dst, first, below)

    def _from_file(
        self, tree: Tree, level: int, src: Run, dst: Run | None, first: SSTFile, below: list[SSTFile]
    ) -> Compaction:
        """The compaction that starts from `first` of `src` (level > 0): a trivial move when nothing lies below,
        else SetupOtherInputs' expansion. Moves the round-robin cursor past its inputs (RocksDB keeps the
        cursor per level in the version, VersionStorageInfo::AddCursorForOneLevel)."""
        out_level = level + 1
        if not below:
            inputs = self._extend_trivial(src, first, dst)
            trivial = self.options.trivial_move and self._movable(tree, inputs, out_level)
            c = self._compaction(tree, inputs, [], level, out_level, dst, trivial)
        else:
            inputs = self._expand(src, [first], below, dst)
            c = self._compaction(tree, inputs, below, level, out_level, dst, trivial=False)
        self.cursor[level] = max(f.max_key for f in inputs) + 1
        return c

    def _file_order(self, tree: Tree, level: int, src: Run, dst: Run | None) -> Iterator[SSTFile]:
        """The free files of `src` (level `level` > 0) in `compaction_pri` order."""
        pri = self.options.compaction_pri
        grand = tree.runs_at(level + 2) if pri == "min_overlapping_ratio_grandparent" else []
        avg = self._avg_value_size(tree) if src.tombstones else 0.0
        files = src.files
        for i in movement.order(pri, src, dst, grand[0] if grand else None, self.cursor.get(level), avg):
            if not files[i].being_compacted:
                yield files[i]

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
