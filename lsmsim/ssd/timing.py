"""SSD timing: what a drive does to requests, for fio jobs and for the simulator's kernel.

`DriveModel` holds the physical parameters (all SI, all bounded in `calibrate.BOUNDS`):
- the host: `host_per_io`, CPU seconds per request of one submitting thread (the host's limit,
  apart from the drive's), for fio's ioengine `engine` (`engines`: other engines', `for_engine`); requests past
  the drive's `command_slots` (or `command_bytes` of data in service) wait in one of `sq_count` per-CPU
  submission queues, the thread moving among them every `sq_move_interval` (searched after a fit, not bounded:
  `host_queues.py`);
- reads: a fixed `read_overhead` (controller, PCIe, interrupt) with lognormal spread
  `read_sigma`; a flash read `read_flash_time` (`fast_read_time` for a share `fast_read_fraction`: data in the SLC
  region; `partial_read_time` for a read of one 4 KiB unit alone, where the drive reads part of a page) plus
  `page`-byte chunk transfer at
  `read_stream_bandwidth` on one of `units` parallel units (channels x dies, Agrawal et al.,
  USENIX ATC'08 §3); the host link at `read_bandwidth`;
- writes: `write_overhead` and `write_sigma`; the link at `write_stream_bandwidth`; the
  controller's command rate `write_iops`, each command holding its write `write_command_share` of the interval
  (1: one command at a time; less: commands overlap, the rate still caps IOPS), a write smaller than the program
  unit `write_unit` taking `subunit_write_time` more (merged into a whole unit first); a write-back buffer of
  `write_buffer` bytes (DRAM or SLC cache) drained by programs of `program_bytes` that take `program_time` on one
  unit, so the flash absorbs `write_bandwidth` = units x program_bytes / program_time; programmed bytes become
  room `write_buffer_release` at a time (0: each program's at its end), so writes on a full buffer wait in lumps;
- interference: reads wait for a program on their unit, or `suspend_latency` with
  `program_suspend` (Wu & He, FAST'12); a unit serves its queued reads before the next program, or with
  `program_first` the program first (the buffer keeps draining and writes stay fast while reads queue);
- a controller stage reads' and programs' data share (`shared_read_bandwidth`, `shared_write_bandwidth`; 0: none,
  `stages.py`): one FCFS server, so a mix it limits moves the harmonic mean of the pure rates.

`fio_job` answers what fio would measure for one job (closed loop, `drive_sim.simulate`); a run
long enough to fill the buffer is a mixture of a buffered phase and a throttled one, weighted by
how long the buffer takes to fill (`_buffer_phases`). The kernel asks `seconds` (device-busy time
per unit of I/O, the capacities above) and `read_latency` (one 4KiB read under a background read
and write load, `_priority_wait`: the open-loop form of the same units).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from . import drive_sim as ds
from .gc_theory import wa_greedy_limit

KIB4 = 4096.0


def command_interval(write_iops: float, write_unit: float, subunit_write_time: float, size: float = KIB4) -> float:
    """Seconds between two write commands of `size` bytes at the controller's full rate `write_iops`: a write below
    the program unit `write_unit` holds the command stage `subunit_write_time` longer (merged into a whole unit)."""
    return 1.0 / write_iops + (subunit_write_time if size < write_unit else 0.0)


@dataclass(frozen=True)
class DriveModel:
    units: int = 32
    host_per_io: float = 2e-6
    page: float = 16384.0
    read_overhead: float = 15e-6
    read_sigma: float = 0.1
    read_flash_time: float = 50e-6
    read_stream_bandwidth: float = 400e6
    read_bandwidth: float = 3.2e9
    read_retry_fraction: float = 0.002
    read_retry_time: float = 300e-6
    fast_read_fraction: float = 0.0  # flash reads of data in the SLC region, taking fast_read_time instead
    fast_read_time: float = 20e-6
    partial_read_time: float = 0.0  # the flash read of one 4 KiB unit alone, a part of a page (0: a whole page's)
    write_overhead: float = 8e-6
    write_sigma: float = 0.2
    write_stream_bandwidth: float = 2.5e9
    write_iops: float = 400e3
    write_command_share: float = 1.0  # of the command interval 1 / write_iops that a write waits (drive_sim)
    write_unit: float = KIB4  # program unit: a smaller write takes subunit_write_time more in the command stage
    subunit_write_time: float = 2e-6
    program_time: float = 1e-3
    write_bandwidth: float = 1e9
    write_buffer: float = 64e6
    program_suspend: bool = False
    suspend_latency: float = 20e-6
    command_slots: int = 1024
    readahead: float = 0.0  # bytes the controller prefetches for sequential reads (0: none)
    program_first: bool = False  # a unit done with a job starts a waiting program before its queued reads
    write_window: int = 1  # random writes waiting in the controller are taken at random among this many oldest
    map_update_time: float = 0.0  # of a random write's command interval: deferred mapping-table work (drive_sim)
    map_update_backlog: float = 200e-6  # the deferred work the controller holds before doing it all
    sq_count: int = 1  # the host's submission queues (one per CPU) a submitting thread moves among
    sq_move_interval: float = 0.0  # mean seconds between a submitting thread's moves to another CPU (0: never)
    shared_read_bandwidth: float = 0.0  # the controller stage reads and programs share (stages.py): reads' rate there
    shared_write_bandwidth: float = 0.0  # programs' rate there (0 in both: no shared stage)
    write_buffer_release: float = 0.0  # programmed bytes become buffer room this many at a time (0: per program)
    command_bytes: float = 0.0  # the most data the commands in service carry (0: no limit)
    capacity: float = 0.0  # logical bytes (0: unknown, no GC in steady state)
    over_provisioning: float = 0.07  # spare flash over the logical capacity, (physical - logical) / logical
    engine: str = ""  # fio's ioengine whose host cost the figures above hold ("": any; engines.py)
    # other engines' host costs on the same drive: (ioengine, host_per_io, read_overhead, write_overhead)
    engines: tuple[tuple[str, float, float, float], ...] = ()

    def for_engine(self, engine: str) -> DriveModel:
        """The drive as a job of fio's ioengine `engine` sees it: that engine's CPU per request and fixed parts
        (kernel completion vs polling) when the model has them (`engines`), else the model's own."""
        for name, host, r_over, w_over in self.engines:
            if name == engine:
                return replace(self, host_per_io=host, read_overhead=r_over, write_overhead=w_over, engines=())
        return self

    # ------------------------------------------------------------------ derived figures
    @property
    def program_bytes(self) -> float:
        """Bytes one program writes: the flash rate spread over the units."""
        return self.write_bandwidth * self.program_time / self.units

    def read_service(self, size: float = KIB4) -> float:
        """One unit's mean time for one chunk of a read of `size` bytes (retries included)."""
        chunk = max(min(size, self.page), ds.MIN_READ)
        return (
            self.mean_flash_read(chunk)
            + self.read_retry_fraction * self.read_retry_time
            + chunk / self.read_stream_bandwidth
        )

    def flash_read_time(self, chunk: float = KIB4) -> float:
        """The flash read of a chunk of `chunk` bytes: of part of a page for one 4 KiB unit, if the drive can."""
        return self.partial_read_time if self.partial_read_time > 0 and chunk <= ds.MIN_READ else self.read_flash_time

    def mean_flash_read(self, chunk: float = KIB4) -> float:
        """The mean flash read of a chunk: `flash_read_time`, or `fast_read_time` for data in the SLC region."""
        f = self.fast_read_fraction
        return (1.0 - f) * self.flash_read_time(chunk) + f * self.fast_read_time

    @property
    def read_iops(self) -> float:
        """Most 4KiB reads per second with every unit busy (the host link aside)."""
        return min(self.units / self.read_service(KIB4), self._read_stage_bandwidth / KIB4)

    @property
    def sequential_read_bandwidth(self) -> float:
        return min(self._read_stage_bandwidth, self.units * self.page / self.read_service(self.page))

    @property
    def _read_stage_bandwidth(self) -> float:
        """The host link's rate for reads, or the shared stage's when that is slower."""
        shared = self.shared_read_bandwidth
        return min(self.read_bandwidth, shared) if shared > 0 else self.read_bandwidth

    @property
    def program_rate(self) -> float:
        """Bytes/s the flash absorbs: the units' program rate, or the shared stage's rate for programs."""
        shared = self.shared_write_bandwidth
        return min(self.write_bandwidth, shared) if shared > 0 else self.write_bandwidth

    def read_latency_alone(self, size: float = KIB4) -> float:
        """Mean latency of one read at queue depth 1 (no collisions)."""
        shared = size / self.shared_read_bandwidth if self.shared_read_bandwidth > 0 else 0.0
        return self.host_per_io + self.read_overhead + self.read_service(size) + shared + size / self.read_bandwidth

    def command_interval(self, size: float = KIB4) -> float:
        """Seconds between two write commands of `size` bytes at the controller's full rate."""
        return command_interval(self.write_iops, self.write_unit, self.subunit_write_time, size)

    def write_latency_alone(self, size: float = KIB4) -> float:
        return (
            self.host_per_io
            + self.write_overhead
            + size / self.write_stream_bandwidth
            + self.write_command_share * self.command_interval(size)
        )

    def params(self, buffer_full: bool = False, buffer: float | None = None) -> np.ndarray:
        p = np.zeros(ds.N_PARAMS)
        p[ds.P_UNITS] = self.units
        p[ds.P_HOST] = self.host_per_io
        p[ds.P_PAGE] = self.page
        p[ds.P_R_OVER] = self.read_overhead
        p[ds.P_R_SIGMA] = self.read_sigma
        p[ds.P_R_FLASH] = self.read_flash_time
        p[ds.P_R_STREAM] = self.read_stream_bandwidth
        p[ds.P_R_LINK] = self.read_bandwidth
        p[ds.P_W_OVER] = self.write_overhead
        p[ds.P_W_SIGMA] = self.write_sigma
        p[ds.P_W_LINK] = self.write_stream_bandwidth
        p[ds.P_W_CMD] = 1.0 / self.write_iops
        p[ds.P_W_CMD_SHARE] = self.write_command_share
        p[ds.P_W_UNIT] = self.write_unit
        p[ds.P_W_SUBUNIT] = self.subunit_write_time
        p[ds.P_PROG_TIME] = self.program_time
        p[ds.P_PROG_BYTES] = self.program_bytes
        p[ds.P_BUFFER] = self.write_buffer if buffer is None else buffer
        p[ds.P_SUSPEND] = 1.0 if self.program_suspend else 0.0
        p[ds.P_SUSPEND_LAT] = self.suspend_latency
        p[ds.P_BUFFER_FULL] = 1.0 if buffer_full else 0.0
        p[ds.P_R_SLOW_P] = self.read_retry_fraction
        p[ds.P_R_SLOW_T] = self.read_retry_time
        p[ds.P_R_FAST_P] = self.fast_read_fraction
        p[ds.P_R_FAST_T] = self.fast_read_time
        p[ds.P_R_PARTIAL] = self.partial_read_time
        p[ds.P_SLOTS] = max(1, round(self.command_slots))
        p[ds.P_READAHEAD] = self.readahead
        p[ds.P_PROG_FIRST] = 1.0 if self.program_first else 0.0
        p[ds.P_W_WINDOW] = max(1, round(self.write_window))
        p[ds.P_W_DEFER] = self.map_update_time
        p[ds.P_W_DEBT] = self.map_update_backlog
        p[ds.P_SQS] = max(1, round(self.sq_count))
        p[ds.P_SQ_MOVE] = self.sq_move_interval
        p[ds.P_SHARED_R] = 1.0 / self.shared_read_bandwidth if self.shared_read_bandwidth > 0 else 0.0
        p[ds.P_SHARED_W] = 1.0 / self.shared_write_bandwidth if self.shared_write_bandwidth > 0 else 0.0
        p[ds.P_BUF_RELEASE] = self.write_buffer_release
        p[ds.P_SLOT_BYTES] = self.command_bytes
        return p

    # ------------------------------------------------------------------ for the kernel
    def seconds(self, read_bytes: float, write_bytes: float, random_reads: float) -> float:
        """Device-busy seconds: sequential reads at the array's streaming rate, writes at the flash
        program rate (the buffer only defers them), random block reads at the array's IOPS."""
        return (
            read_bytes / self.sequential_read_bandwidth
            + write_bytes / min(self.program_rate, self.write_stream_bandwidth)
            + random_reads / self.read_iops
        )

    def read_latency(self, read_iops: float = 0.0, write_bps: float = 0.0) -> float:
        """Mean latency of one synchronous 4KiB read while the device serves `read_iops` other
        random reads and absorbs `write_bps` bytes/s of writes (flushes, compactions, WAL): the
        units as M/G/1 queues with reads served before programs (`_priority_wait`)."""
        return self.read_latency_alone(KIB4) + self._priority_wait(read_iops, write_bps)

    def _priority_wait(self, read_iops: float, write_bps: float) -> float:
        """Mean wait of a read at its unit: Cobham's non-preemptive priority M/G/1 formula,
        W = R / (1 - rho_read) with reads first, W = R / ((1 - rho_prog)(1 - rho_prog - rho_read)) with
        `program_first` (reads the second class), R the mean residual work of whatever is in service
        (Cobham, "Priority assignment in waiting line problems", Oper. Res. 1954; Kleinrock,
        Queueing Systems vol. 2 §3.6). With program suspension a program in service costs a read
        only the suspend latency."""
        u = self.units
        s_r = self.read_service(KIB4)
        lam_r = read_iops / u
        lam_p = write_bps / max(self.program_bytes, 1.0) / u
        rho_r = min(lam_r * s_r, 0.98)
        rho_p = lam_p * self.program_time
        # second moment of the lognormal flash time plus the fixed transfer
        chunk = max(min(KIB4, self.page), ds.MIN_READ)
        tr, rest = self.mean_flash_read(chunk), chunk / self.read_stream_bandwidth
        p, slow = self.read_retry_fraction, self.read_retry_time
        f = self.fast_read_fraction
        tr2 = ((1.0 - f) * self.flash_read_time(chunk) ** 2 + f * self.fast_read_time**2) * math.exp(self.read_sigma**2)
        m1 = tr + rest
        m2_r = tr2 + 2 * tr * rest + rest**2 + p * (2 * m1 * slow + slow**2)
        if self.program_suspend:
            resid_p = rho_p * self.suspend_latency
        else:
            resid_p = lam_p * self.program_time**2 / 2.0
        resid = lam_r * m2_r / 2.0 + resid_p
        if self.program_first:
            rho_p = min(rho_p, 0.98 - rho_r)
            return resid / ((1.0 - rho_p) * (1.0 - rho_p - rho_r))
        return resid / (1.0 - rho_r)

    def gc_copy_seconds(self, page_bytes: float) -> float:
        """Device time to move one mapped unit during GC: a flash read and a program."""
        return 1.0 / self.read_iops + page_bytes / self.program_rate


