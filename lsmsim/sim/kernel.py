"""The simulation kernel: SimPy drives background events; the foreground is a fluid in between.

Between two events the tree and the set of running jobs are constant, so every flow's rate is
constant: the kernel solves the sharing problem (`sharing.solve`), finds the earliest next event
(a job finishing, the memtable filling, a phase ending, a metric sample), advances every flow to it
in closed form, then handles the event. The number of steps grows with flushes and compactions,
not with operations (DESIGN.md "Time"). In op mode (`sim.mode: op`) each client thread is a SimPy
process that executes one operation per event, using the same costs and sharing; tests check that
both modes agree.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import simpy

from ..config import Config, PhaseConfig
from ..errors import InvariantError
from ..lsm.costs import CostTable, build_costs
from ..lsm.tree import Tree
from ..policies import Compaction, make_policy
from ..workloads.generator import WriteStream
from ..workloads.presets import resolve_phases
from .device import make_device
from .jobs import Job, merge_inputs
from .oplevel import OpDriver
from .recorder import Recorder
from .sharing import Flow, solve

READ_OPS = ("get", "get_empty", "short_scan", "long_scan")
OPS = ("write",) + READ_OPS


@dataclass(eq=False)
class Group:
    """Foreground threads of one kind: `clients` run the whole mix (closed loop), `writers` a
    fixed-rate write stream, `queries` the read part (closed loop or open arrivals)."""
    name: str
    threads: int
    shares: dict[str, float]
    target: float = math.inf      # ops/s cap: a fixed write rate, or an arrival rate
    open: bool = False
    backlog: float = 0.0          # open-loop requests waiting (fluid)
    flow: Flow | None = None
    rate: float = 0.0             # ops/s in this step
    cpu_per_op: float = 0.0       # CPU seconds of an average operation of the group's mix
    sync_reads: float = 0.0       # synchronous block reads of an average operation
    base_threads: int = 0         # threads from the config (policies may lend more, see extra_query_threads)
    per_op: dict[str, float] = field(default_factory=dict)  # latency per op type, without sync reads

    def __post_init__(self):
        self.base_threads = self.base_threads or self.threads
    reads: dict[str, float] = field(default_factory=dict)   # mean synchronous reads per op type


class Simulation:
    """One run: config in, `Result` out (see `lsmsim.api.run`)."""

    def __init__(self, cfg: Config, progress=None):
        self.cfg = cfg
        self.env = simpy.Environment()
        self.rng = np.random.default_rng(cfg.seed)
        lsm, w = cfg.lsm, cfg.workload
        self.tree = Tree(w.key_size, lsm.entry_overhead, lsm.entries_per_sample, lsm.memtable_entry_overhead)
        self.policy = make_policy(cfg.policy, lsm)
        self.device = make_device(cfg.device)
        self.phases = resolve_phases(w)
        self.rec = Recorder(self)
        self.progress = progress
        self.io_rank = {c: i for i, c in enumerate(cfg.machine.io_priority)}
        self.jobs: list[Job] = []
        self._job_id = 0
        self.seq = 1                 # next sequence number
        self.inserts = 0             # writes issued (cursor for sequential/latest keys)
        self.write_carry = 0.0
        self.ops = {op: 0.0 for op in OPS}
        self.measured_ops = {op: 0.0 for op in OPS}  # in phases with measure: true
        self._ops_last = dict(self.ops)
        self.user_bytes = 0.0
        self.flush_bytes = 0.0
        self.compaction_read_bytes = 0.0
        self.compaction_write_bytes = 0.0
        self.wal_bytes = 0.0
        self.stop_time = 0.0
        self.stop_episode = 0.0
        self.slowdown_time = 0.0
        self.write_delay = 0.0       # the policy's delay per write now (ARCE's k while runs > c)
        self.delay_time = 0.0        # time during which writes were delayed by the policy
        self.delay_total = 0.0       # write-seconds spent in those delays
        self.cpu_busy = {"flush": 0.0, "compaction": 0.0, "foreground": 0.0}
        self.phase_index = -1
        self.phase: PhaseConfig | None = None
        self.phase_ops = 0.0
        self.phase_start = 0.0
        self.groups: list[Group] = []
        self.finished_phases = False
        self._costs: CostTable | None = None
        self._costs_version = -1
        self._pending_cache = (-1, 0.0)
        self._wake: simpy.Event | None = None
        self.stall = "none"
        self.util = 0.0
        self.measured_time = 0.0
        self.peak_space = 0.0
        # RocksDB's SanitizeOptions: slowdown >= the compaction trigger, stop >= slowdown
        floor = self.policy.compaction_trigger_count()
        self.slowdown_trigger = max(lsm.level0_slowdown_writes_trigger, floor)
        self.stop_trigger = max(lsm.level0_stop_writes_trigger, self.slowdown_trigger)
        self.delayed_rate = lsm.delayed_write_rate  # the write controller's current delayed rate
        self._wc_version, self._wc_delayed, self._wc_stopped, self._wc_prev_pending = -1, False, False, 0.0
        self.op_mode = cfg.sim.mode == "op"
        self.driver = OpDriver(self) if self.op_mode else None
        self._step_event: simpy.Event | None = None
        self._phase_end_event: simpy.Event | None = None
        self._io: list[tuple[int, float, int]] = []  # (file id, bytes, level hint) written this step
        self.read_latency = self.device.read_latency(0.0)
        self.policy.attach(self)

    # ================================================================== entry point
    def run(self):
        self._next_phase()
        # run until the fluid loop ends; timeouts it abandoned when woken early stay queued, unrun
        self.env.run(until=self.env.process(self._fluid_loop()))
        if self.cfg.sim.check_invariants:
            self.tree.check_invariants(self.policy.overlap_within_levels)
        return self.rec.result()

    # ================================================================== phases
    def _next_phase(self) -> None:
        if self._phase_end_event is not None and not self._phase_end_event.triggered:
            self._phase_end_event.succeed()
        self._phase_end_event = None
        if self.phase is not None and self.write_carry > 0.5:  # the phase's last fractional write
            self.write_ops(1)
        self.write_carry = 0.0
        self.phase_index += 1
        if self.phase_index >= len(self.phases):
            self.phase = None
            self.finished_phases = True
            self.rec.phase_boundary()
            if self.cfg.sim.flush_at_end and self.tree.memtable.entries:
                self._flush_io()
                self.device.file_written(-self.tree.rotate_memtable().id, 0)
            return
        p = self.phases[self.phase_index]
        self.phase = p
        self.phase_ops = 0.0
        self.phase_start = self.env.now
        self.rec.phase_boundary()
        w = self.cfg.workload
        self.writes = WriteStream(p, w.num, w.value_size, self.cfg.lsm.entries_per_sample, self.rng, self.cfg.seed)
        self.hot_fraction = self.writes.sampler.hot_fraction
        self._costs_version = -1
        self.groups = self._groups(p)
        self.policy.mix = p.mix
        if self.driver is not None:
            self._solve()
            self.driver.start_phase()
        if self.progress is not None:
            self.progress.set_description(p.name or f"phase {self.phase_index + 1}")

    def _groups(self, p: PhaseConfig) -> list[Group]:
        mix = p.mix
        total = mix.writes() + mix.reads()
        reads = {op: getattr(mix, op) for op in READ_OPS if getattr(mix, op) > 0}
        wfrac = mix.writes() / total
        groups = []
        bytes_per_write = self._user_bytes_per_write()
        if p.writers.mode == "closed":
            shares = {"write": wfrac} if wfrac > 0 else {}
            if p.queries.mode == "with_writers":
                shares.update({op: v / total for op, v in reads.items()})
            else:
                shares = {"write": 1.0} if wfrac > 0 else {}
            if shares:
                s = sum(shares.values())
                groups.append(Group("clients", p.writers.threads, {k: v / s for k, v in shares.items()}))
        elif wfrac > 0:
            groups.append(Group("writers", p.writers.threads, {"write": 1.0}, target=p.writers.rate / bytes_per_write))
        if reads and p.queries.mode != "with_writers":
            r = sum(reads.values())
            g = Group("queries", p.queries.threads, {op: v / r for op, v in reads.items()})
            if p.queries.mode == "open":
                g.open = True
                g.target = p.queries.arrival_rate
            groups.append(g)
        return groups

    def _user_bytes_per_write(self) -> float:
        w = self.cfg.workload
        p_del = self.writes.p_delete if self.phase else 0.0
        return w.key_size + w.value_size * (1 - p_del)

    def _memtable_bytes_per_write(self) -> float:
        w = self.cfg.workload
        p_del = self.writes.p_delete
        return w.key_size + self.cfg.lsm.memtable_entry_overhead + w.value_size * (1 - p_del)

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
    def costs(self) -> CostTable:
        """Per-operation costs, rebuilt when the tree changes or a sample interval passed (the
        block cache warms between tree changes)."""
        epoch = (self.tree.version, len(self.rec.rows))
        if self._costs_version != epoch:
            p = self.phase or self.phases[-1]
            self._costs = build_costs(self.tree, self.cfg.lsm, self.cfg.lsm.cpu, self.hot_fraction,
                                      p.scan_length, p.short_scan_length, self.policy.indexed_levels())
            self._costs_version = epoch
        return self._costs

    def pending_compaction_bytes(self) -> float:
        v, b = self._pending_cache
        if v != self.tree.version:
            b = self.policy.pending_compaction_bytes(self.tree)
            self._pending_cache = (self.tree.version, b)
        return b

    def memtable_full(self) -> bool:
        return self.tree.memtable.bytes >= self.cfg.lsm.write_buffer_size

    def _stall_state(self) -> str:
        lsm = self.cfg.lsm
        trig = self.policy.stall_trigger_count(self.tree)
        pending = self.pending_compaction_bytes()
        if self.memtable_full() and len(self.tree.immutables) >= lsm.max_write_buffer_number - 1:
            return "stop"
        if trig >= self.stop_trigger or pending >= lsm.hard_pending_compaction_bytes_limit:
            return "stop"
        unflushed = len(self.tree.immutables) + 1
        mwbn = lsm.max_write_buffer_number
        if mwbn > 3 and unflushed >= mwbn - 1:  # RocksDB delays writes one memtable before the limit
            return "slowdown"
        if trig >= self.slowdown_trigger or pending >= lsm.soft_pending_compaction_bytes_limit:
            return "slowdown"
        return "none"

    # ================================================================== background work
    def _threads_busy(self, kind: str) -> int:
        return sum(j.threads for j in self.jobs if j.kind == kind)

    def _new_job(self, **kw) -> Job:
        self._job_id += 1
        job = Job(id=self._job_id, start=self.env.now, **kw)
        job.dev = self.device.seconds(job.read_bytes, job.write_bytes, 0.0)
        return job

    def _start_background(self) -> None:
        m, lsm = self.cfg.machine, self.cfg.lsm
        # memtable rotation (RocksDB switches memtables when one fills and a slot is free)
        if self.memtable_full() and len(self.tree.immutables) < lsm.max_write_buffer_number - 1:
            self._flush_io()
            imm = self.tree.rotate_memtable()
            self.device.file_written(-imm.id, 0)  # the WAL's last partial page
        flushing = {id(j.memtable) for j in self.jobs if j.kind == "flush"}
        for imm in list(self.tree.immutables):
            if id(imm) in flushing:
                continue
            if self._threads_busy("flush") >= m.threads.flush:
                break
            samples = imm.flush_samples()
            files = self.tree.build_files(samples, 0, None, self.env.now)
            out_bytes = sum(f.bytes for f in files)
            job = self._new_job(kind="flush", io_class="flush",
                                cpu=imm.entries * lsm.cpu.flush_per_entry + out_bytes * lsm.cpu.flush_per_byte,
                                read_bytes=0.0, write_bytes=out_bytes, outputs=files, memtable=imm,
                                entries_in=imm.entries, entries_out=sum(f.entries for f in files))
            self.jobs.append(job)
            flushing.add(id(imm))
        self.policy.now = self.env.now
        while self._threads_busy("compaction") < m.threads.compaction:
            c = self.policy.pick(self.tree)
            if c is None:
                break
            self._validate(c)
            if c.trivial_move:
                self._trivial_move(c)
                continue
            self._start_compaction(c)

    def _validate(self, c: Compaction) -> None:
        if not c.inputs:
            raise InvariantError(f"policy {self.policy.name} returned a compaction without inputs")
        live = {f.id for f in self.tree.files()}
        for f in c.inputs:
            if f.being_compacted:
                raise InvariantError(f"policy {self.policy.name} picked {f}, which is already being compacted")
            if f.id not in live:
                raise InvariantError(f"policy {self.policy.name} picked {f}, which is not in the tree")
        if c.target_run is not None and c.target_run not in self.tree.level(c.output_level).runs:
            raise InvariantError(f"target run {c.target_run} is not in L{c.output_level}")

    def _pinned(self) -> tuple:
        return tuple(j.compaction.target_run for j in self.jobs
                     if j.kind == "compaction" and j.compaction.target_run is not None)

    def _trivial_move(self, c: Compaction) -> None:
        c.output_run = self.tree.install(c.inputs, list(c.inputs), c.output_level, c.target_run, keep=self._pinned())
        self.rec.compaction_row(kind="trivial_move", c=c, start=self.env.now, read=0, written=0,
                                entries_in=sum(f.entries for f in c.inputs), entries_out=sum(f.entries for f in c.inputs),
                                outputs=len(c.inputs))
        self.policy.on_compaction_done(self.tree, c)

    def _start_compaction(self, c: Compaction) -> None:
        lsm = self.cfg.lsm
        for f in c.inputs:
            f.being_compacted = True
        merged, _ = merge_inputs(self.tree, c)
        outputs = self.tree.build_files(merged, c.output_level, c.target_file_size, self.env.now)
        if c.target_run is not None:
            gone = {f.id for f in c.inputs}
            for o in outputs:
                for f in c.target_run.overlapping(o.min_key, o.max_key):
                    if f.id not in gone:
                        raise InvariantError(f"compaction output {o} overlaps {f} of its target run")
        bytes_in = sum(f.bytes for f in c.inputs)
        entries_in = sum(f.entries for f in c.inputs)
        cpu = entries_in * lsm.cpu.merge_per_entry + bytes_in * lsm.cpu.merge_per_byte
        free = self.cfg.machine.threads.compaction - self._threads_busy("compaction")
        job = self._new_job(kind="compaction", io_class=c.io_class, cpu=cpu, threads=max(1, min(c.threads, free)),
                            read_bytes=float(bytes_in),
                            write_bytes=float(sum(f.bytes for f in outputs)), outputs=outputs,
                            inputs=list(c.inputs), compaction=c, entries_in=entries_in,
                            entries_out=sum(f.entries for f in outputs))
        self.jobs.append(job)

    def _finish(self, job: Job) -> None:
        self.jobs.remove(job)
        self._flush_io()  # the job's last bytes reach the device before its files close
        for f in job.outputs:
            self.device.file_written(f.id, f.bytes)
        if job.kind == "flush":
            self.device.file_deleted(-job.memtable.id, 0)  # its WAL is obsolete
            run = self.tree.add_flushed(job.memtable, job.outputs)
            self.policy.now = self.env.now
            self.flush_bytes += job.write_bytes
            self.rec.flush_row(job, self.env.now)
            self.policy.on_flush(self.tree, run)
        else:
            c = job.compaction
            for f in c.inputs:
                f.being_compacted = False
            c.output_run = self.tree.install(c.inputs, job.outputs, c.output_level, c.target_run, keep=self._pinned())
            self.policy.now = self.env.now
            for f in c.inputs:
                self.device.file_deleted(f.id, f.bytes)
            self.compaction_read_bytes += job.read_bytes
            self.compaction_write_bytes += job.write_bytes
            self.rec.compaction_row(kind="compaction", c=c, start=job.start, read=job.read_bytes,
                                    written=job.write_bytes, entries_in=job.entries_in, entries_out=job.entries_out,
                                    outputs=len(job.outputs))
            self.policy.on_compaction_done(self.tree, c)
        if self.cfg.sim.check_invariants:
            self.tree.check_invariants(self.policy.overlap_within_levels)

    # ================================================================== rates
    def _solve(self) -> None:
        """Build flows for jobs and foreground groups and let the solver share CPU and device.

        A foreground group's unit of progress is one operation: it costs `cpu` seconds on one of
        the group's threads (so the flow's `cpu` is cpu x threads, the solver's per-flow figure),
        device time for its block reads and WAL bytes, and a synchronous wait for its reads whose
        latency depends on the device utilisation, which the loop below lets settle."""
        lsm, dev, m = self.cfg.lsm, self.device, self.cfg.machine
        flows = []
        for j in self.jobs:
            # a job of n threads splits its work n ways: n threads at full speed finish it n times faster
            j.flow = Flow(f"job{j.id}", self.io_rank.get(j.io_class, self.io_rank["compaction"]), j.threads,
                          j.cpu, j.dev, reserved=j.io_class in m.reserved_for)
            flows.append(j.flow)
        groups = self.groups if self.phase is not None else []
        self.stall = self._stall_state() if groups else "none"
        self._write_controller()
        if groups:
            costs = self.costs()
            wb = self._user_bytes_per_write()
            wal = dev.seconds(0.0, wb, 0.0) if lsm.wal else 0.0
            limit = self._write_limit()
            self.write_delay = self.policy.write_delay(self.tree)
            # idle MLC threads serve queries (EcoTune §4.2), closed-loop clients and open-loop servers alike
            helpers = self.policy.extra_query_threads()
            for g in groups:
                g.threads = g.base_threads + (helpers if g.name == "queries" else 0)
                g.cpu_per_op = sum(s * costs.of(op).cpu for op, s in g.shares.items())
                g.sync_reads = sum(s * costs.of(op).sync_reads for op, s in g.shares.items())
                reads = sum(s * costs.of(op).reads for op, s in g.shares.items())
                wshare = g.shares.get("write", 0.0)
                cap = g.target if (not g.open or g.backlog <= 0) else math.inf
                if wshare > 0 and limit is not None:
                    cap = min(cap, limit / wb / wshare)
                g.flow = Flow(g.name, self.io_rank["foreground"], g.threads, g.cpu_per_op,
                              dev.seconds(0.0, 0.0, reads) + wshare * wal, cap=cap,
                              # a client group that also reads is not pinned: its reads would be
                              reserved="writers" in m.reserved_for and set(g.shares) == {"write"})
                flows.append(g.flow)
        util = self.util
        for _ in range(2):
            for g in groups:
                # a delayed write waits without CPU or device: a synchronous wait like a block read
                g.flow.sync = g.sync_reads * dev.read_latency(util) + g.shares.get("write", 0.0) * self.write_delay
            util = solve(flows, m.cores, m.context_switch_overhead, reserved_cores=m.reserved_cores)
        self.util = util
        self.read_latency = dev.read_latency(util)
        for j in self.jobs:
            j.rate = j.flow.rate
        for g in groups:
            self._op_latencies(g)

    def _write_controller(self) -> None:
        """RocksDB 7.8's delayed write rate (column_family.cc SetupDelay), re-evaluated whenever
        the tree changes (RecalculateWriteStallConditions runs at every new version): while
        delayed it falls to 0.8x if the compaction debt did not shrink, to 0.6x near or at the
        stop trigger, and rises 1/0.8x if the debt shrank; leaving the delay condition multiplies
        it by 1.4; it never exceeds lsm.delayed_write_rate nor drops below 16KiB/s."""
        v = self.tree.version
        if v == self._wc_version:
            return
        self._wc_version = v
        max_rate, min_rate = self.cfg.lsm.delayed_write_rate, 16 * 1024.0
        pending = self.pending_compaction_bytes()
        near_stop = self.policy.stall_trigger_count(self.tree) >= self.stop_trigger - 2
        if self.stall == "slowdown":
            if self._wc_delayed:  # entering the delay keeps the current rate; while delayed it adapts
                if near_stop or self._wc_stopped:
                    self.delayed_rate = max(min_rate, self.delayed_rate * 0.6)
                elif 0 < self._wc_prev_pending <= pending:
                    self.delayed_rate = max(min_rate, self.delayed_rate * 0.8)
                elif self._wc_prev_pending > pending:
                    self.delayed_rate = min(max_rate, self.delayed_rate / 0.8)
            self._wc_delayed = True
        elif self.stall == "none" and self._wc_delayed:
            self.delayed_rate = min(max_rate, self.delayed_rate * 1.4)
            self._wc_delayed = False
        self._wc_stopped = self.stall == "stop"
        self._wc_prev_pending = pending

    def _write_limit(self) -> float | None:
        """Bytes/s the write controller allows: 0 when stopped, delayed_write_rate when slowed
        (RocksDB's WriteController), or the policy's own limit (ARCE's stall rate k)."""
        limits = [self.policy.write_rate_limit(self.tree)]
        if self.stall == "stop":
            limits.append(0.0)
        elif self.stall == "slowdown":
            limits.append(self.delayed_rate)
        limits = [x for x in limits if x is not None]
        return min(limits) if limits else None

    def _op_latencies(self, g: Group) -> None:
        """Latency per operation type for one of the group's threads at the solved rates.

        `per_op[op]` is the part without synchronous reads: CPU time, slowed when the thread holds
        less than its duty cycle of a core, plus any wait the step imposes: a write stall's delay
        goes to writes only; device queueing stretches every operation. `reads[op]` is the mean
        number of synchronous block reads, each taking `read_latency` (see `latency_points`)."""
        f = g.flow
        g.rate = f.rate
        costs = self.costs()
        slow = 1.0
        if f.cpu > 0 and f.cpu_share > 0 and not f.held:  # CPU bound: each op's CPU part stretches
            slow = max(1.0, (f.cpu / f.cpu_share - f.sync) / f.cpu)
        g.per_op = {op: costs.of(op).cpu * slow for op in g.shares}
        if "write" in g.per_op:
            g.per_op["write"] += self.write_delay
        g.reads = {op: costs.of(op).sync_reads for op in g.shares}
        if g.rate <= 0 or g.open:
            return
        mean = sum(s * (g.per_op[op] + g.reads[op] * self.read_latency) for op, s in g.shares.items())
        extra = g.threads / g.rate - mean  # per op of a thread, beyond its own service time
        if extra <= 1e-15 or g.name == "writers":  # a fixed-rate writer's gaps are idle, not latency
            return
        wshare = g.shares.get("write", 0.0)
        if wshare > 0 and self._write_limit() is not None and f.cap < math.inf and f.rate >= f.cap * (1 - 1e-9):
            g.per_op["write"] += extra / wshare  # the write controller delays writes only
        else:
            k = 1.0 + extra / mean  # every op of the mix takes k times as long as alone
            for op in g.per_op:
                g.per_op[op] = g.per_op[op] * k + (k - 1.0) * g.reads[op] * self.read_latency

    def _mean_service(self, g: Group) -> float:
        return sum(s * (g.per_op[op] + g.reads[op] * self.read_latency) for op, s in g.shares.items())

    def latency_points(self, g: Group, op: str) -> list[tuple[float, float]]:
        """The latency distribution of one op type as (latency, probability) points: a random
        number K of synchronous block reads with mean r, K = floor(r) or floor(r) + 1."""
        r = g.reads.get(op, 0.0)
        base = g.per_op[op]
        k = math.floor(r)
        frac = r - k
        lat = self.read_latency
        if frac <= 1e-12:
            return [(base + k * lat, 1.0)]
        return [(base + k * lat, 1.0 - frac), (base + (k + 1) * lat, frac)]

    # ================================================================== fluid loop
    def _horizon(self) -> tuple[float, str]:
        now = self.env.now
        t, why = self.cfg.sim.max_time - now, "max_time"
        for j in self.jobs:
            if j.rate > 0:
                d = (1.0 - j.progress) / j.rate
                if d < t:
                    t, why = d, "job"
        if self.phase is not None and not self.op_mode:
            w = self._write_rate()
            if w > 0 and not self.memtable_full():
                need = math.ceil((self.cfg.lsm.write_buffer_size - self.tree.memtable.bytes)
                                 / self._memtable_bytes_per_write() - 1e-9)
                d = max(need - self.write_carry, 0.0) / w
                if d < t:
                    t, why = d, "memtable"
            p = self.phase
            if p.operations is not None:
                r = sum(g.rate for g in self.groups)
                if r > 0:
                    d = (p.operations - self.phase_ops) / r
                    if d < t:
                        t, why = d, "phase_ops"
            for g in self.groups:
                if g.open and g.backlog > 0 and g.rate > g.target:
                    d = g.backlog / (g.rate - g.target)
                    if d < t:
                        t, why = d, "backlog_empty"
        if self.phase is not None:
            p = self.phase
            if p.duration is not None:
                d = self.phase_start + p.duration - now
                if d < t:
                    t, why = d, "phase_time"
        d = self.rec.next_sample - now
        if d < t:
            t, why = d, "sample"
        return max(t, 0.0), why

    def _write_rate(self) -> float:
        return sum(g.rate * g.shares.get("write", 0.0) for g in self.groups) if self.phase is not None else 0.0

    def _advance(self, dt: float) -> None:
        if dt <= 0:
            return
        lsm = self.cfg.lsm
        for j in self.jobs:
            dp = min(j.rate * dt, 1.0 - j.progress)
            if j.rate * dt >= 1.0 - j.progress - 1e-9:
                dp = 1.0 - j.progress
            hint = 0 if j.kind == "flush" else j.compaction.output_level
            self._io.extend(j.file_writes(j.progress, j.progress + dp, hint))
            j.progress += dp
            self.device.account(j.read_bytes * dp, j.write_bytes * dp, 0.0, lsm.block_size)
            key = "flush" if j.kind == "flush" else "compaction"
            self.cpu_busy[key] += j.cpu * dp
        if self.phase is not None and not self.op_mode:
            costs = self.costs()
            n_total = 0.0
            for g in self.groups:
                n = g.rate * dt
                if g.open:
                    g.backlog = g.backlog + (g.target - g.rate) * dt
                    if g.backlog < 1e-6:  # drained (snap float dust, or the next step would be a Zeno step)
                        g.backlog = 0.0
                n_total += n
                reads = 0.0
                for op, s in g.shares.items():
                    k = n * s
                    self.ops[op] += k
                    if self.phase.measure:
                        self.measured_ops[op] += k
                    if op != "write":
                        c = costs.of(op)
                        reads += k * c.reads
                        self._warm(c.run_blocks, k)
                    if not g.open:
                        for lat, p in self.latency_points(g, op):
                            self.rec.latency_mass(op, lat, k * p)
                if g.open and self.phase.measure:
                    self.rec.open_segment(self.env.now - dt, self.env.now, self._mean_service(g), g.threads, g.target)
                self.cpu_busy["foreground"] += n * g.cpu_per_op
                self.device.account(0.0, 0.0, reads, lsm.block_size)
            self._apply_writes(self._write_rate() * dt)
            self.phase_ops += n_total
        if self.phase is not None:
            if self.phase.measure:
                self.measured_time += dt
            writers = sum(g.threads for g in self.groups if "write" in g.shares and not g.open)
            if self.stall == "stop" and writers:
                self.stop_time += dt
                self.stop_episode += dt
            elif self.stall == "slowdown":
                self.slowdown_time += dt
            if self.write_delay > 0 and writers:
                self.delay_time += dt
                self.delay_total += self._write_rate() * dt * self.write_delay
        if self.stall != "stop" and self.stop_episode > 0 and not self.op_mode:
            # each blocked writer thread waited out the stop: one write of that latency per thread
            writers = sum(g.threads for g in self.groups if "write" in g.shares and not g.open)
            self.rec.latency_mass("write", self.stop_episode, writers)
            self.stop_episode = 0.0
        space = self.tree.bytes + sum(j.progress * j.write_bytes for j in self.jobs if j.kind == "compaction")
        self.peak_space = max(self.peak_space, space)
        self._flush_io()
        self.device.advance(self.env.now, dt * max(0.0, 1.0 - self.util))
        done = {op: self.ops[op] - self._ops_last[op] for op in self.ops}
        self._ops_last = dict(self.ops)
        self.policy.on_step(dt, done, self.jobs)

    def _flush_io(self) -> None:
        """Hand the step's writes to the device in one batch (it interleaves them into flash)."""
        if self._io:
            self.device.write_streams(self._io)
            self._io = []

    def _warm(self, run_blocks, n_ops: float) -> None:
        """Credit data-block reads to runs for the block-cache warm-up model (O(runs); the cost
        model spreads them over the runs' files when it next rebuilds)."""
        if run_blocks is None or n_ops <= 0:
            return
        for run, b in zip(self.tree.runs(), run_blocks):
            if b > 0:
                run.pending_block_reads += n_ops * b

    def _apply_writes(self, n_float: float) -> None:
        x = n_float + self.write_carry
        n = int(math.floor(x + 1e-6))
        self.write_carry = max(0.0, x - n)
        if n <= 0:
            return
        self.write_ops(n)

    def write_ops(self, n: int) -> None:
        """Insert n writes into the active memtable (fluid and op modes both end here)."""
        samples, value_bytes, _ = self.writes.draw(n, self.seq, self.inserts)
        self.seq += n
        self.inserts += n
        self.tree.memtable.add(n, value_bytes, samples)
        ub = n * self.cfg.workload.key_size + value_bytes
        self.user_bytes += ub
        if self.cfg.lsm.wal:
            self.wal_bytes += ub
            self.device.account(0.0, ub, 0.0, self.cfg.lsm.block_size)
            self._io.append((-self.tree.memtable.id, ub, 0))

    def _done(self) -> bool:
        if not self.finished_phases:
            return False
        if not self.cfg.sim.drain:
            return True
        return not self.jobs and not self.tree.immutables and self.policy.pick(self.tree) is None

    def _fluid_loop(self):
        max_time = self.cfg.sim.max_time
        stalled = 0
        while True:
            self._start_background()
            if self._done():
                break
            self._solve()
            if self._step_event is not None and not self._step_event.triggered:
                self._step_event.succeed()
            dt, why = self._horizon()
            if dt == 0 and why == "max_time":
                break
            if dt == math.inf or (dt <= 0 and why in ("max_time",)):
                break
            t0 = self.env.now
            if dt > 0:
                self._wake = self.env.event()
                yield self.env.timeout(dt) | self._wake
            self._advance(self.env.now - t0)
            self._handle_events()
            # events may coincide, but a run of steps that never moves the clock is a kernel bug
            stalled = stalled + 1 if self.env.now <= t0 else 0
            if stalled > 100_000:
                raise InvariantError(f"the kernel made no progress at t={t0} s for {stalled} steps "
                                     f"(next event: {why})")
            if self.progress is not None:
                self.progress.update_to(self)
            if self.env.now >= max_time - 1e-12:
                break
        self.rec.sample(force=True)

    def _handle_events(self) -> None:
        for j in [j for j in self.jobs if j.done]:
            self._finish(j)
        if self.phase is not None:
            p = self.phase
            if (p.operations is not None and self.phase_ops >= p.operations - 1e-6) or \
               (p.duration is not None and self.env.now >= self.phase_start + p.duration - 1e-12):
                self._next_phase()
        self.rec.maybe_sample()
