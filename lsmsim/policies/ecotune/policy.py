"""EcoTune's three-level LSM-tree as a lsmsim policy (Wang et al., SIGMOD 2025, §4.2-4.3).

Levels: L0 is the *top level* (flushed runs, never compacted among themselves), L1 the *main level*
(the runs TMCs create and MLCs merge), L2 the *last level* (one run).
- TMC: once the top level holds S bytes, all its runs become one *unit run* in the main level.
  S = M / max(100, K) (§4.2 "The Choice of S"), with M the tree's size when the round starts and at
  least one memtable.
- MLC: the DP (`dp.py`, alg 0, 1 or 2) solved at the start of each round gives the schedule: the
  MLC listed for TMC t starts once TMC t has installed its unit run (and the previous MLC ended: one
  MLC at a time, as the DP assumes), merging the runs that hold unit runs lo..hi.
- Global compaction: after R TMCs, the main level and the last level merge into the last level.
  TMCs that complete meanwhile already belong to the next round.
- The DP's inputs are measured each round (§4.3 "T_c, a measured value"): T_w is the mean time
  between TMCs of the previous round, T_c the previous round's MLC seconds per unit run (TMC seconds
  per unit run when it had no MLC), r the long-scan share of the current phase's reads, f the
  range-filter FPR (lsm.range_filter_fpr). The options give the first round's values.
- beta is measured too: query operations per second while an MLC runs over the rate while none
  runs, in the previous round.
- Threads: a TMC runs on `tmc_threads`, an MLC on `mlc_threads` (subcompactions); while no MLC runs,
  the MLC threads serve queries (§4.2 "Threads Allocation"; closed-loop query threads only).
- The top level's runs sit under a full key index: one probe for all of them, no false positives
  (`Policy.indexed_levels`, used by the cost model).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from ...fields import Bytes, Duration
from ...lsm.tree import Tree
from ..base import Compaction, Policy, PolicyOptions
from ..registry import register
from ..view import View
from ..write_control import WriteControl
from .dp import solve
from .model import EcoTuneParams

if TYPE_CHECKING:
    from ...config import Config, MixConfig

TOP, MAIN, LAST = 0, 1, 2


class EcoTuneOptions(PolicyOptions):
    """EcoTune's three-level LSM-tree (SIGMOD'25 §4.2): a top level without compaction, a main level
    whose compactions (MLCs) follow the DP's schedule, one last-level run; a global compaction after
    R top-to-main compactions (TMCs). The DP's inputs are re-measured every round (see the policy)."""

    name: Literal["ecotune"]
    R: int = Field(29, ge=1, le=60, description="TMCs per compaction round.")
    C: float = Field(3.0, ge=0, description="Capped size ratio last level : main level.")
    alg: Literal[0, 1, 2] = Field(2, description="0 simplified recurrence, 1 Algorithm 1, 2 Algorithm 2.")
    scan_keys: int = Field(100, ge=1, description="K, keys of a long range scan: S = M / max(100, K).")
    unit_run_size: Bytes | None = Field(None, description="S; default M / max(100, K), at least one memtable.")
    T_w: Duration | None = Field(None, description="First round's TMC interval; later rounds measure it.")
    T_c: Duration | None = Field(None, description="First round's MLC time per unit run; later rounds measure it.")
    beta: float = Field(
        0.5, ge=0, le=1, description="First round's query speed during an MLC / without one; later rounds measure it."
    )
    tmc_threads: int = Field(2, ge=1, description="Threads of a TMC (EcoTune keeps two for them).")
    mlc_threads: int | None = Field(
        None,
        ge=1,
        description="Threads of an MLC; when no MLC runs they serve "
        "queries (closed-loop query threads). Default: machine.threads.compaction "
        "- tmc_threads (at least 1).",
    )
    r: float | None = Field(None, ge=0, le=1, description="Long-range-scan ratio; default: the phase's mix.")

    def complete(self, cfg: Config) -> None:
        """The MLC threads default to the compaction threads the TMCs leave (§4.2: two TMC threads, all
        other background threads for MLCs), so one machine setting fits every policy."""
        if self.mlc_threads is None:
            self.mlc_threads = max(1, cfg.machine.threads.compaction - self.tmc_threads)


