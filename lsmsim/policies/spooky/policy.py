"""The `spooky` compaction policy: Spooky's generalized merge workflow (Dayan et al., PVLDB'22 Algorithm 2; X = L-1
is 2L-Spooky, Algorithm 1; X = L is Full Merge), as its RocksDB implementation runs it (§5).

Three kinds of compaction may run at once (§5 "Concurrency"), each on its own compaction thread and each with up to
`subcompactions` threads:
- the *full preemptive merge*: when rLevel 0 holds alpha free files, all data of levels 0..q-1 with the level-q
  files they overlap merges into level q, the smallest level 1 <= q <= X that would not reach capacity
  (`Shape.preemptive_target`). For q < X the output is one file; for q = X it is a *dividing merge*, whose output
  is cut at the largest level's file boundaries (Alg. 2 lines 3-8). Level-q files the new data does not overlap
  stay as they are (§4.3, Fig. 11B: a flush that intersects nothing at level 1 becomes its own file);
- the *partitioned preemptive merge*: once N_X >= C_X, the target z is the smallest level X+1 <= z <= L that would
  not reach capacity with all of levels X..z in it (else L), and one group of intersecting files of levels X..z
  at a time merges into z, in key order (`groups.py`); into z < L the output is cut at the largest level's file
  boundaries, into L it is split evenly into files of at most file_max = C_X = N_L / T^(L-X) (Alg. 2 lines 9-17);
- the *rLevel-0 compaction*: while a full preemptive (or dividing) merge runs, alpha or more consecutive
  flush-sized rLevel-0 files not being merged compact into one rLevel-0 file (§5 "Avoiding Stalling").

Layouts (§4.4, Fig. 12): with `layout: lazy_leveling` levels X..L-1 are tiered: a dividing merge adds a new run to
level X (partitioned at the largest level's boundaries) instead of merging with it, and a partitioned merge draws
each group from every run of levels X..z-1 and merges it with the largest level's file (z = L) or writes it as part
of a new run (tiered z < L). With `layout: tiering` level L is tiered too: a partitioned merge into L adds one run
to it, group by group, partitioned at the boundaries of its oldest run; when N_L >= C_L the level's runs merge,
group by group at those boundaries, into one run of a new largest level, split evenly into files of at most
file_max (so that its boundaries in turn partition the runs that follow). Levels 1..X-1 stay full-merge levels
in every layout (Fig. 12: "each dividing merge compacts all data at Levels 0 to L-2").

Readings (see also levels.py):
- A dividing merge rewrites all of level X and a partitioned merge reads it group by group, so they never overlap
  in time ("A dividing merge and a partitioned merge never occur at the same time", §4.1): while a partitioned
  merge runs, a full merge whose target would be X waits. rLevel 0 does not compact within itself meanwhile: the
  paper names a running full merge as the only occasion, and in experiments/spooky/gc.yaml doing it while waiting
  too raised compaction write-amp from 7.17 to 7.66 without changing throughput or stalls.
- The tree evolves (Alg. 2 lines 18-23) when a partitioned merge into L has processed its last group, and after a
  full merge into L when X = L; the listing indents these lines under each group, the prose says "after a
  partitioned merge". A new level takes the largest level's run unchanged (a trivial move down: "the run at the
  previously largest level is placed at the new largest level"); a level is removed by moving the largest run up
  once level L-1 is empty (after the next partitioned merge into L, if it is not). A tiered largest level of several
  runs is not removed (its runs cannot become one run without a merge).
- A partitioned merge keeps the partition boundaries it started with: the groups it has not reached keep theirs
  (only a merge into L changes L's files, and only in the partitions it has processed).
- The files rLevel 0 counts toward alpha are RocksDB's (`level0_file_num_compaction_trigger`); beta and gamma are
  `lsm.level0_slowdown_writes_trigger` and `lsm.level0_stop_writes_trigger` (the paper's 4 and 9).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import Field, field_validator

from ...lsm.cutting import AtKeys, SplitEvenly
from ...lsm.sstable import Run, SSTFile
from ...lsm.tree import Tree
from ..base import Compaction, Policy, PolicyOptions
from ..registry import register
from ..view import View
from ..write_control import WriteControl
from .groups import boundaries, next_group
from .levels import Shape, parse_x

FULL, DIVIDING, GROUP, L0, MOVE = "full", "dividing", "partitioned", "rlevel0", "evolve"


@dataclass(eq=False)
class Pass:
    """A partitioned merge under way: from level x into level z, at the partition boundaries it started with, and
    (into a tiered level) the run its groups are building."""

    x: int
    z: int
    cuts: np.ndarray
    split: bool  # outputs split evenly into files of at most file_max (into a leveled L, or a tiered L's merge-down)
    out_run: Run | None = None


class SpookyOptions(PolicyOptions):
    """Spooky (PVLDB'22 Alg. 2): full preemptive merge above X, dividing merge into X, partitioned merge below."""

    name: Literal["spooky"]
    size_ratio: float = Field(5.0, gt=1, description="T (the paper's runs use 5; Fig. 1 uses 10).")
    X: int | str = Field(
        "L-2",
        description="The level dividing merges go into: a level >= 1, or 'L-k' (L-1 is 2L-Spooky, L is Full Merge).",
    )
    level0_file_num_compaction_trigger: int = Field(4, ge=1, description="alpha: rLevel-0 files that start a merge.")
    l0_compactions: bool = Field(True, description="rLevel-0 compactions while a full preemptive merge runs (§5).")
    subcompactions: int = Field(1, ge=1, description="Threads each compaction may use (RocksDB subcompactions).")
    layout: Literal["leveling", "lazy_leveling", "tiering"] = Field(
        "leveling", description="Merge policy of levels X..L (§4.4): tiered from X (lazy leveling: but L) or not."
    )

    @field_validator("X")
    @classmethod
    def _x_form(cls, v):
        parse_x(v)
        return v


@register
class Spooky(Policy):
    name = "spooky"
    Options = SpookyOptions

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        T = float(options.size_ratio)
        self.shape = Shape(T=T, L=1, C_L=T * float(lsm.write_buffer_size))
        self.x_spec = parse_x(options.X)
        self.alpha = options.level0_file_num_compaction_trigger
        self.write_control = WriteControl(compaction_trigger=self.alpha)
        self.pass_: Pass | None = None  # the partitioned merge under way
        self.evolve = 0  # +1 / -1: a level to add / remove before anything else
        self.counts = {FULL: 0, DIVIDING: 0, GROUP: 0, L0: 0, "passes": 0, "levels_added": 0, "levels_removed": 0}

    # ---------------------------------------------------------------- what is where
    @property
    def L(self) -> int:
        return self.shape.L

    def X(self) -> int:
        return self.shape.x(self.x_spec)

    def file_max(self, tree: Tree) -> float:
        """file_max = C_X = N_L / T^(L-X): the largest level's file size (§4.2)."""
        return self.shape.capacity(self.X(), tree.level_bytes(self.L))

    def tiered(self, level: int) -> bool:
        """Whether `level` holds several runs (§4.4): levels X..L-1 under lazy leveling, X..L under tiering."""
        lay = self.options.layout
        return lay != "leveling" and self.X() <= level and (level < self.L or lay == "tiering")

    def _running(self, view: View, kind: str) -> bool:
        return any(j.compaction.tag == kind for j in view.running)

    # ---------------------------------------------------------------- picking
    def needs_compaction(self, view: View) -> bool:
        return self._plan(view)[0] is not None

    def pick(self, view: View) -> Compaction | None:
        return self._take(*self._plan(view))

    def next_compaction(self, view: View) -> Compaction | None:
        """needs_compaction and pick from one plan (a plan walks the partitions: it was a sixth of a fig14d run)."""
        c, pass_ = self._plan(view)
        return None if c is None else self._take(c, pass_)

    def _take(self, c: Compaction | None, pass_: Pass | None) -> Compaction | None:
        if pass_ is not self.pass_:
            self.pass_ = pass_
            self.counts["passes"] += pass_ is not None
        return c

    def _plan(self, view: View) -> tuple[Compaction | None, Pass | None]:
        """The next compaction and the partitioned merge it implies; changes nothing."""
        tree = view.tree
        if self.evolve:
            move = self._evolution_move(tree)
            if move is not None or self._running(view, GROUP):
                return move, self.pass_
        pass_ = self.pass_
        if pass_ is None and not self._running(view, DIVIDING):
            pass_ = self._pass_due(tree)
        full = self._full_merge(view, pass_)
        if full is not None:
            return full, pass_
        if pass_ is not None and not self._running(view, GROUP):
            group = self._group(tree, pass_)
            if group is not None:
                return group, pass_
        if self.options.l0_compactions and not self._running(view, L0) and self._running_full(view):
            return self._l0_compaction(tree), pass_
        return None, pass_

    def _running_full(self, view: View) -> bool:
        return self._running(view, FULL) or self._running(view, DIVIDING)

    def _pass_due(self, tree: Tree) -> Pass | None:
        """The partitioned merge that starts when level X has reached capacity (Alg. 2 line 9), else None."""
        x, L = self.X(), self.L
        n_l = tree.level_bytes(L)
        if x >= L or tree.level_bytes(x) < self.shape.capacity(x, n_l) or not tree.level_bytes(x):
            return None
        n = [float(tree.level_bytes(i)) for i in range(L + 1)]
        z = self.shape.preemptive_target(n, x, x + 1, L, n_l)
        return Pass(x, z, boundaries(tree, L), split=z == L and not self.tiered(z))

    def _full_merge(self, view: View, pass_: Pass | None) -> Compaction | None:
        """The full preemptive or dividing merge rLevel 0 starts (None while the partitioned merge holds level X)."""
        tree = view.tree
        if self._running_full(view):
            return None
        l0 = []
        for run in reversed(tree.runs_at(0)):  # oldest first; stop at a file an rLevel-0 compaction holds
            if not self.free(run.files):
                break
            l0.extend(run.files)
        if len(l0) < self.alpha:
            return None
        x, L = self.X(), self.L
        n = [float(tree.level_bytes(i)) for i in range(L + 1)]
        n[0] = float(sum(f.bytes for f in l0))
        q = self.shape.preemptive_target(n, 0, 1, x, n[L])
        if q == x and x < L and pass_ is not None:
            return None  # level X belongs to the partitioned merge until it ends
        upper = l0 + [f for i in range(1, q) for f in tree.files_at(i)]
        lo, hi = min(f.min_key for f in upper), max(f.max_key for f in upper)
        target = None if self.tiered(q) else self._run(tree, q)  # a tiered level takes the output as a new run
        below = target.overlapping(lo, hi) if target is not None else []
        inputs = upper + below
        if not self.free(inputs):
            return None
        kind = DIVIDING if q == x and x < L else FULL
        return Compaction(
            inputs=inputs,
            output_level=q,
            target_run=target,
            cut=AtKeys(boundaries(tree, L)) if kind == DIVIDING else None,
            reason=f"{kind} L0..L{q}",
            io_class="compaction_l0" if q == 1 else "compaction",
            threads=self.options.subcompactions,
            tag=kind,
        )

    def _group(self, tree: Tree, pass_: Pass) -> Compaction | None:
        """The next group of the partitioned merge `pass_`."""
        x, z, cuts = pass_.x, pass_.z, pass_.cuts
        tiered = self.tiered(z)
        file_max = self.file_max(tree) if pass_.split else None
        group = next_group(tree, x, z, cuts, file_max, merge_target=not tiered)
        if group is None or not self.free(group.inputs):
            return None
        return Compaction(
            inputs=group.inputs,
            output_level=z,
            target_run=pass_.out_run if tiered else self._run(tree, z),
            cut=SplitEvenly(file_max) if file_max is not None else AtKeys(cuts),
            reason=f"partitioned L{x}..L{z}",
            threads=self.options.subcompactions,
            tag=GROUP,
            start_level=x,
        )

    def _l0_compaction(self, tree: Tree) -> Compaction | None:
        """alpha or more of the youngest consecutive free rLevel-0 files of about a flush's size, into one (§5)."""
        cap = 2.0 * (self.flush_bytes_avg or self.lsm.write_buffer_size)
        files: list[SSTFile] = []
        for run in tree.runs_at(0):  # youngest first
            if not self.free(run.files) or run.bytes > cap:
                break
            files.extend(run.files)
        if len(files) < max(self.alpha, 2):  # merging one file into itself would only rewrite it
            return None
        return Compaction(inputs=files, output_level=0, reason="rLevel-0", io_class="compaction_l0", tag=L0)

    def _evolution_move(self, tree: Tree) -> Compaction | None:
        """The trivial move that adds (the largest run goes down) or removes (it goes up) a level."""
        L = self.L
        files = tree.files_at(L)
        if not files or not self.free(files):
            return None
        if self.evolve < 0 and (tree.level_bytes(L - 1) or len(tree.runs_at(L)) > 1):
            return None  # level L-1 still holds data (wait for it to drain into L), or L is several runs
        return Compaction(
            inputs=files,
            output_level=L + self.evolve,
            trivial_move=True,
            reason="add level" if self.evolve > 0 else "remove level",
            tag=MOVE,
        )

    @staticmethod
    def _run(tree: Tree, level: int) -> Run | None:
        runs = tree.runs_at(level)
        return runs[0] if runs else None

    # ---------------------------------------------------------------- callbacks
    def on_compaction_done(self, view: View, compaction: Compaction) -> None:
        kind = compaction.tag
        if kind == MOVE:
            if self.evolve > 0:
                self.shape.grow()
                self.counts["levels_added"] += 1
            else:
                self.shape.shrink()
                self.counts["levels_removed"] += 1
            self.evolve = 0
            return
        if kind in self.counts:
            self.counts[kind] += 1
        tree = view.tree
        p = self.pass_
        if kind == GROUP and p is not None:
            p.out_run = compaction.output_run if self.tiered(p.z) else None
            if not any(tree.runs_at(i) for i in range(p.x, p.z)):
                self.pass_ = None  # the partitioned merge has processed its last group
                if p.z == self.L:
                    self._evolve(tree)
        elif kind == FULL and compaction.output_level == self.L:
            self._evolve(tree)

    def _evolve(self, tree: Tree) -> None:
        """Alg. 2 lines 18-23 once a merge into L has ended. A tiered largest level of several runs grows by merging
        them, group by group at its oldest run's boundaries, into one run of the new level L+1."""
        self.evolve = self.shape.evolution(tree.level_bytes(self.L))
        if self.evolve > 0 and len(tree.runs_at(self.L)) > 1:
            old = self.L
            self.shape.grow()
            self.counts["levels_added"] += 1
            self.counts["passes"] += 1
            self.evolve = 0
            self.pass_ = Pass(old, old + 1, boundaries(tree, old), split=True)

    def summary(self) -> dict:
        return {
            "levels": self.L,
            "largest_level_capacity": self.shape.C_L,
            "X": self.X(),
            "full_merges": self.counts[FULL],
            "dividing_merges": self.counts[DIVIDING],
            "partitioned_merges": self.counts["passes"],
            "partitioned_groups": self.counts[GROUP],
            "rlevel0_compactions": self.counts[L0],
            "levels_added": self.counts["levels_added"],
            "levels_removed": self.counts["levels_removed"],
        }
