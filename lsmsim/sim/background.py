"""Background work: memtable rotation, flushes and compactions on their threads, and policies' searches.

`Background.start` is RocksDB's MaybeScheduleFlushOrCompaction (db/db_impl/db_impl_compaction_flush.cc):
rotate a full memtable when a slot is free, start a flush per free flush thread, then, while a
compaction thread is free, ask the policy `needs_compaction` and `pick` (the compaction picker's
NeedsCompaction / PickCompaction), validate what it returns and start it, or move it trivially.
`finish` installs a job's outputs when its progress reaches 1.
"""

from __future__ import annotations

from ..config import Config
from ..devices import Device
from ..lsm.tree import Tree
from ..policies import Compaction, Policy
from .counters import Counters
from .jobs import Job, compaction_work, flush_work, validate_compaction
from .recorder import Recorder
from .versions import ObsoleteFiles  # noqa: TC001 (documents the attribute)
from .view import SimView
from .wal import WalWriteback
from .write_controller import WriteController

SYNCED = ("flush", "compaction")  # the jobs that write table files and sync them (and their directory)


class IOBatch:
    """Writes of one step, handed to the device in one batch (it interleaves them into flash)."""

    def __init__(self, device: Device):
        self.device = device
        self.pending: list[tuple[int, float, int]] = []  # (file id, bytes, level hint)

    def flush(self) -> None:
        if self.pending:
            self.device.write_streams(self.pending)
            self.pending = []