@register
class EcoTune(Policy):
    name = "ecotune"
    Options = EcoTuneOptions

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        self.write_control = WriteControl(compaction_trigger=2, stall_count=self.top_backlog)
        self.round = 0
        self.issued = 0  # TMCs picked in this round
        self.done = 0  # TMCs installed in this round
        self.units: dict[int, tuple[int, int, int]] = {}  # main-level run id -> (round, lo, hi)
        self.pending = []  # MLCs of the schedule still to start, in order
        self.schedule = None
        self.unit_size = float(options.unit_run_size or lsm.write_buffer_size)
        self.T_w = options.T_w
        self.T_c = options.T_c
        self._tmc_times: list[float] = []
        self._mlc_seconds = 0.0
        self._mlc_units = 0
        self._tmc_seconds = 0.0
        self.beta = options.beta
        self._q = {True: [0.0, 0.0], False: [0.0, 0.0]}  # MLC running? -> [query ops, seconds]
        self._running = {"tmc": None, "mlc": None, "global": None}
        self._started: dict[int, float] = {}
        self._global_again: int | None = None  # a cancelled global compaction's round, to merge again
        self.rounds: list[dict] = []  # per round: parameters used and layouts seen (for analysis)
        self.layouts: list[tuple[int, int, tuple[int, ...]]] = []  # (round, tmc, main-level unit sizes)
        # the first round is solved at the first pick, which sees the workload mix

    # ---------------------------------------------------------------- the DP, once per round
    def _r(self, m: MixConfig | None) -> float:
        if self.options.r is not None:
            return self.options.r
        reads = m.reads() if m is not None else 0.0
        return m.long_scan / reads if reads > 0 else 0.0

    def _new_round(self, tree_bytes: float, mix: MixConfig | None) -> None:
        o = self.options
        if o.unit_run_size is None:
            self.unit_size = max(float(self.lsm.write_buffer_size), tree_bytes / max(100, o.scan_keys))
        T_w = self.T_w or 1.0
        T_c = self.T_c or 0.2 * T_w
        f = self.lsm.range_filter_fpr if self.lsm.range_filter_fpr is not None else 0.01
        params = EcoTuneParams(R=o.R, C=o.C, T_w=T_w, T_c=T_c, beta=self.beta, r=self._r(mix), f=f)
        self.schedule = solve(params, o.alg).schedule
        self.pending = sorted(self.schedule.merges, key=lambda m: m.tmc)
        self.rounds.append(
            {
                "round": self.round,
                "T_w": T_w,
                "T_c": T_c,
                "r": params.r,
                "beta": params.beta,
                "S": self.unit_size,
                "merges": [(m.tmc, m.lo, m.hi) for m in self.schedule.merges],
            }
        )

    def _measure(self) -> None:
        """The previous round's T_w and T_c feed the next round's DP."""
        t = self._tmc_times
        if len(t) >= 2:
            self.T_w = (t[-1] - t[0]) / (len(t) - 1)
        if self._mlc_units:
            self.T_c = self._mlc_seconds / self._mlc_units
        elif self.done:
            self.T_c = self._tmc_seconds / self.done
        (ops_on, t_on), (ops_off, t_off) = self._q[True], self._q[False]
        if t_on > 0 and t_off > 0 and ops_off > 0:
            self.beta = min(1.0, (ops_on / t_on) / (ops_off / t_off))
        self._tmc_times, self._mlc_seconds, self._mlc_units, self._tmc_seconds = [], 0.0, 0, 0.0
        self._q = {True: [0.0, 0.0], False: [0.0, 0.0]}

    def on_step(self, view: View, dt: float, ops: dict[str, float]) -> None:
        mlc = self._running["mlc"] is not None
        acc = self._q[mlc]
        acc[0] += sum(v for k, v in ops.items() if k != "write")
        acc[1] += dt

    def extra_query_threads(self) -> int:
        return self.options.mlc_threads if self._running["mlc"] is None else 0

    def indexed_levels(self) -> frozenset:
        """The top level has a full key index (§4.2): gets probe it once, not each of its runs."""
        return frozenset({TOP})

    # ---------------------------------------------------------------- picking
    def top_backlog(self, tree: Tree) -> int:
        """The stall count: top-level backlog in unit runs. The top level is never compacted internally,
        so its run count says nothing; S-sized batches waiting for a TMC do."""
        return int(tree.level_bytes(TOP) // max(self.unit_size, 1.0))

    def needs_compaction(self, view: View) -> bool:
        """A TMC's unit run is in the top level, the next MLC's TMC is done, or the round's R TMCs are."""
        if self.schedule is None:
            return True  # the first pick solves the first round
        run = self._running
        top = sum(f.bytes for r in view.tree.runs_at(TOP) for f in r.files if not f.being_compacted)
        tmc = (
            run["tmc"] is None
            and top > 0
            and top >= self.unit_size
            and (self.issued < self.options.R or run["global"] is not None)
        )
        mlc = run["mlc"] is None and bool(self.pending) and self.pending[0].tmc <= self.done
        glob = run["global"] is None and run["mlc"] is None and self.done >= self.options.R
        again = run["global"] is None and self._global_again is not None  # a cancelled global compaction
        return tmc or mlc or glob or again

    def pick(self, view: View) -> Compaction | None:
        tree = view.tree
        if self.schedule is None:
            self._new_round(float(tree.bytes), view.mix)
        for kind in ("global", "tmc", "mlc"):
            if self._running[kind] is not None:
                continue
            if kind == "global":
                c = self._pick_global(tree, view.mix) if self._global_again is None else self._global_redo(tree)
            elif kind == "tmc":
                c = self._pick_tmc(tree, view.now)
            else:
                c = self._pick_mlc(tree)
            if c is not None:
                self._running[kind] = c
                self._started[id(c)] = view.now
                return c
        return None

    def _pick_tmc(self, tree: Tree, now: float) -> Compaction | None:
        top = [f for r in tree.runs_at(TOP) for f in r.files if not f.being_compacted]
        if not top or sum(f.bytes for f in top) < self.unit_size:
            return None
        if self.issued >= self.options.R and self._running["global"] is None:
            return None  # the round's R unit runs exist: wait for the global compaction to start
        self.issued += 1
        self._tmc_times.append(now)
        return Compaction(
            inputs=top,
            output_level=MAIN,
            reason=f"TMC {self.issued}",
            io_class="compaction_l0",
            start_level=TOP,
            tag=(self.round, self.issued),
            threads=self.options.tmc_threads,
        )

    def _pick_mlc(self, tree: Tree) -> Compaction | None:
        if not self.pending or self.pending[0].tmc > self.done:
            return None
        m = self.pending[0]
        runs = [
            r
            for r in tree.runs_at(MAIN)
            if self.units.get(r.id, (None,))[0] == self.round
            and m.lo <= self.units[r.id][1]
            and self.units[r.id][2] <= m.hi
        ]
        covered = sum(self.units[r.id][2] - self.units[r.id][1] + 1 for r in runs)
        if covered != m.hi - m.lo + 1 or not all(self.free(r.files) for r in runs):
            return None  # a unit run of the range is still being written or merged
        self.pending.pop(0)
        inputs = [f for r in runs for f in r.files]
        return Compaction(
            inputs=inputs,
            output_level=MAIN,
            reason=f"MLC {m.lo}..{m.hi} after TMC {m.tmc}",
            start_level=MAIN,
            tag=(self.round, m.lo, m.hi),
            threads=self.options.mlc_threads,
        )

    def _global_redo(self, tree: Tree) -> Compaction | None:
        """A cancelled global compaction again: its round's runs and the last level, once they are free (the round
        after it has begun, as the first pick began it)."""
        rnd = self._global_again
        files = self._global_files(tree, rnd)
        if files is None:
            return None
        self._global_again = None
        return self._global(files, rnd, f"global compaction (round {rnd}, again)")

    def _global_files(self, tree: Tree, rnd: int | None) -> list | None:
        """Round `rnd`'s main-level runs and the last level, when they are all free to merge."""
        runs = [r for r in tree.runs_at(MAIN) if self.units.get(r.id, (None,))[0] == rnd]
        files = [f for r in runs for f in r.files] + tree.files_at(LAST)
        return files if files and self.free(files) else None

    def _global(self, files: list, rnd: int | None, reason: str) -> Compaction:
        """A global compaction of round `rnd`'s runs (its tag: the round, which a cancel merges again)."""
        return Compaction(
            inputs=files,
            output_level=LAST,
            reason=reason,
            start_level=MAIN,
            tag=(rnd,),
            threads=self.options.mlc_threads,
        )

    def _pick_global(self, tree: Tree, mix: MixConfig | None) -> Compaction | None:
        if self.done < self.options.R or self._running["mlc"] is not None:
            return None
        files = self._global_files(tree, self.round)
        if files is None:
            return None
        self._measure()
        self.round += 1
        self.issued = self.done = 0
        self._new_round(float(tree.bytes), mix)
        return self._global(files, self.round - 1, f"global compaction (round {self.round - 1})")

    # ---------------------------------------------------------------- bookkeeping
    def on_compaction_cancelled(self, view: View, c: Compaction) -> None:
        """A TMC, MLC or global compaction cancelled (a phase's `flush`): what its pick changed is undone, so that
        the same unit run, merge or round is picked again. A TMC gives back its issue, an MLC its pending merge (the
        other kind's compactions may have finished since); a global compaction's round has begun the next one,
        which stands, and its runs and the last level are merged again first (`_global_redo`)."""
        kind = next((k for k, v in self._running.items() if v is c), None)
        self._started.pop(id(c), None)
        if kind is None:
            return
        self._running[kind] = None
        if kind == "tmc":
            if c.tag[0] == self.round:  # a global compaction since has begun a new round, whose count it is not
                self.issued -= 1
                if self._tmc_times:
                    self._tmc_times.pop()
        elif kind == "mlc":  # its merge goes back first: no global compaction (no new schedule) while an MLC runs
            _, lo, hi = c.tag
            self.pending.insert(0, next(m for m in self.schedule.merges if (m.lo, m.hi) == (lo, hi)))
        else:  # the round it ended stands: its runs and the last level are merged as soon as they are free
            self._global_again = c.tag[0]

    def on_compaction_done(self, view: View, c: Compaction) -> None:
        tree = view.tree
        kind = next((k for k, v in self._running.items() if v is c), None)
        if kind is None:
            return
        self._running[kind] = None
        seconds = view.now - self._started.pop(id(c), view.now)
        unit = c.tag
        if kind == "tmc":
            rnd, u = unit
            self._tmc_seconds += seconds
            if c.output_run is not None:
                self.units[c.output_run.id] = (rnd, u, u)
            if rnd == self.round:
                self.done = max(self.done, u)
                self.layouts.append((rnd, u, self.main_layout(tree)))
        elif kind == "mlc":
            rnd, lo, hi = unit
            self._mlc_seconds += seconds
            self._mlc_units += hi - lo + 1
            if c.output_run is not None:
                self.units[c.output_run.id] = (rnd, lo, hi)

    def main_layout(self, tree: Tree) -> tuple[int, ...]:
        """Main-level run sizes in unit runs, oldest first (the paper's tables)."""
        spans = sorted(
            self.units[r.id][1:] for r in tree.runs_at(MAIN) if self.units.get(r.id, (None,))[0] == self.round
        )
        return tuple(hi - lo + 1 for lo, hi in spans)

    # ---------------------------------------------------------------- reporting
    def summary(self) -> dict:
        """The rounds solved, and the last one's DP inputs and MLCs (`tmc:lo-hi` each, `;`-separated): the
        paper's Tables 5-8 as this run solved them (`lsmsim figures --only ecotune-tables5-8`)."""
        if not self.rounds:
            return {"rounds": 0}
        last = self.rounds[-1]
        return {
            "rounds": len(self.rounds),
            **{f"last_round_{k}": float(last[k]) for k in ("T_w", "T_c", "beta", "r")},
            "last_round_merges": ";".join(f"{t}:{lo}-{hi}" for t, lo, hi in last["merges"]),
        }
