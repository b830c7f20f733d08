"""The simulation kernel: SimPy drives background events; the foreground is a fluid in between.

Between two events the tree and the set of running jobs are constant, so every flow's rate is constant: the kernel
solves the sharing problem (`sharing.solve`), finds the earliest next event (a job finishing, the memtable filling, a
phase ending, a metric sample), advances every flow to it in closed form, then handles the event. The number of steps
grows with flushes and compactions, not with operations (docs/design.md "Time"). In op mode (`sim.mode: op`) each
client thread is a SimPy process that executes one operation per event, using the same costs and sharing; tests check
that both modes agree.

The kernel owns the event loop and the jobs; its parts each do one job: `PhaseCursor` (phases.py), `WriteController`
(write_controller.py, RocksDB's stalls), the foreground groups and their latency (foreground.py), `Counters`, `Recorder`
and `SimView` (view.py), the read-only view every policy call receives.
"""

from __future__ import annotations

import math

import numpy as np
import simpy

from ..config import Config, MixConfig, PhaseConfig
from ..devices import make_device
from ..devices.base import DeviceFullError
from ..errors import InvariantError
from ..lsm.cache import Caches
from ..lsm.costs import CostTable, build_costs, page_cache_bytes
from ..lsm.live import LiveKeys
from ..lsm.tree import Tree
from ..policies import make_policy
from ..tolerances import COUNT_EPS, ROUND_EPS, TIME_EPS
from ..workloads.generator import WriteStream
from ..workloads.initial_tree import start_tree
from ..workloads.presets import resolve_phases
from . import limits
from .background import Background, IOBatch
from .counters import Counters
from .foreground import (
    WARM_STEP,
    Group,
    credit_block_reads,
    group_commit,
    group_flow,
    latency_distribution,
    make_groups,
    mean_service,
    op_latencies,
    read_latency_fixed_point,
    serialize_writes,
    spin_fixed_point,
    warming_rate,
)
from .jobs import Job, job_flow
from .limits import LimitReached
from .oplevel import OpDriver
from .phases import PhaseCursor, beyond_share, found_share
from .rate_limiter import limit_background
from .recorder import Recorder
from .versions import ObsoleteFiles
from .view import SimView
from .wal import WalWriteback
from .write_controller import WriteController