@dataclass(frozen=True)
class Job:
    """One fio job as the model sees it."""

    size_read: float
    size_write: float
    read_fraction: float
    iodepth: int
    numjobs: int = 1
    runtime: float = 30.0  # seconds measured
    ramp: float = 0.0  # seconds before measuring (the buffer fills then too)
    sequential: bool = False  # fio rw=read/write/rw: the drive's read-ahead serves reads
    steady: bool = False  # the drive in steady state (written over): buffer spent from the start, GC (gc_write_amp)
    span: float = 0.0  # bytes the job's offsets cover (fio's size; 0: the whole drive)
    engine: str = ""  # fio's ioengine (DriveModel.for_engine)


@dataclass
class JobResult:
    """What fio would print for a job, per direction: IOPS, bytes/s, latency mean and percentiles."""

    iops: dict
    bandwidth: dict
    mean: dict
    percentiles: dict  # direction -> {pct: seconds}

    def get(self, direction: str, what: str) -> float:
        if what == "iops":
            return self.iops.get(direction, 0.0)
        if what == "bw":
            return self.bandwidth.get(direction, 0.0)
        if what == "mean":
            return self.mean.get(direction, float("nan"))
        return self.percentiles.get(direction, {}).get(float(what[1:]), float("nan"))


PCTS = (1.0, 5.0, 10.0, 50.0, 90.0, 95.0, 99.0, 99.9)
DIRS = ("read", "write")


