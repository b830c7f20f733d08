"""ARCE on ElasticLSM as a simulator policy (ArceKV, PVLDB 19(5) 2026, Sections 3-4).

ElasticLSM has no level capacities and no run limits: a level holds any number of sorted runs, tagged
with their timestamp (sequence-number) range, size and key range. Whenever a compaction worker is free
the policy scores every candidate of the three patterns (candidates.py) with the effectiveness score (Eq. 11)
and starts the best one if its score is > 0. (M, c, k) come from FindBestParams (Algorithm 1, search.py),
recomputed when the tree or the workload drifts by more than d (Sec. 3.4). Writes wait k per update
while the tree has more than c runs (Sec. 3.1), through the kernel's `write_delay`; RocksDB's L0
triggers are off (ArceKV hands c and k to RocksDB's write controller instead, Sec. 4).

The Workload Statistics module (Sec. 4) reports (r, u, p) every `stats_operations` operations of the
measured phases; until the first report ARCE assumes `prior` (R26). Counts become per-window figures with
u = F/E (``Workload.from_mix``; R1), E being the memtable bytes per update so that one window is one
flush of the simulated memtable.

Readings made here, listed with all others in docs/arce-readings.md: R22 (profiled I_r, I_w and
compaction time per block), R23 (running compactions), R24 (update floor), R25 (placement), R26
(statistics skip the preload).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from ...fields import Count, Duration
from ...lsm.filters import bloom_fpr
from ...lsm.tree import Tree
from ..base import Compaction, Policy, PolicyOptions
from ..registry import register
from ..view import View
from ..write_control import WriteControl
from .candidates import PATTERN_NAMES
from .cost import ArceParams, CostParams, Workload
from .score import candidate_table
from .search import ParamSelector
from .state import TreeState, compaction_keeps_order

if TYPE_CHECKING:
    import pandas as pd

US = 1e6  # the model works in microseconds
UPDATE_FLOOR = 1e-4  # R24


class ArceOptions(PolicyOptions):
    """ARCE on ElasticLSM (ArceKV, PVLDB'26 §3-4): any compaction of the three patterns, chosen by the
    effectiveness score (Eq. 11) with (M, c, k) from FindBestParams (Algorithm 1); writes are delayed by k
    per update while the run count exceeds c. I_r and I_w are profiled from the modeled device unless given."""

    name: Literal["arce"]
    num_levels: int = Field(4, ge=1, le=7, description="Levels of the ElasticLSM (the paper: 4; fewer than 8).")
    reselect_d: float = Field(
        0.1,
        gt=0,
        lt=1,
        description="d: recompute (M, c, k) when the tree or workload drifts by more than this (Sec. 3.4).",
    )
    # With ~5 runs one flush is a 20 % change, past d = 0.1, so most re-selections come from the run count alone.
    # Measured on Workload I at 200K keys (benchmark notes, issue 15): min_runs = 2 cut FindBestParams runs
    # 1184 -> 136 and the run's CPU 53.8 -> 24.0 s, but Workload E's throughput fell 31 % (10.2K -> 7.0K ops/s;
    # its long scans pay for every extra run) and the whole run's 3.2 %; min_runs = 3 did worse (E -40 %).
    # So the default stays the paper's rule, and the hysteresis is for sweeps that can afford the drift.
    reselect_min_runs: int = Field(
        1,
        ge=1,
        description="Hysteresis on the run count: it triggers re-selection only when it moved by at least this "
        "many runs as well as by d (1: the paper's rule; 2 halves ARC's CPU but cost Workload E 31% at 200K keys).",
    )
    # R20 as ArceKV's public code watches the run count: its mean over the decisions since the last search. Measured
    # on Workload I at the default scale (base.yaml, Intel host): the run count at each decision re-selected 1,359
    # times, the searches' CPU 48 % of the compactions' (the paper's Fig. 12(e): simulation 2 % of the background
    # CPU); with 10 decisions 98 times and 9 %, ARC's throughput +2.8 % (B +65 %, D, J, C, E -4 % to -8 %).
    reselect_decisions: int = Field(
        10,
        ge=1,
        description="Compaction decisions whose mean run count re-selection compares with d, from the last search "
        "on (ArceKV's public code: 10); 1: the run count at each decision.",
    )
    max_iter: int = Field(
        400,
        ge=1,
        le=100_000,
        description="MaxIterTime of Algorithm 1 (the paper: 400; Fig. 11 b up to 800). Each parameter tuple of the "
        "grid simulates this many compaction decisions, its simulated tree growing with them: past 100,000 a "
        "selection takes minutes and gigabytes.",
    )
    # FindBestParams is work the real system does: ArceKV runs it beside the compaction threads and uses the new
    # (M, c, k) once it returns (Sec. 3.4: "simulation completes within 150ms" for the balanced workload).
    search_cpu_per_iteration: Duration | None = Field(
        0.39e-6,
        gt=0,
        description="CPU seconds per parameter tuple and simulated decision of FindBestParams, run as background "
        "CPU: its result takes effect when it finishes. Default: this repository's numba kernel, serial, on the "
        "paper's grid (benchmarks/arce.py: 1179 tuples x 400 iterations in 184 ms, J mix), close to the paper's "
        "150 ms. null: free and instantaneous (the search's cost is not modeled).",
    )
    search_threads: int = Field(
        2, ge=1, description="Threads FindBestParams runs on (the paper parallelises it over tuples)."
    )
    stats_operations: Count = Field(
        1_000_000, gt=0, description="Operations per workload-statistics report (r, u, p), Sec. 4: every one million."
    )
    phi: float = Field(0.5, ge=0, le=1, description="Parallel fraction of the Amdahl adjustment (Sec. 4).")
    # R29: ArceKV's public code charges half of Eq. 9's read term (GetRewardForAction: idx r / 2), which doubles the
    # merges its score accepts; the paper's text and lsmsim's default charge all of it.
    short_term_read_weight: float = Field(
        1.0,
        gt=0,
        le=1,
        description="Weight of Eq. 9's read term I_r t (r + alpha p) in the score: 1 is the paper's equation, 0.5 "
        "what ArceKV's public code charges (R29).",
    )
    prior: tuple[float, float, float] = Field(
        (1.0, 1.0, 1.0),
        description="(range, update, point) mix assumed until the first statistics report of a "
        "measured phase; default balanced, the case Sec. 4 sizes windows by.",
    )
    I_r: Duration | None = Field(
        None,
        gt=0,
        description="Time of one block read; default: profiled from the "
        "device (its random-read latency at the current load).",
    )
    I_w: Duration | None = Field(
        None,
        gt=0,
        description="Time of one block of updates; default: profiled (the update path's time per block of entries).",
    )
    compaction_block_time: Duration | None = Field(
        None,
        gt=0,
        description="Compaction time per block (Eq. 5's I_r + I_w); default: profiled from the "
        "device and merge CPU. Set both I_r and I_w and leave this out for the paper's model.",
    )
    M: float | None = Field(None, ge=0, description="Fix M instead of searching it (with c and k).")
    c: int | None = Field(None, ge=0, description="Fix the stall threshold c (runs).")
    k: Duration | None = Field(None, description="Fix the stall delay k per update.")
    parallel_search: bool = Field(True, description="Evaluate the (M, c, k) grid on all cores (numba prange).")


def _no_l0_stalls(tree: Tree) -> int:
    return 0  # ARCE's c and k replace RocksDB's L0 slowdown/stop triggers (Sec. 4)


@register
class Arce(Policy):
    name = "arce"
    Options = ArceOptions
    overlap_within_levels = True  # Sec. 2: runs of one level may overlap in time

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        self.write_control = WriteControl(stall_count=_no_l0_stalls, delay=self.write_delay)
        self.selector = None
        self._template: CostParams | None = None
        self.params: ArceParams | None = None
        self._counts = np.zeros(3)  # range, update, point operations since the last report
        self.report: tuple | None = None  # (range, update, point) of the last full report
        self.reports = 0
        self.updates = 0.0  # all updates so far (count windows of the Eq. 5 check)
        self.search_iterations = 0  # simulated compaction decisions in FindBestParams (background cost)
        self.pending: ArceParams | None = None  # (M, c, k) of the search that is running, applied when it ends
        self.search_cpu = 0.0  # CPU seconds of a search to start (the kernel takes it through search_work)
        self.searching = False
        self.log: list[dict] = []  # one row per finished compaction: estimated and actual windows
        self._cache = None  # tree version, reports, idle workers when nothing scored > 0

    def _start(self, view: View) -> None:
        """The cost template and the parameter selector, once the workload's entry size is known."""
        o = self.options
        self._template = self._cost_template(view)
        self.selector = ParamSelector(
            self._template,
            d=o.reselect_d,
            max_iter=o.max_iter,
            parallel=o.parallel_search,
            min_runs=o.reselect_min_runs,
            decisions=o.reselect_decisions,
        )

    # ------------------------------------------------------------------ workload statistics (Sec. 4)
    def on_step(self, view: View, dt: float, ops: dict[str, float]) -> None:
        if not view.measuring:
            return  # R26
        r = ops.get("short_scan", 0.0) + ops.get("long_scan", 0.0)
        u = ops.get("write", 0.0)
        p = ops.get("get", 0.0) + ops.get("get_empty", 0.0)
        self._counts += (r, u, p)
        self.updates += u
        total, every = self._counts.sum(), self.options.stats_operations
        if total >= every:  # a fluid step may span several reports: the mix is constant within it
            n = int(total // every)
            self.report = tuple(self._counts.tolist())
            self.reports += n
            self._counts *= (total - n * every) / total

    def _mix(self) -> tuple[float, float, float]:
        return self.report if self.report is not None else tuple(self.options.prior)

    # ------------------------------------------------------------------ profiled costs (R22)
    def _entry_bytes(self, view: View) -> float:
        """Memtable bytes per update: a window of u = F/E updates is one flush."""
        w = view.workload
        return w.key_size + w.value_size + self.lsm.memtable_entry_overhead

    def _cost_template(self, view: View) -> CostParams:
        lsm = self.lsm
        return CostParams(
            F=float(lsm.write_buffer_size),
            E=self._entry_bytes(view),
            B=float(lsm.block_size),
            alpha=bloom_fpr(lsm.bloom_bits_per_key),
            phi=self.options.phi,
            es_read_weight=self.options.short_term_read_weight,
        )

    def profile(self, view: View) -> tuple[float, float, float]:
        """(I_r, I_w, compaction time per block) in seconds, from the modeled device and CPU costs (R22)."""
        o, lsm, w = self.options, self.lsm, view.workload
        cpu = view.cpu
        B = float(lsm.block_size)
        costs = view.costs()
        # a block access: the block cache, else the page cache (a read call's CPU), else the device as well
        miss = 1.0 - costs.hit_ratio
        I_r = o.I_r or (
            miss * (1.0 - costs.page_hit_ratio) * view.read_latency
            + miss * (cpu.block_read + cpu.block_read_per_byte * B)
            + cpu.index_search
            + cpu.block_decode
        )
        # an update's CPU: its WAL bytes go to the page cache, not the writer's device time (sim/wal.py)
        I_w = o.I_w or costs.write.cpu * B / self._entry_bytes(view)
        if o.compaction_block_time is not None:
            rw = o.compaction_block_time
        elif o.I_r is not None and o.I_w is not None:
            rw = I_r + I_w  # the paper's Eq. 5
        else:
            entries = B / (w.key_size + w.value_size + lsm.entry_overhead)
            blocks = 2 * B / lsm.block_size  # read and written
            merge = entries * cpu.merge_per_entry + B * cpu.merge_per_byte + blocks * cpu.merge_per_block
            rw = max(merge, view.device_seconds(B, B, 0.0))
        return I_r, I_w, rw

    def cost_params(self, view: View) -> CostParams:
        I_r, I_w, rw = self.profile(view)
        t = self._template
        return CostParams(
            I_r=I_r * US,
            I_w=I_w * US,
            F=t.F,
            E=t.E,
            B=t.B,
            alpha=t.alpha,
            threads=max(1, view.client_threads),
            phi=t.phi,
            compaction_block=rw * US,
            es_read_weight=t.es_read_weight,
        )

    def workload(self, cost: CostParams) -> Workload:
        r, u, p = self._mix()
        return Workload.from_mix(r, u, p, cost, update_floor=UPDATE_FLOOR)

    # ------------------------------------------------------------------ the tree as the model sees it
    def snapshot(self, tree: Tree, running=()):
        """(future TreeState, runs, busy mask, present TreeState or None). The future tree has every running
        compaction done, its output a busy run (R23); ``run_id`` indexes ``runs`` (None for those outputs).
        The present tree (only while compactions run) has their inputs still in place. `running`: the view's
        running compactions."""
        runs, rows, present, pending = [], [], [], {}
        for lvl in tree.levels:
            for run in lvl.runs:
                if not run.files:
                    continue
                row = (run.bytes, lvl.index, run.min_seq, run.max_seq, run.min_key, run.max_key)
                if any(f.being_compacted for f in run.files):
                    job = next((j for j in running if run.files[0] in j.inputs), None)
                    if job is not None:
                        pending.setdefault(job.id, [job, []])[1].append(run)
                        present.append((len(runs), row))
                        runs.append(run)
                        continue
                rows.append((len(runs), row, False))
                present.append((len(runs), row))
                runs.append(run)
        for job, inputs in pending.values():  # the output of a running compaction, as if installed
            rows.append(
                (
                    len(runs),
                    (
                        job.write_bytes,
                        job.compaction.output_level,
                        min(r.min_seq for r in inputs),
                        max(r.max_seq for r in inputs),
                        min(r.min_key for r in inputs),
                        max(r.max_key for r in inputs),
                    ),
                    True,
                )
            )
            runs.append(None)
        future = self._state([i for i, _, _ in rows], [r for _, r, _ in rows])
        busy = np.zeros(len(runs), bool)
        busy[[i for i, _, b in rows if b]] = True
        now = self._state([i for i, _ in present], [r for _, r in present]) if pending else None
        return future, runs, busy[future.run_id], now

    def _state(self, ids, rows) -> TreeState:
        a = np.array(rows, float).reshape(-1, 6)
        return TreeState(
            size=a[:, 0],
            level=a[:, 1].astype(np.int64),
            ts_lo=a[:, 2],
            ts_hi=a[:, 3],
            key_lo=a[:, 4],
            key_hi=a[:, 5],
            run_id=np.array(ids, np.int64),
            num_levels=self.options.num_levels,
        )

    def select_params(self, state: TreeState, workload: Workload, cost: CostParams) -> ArceParams:
        o = self.options
        if o.M is not None and o.c is not None and o.k is not None:
            self.params = ArceParams(o.M, o.c, o.k * US)
            return self.params
        if self.searching:  # the running search decides; until it ends the old tuple holds
            return self.params
        before = self.selector.recomputations
        self.selector.cost = cost
        best = self.selector.select(state, workload)
        chosen = ArceParams(
            o.M if o.M is not None else best.M,
            o.c if o.c is not None else best.c,
            o.k * US if o.k is not None else best.k,
        )
        if self.selector.recomputations != before:
            iterations = self.selector.last_grid_size * o.max_iter
            self.search_iterations += iterations
            if o.search_cpu_per_iteration is not None and iterations > 0:
                # the search runs from the state it saw now; its answer applies when its CPU work is done (the
                # first one too, but compactions need a tuple meanwhile: they start with it)
                self.search_cpu = iterations * o.search_cpu_per_iteration
                self.searching = True
                if self.params is not None:
                    self.pending = chosen
                    return self.params
        self.params = chosen
        return self.params

    def search_work(self, view: View) -> tuple[float, int] | None:
        if self.search_cpu <= 0:
            return None
        cpu, self.search_cpu = self.search_cpu, 0.0
        return cpu, self.options.search_threads

    def on_search_done(self, view: View) -> None:
        self.searching = False
        if self.pending is not None:
            self.params, self.pending = self.pending, None
        self._cache = None  # the new tuple may score a compaction where the old found none

    # ------------------------------------------------------------------ decisions
    def needs_compaction(self, view: View) -> bool:
        """A worker is idle and the tree or the statistics changed since nothing scored > 0."""
        idle = view.idle_compaction_threads
        return idle > 0 and self._cache != (view.tree.version, self.reports, idle)

    def pick(self, view: View) -> Compaction | None:
        tree = view.tree
        idle = view.idle_compaction_threads
        key = (tree.version, self.reports, idle)
        if idle <= 0 or self._cache == key:
            return None
        if self.selector is None:
            self._start(view)
        state, runs, busy, now = self.snapshot(tree, view.running)
        if state.total_runs < 2:
            self._cache = key
            return None
        cost = self.cost_params(view)
        workload = self.workload(cost)
        params = self.select_params(state, workload, cost)
        choice = self._choose(state, workload, cost, params, idle, busy, now)
        if choice is None:
            self._cache = key
            return None
        pattern, ids, target, X, y, t, score = choice
        chosen = [runs[i] for i in ids]
        start = min(f.level for r in chosen for f in r.files)
        return Compaction(
            inputs=[f for r in chosen for f in r.files],
            output_level=target,
            start_level=start,
            reason=f"ARCE {PATTERN_NAMES[pattern]}: {len(chosen)} runs, y={y}, t={t}, E={score:.4g}",
            io_class="compaction_l0" if start == 0 else "compaction",
            tag={
                "t_est": t,
                "y": y,
                "X": X,
                "pattern": pattern,
                "updates0": self.updates,
                "start": view.now,
                "u": cost.u,
                "runs": state.total_runs,
            },
        )

    def _choose(self, state, workload, cost, params, idle, busy, now):
        """The best candidate by R12, placed by R25; while compactions run, only candidates without a busy run
        that keep the timestamp order now as well as after the running ones finish (R23)."""
        tab = candidate_table(state, workload, cost, params, idle_workers=idle)
        cands, score = tab["candidates"], tab["score"]
        # R12: highest score (> 0), then larger y, smaller X, earlier candidate
        order = np.lexsort((np.arange(len(score)), tab["X"], -tab["y"], -score))
        pos = {int(r): i for i, r in enumerate(now.run_id)} if now is not None else None

        def allowed(i):
            first, last, target = int(cands[i, 1]), int(cands[i, 2]), int(cands[i, 3])
            if now is None:
                return True
            if busy[first : last + 1].any():
                return False
            return compaction_keeps_order(now, [pos[int(r)] for r in state.run_id[first : last + 1]], target)

        for j in order:
            if not score[j] > 0:
                return None
            if allowed(j):
                break
        else:
            return None
        first, last = int(cands[j, 1]), int(cands[j, 2])
        # R25: the same runs may go to several levels at the same score; move them down one level
        down = [
            i
            for i in np.flatnonzero((cands[:, 1] == first) & (cands[:, 2] == last))
            if cands[i, 3] > state.level[last] and allowed(i)
        ]
        if down:
            j = int(min(down, key=lambda i: cands[i, 3]))
        return (
            int(cands[j, 0]),
            list(state.run_id[first : last + 1].tolist()),
            int(cands[j, 3]),
            float(tab["X"][j]),
            int(tab["y"][j]),
            int(tab["t"][j]),
            float(score[j]),
        )

    def on_compaction_done(self, view: View, compaction: Compaction) -> None:
        tag = compaction.tag
        if isinstance(tag, dict):
            actual = (self.updates - tag["updates0"]) / tag["u"]
            self.log.append(
                {
                    "start": tag["start"],
                    "end": view.now,
                    "X": tag["X"],
                    "y": tag["y"],
                    "pattern": PATTERN_NAMES[tag["pattern"]],
                    "runs": tag["runs"],
                    "t_est": tag["t_est"],
                    "t_actual": actual,
                }
            )

    def write_delay(self, tree: Tree) -> float:
        """k per update while the tree has more than c sorted runs (Sec. 3.1; R3's strict inequality)."""
        p = self.params
        if p is None:
            return 0.0
        return p.k / US if len(tree.runs()) > p.c else 0.0

    def window_log(self) -> pd.DataFrame:
        """Eq. 5's estimate against the simulated duration of every finished compaction, in count windows."""
        import pandas as pd

        return pd.DataFrame(self.log, columns=["start", "end", "X", "y", "pattern", "runs", "t_est", "t_actual"])

    def summary(self) -> dict:
        out = {
            "reselections": self.selector.recomputations if self.selector else 0,
            "search_iterations": self.search_iterations,
            "statistics_reports": self.reports,
        }
        if self.params is not None:
            out.update({"M": float(self.params.M), "c": int(self.params.c), "k_us": float(self.params.k)})
        log = self.window_log()
        if len(log):
            err = (log.t_est - log.t_actual).abs()
            out.update({"window_error_mean": float(err.mean()), "window_error_max": float(err.max())})
        return out