class Background:
    """The running flush and compaction jobs and the decisions that start and finish them."""

    def __init__(
        self,
        cfg: Config,
        clock,
        tree: Tree,
        device: Device,
        policy: Policy,
        view: SimView,
        counters: Counters,
        rec: Recorder,
        jobs: list[Job],
        io: IOBatch,
        wal: WalWriteback,
        wc: WriteController,
    ):
        self.cfg, self.clock, self.tree, self.device = cfg, clock, tree, device
        self.policy, self.view, self.counters, self.rec = policy, view, counters, rec
        self.jobs = jobs
        self.io = io
        self.wal = wal
        self.wc = wc  # the write controller: whether compactions need speeding up (`compaction_slots`)
        self.policy_idle = False  # the last pick round found no compaction
        self.hold_compactions = False  # start none (a phase's flush waits as a reopen's recovery does)
        self._job_id = 0
        self.obsolete: ObsoleteFiles = rec.obsolete  # removed files running jobs still hold

    def threads_busy(self, kind: str) -> int:
        return sum(j.threads for j in self.jobs if j.kind == kind)

    def _new_job(self, **kw) -> Job:
        self._job_id += 1
        job = Job(id=self._job_id, start=self.clock.now, version=self.tree.version, **kw)
        job.dev = self.device.seconds(job.read_bytes, job.write_bytes, 0.0)
        job.sync = self.device.sync_seconds(job.write_bytes, len(job.outputs) if job.kind in SYNCED else 0)
        return job

    def idle(self) -> bool:
        """No flush or compaction runs, none is pending and the policy picked nothing when last asked."""
        return not self.jobs and not self.tree.immutables and self.policy_idle

    def done(self, memtable_full: bool) -> bool:
        """Idle after starting what it can now (a phase's wait_for_compactions)."""
        self.start(memtable_full)
        return self.idle()

    def compacted(self, memtable_full: bool) -> bool:
        """A phase's wait_for_compactions is over: idle after starting what it can, or past it (its flush holds)."""
        return self.hold_compactions or self.done(memtable_full)

    def flushing(self) -> bool:
        """A phase's `flush`: switch the memtable to be flushed and hold compactions, as a reopened DB does
        (db_impl_open.cc: DBImpl::Open flushes the recovered WAL in WriteLevel0TableForRecovery and only then
        MaybeScheduleFlushOrCompaction); True while a memtable waits for its flush."""
        if not self.tree.memtable.entries and not self.tree.immutables:
            return False
        if not self.hold_compactions:
            self.cancel_compactions()
        self.switch_memtable()
        self.hold_compactions = True
        return True

    def cancel_compactions(self) -> None:
        """The process ends: RocksDB's Shutdown cancels the compactions that run (db_impl.cc CancelAllBackgroundWork;
        CompactionJob stops on shutting_down_ and deletes its outputs), and the reopened DB picks their inputs again
        (in the next phase: the recording's window). The bytes they wrote stay written on the drive; no compaction is
        counted or installed; the policy hears of each (`on_compaction_cancelled`)."""
        self.io.flush()  # the bytes they wrote so far reach the drive first
        for job in [j for j in self.jobs if j.kind == "compaction"]:
            self.jobs.remove(job)
            if job.compaction is not None:
                self.tree.mark_compacting(job.compaction.inputs, False)
            for f in job.outputs:
                self.device.file_deleted(f.id, f.bytes)
            self.obsolete.release(job)
            if job.compaction is not None:
                self.policy.on_compaction_cancelled(self.view, job.compaction)

    def switch_memtable(self) -> None:
        """Switch the active memtable, if it holds entries, to be flushed (a phase's `flush`, the run's end)."""
        if self.tree.memtable.entries:
            self.io.flush()
            self.device.file_written(-self.tree.rotate_memtable().id, 0)  # the WAL's last partial page

    def start(self, memtable_full: bool) -> None:
        """Start what the free threads can take now."""
        m, lsm, tree = self.cfg.machine, self.cfg.lsm, self.tree
        # memtable rotation (RocksDB switches memtables when one fills and a slot is free)
        if memtable_full and len(tree.immutables) < lsm.max_write_buffer_number - 1:
            self.io.flush()
            imm = tree.rotate_memtable()
            self.device.file_written(-imm.id, 0)  # the WAL's last partial page
        flushing = {id(j.memtable) for j in self.jobs if j.kind == "flush"}
        for imm in list(tree.immutables):
            if id(imm) in flushing:
                continue
            if self.threads_busy("flush") >= m.threads.flush:
                break
            self.jobs.append(self._new_job(**flush_work(tree, imm, m.cpu, self.clock.now)))
            flushing.add(id(imm))
        self.policy_idle = False
        slots = self.compaction_slots()
        while not self.hold_compactions and self.threads_busy("compaction") < slots:
            c = self.policy.next_compaction(self.view)
            if c is None:
                self.policy_idle = True
                break
            validate_compaction(tree, c, self.policy.name)
            if c.trivial_move:
                self._trivial_move(c)
                continue
            free = slots - self.threads_busy("compaction")
            work = compaction_work(tree, c, m.cpu, self.clock.now, lsm.block_size)
            self.jobs.append(self._new_job(threads=max(1, min(c.threads, free)), **work))
        if not self.threads_busy("search"):
            search = self.policy.search_work(self.view)
            if search is not None and search[0] > 0:
                cpu, threads = search
                self.jobs.append(
                    self._new_job(
                        kind="search",
                        io_class="search",
                        cpu=cpu,
                        threads=threads,
                        read_bytes=0.0,
                        write_bytes=0.0,
                        outputs=[],
                    )
                )

    def compaction_slots(self) -> int:
        """Compactions that may run at once: machine.threads.compaction, except under RocksDB's own pickers, whose
        scheduler runs one at a time until the write controller says compactions need speeding up (writes delayed
        or stopped, L0 at the speed-up trigger, or pending bytes at a quarter of the soft limit:
        db_impl_compaction_flush.cc DBImpl::GetBGJobLimits, `parallelize_compactions` =
        WriteController::NeedSpeedupCompaction). db_bench fillrandom 5M with --max_background_jobs=4 ran 99 of its
        112 L1 -> L2 compactions alone; without this lsmsim started up to three at once, left L1 fewer files to pick
        the least overlapping from, and wrote 48% more into L2."""
        threads = self.cfg.machine.threads.compaction
        if threads > 1 and self.policy.rocksdb_scheduler and not self.wc.needs_speedup(self.tree):
            return 1
        return threads

    def _pinned(self) -> tuple:
        """Target runs of running compactions: installs must keep them in place."""
        return tuple(
            j.compaction.target_run
            for j in self.jobs
            if j.compaction is not None and j.compaction.target_run is not None
        )

    def _trivial_move(self, c: Compaction) -> None:
        c.output_run = self.tree.install(c.inputs, list(c.inputs), c.output_level, c.target_run, keep=self._pinned())
        entries = sum(f.entries for f in c.inputs)
        self.rec.compaction_row(
            kind="trivial_move",
            c=c,
            start=self.clock.now,
            read=0,
            written=0,
            entries_in=entries,
            entries_out=entries,
            outputs=list(c.inputs),
        )
        self.policy.on_compaction_done(self.view, c)

    def finish(self, job: Job) -> None:
        """Install a finished job's outputs, tell the device and the policy."""
        if job.kind == "search":  # CPU only: nothing to install
            self.jobs.remove(job)
            self.policy.on_search_done(self.view)
            return
        # the job's last bytes reach the device before its files close; a full device ends the run here with the
        # job still listed as running (sim/limits.py's event row)
        if job.memtable is not None and (wal := self.wal.deleted(job.memtable.id, self.clock.now)):
            self.counters.wal_device_bytes += wal  # the WAL pages the flusher wrote back
            self.device.account(0.0, wal, 0.0, self.cfg.lsm.block_size)
            self.io.pending.append((-job.memtable.id, wal, 0))
        self.io.flush()
        self.jobs.remove(job)
        for f in job.outputs:
            self.device.file_written(f.id, f.bytes)
        if job.memtable is not None:  # a flush
            self.device.file_deleted(-job.memtable.id, 0)  # its WAL is obsolete
            run = self.tree.add_flushed(job.memtable, job.outputs)
            self.counters.flush_bytes += job.write_bytes
            self.rec.flush_row(job, self.clock.now)
            self.policy.on_flush(self.view, run)
        elif (c := job.compaction) is not None:
            self.tree.mark_compacting(c.inputs, False)
            c.output_run = self.tree.install(c.inputs, job.outputs, c.output_level, c.target_run, keep=self._pinned())
            self.obsolete.retire(c.inputs, self.jobs)
            self.counters.compaction_read_bytes += job.read_bytes
            self.counters.compaction_write_bytes += job.write_bytes
            self.rec.compaction_row(
                kind="compaction",
                c=c,
                start=job.start,
                read=job.read_bytes,
                written=job.write_bytes,
                entries_in=job.entries_in,
                entries_out=job.entries_out,
                outputs=job.outputs,
                cpu=job.cpu,
                dev=job.dev,
            )
            if job.dropped_tombstone_seqs is not None:
                self.rec.deletes_persisted(job.dropped_tombstone_seqs)
            self.policy.on_compaction_done(self.view, c)
        self.obsolete.release(job)  # its version is gone: purge what only it held
        if self.cfg.sim.check_invariants:
            self.tree.check_invariants(self.policy.overlap_within_levels)