def _simulate(model: DriveModel, job: Job, n_ios: int, seed: int, buffer_full: bool, buffer: float | None):
    slots = job.iodepth * job.numjobs
    warmup = max(1000, 4 * slots, n_ios // 10)
    p = model.params(buffer_full, buffer)
    d, lat, window, programmed = ds.simulate(
        p,
        float(job.size_read),
        float(job.size_write),
        float(job.read_fraction),
        int(job.iodepth),
        int(job.numjobs),
        int(n_ios),
        int(warmup),
        int(seed),
        bool(job.sequential),
    )
    return d, lat, max(window, 1e-12), programmed


def gc_write_amp(model: DriveModel, job: Job) -> float:
    """Flash bytes programmed per host byte written by `job`: 1 on a fresh drive and for sequential writes (they
    invalidate whole erase units); for random writes on a drive in steady state, greedy GC's under uniform overwrites
    (gc_theory.wa_greedy_limit: Desnoyers, SYSTOR'12 Eq. 1), the job's span overwritten and the drive's spare flash
    its room (the rest of the drive holds data the job never touches, which GC leaves in place)."""
    if not job.steady or job.sequential or job.read_fraction >= 1.0 or model.capacity <= 0:
        return 1.0
    span = min(job.span, model.capacity) if job.span > 0 else model.capacity
    return float(wa_greedy_limit(op_ratio=model.capacity * model.over_provisioning / span))


def gc_model(model: DriveModel, job: Job) -> DriveModel:
    """`model` with its programs carrying `job`'s GC (write amplification A, `gc_write_amp`): of each program's
    `program_bytes` only 1 / A are host data, the rest valid data moved out of a victim erase unit, each of its pages
    read first (`read_flash_time`), so a program frees 1 / A of its bytes in the buffer and takes the reads longer."""
    wa = gc_write_amp(model, job)
    if wa == 1.0:
        return model
    t = model.program_time + (1.0 - 1.0 / wa) * model.program_bytes / model.page * model.read_flash_time
    return replace(model, program_time=t, write_bandwidth=model.program_bytes / wa * model.units / t)


def _buffer_phases(model: DriveModel, job: Job, n_ios: int, seed: int):
    """[(time share, directions, latencies, window)] for the run: one phase while the
    buffer absorbs writes faster than the flash drains them, a throttled one once it is full. On a drive in steady
    state (`job.steady`) what ran before spent the buffer (an SLC cache) and GC slows the programs: throttled only."""
    big = 1e18
    model = gc_model(model, job)
    d, lat, win, programmed = _simulate(model, job, n_ios, seed, False, big)
    write_bps = float((d == 1).sum()) * job.size_write / win
    drain = programmed / win
    if write_bps <= drain * 1.02 or job.read_fraction >= 1.0:
        return [(1.0, d, lat, win)]
    fill = model.write_buffer / (write_bps - drain)  # seconds until the buffer is full
    measured_fill = 0.0 if job.steady else max(0.0, fill - job.ramp)
    if measured_fill >= job.runtime:
        return [(1.0, d, lat, win)]
    # the full phase's steady state, reached sooner in a smaller buffer: room for a stripe released at once and
    # four programs a unit, so the units never idle for want of buffered data (as in the full-size buffer)
    stripe = model.write_buffer_release + 4 * model.units * model.program_bytes
    small = max(job.size_write + model.program_bytes, min(model.write_buffer, stripe))
    d2, lat2, win2, _ = _simulate(model, job, n_ios, seed + 1, True, small)
    a = measured_fill / job.runtime  # time share of the buffered phase
    return [(a, d, lat, win), (1.0 - a, d2, lat2, win2)] if a > 0 else [(1.0, d2, lat2, win2)]


def _weighted_percentiles(values: list[np.ndarray], weights: list[float], pcts) -> dict:
    v = np.concatenate(values)
    w = np.concatenate([np.full(len(x), wt / max(len(x), 1)) for x, wt in zip(values, weights)])
    order = np.argsort(v, kind="stable")
    v, c = v[order], np.cumsum(w[order])
    c /= c[-1]
    return {float(p): float(v[min(np.searchsorted(c, p / 100.0), len(v) - 1)]) for p in pcts}


def fio_job(model: DriveModel, job: Job, n_ios: int = 40000, seed: int = 1) -> JobResult:
    """What fio would report for `job` on this drive (deterministic for a seed)."""
    model = model.for_engine(job.engine)
    phases = _buffer_phases(model, job, n_ios, seed)
    res = JobResult({}, {}, {}, {})
    for k, name in enumerate(DIRS):
        size = job.size_read if k == 0 else job.size_write
        vals, wts = [], []
        for share, d, lat, win in phases:
            m = d == k
            if m.any():
                vals.append(lat[m])
                wts.append(share * m.sum() / win)  # this direction's requests per second of the run
        if not vals:
            continue
        iops = float(sum(wts))
        res.iops[name] = iops
        res.bandwidth[name] = iops * size
        res.mean[name] = sum(wt * float(x.mean()) for x, wt in zip(vals, wts)) / iops
        res.percentiles[name] = _weighted_percentiles(vals, wts, PCTS)
    return res
