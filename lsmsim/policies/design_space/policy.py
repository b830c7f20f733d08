"""`policy: {name: composed}`: a compaction strategy composed from the design space's four primitives (Sarkar et
al., PVLDB'21 §3), or one of its ten strategies by name (Table 2: `preset: LO+1`).

The leveled layouts run on lsmsim's RocksDB leveled picker (`leveled.py`, as the paper's strategies run on
RocksDB 6.11.4's), with the primitives put in where RocksDB's picker takes them:
- level saturation is RocksDB's compaction score; the movement policy is the picker's file order
  (`compaction_pri`, `movement.py`);
- `leveling` holds one run in L0 as well: every flush compacts into L1 (§4.1's "pure leveling"; the paper's code sets
  level0_file_num_compaction_trigger = 1, BU-DiSC/LSM-Compaction-Analysis examples/__working_branch/
  emu_environment.cc, with L1 = T buffers and files of one buffer, as the experiments here do);
  `1-leveling` keeps RocksDB's tiered L0 (level0_file_num_compaction_trigger files);
- granularity `level` (Full) merges a whole saturated level into the next one, one merge at a time, and holds
  writes until it ends (§4.1: "ingestion may resume only after all the compaction-marked files are compacted");
  with `full_as: code` it runs as the paper's code does instead (`kFullLevel`, see `_mark_top_level`): file by
  file, every file of the highest-scoring level marked, writes not held;
- `tombstone_density` marks files whose tombstones are at least that share of their entries (RocksDB's
  CompactOnDeletionCollector with a deletion ratio); `most_tombstones` takes the marked file with the most
  tombstones first;
- `tombstone_ttl` is Lethe's FADE (Sarkar et al., SIGMOD'20 §4.1): level i's files must pass their oldest
  tombstone down within d_i = d_0 T^i, where the d_i of the levels above the last sum to
  `delete_persistence_threshold`; a file whose oldest tombstone is older than d_0 + ... + d_i is marked, and
  `expired_tombstone_ttl` takes the most overdue first;
- `file_staleness` marks files older than `file_ttl` (RocksDB's `ttl`, picked after the size scores, as
  LevelCompactionBuilder::SetupInitialFiles does), oldest first;
- marked files compact into the next level with their overlapping files (the picker's expansion), before the
  size scores when their trigger comes first in `trigger` (TSD, TSA: the paper's Table 2), after them otherwise.

`tiering` is RocksDB's universal compaction (`universal.py`; the paper's Tier: triggered by the number of
sorted runs and the estimated space amplification). `1-Lvl` is exactly `leveled`, `Tier` exactly `universal`
(tests/test_design_space.py checks both run identically).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from ... import units
from ...fields import Bytes, Duration
from ...lsm.sstable import SSTFile
from ...lsm.tree import Tree
from ..base import Compaction, Policy, PolicyOptions
from ..leveled import Leveled, LeveledOptions
from ..registry import register
from ..universal import Universal, UniversalOptions
from ..view import View
from ..write_control import WriteControl
from .primitives import FILE_ORDER, PRESETS, Ensemble, validate

Preset = Literal["Full", "LO+1", "Cold", "Old", "TSD", "RR", "LO+2", "TSA", "Tier", "1-Lvl"]


class ComposedOptions(PolicyOptions):
    """A strategy of the compaction design space (Sarkar et al. PVLDB'21): `preset` (Table 2), or the four
    primitives `trigger`, `layout`, `granularity`, `movement` (lists in priority order)."""

    name: Literal["composed"]
    preset: Preset | None = Field(
        None, description="One of the paper's ten strategies (Table 2); LO+1 when no primitive is given either."
    )
    trigger: list[str] | None = Field(
        None,
        description="level_saturation, sorted_runs, file_staleness, space_amp, tombstone_density, tombstone_ttl "
        "(priority order).",
    )
    layout: str | None = Field(None, description="leveling, 1-leveling or tiering (l-leveling, hybrid: not built).")
    granularity: str | None = Field(None, description="level or file (leveled layouts); sorted_run (tiering).")
    movement: list[str] | None = Field(
        None,
        description="round_robin, least_overlap_parent, least_overlap_grandparent, coldest, oldest, "
        "most_tombstones, expired_tombstone_ttl (priority order); none for whole levels or sorted runs.",
    )
    size_ratio: float = Field(10.0, gt=1, description="T: max_bytes_for_level_multiplier of the leveled layouts.")
    max_bytes_for_level_base: Bytes = Field(units.parse_size("256MiB"), gt=0)
    target_file_size_base: Bytes = Field(units.parse_size("64MiB"), gt=0)
    level0_file_num_compaction_trigger: int = Field(
        4, ge=1, description="L0 files (sorted runs) that trigger a compaction (1-leveling); `leveling` uses 1."
    )
    level_compaction_dynamic_level_bytes: bool = Field(False, description="RocksDB 6.11's default: off.")
    tombstone_density: float = Field(
        0.1, gt=0, le=1, description="tombstone_density trigger: the share of a file's entries (lsmsim's default)."
    )
    delete_persistence_threshold: Duration | None = Field(
        None, gt=0, description="tombstone_ttl trigger (TSA): the time within which a delete reaches the last level."
    )
    file_ttl: Duration | None = Field(None, gt=0, description="file_staleness trigger: a file's time in a level.")
    max_size_amplification_percent: float = Field(200.0, ge=0, description="tiering's space_amp trigger.")
    full_as: Literal["described", "code"] = Field(
        "described",
        description="granularity `level` as §4.1 describes it (whole saturated levels merged one at a time, writes "
        "held) or as the paper's code runs it (kFullLevel: every file of the highest-scoring level marked and "
        "compacted file by file, writes not held; docs/paper-scale/README.md).",
    )

    @model_validator(mode="after")
    def _ensemble(self):
        parts = (self.trigger, self.layout, self.granularity, self.movement)
        if self.preset is None and all(p is None for p in parts):
            self.preset = "LO+1"  # RocksDB's leveling without its tiered L0
        if self.preset is not None and any(p is not None for p in parts):
            raise ValueError("@preset: give a preset or the primitives (trigger, layout, granularity), not both")
        if self.preset is None:
            missing = [n for n, p in zip(("trigger", "layout", "granularity"), parts) if p is None]
            if missing:
                raise ValueError(f"@{missing[0]}: needed (or a preset: {', '.join(PRESETS)})")
        e = self.ensemble()
        errs = validate(e)
        if errs:
            field, msg = errs[0]
            raise ValueError(f"@{field}: {msg}")
        if "tombstone_ttl" in e.trigger and self.delete_persistence_threshold is None:
            raise ValueError(
                "@delete_persistence_threshold: the tombstone_ttl trigger (TSA) needs it (the paper: 33% or 50% of "
                "the run)"
            )
        if "file_staleness" in e.trigger and self.file_ttl is None:
            raise ValueError("@file_ttl: the file_staleness trigger needs it")
        return self

    def ensemble(self) -> Ensemble:
        if self.preset is not None:
            return PRESETS[self.preset]
        return Ensemble(tuple(self.trigger or ()), str(self.layout), str(self.granularity), tuple(self.movement or ()))


class ComposedLeveled(Leveled):
    """The leveled layouts: RocksDB's leveled picker with the ensemble's triggers, granularity and file order."""

    def __init__(self, options: ComposedOptions, lsm, ensemble: Ensemble):
        order = next((FILE_ORDER[m] for m in ensemble.movement if m in FILE_ORDER), "min_overlapping_ratio")
        l0_trigger = 1 if ensemble.layout == "leveling" else options.level0_file_num_compaction_trigger
        leveled = LeveledOptions(
            name="leveled",
            level0_file_num_compaction_trigger=l0_trigger,
            max_bytes_for_level_base=options.max_bytes_for_level_base,
            max_bytes_for_level_multiplier=options.size_ratio,
            target_file_size_base=options.target_file_size_base,
            level_compaction_dynamic_level_bytes=options.level_compaction_dynamic_level_bytes,
            compaction_pri=order,
        )
        super().__init__(leveled, lsm)
        self.composed = options
        self.ensemble = ensemble
        self.whole_levels = ensemble.granularity == "level"
        # the paper's code's Full (kFullLevel): file by file from the marked files of the top-scoring level
        self.code_full = self.whole_levels and options.full_as == "code"
        if self.code_full:
            self.whole_levels = False
            self._marked_ids: set[int] = set()
            self._listed: list[SSTFile] = []  # the marked files as the last scoring saw them (one version late)
            self._rng = random.Random(1)
            self.marked_level_compactions = 0
        if self.whole_levels:  # Full holds writes while its merge runs
            self.write_control = WriteControl(
                compaction_trigger=leveled.level0_file_num_compaction_trigger,
                pending_bytes=self.pending_compaction_bytes,
                rate_limit=lambda tree: 0.0 if tree.compacting() else None,
            )
        self.marked_compactions = {t: 0 for t in ensemble.trigger if t not in ("level_saturation", "sorted_runs")}

    # ---------------------------------------------------------------- marked files
    def marked(self, tree: Tree, trigger: str, now: float) -> list[SSTFile]:
        """Free files of the levels above the last that `trigger` marks, first to compact first."""
        last = tree.last_nonempty_level()
        cand = [f for i in range(1, last) for f in tree.files_at(i) if not f.being_compacted]
        if trigger == "tombstone_density":
            t = self.composed.tombstone_density
            hit = [f for f in cand if f.tombstones and f.tombstones >= t * f.entries]
            return sorted(hit, key=lambda f: (-f.tombstones, f.level, f.min_key))
        if trigger == "tombstone_ttl":
            deadline = self.ttl_deadlines(tree)
            overdue = []
            for f in cand:
                if f.oldest_tombstone_seq is not None:
                    late = now - tree.seq_time(f.oldest_tombstone_seq) - deadline[f.level]
                    if late > 0:
                        overdue.append((-late, f.level, f.min_key, f))
            return [x[-1] for x in sorted(overdue, key=lambda x: x[:3])]
        if trigger == "file_staleness":
            ttl = float(self.composed.file_ttl)
            return sorted((f for f in cand if now - f.created > ttl), key=lambda f: (f.created, f.level, f.min_key))
        raise ValueError(trigger)

    def ttl_deadlines(self, tree: Tree) -> list[float]:
        """FADE: level i's cumulative deadline d_0 + ... + d_i, d_i = d_0 T^i, the levels above the last summing
        to the delete persistence threshold."""
        n = max(2, tree.last_nonempty_level() + 1)
        T = self.composed.size_ratio
        d0 = float(self.composed.delete_persistence_threshold) * (T - 1) / (T ** (n - 1) - 1)
        out, total = [], 0.0
        for i in range(n):
            total += d0 * T**i
            out.append(total)
        return out

    def _first_free(self, tree: Tree, files: list[SSTFile]) -> Compaction | None:
        """The first of `files` whose overlapping next-level files are free, with them (the picker's expansion)."""
        for first in files:
            src = tree.runs_at(first.level)[0]
            dst_runs = tree.runs_at(first.level + 1)
            dst = dst_runs[0] if dst_runs else None
            below = dst.overlapping(first.min_key, first.max_key) if dst else []
            if self.free(below):
                return self._from_file(tree, first.level, src, dst, first, below)
        return None

    def _pick_marked(self, tree: Tree, trigger: str, now: float) -> Compaction | None:
        c = self._first_free(tree, self.marked(tree, trigger, now))
        if c is not None:
            c.reason = f"{trigger} L{c.start_level}"
            self.marked_compactions[trigger] += 1
        return c

    # ---------------------------------------------------------------- whole levels (Full)
    def _pick_whole_level(self, tree: Tree) -> Compaction | None:
        if tree.compacting():
            return None  # one whole-level merge at a time
        for score, level in self.scores(tree):
            if score < 1.0:
                return None
            out = self.base_level(tree) if level == 0 else level + 1
            inputs = tree.files_at(level)
            below = tree.files_at(out)
            if inputs:
                run = tree.runs_at(out)[0] if tree.runs_at(out) else None
                c = self._compaction(tree, inputs, below, level, out, run, trivial=False)
                c.reason = f"L{level} whole level"
                return c
        return None

    # ---------------------------------------------------------------- Full as the paper's code runs it
    def _mark_top_level(self, tree: Tree) -> None:
        """BU-DiSC/LSM-Compaction-Analysis db/version_set.cc, VersionStorageInfo::ComputeCompactionScore, the
        `compaction_pri == kFullLevel` block at its end: every file of the highest-scoring level is marked for
        compaction whatever the score; a level above the last non-empty one holding a single file is unmarked.
        ComputeFilesMarkedForCompaction lists the marked files of levels 1 .. last-1 before that block runs, so
        the list a pick sees is one scoring late."""
        last = tree.last_nonempty_level()
        self._listed = [f for i in range(1, last) for f in tree.files_at(i) if f.id in self._marked_ids]
        top = self.scores(tree)[0][1]
        self._marked_ids.update(f.id for f in tree.files_at(top))
        for i in range(last):
            files = tree.files_at(i)
            if len(files) == 1:
                self._marked_ids.discard(files[0].id)

    def _listed_free(self) -> list[SSTFile]:
        # every file left in the tree by a flush, a compaction or a trivial move rebuilds the list
        # (on_flush, on_compaction_done): listed files are live, only their being compacted changes
        return [f for f in self._listed if not f.being_compacted]

    def _pick_code_full(self, view: View) -> Compaction | None:
        """RocksDB's picker for levels over their target; else a listed marked file, a random one first
        (compaction_picker.cc PickFilesMarkedForCompaction), with its overlapping next-level files."""
        tree = view.tree
        c = super().pick(view)
        if c is None:
            cands = self._listed_free()
            if cands:
                c = self._first_free(tree, [cands[self._rng.randrange(len(cands))], *cands])
                if c is not None:
                    c.reason = f"kFullLevel marked L{c.start_level}"
                    self.marked_level_compactions += 1
        if c is not None:  # LevelCompactionBuilder::PickCompaction re-scores with the picked files compacting
            was = [f.being_compacted for f in c.inputs]
            for f in c.inputs:
                f.being_compacted = True
            self._mark_top_level(tree)
            for f, b in zip(c.inputs, was):
                f.being_compacted = b
        return c

    def on_flush(self, view: View, run) -> None:
        super().on_flush(view, run)
        if self.code_full:  # a new version is scored (VersionSet::LogAndApply -> ComputeCompactionScore)
            self._mark_top_level(view.tree)

    def on_compaction_done(self, view: View, compaction) -> None:
        super().on_compaction_done(view, compaction)
        if self.code_full:
            self._mark_top_level(view.tree)

    # ---------------------------------------------------------------- the policy interface
    def needs_compaction(self, view: View) -> bool:
        if any(self.marked(view.tree, t, view.now) for t in self.marked_compactions):
            return True
        if self.code_full and any(not f.being_compacted for f in self._listed):
            return True
        return super().needs_compaction(view)

    def pick(self, view: View) -> Compaction | None:
        tree = view.tree
        for trigger in self.ensemble.trigger:
            if trigger == "level_saturation":
                if self.code_full:
                    c = self._pick_code_full(view)
                else:
                    c = self._pick_whole_level(tree) if self.whole_levels else super().pick(view)
            elif trigger == "sorted_runs":
                continue  # 1-leveling's L0 count: part of RocksDB's scores
            else:
                c = self._pick_marked(tree, trigger, view.now)
            if c is not None:
                return c
        return None

    def summary(self) -> dict:
        out = {f"{t}_compactions": n for t, n in self.marked_compactions.items()}
        if self.code_full:
            out["marked_level_compactions"] = self.marked_level_compactions
        return out


@register
class Composed(Policy):
    """A design-space strategy: the leveled layouts on `ComposedLeveled`, tiering on RocksDB's universal picker."""

    name = "composed"
    Options = ComposedOptions

    def __init__(self, options: ComposedOptions, lsm):
        super().__init__(options, lsm)
        e = options.ensemble()
        if e.layout == "tiering":
            self.inner: Policy = Universal(
                UniversalOptions(
                    name="universal",
                    level0_file_num_compaction_trigger=options.level0_file_num_compaction_trigger,
                    max_size_amplification_percent=options.max_size_amplification_percent,
                    # RocksDB splits universal outputs at max_file_size[level] too (MaxFileSizeForLevel)
                    target_file_size=options.target_file_size_base,
                ),
                lsm,
            )
        else:
            self.inner = ComposedLeveled(options, lsm, e)
        self.write_control = self.inner.write_control

    def needs_compaction(self, view: View) -> bool:
        return self.inner.needs_compaction(view)

    def pick(self, view: View) -> Compaction | None:
        return self.inner.pick(view)

    def on_flush(self, view, run) -> None:
        super().on_flush(view, run)
        self.inner.on_flush(view, run)

    def on_compaction_done(self, view, compaction) -> None:
        self.inner.on_compaction_done(view, compaction)

    def on_compaction_cancelled(self, view, compaction) -> None:
        self.inner.on_compaction_cancelled(view, compaction)

    def on_step(self, view, dt, ops) -> None:
        self.inner.on_step(view, dt, ops)

    def summary(self) -> dict:
        return self.inner.summary()


__all__ = ["Composed", "ComposedLeveled", "ComposedOptions"]