class Simulation:
    """One run: config in, `Result` out (see `lsmsim.sim.simulate`)."""

    def __init__(self, cfg: Config, progress=None):
        self.cfg = cfg
        self.env = simpy.Environment()
        self.rng = np.random.default_rng(cfg.seed)
        lsm, w = cfg.lsm, cfg.workload
        self.tree = Tree(w.key_size, lsm.entry_overhead, int(lsm.entries_per_sample), lsm.memtable_entry_overhead)
        self.policy = make_policy(cfg.policy, lsm)
        self.device = make_device(cfg.device)
        self.cursor = PhaseCursor(resolve_phases(w), cfg.seed)
        self.counters = Counters()
        self.wc = WriteController(lsm, self.policy.write_control)
        self.groups: list[Group] = []
        self.mix: MixConfig | None = None  # the current (after the phases: the last) phase's mix
        jobs: list[Job] = []
        self.live = LiveKeys(w.num, int(lsm.entries_per_sample), w.key_size + w.value_size)  # logical size now
        self.obsolete = ObsoleteFiles(self.device)  # removed files running jobs' versions still hold
        rec = self.rec = Recorder(
            cfg, self.env, self.cursor, self.counters, self.tree, self.device, self.wc, jobs, self.live, self.obsolete
        )
        self.view = SimView(self)
        self.io = IOBatch(self.device)
        self.wal = WalWriteback(lsm, cfg.machine, w.key_size)  # which WAL bytes reach the drive, and when
        parts = (self.policy, self.view, self.counters, rec, jobs, self.io, self.wal, self.wc)
        self.bg = Background(cfg, self.env, self.tree, self.device, *parts)
        self.jobs = jobs  # the running flush and compaction jobs (Background starts and finishes them)
        self.progress = progress
        self.io_rank: dict[str, int] = cfg.machine.io_rank()
        self.seq = start_tree(self.tree, self.live, cfg)  # next sequence number (after lsm.initial_tree's)
        self.inserts = 0  # writes issued (cursor for sequential/latest keys)
        self.write_carry = 0.0
        self.waiting = False  # a phase ended and waits for the background (wait_for_compactions)
        self.stop_episode = 0.0  # seconds of the current write stop (one latency sample per writer)
        self._ops_last = dict(self.counters.ops)
        self._costs: CostTable | None = None
        self._costs_phase: PhaseConfig | None = None  # the phase it was built in
        self._costs_version: tuple | int = -1
        # the share the caches serve gained since the costs (and per second), and times it reached WARM_STEP
        self.warmed, self._warming, self.warm_steps = 0.0, 0.0, 0
        self._wake: simpy.Event | None = None
        self.op_mode = cfg.sim.mode == "op"
        self.driver = OpDriver(self) if self.op_mode else None
        self._step_event: simpy.Event | None = None
        self._phase_end_event: simpy.Event | None = None
        self.read_latency = self.device.read_latency(0.0)
        self.util = self.write_bps = 0.0  # the device's utilisation and bytes/s of the last step's jobs and WAL
        self.capacity = float(getattr(cfg.device, "capacity", math.inf))  # the run ends beyond it (limits.py)

    @property
    def phase(self):
        return self.cursor.phase

    # ================================================================== entry point
    def run(self):
        self._next_phase()
        # run until the fluid loop ends; timeouts it abandoned when woken early stay queued, unrun
        self.env.run(until=self.env.process(self._fluid_loop()))
        if self.cfg.sim.check_invariants:
            self.tree.check_invariants(self.policy.overlap_within_levels)
        return self.rec.result(self.policy)

    # ================================================================== phases
    def _wait(self) -> None:
        """The phase's clients stop; the next phase starts once the background has done what the phase waits for:
        its compactions (wait_for_compactions), its memtables' flush (flush)."""
        if not self.waiting:
            self.waiting, self.groups = True, []
            self.rec.phase_pause()

    def _next_phase(self) -> None:
        self.waiting = False
        if self._phase_end_event is not None and not self._phase_end_event.triggered:
            self._phase_end_event.succeed()
        self._phase_end_event = None
        p = self.cursor.advance(self.env.now)
        self.bg.hold_compactions = False
        self.rec.phase_boundary()
        if p is None:
            if self.cfg.sim.flush_at_end:
                self.bg.switch_memtable()
            return
        w = self.cfg.workload
        if p.found == "live":  # a uniform key of the key space is found as often as the keys are live now
            p = self.cursor.phase = p.found_in(found_share(self.live, w.num, p))  # costs read it too
        self.writes = WriteStream(p, w.num, w.value_size, int(self.cfg.lsm.entries_per_sample), self.rng, self.cfg.seed)
        self.hot_fraction = self.writes.sampler.hot_fraction
        self.caches = Caches(self.hot_fraction)
        self._costs_version = -1
        self.groups = make_groups(p, self._user_bytes_per_write())
        self.mix = p.mix
        if self.driver is not None:
            self._solve()
            self.driver.start_phase()
        if self.progress is not None:
            self.progress.set_description(self.cursor.name)

    def _last_write(self) -> None:
        if self.write_carry > 0.5:  # the phase's last fractional write
            self.write_ops(1)
        self.write_carry = 0.0

    def _user_bytes_per_write(self) -> float:
        return self.cfg.workload.key_size + self.writes.value_size * (1 - self.writes.p_delete)

    def _memtable_bytes_per_write(self) -> float:
        return self._user_bytes_per_write() + self.cfg.lsm.memtable_entry_overhead

    # ================================================================== events for op mode
    def wake(self) -> None:
        """Make the kernel handle events now (op-mode clients call this)."""
        if self._wake is not None and not self._wake.triggered:
            self._wake.succeed()

    def step_event(self) -> simpy.Event:
        """Fires after the kernel's next step (rates may have changed)."""
        if self._step_event is None or self._step_event.triggered:
            self._step_event = self.env.event()
        return self._step_event

    def phase_end_event(self) -> simpy.Event:
        if self._phase_end_event is None:
            self._phase_end_event = self.env.event()
        return self._phase_end_event

    # ================================================================== state queries
    def costs(self, fresh: bool = False) -> CostTable:
        """Per-operation costs, rebuilt when the tree changes or the caches warmed by WARM_STEP (`warm_steps`).
        A phase without reads needs only the write's, which no tree change moves: kept unless `fresh`."""
        p: PhaseConfig = self.phase or self.cursor.phases[-1]
        epoch, costs = (self.tree.version, self.warm_steps, len(self.tree.immutables)), self._costs
        if costs is not None and not fresh and self._costs_phase is p and not p.mix.reads():
            return costs
        if costs is None or self._costs_version != epoch or self._costs_phase is not p:
            costs = self._costs = build_costs(
                self.tree,
                self.cfg.lsm,
                self.cfg.machine.cpu,
                self.caches,
                p.scan_length,
                p.short_scan_length,
                self.policy.indexed_levels(),
                page_cache_bytes(self.cfg.machine.memory, self.cfg.lsm),
                p.keys.distribution == "sequential",
                {op: getattr(p.mix, op) for op in ("get", "get_empty", "short_scan", "long_scan")},
                get_last_level=p.get_from == "last_level",
                memtable_entries=self.cfg.lsm.write_buffer_size / self._memtable_bytes_per_write(),
                active_entries=None if p.mix.writes() > 0 else self.tree.memtable.entries,
                beyond=beyond_share(p),
                client=self.cfg.machine.cpu.mixgraph_key if p.key_draw == "mixgraph" else 0.0,
            )
            self._costs_version, self._costs_phase = epoch, p
            self.warmed = 0.0
        return costs

    def memtable_full(self) -> bool:
        return self.wc.memtable_full(self.tree)

    # ================================================================== rates
    def _solve(self) -> None:
        """Build flows for jobs and foreground groups and let the solver share CPU and device.

        A foreground group's unit of progress is one operation: it costs `cpu` seconds on one of
        the group's threads (so the flow's `cpu` is cpu x threads, the solver's per-flow figure),
        device time for its block reads and WAL bytes, and a synchronous wait for its reads whose
        latency depends on the device utilisation, which the loop below lets settle."""
        lsm, dev, m = self.cfg.lsm, self.device, self.cfg.machine
        flows = [job_flow(j, self.io_rank.get(j.io_class, self.io_rank["compaction"]), m) for j in self.jobs]
        if lsm.rate_limiter_bytes_per_sec:
            limit_background(self.jobs, lsm.rate_limiter_bytes_per_sec)
        groups = self.groups if self.phase is not None else []
        self.wc.update(self.tree, writing=bool(groups), now=self.env.now)
        limit = None
        if groups:
            costs = self.costs()
            wb = self._user_bytes_per_write()
            sync = dev.wal_sync_seconds() if lsm.wal and lsm.wal_sync else 0.0
            limit = self.wc.limit(self.tree, self.wal.user_share(wb))
            self.wc.write_delay = self.policy.write_control.delay(self.tree)
            # idle MLC threads serve queries (EcoTune §4.2), closed-loop clients and open-loop servers alike
            helpers = self.policy.extra_query_threads()
            for g in groups:
                g.threads = g.base_threads + (helpers if g.name == "queries" else 0)
                g.target = self.cursor.rate_cap(self.env.now) if g.name == "clients" else g.target
                flows.append(group_flow(g, costs, dev, lsm.block_size, limit, wb, self.io_rank["foreground"], m, sync))
            # one write thread: concurrent writers do not add up, and with WAL syncs they pass a group per sync
            serialize_writes(groups, max(m.cpu.write_serial, group_commit(groups, sync, costs.engine_write)))
            # the OS writes WAL pages back as it writes a flush's: the same writeback, at the flushes' priority
            if (writeback := self.wal.flow(dev, wb, self.io_rank["flush"])) is not None:
                flows.append(writeback)
        else:
            writeback = None

        def evaluate(u: float) -> tuple[float, bool]:  # the flows when a synchronous read waits read_latency(u)
            for g, flow in zip(groups, flows[len(self.jobs) :]):
                # a delayed write waits without CPU or device: a synchronous wait like a block read
                flow.sync = (
                    g.sync_reads * dev.read_latency(u, self.write_bps)
                    + g.sync_transfer
                    + g.shares.get("write", 0.0) * (self.wc.write_delay + g.wal_sync)
                )
            util, converged, _ = spin_fixed_point(flows, groups, m)  # the sharing, with writes' spins settled
            # bytes/s flushes, compactions and the WAL write: their programs delay reads on the drive
            self.write_bps = sum(f.rate * j.write_bytes for j, f in zip(self.jobs, flows))
            if writeback is not None:
                self.write_bps += writeback.rate * self.wal.record_bytes(wb)
            return util, converged

        reads = any(g.sync_reads > 0 for g in groups)
        self.util, converged = read_latency_fixed_point(evaluate, self.util, reads=reads)
        self.wal.rate = sum(f.rate * g.shares.get("write", 0.0) for g, f in zip(groups, flows[len(self.jobs) :]))
        if not converged:  # the rates are the last round's; the summary counts such steps
            self.counters.unconverged_steps += 1
        self.read_latency = dev.read_latency(self.util, self.write_bps)
        for j, flow in zip(self.jobs, flows):
            j.rate = flow.rate
        if groups:
            costs = self.costs()
            for g in groups:
                op_latencies(g, costs, self.read_latency, self.wc.write_delay, self.wc.refill)

    # ================================================================== fluid loop
    def _horizon(self) -> tuple[float, str]:  # noqa: C901 (one candidate per kind of next event; a flat list reads best)
        now = self.env.now
        t, why = self.cfg.sim.max_time - now, "max_time"
        self._warming = 0.0  # the caches warm only while a fluid phase reads (set below)
        for j in self.jobs:
            if j.rate > 0:
                d = (1.0 - j.progress) / j.rate
                if d < t:
                    t, why = d, "job"
        p = self.phase
        if p is not None and not self.op_mode:
            w = self._write_rate()
            if w > 0 and not self.memtable_full():
                need = math.ceil(
                    (self.cfg.lsm.write_buffer_size - self.tree.memtable.bytes) / self._memtable_bytes_per_write()
                    - ROUND_EPS
                )
                d = max(need - self.write_carry, 0.0) / w
                if d < t:
                    t, why = d, "memtable"
            if w > 0 and (d := self.cursor.live_writes(self.live, self.cfg.workload.num) / w) < t:
                t, why = d, "found"  # the Gets' split follows the live keys (found: live)
            r = sum(g.rate for g in self.groups)
            if p.operations is not None and r > 0 and (d := (p.operations - self.cursor.ops) / r) < t:
                t, why = d, "phase_ops"
            for g in self.groups:
                if g.open and g.backlog > 0 and g.rate > g.target:
                    d = g.backlog / (g.rate - g.target)
                    if d < t:
                        t, why = d, "backlog_empty"
            self._warming = warming_rate(self._costs, self.groups)
            if self._warming > 0 and (d := max(0.0, WARM_STEP - self.warmed) / self._warming) < t:
                t, why = d, "warm"
        if (d := self.cursor.next_rate_change(now) - now) < t:
            t, why = d, "sine_rate"
        if p is not None and p.duration is not None and not self.waiting:
            d = self.cursor.start + p.duration - now
            if d < t:
                t, why = d, "phase_time"
        d = self.rec.next_sample - now
        if d < t:
            t, why = d, "sample"
        return max(t, 0.0), why

    def _write_rate(self) -> float:
        return sum(g.rate * g.shares.get("write", 0.0) for g in self.groups) if self.phase is not None else 0.0

    def _writer_threads(self) -> int:
        return sum(g.threads for g in self.groups if "write" in g.shares and not g.open)

    def _advance(self, dt: float) -> None:
        if dt <= 0:
            return
        lsm, n = self.cfg.lsm, self.counters
        for j in self.jobs:
            dp = min(j.rate * dt, 1.0 - j.progress)
            if j.rate * dt >= 1.0 - j.progress - ROUND_EPS:
                dp = 1.0 - j.progress
            hint = 0 if j.compaction is None else j.compaction.output_level
            self.io.pending.extend(j.file_writes(j.progress, j.progress + dp, hint))
            j.progress += dp
            self.device.account(j.read_bytes * dp, j.write_bytes * dp, 0.0, lsm.block_size)
            key = j.kind if j.kind in ("flush", "search") else "compaction"
            n.cpu_busy[key] += j.cpu * dp
        p = self.phase
        if p is not None and not self.op_mode:
            self._advance_foreground(dt)
        if p is not None:
            if p.measure and not self.waiting:
                n.measured_time += dt
            writers = self._writer_threads()
            if self.wc.state == "stop" and writers:
                n.stop_time += dt
                self.stop_episode += dt
            elif self.wc.state == "slowdown":
                n.slowdown_time += dt
            if self.wc.write_delay > 0 and writers:
                n.delay_time += dt
                n.delay_total += self._write_rate() * dt * self.wc.write_delay
        if self.wc.state != "stop" and self.stop_episode > 0 and not self.op_mode:
            # each blocked writer thread waited out the stop: one write of that latency per thread
            self.rec.latency_mass("write", self.stop_episode, self._writer_threads())
            self.stop_episode = 0.0
        self.rec.track_space()  # a step's end is where outputs in flight peak
        self.io.flush()
        self.device.advance(self.env.now, dt * max(0.0, 1.0 - self.util))
        done = {op: n.ops[op] - self._ops_last[op] for op in n.ops}
        self._ops_last = dict(n.ops)
        self.policy.on_step(self.view, dt, done)

    def _advance_foreground(self, dt: float) -> None:
        """The fluid's operations over `dt`: counts, latency mass, block-cache warming, writes."""
        lsm, n, p, m = self.cfg.lsm, self.counters, self.phase, self.cfg.machine
        costs = self.costs()
        n_total = 0.0
        for g in self.groups:
            k_ops = g.rate * dt
            if g.open:
                g.backlog = g.backlog + (g.target - g.rate) * dt
                if g.backlog < COUNT_EPS:  # drained (snap float dust, or the next step would be a Zeno step)
                    g.backlog = 0.0
            n_total += k_ops
            reads = 0.0
            for op, s in g.shares.items():
                k = k_ops * s
                n.ops[op] += k
                if p.measure:
                    n.measured_ops[op] += k
                if op != "write":
                    c = costs.of(op)
                    reads += k * c.reads
                    credit_block_reads(self.tree, c.run_blocks, k)
                    n.add_blocks(k, c, op)
                if not g.open:
                    lat, prob = latency_distribution(g, op, self.read_latency, m.cpu_spread, m.sched_slice)
                    self.rec.latency_masses(op, lat, k * prob)
            if g.open and p.measure:
                self.rec.open_segment(
                    self.env.now - dt, self.env.now, mean_service(g, self.read_latency), g.threads, g.target
                )
            n.cpu_busy["foreground"] += k_ops * g.cpu_per_op
            self.device.account(0.0, 0.0, reads, lsm.block_size)
        self._apply_writes(self._write_rate() * dt)
        self.cursor.ops += n_total

    def _apply_writes(self, n_float: float) -> None:
        x = n_float + self.write_carry
        n = int(math.floor(x + COUNT_EPS))
        self.write_carry = max(0.0, x - n)
        if n <= 0:
            return
        self.write_ops(n)

    def write_ops(self, n: int) -> None:
        """Insert n writes into the active memtable (fluid and op modes both end here)."""
        samples, value_bytes, fresh = self.writes.draw(n, self.seq, self.inserts)
        self.live.write(samples.keys, samples.tombs, self.cfg.workload.key_size + self.writes.value_size)
        self.tree.write(n, value_bytes, samples, self.seq, self.env.now)
        self.seq += n
        self.inserts += fresh  # deletes and updates of existing keys insert no new key
        ub = n * self.cfg.workload.key_size + value_bytes
        self.counters.user_bytes += ub
        if self.cfg.lsm.wal:
            self.counters.wal_bytes += (wal := self.wal.record_bytes(ub, n))
            if (now := self.wal.appended(self.tree.memtable.id, wal, self.env.now)) > 0:
                self.counters.wal_device_bytes += now
                self.device.account(0.0, now, 0.0, self.cfg.lsm.block_size)
                self.io.pending.append((-self.tree.memtable.id, now, 0))

    def _done(self) -> bool:
        return self.cursor.finished and (not self.cfg.sim.drain or self.bg.idle())

    def _fluid_loop(self):
        try:
            yield from self._steps()
        except (LimitReached, DeviceFullError) as e:  # the run ends there, as the paper's crashed runs did
            event = e.event if isinstance(e, LimitReached) else limits.DISK_FULL
            cap, nofile = self.capacity, self.cfg.machine.open_files_limit
            row = limits.event_row(event, str(e), self.env.now, self.tree, self.jobs, cap, nofile, self.obsolete)
            self.rec.end_at_limit(row)
        self.rec.sample(force=True)

    def _steps(self):
        """Step from event to event until the phases (and the drain) end, or sim.max_time."""
        max_time = self.cfg.sim.max_time
        stalled = 0
        while True:
            self.bg.start(self.memtable_full())
            if self._done():
                break
            self._solve()
            if self._step_event is not None and not self._step_event.triggered:
                self._step_event.succeed()
            dt, why = self._horizon()
            if dt == math.inf or (dt <= 0 and why == "max_time"):
                break
            t0, elapsed = self.env.now, 0.0
            if dt > 0:
                self._wake = self.env.event()
                timeout = self.env.timeout(dt)
                fired = yield timeout | self._wake
                # a step shorter than the clock's resolution at `now` (a job's last 1e-13 of progress at t = 239 s)
                # leaves env.now unchanged: integrate the step itself, or the job never ends
                elapsed = dt if timeout in fired else self.env.now - t0
            self._advance(elapsed)
            self.warmed += self._warming * elapsed  # (a rebuild of the costs zeroes it)
            self.warm_steps += self.warmed >= WARM_STEP * (1 - ROUND_EPS)
            self._handle_events()
            limits.check(self.tree, self.jobs, self.capacity, self.cfg.machine.open_files_limit, self.obsolete)
            # events may coincide, but a run of steps that never moves the clock is a kernel bug
            stalled = stalled + 1 if self.env.now <= t0 else 0
            if stalled > 100_000:
                raise InvariantError(f"the kernel made no progress at t={t0} s for {stalled} steps (next event: {why})")
            if self.progress is not None:
                self.progress.update_to(self)
            if self.env.now >= max_time - TIME_EPS:
                break

    def _handle_events(self) -> None:
        for j in [j for j in self.jobs if j.done]:
            self.bg.finish(j)
        if self.cursor.ended(self.env.now):
            self._last_write()
            p = self.phase
            if p is not None and p.wait_for_compactions and not self.bg.compacted(self.memtable_full()):
                self._wait()
            elif p is not None and p.flush and self.bg.flushing():
                self._wait()  # db_bench's flush, a reopen's recovery: the next phase starts on a flushed memtable
            else:
                self._next_phase()
        if self.cursor.follow_live(self.live, self.cfg.workload.num, self.groups):
            self.mix = self.phase.mix
        self.rec.maybe_sample()
