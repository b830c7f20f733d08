"""The SSD device (`device.model: ssd`): the timing model, extent allocator and FTL of `lsmsim.ssd` behind the
kernel's `Device` interface, and its options (`SSDOptions`; `preset` is filled in by `loading.expand_presets` before
validation).

Files map to logical pages through the extent allocator as they are written. Every kernel step hands the device the
bytes each open file received in that step; the device interleaves their pages in arrival order (page i of a stream
writing n pages in the step arrives at (i + 1/2)/n of it) and feeds them to the FTL, so concurrent flushes and
compactions mix their lifetimes in erase units as on a real drive (Spooky PVLDB'22 §3). Deleted files are TRIMmed at
once, by a periodic fstrim, or never (their LBAs are invalidated only when the allocator reuses them).

GC copies take device time: the foreground copies of a step are charged as busy seconds (the summary's gc_stall_s),
and the recent copies-per-host-page ratio inflates the device cost of host writes in the sharing solver, so GC
visibly slows host I/O. Background GC runs in idle device time.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from .. import units
from ..errors import ConfigError
from ..fields import Bandwidth, Bytes, Duration, OpRate, Section
from ..ssd.alloc import DeviceFullError as _AllocFull
from ..ssd.alloc import ExtentAllocator, extent_pages
from ..ssd.ftl import FTL, FTLConfig
from ._ssd_timing import drive_model  # noqa: F401  (re-exported: profile.py, tests)
from .base import Device, DeviceFullError, DeviceOptions
from .registry import register


# ---------------------------------------------------------------- options (the YAML `device:` section)
class DirectionOptions(Section):
    """One direction of the drive model (lsmsim/ssd/timing.py): its fixed overhead is what `latency` leaves."""

    latency: Duration = Field(
        gt=0, description="Mean latency of one 4KiB request alone (queue depth 1), host included."
    )
    stream_bandwidth: Bandwidth = Field(
        description="read: one unit's channel transfer; write: the host link carrying the data in."
    )
    bandwidth: Bandwidth = Field(description="read: the host link; write: the flash program rate over all units.")
    iops: OpRate | None = Field(
        None,
        gt=0,
        description="read: most 4KiB reads/s with every unit busy (gives flash_time when that is omitted); "
        "write: the controller's write command rate.",
    )
    flash_time: Duration | None = Field(
        None, gt=0, description="read: one flash read (tR); write: one program (tPROG, default 1ms)."
    )
    sigma: float = Field(0.1, ge=0, le=3, description="Lognormal shape of the request's fixed parts (QD1 spread).")
    shared_bandwidth: Bandwidth | None = Field(
        None, description="read: reads' rate, write: programs', through one controller stage both share (FCFS)."
    )


class EngineOptions(Section):
    """The host's cost with another fio ioengine on the same drive (lsmsim/ssd/engines.py)."""

    host_per_io: Duration = Field(ge=0, description="Host CPU per request of one submitting thread.")
    read_latency: Duration | None = Field(None, gt=0, description="A 4KiB read alone (depth 1); none: the profile's.")
    write_latency: Duration | None = Field(None, gt=0, description="A 4KiB write alone; none: the profile's.")


class FtlOptions(Section):
    """Page-mapped FTL with erase-unit garbage collection (lsmsim/ssd/ftl/)."""

    enabled: bool = Field(True, description="false: no GC at all (in-place media such as Optane).")
    mapping_unit: Literal["auto"] | Bytes = Field(
        "auto",
        description="Bytes per mapped logical page. auto: 4KiB, or for a capacity of more than "
        "16Mi such pages the smallest power of two that maps it in 16Mi pages (at most erase_unit/64): "
        "the FTL's tables take 8 bytes per page (1.9 GB at 4KiB for 960GB, 0.12 GB at 64KiB). LSM "
        "writes are whole files, so a coarser unit changes GC only by rounding each file up to whole "
        "pages (tests/test_ssd_device.py); set 4KiB where GC is under study.",
    )
    erase_unit: Bytes = Field(units.parse_size("4MiB"), gt=0, description="Bytes per erase block.")
    over_provisioning: float = Field(0.07, ge=0, lt=10)
    op_definition: Literal["ratio", "spare_factor"] = Field(
        "ratio",
        description="ratio: (physical - logical) / logical, the industry's 7%/28%; "
        "spare_factor: (physical - logical) / physical, as MQSim and SimpleSSD.",
    )
    frontiers: int = Field(1, ge=1, le=64, description="Open write frontiers (erase blocks being filled).")
    frontier_by: Literal["none", "level"] = Field(
        "none",
        description="none: all host writes share frontier 0 in arrival order; level: an LSM "
        "level's files go to frontier min(level, frontiers - 1) (multi-stream SSD).",
    )
    victim: Literal["greedy", "cost_benefit"] = "greedy"
    gc_free_low: int | None = Field(None, ge=1, description="Foreground GC below this many free blocks.")
    gc_free_high: int | None = Field(None, ge=1, description="Background GC, when idle, up to this many.")
    background_gc: bool = True
    trim: Literal["immediate", "periodic", "none"] = Field(
        "immediate",
        description="When deleted files' pages are discarded: at once (discard mount "
        "option), by a periodic fstrim, or never (LBAs are invalidated only "
        "when reused).",
    )
    fstrim_period: Duration = Field(units.parse_duration("1h"), gt=0)


class SSDOptions(DeviceOptions):
    """An SSD: the timing model of lsmsim/ssd/timing.py and an FTL. `preset` loads a device from
    lsmsim/presets/devices/ (fields given here override it)."""

    model: Literal["ssd"]
    preset: str | None = None
    source: str = Field("", description="Where the numbers come from (datasheet, fio traces).")
    capacity: Bytes = Field(units.parse_size("960GB"), gt=0, description="Logical capacity.")
    channels: int = Field(8, ge=1)
    dies_per_channel: int = Field(4, ge=1)
    read: DirectionOptions
    write: DirectionOptions
    ftl: FtlOptions = FtlOptions()
    host_per_io: Duration = Field(
        0.0, description="Host CPU per request of one submitting thread (fio's limit; not used by the LSM kernel)."
    )
    ioengine: str = Field("", description="fio's ioengine the host cost above was fitted with ('': any).")
    engines: dict[str, EngineOptions] = Field(
        {}, description="Other fio ioengines' host costs on this drive (fitted by `lsmsim ssd calibrate`)."
    )
    flash_page: Bytes = Field(16384, gt=0, description="Bytes of a read one unit serves (a NAND page).")
    write_buffer: Bytes = Field(
        units.parse_size("64MiB"), gt=0, description="Write-back buffer (DRAM or SLC cache) acknowledging writes."
    )
    write_buffer_release: Bytes = Field(
        0,
        ge=0,
        description="Programmed bytes become room in the write buffer this many at a time (a stripe of programs "
        "committed together), so writes on a full buffer wait in lumps; 0: each program's when it ends (fitted).",
    )
    read_retry_fraction: float = Field(0.002, ge=0, le=1, description="Share of flash reads retried (ECC failure).")
    read_retry_time: Duration = Field(units.parse_duration("300us"), ge=0, description="Extra time of a retried read.")
    fast_read_fraction: float = Field(0.0, ge=0, le=1, description="Share of flash reads of data in the SLC region.")
    fast_read_time: Duration = Field(units.parse_duration("20us"), gt=0, description="Their flash read.")
    partial_read_time: Duration = Field(0.0, ge=0, description="Flash read of one 4KiB unit alone (0: a page's).")
    program_suspend: bool = Field(False, description="Reads suspend a program in progress (Wu & He, FAST'12).")
    program_first: bool = Field(
        False,
        description="A flash unit that finishes a job starts the next program from the write buffer before its "
        "queued reads (writes stay fast, reads wait); false: reads first.",
    )
    suspend_latency: Duration = Field(units.parse_duration("20us"), gt=0)
    readahead: Bytes = Field(0, ge=0, description="Bytes the controller reads ahead for sequential reads; 0: none.")
    write_command_share: float = Field(
        1.0,
        gt=0,
        le=1,
        description="Share of the write command interval (1 / write.iops) a write waits in the controller: 1 serves "
        "one command at a time; below 1 commands overlap, the rate still capping IOPS (fitted to fio traces).",
    )
    write_unit: Bytes = Field(
        4096,
        gt=0,
        description="Program unit: a write smaller than this takes subunit_write_time more in the controller's command "
        "stage, merged into a whole unit (fitted to fio traces of several write sizes).",
    )
    subunit_write_time: Duration = Field(
        units.parse_duration("2us"), ge=0, description="Extra command time of a write smaller than write_unit."
    )
    command_slots: int = Field(1024, ge=1, description="Commands the drive serves at once; more wait to be submitted.")
    command_bytes: Bytes = Field(0, ge=0, description="Most data the commands it serves carry at once (0: no limit).")
    write_window: int = Field(
        1,
        ge=1,
        description="Random writes waiting in the controller (for its command stage or for room in the write buffer) "
        "are taken in no fixed order: one of the write_window oldest, at random; 1 keeps submission order (fitted "
        "to fio traces: random writes at depth spread their latency as the exponential does; sequential ones keep "
        "their order). Shapes latencies, not throughput.",
    )
    map_update_time: Duration = Field(
        0.0,
        ge=0,
        description="Of a random write's command interval (1 / write.iops), the mapping-table update the controller "
        "defers: done while it idles, or all at once when the deferred updates would pass map_update_backlog (the "
        "writes behind wait). 0: none. Shapes latencies at depth, not throughput (fitted to fio traces).",
    )
    map_update_backlog: Duration = Field(
        units.parse_duration("200us"), gt=0, description="The most map_update_time the controller defers at once."
    )
    sq_count: int = Field(
        1, ge=1, description="Submission queues (one per CPU) a submitting thread moves among, fetched in turn."
    )
    sq_move_interval: Duration = Field(
        0.0,
        ge=0,
        description="Mean time between the submitting thread's moves to another CPU's queue (0: never): requests "
        "past command_slots wait in the queue they were submitted to (lsmsim/ssd/host_queues.py).",
    )
    fio_traces: list[str] = Field(
        [], description="Globs (under the fio-real folder) of the traces this profile was fitted to and replays."
    )
    fit_traces: list[str] = Field(
        [],
        description="Globs of the traces the fit saw, when only some of fio_traces: `replay --all` scores the others "
        "apart, as held out.",
    )
    steady_traces: list[str] = Field(
        [],
        description="Globs of the traces recorded with the drive in steady state: written over, its write buffer (SLC "
        "cache) spent by what ran before and GC at work (lsmsim/ssd/timing.py gc_write_amp); the rest: fresh.",
    )

    @model_validator(mode="after")
    def _read_flash_time(self):
        """A read needs its flash time, or the IOPS it implies: with every unit busy a device
        serves channels x dies reads per read service time (Agrawal et al., USENIX ATC'08 §3)."""
        if self.read.flash_time is None and self.read.iops is None:
            raise ValueError("read: give 'iops', or 'flash_time' to derive it from channels x dies")
        return self


# ---------------------------------------------------------------- the device
MAX_AUTO_PAGES = 1 << 24  # logical pages an `auto` mapping unit keeps the FTL under (128 MiB of tables)


def mapping_unit(cfg: SSDOptions) -> int:
    """The FTL's mapping unit in bytes: device.ftl.mapping_unit, or for `auto` the smallest power of two
    from 4KiB that maps `capacity` in MAX_AUTO_PAGES pages, capped at erase_unit/64 pages per block."""
    f = cfg.ftl
    if f.mapping_unit != "auto":
        return int(f.mapping_unit)
    unit = 4096
    while cfg.capacity // unit > MAX_AUTO_PAGES and unit * 2 * 64 <= int(f.erase_unit):
        unit *= 2
    return unit


@register
class SSDDevice(Device):
    model = "ssd"
    Options = SSDOptions
    GC_WINDOW_PAGES = 1 << 16  # pages over which the recent GC ratio is averaged

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.timing = drive_model(cfg)
        f = cfg.ftl
        self.page = mapping_unit(cfg)
        self.pages_total = int(cfg.capacity // self.page)
        self.alloc = ExtentAllocator(self.pages_total)
        self.ftl = None
        if f.enabled:
            self.ftl = self._make_ftl(cfg, f)
        self._copy_s = self.timing.gc_copy_seconds(self.page)
        self._written: dict[int, float] = {}  # file id -> bytes written so far
        self._pages: dict[int, int] = {}  # file id -> pages written so far
        self._hint: dict[int, int] = {}  # file id -> frontier
        self._chunks: dict[int, list[int]] = {}  # file id -> allocator keys of its chunks
        self._alloc_key = 0
        self._last_host = 0
        self._to_trim: list[np.ndarray] = []
        self._next_fstrim = f.fstrim_period
        self.gc_ratio = 0.0  # recent foreground GC copies per host page
        self.gc_stall_s = 0.0
        self._last_copies = 0
        self.peak_used_pages = 0

    def _make_ftl(self, cfg, f) -> FTL:
        keep = ("over_provisioning", "op_definition", "frontiers", "victim", "gc_free_low", "gc_free_high")
        opts = {k: getattr(f, k) for k in keep}
        try:
            return FTL(
                FTLConfig(
                    logical_bytes=self.pages_total * self.page,
                    mapping_unit=self.page,
                    erase_unit=int(f.erase_unit),
                    seed=0,
                    **opts,
                )
            )
        except ConfigError as e:  # name the YAML paths the FTL's checks refer to
            raise ConfigError("<config>", [(f"device.ftl.{p}", m) for p, m in e.errors]) from None

    # ---------------------------------------------------------------- costs
    def seconds(self, read_bytes, write_bytes, random_reads):
        s = self.timing.seconds(read_bytes, write_bytes, random_reads)
        if write_bytes and self.gc_ratio:
            s += write_bytes / self.page * self.gc_ratio * self._copy_s
        return s

    def read_latency(self, utilization, write_bps=0.0):
        """One 4KiB read while flushes and compactions write `write_bps` and the rest of the
        device's busy time is reads: programs on the read's unit delay it (timing.read_latency)."""
        t = self.timing
        write_busy = write_bps / min(t.program_rate, t.write_stream_bandwidth)
        read_iops = max(0.0, utilization - write_busy) * t.read_iops
        return t.read_latency(read_iops, write_bps)

    def write_latency(self) -> float:
        return self.cfg.write.latency

    # ---------------------------------------------------------------- writes
    def _frontier(self, hint: int) -> int:
        f = self.cfg.ftl
        if f.frontier_by == "level" and f.frontiers > 1:
            return min(max(hint, 0), f.frontiers - 1)
        return 0

    def _take_pages(self, fid: int, n: int) -> np.ndarray:
        """Logical pages for the next n pages of file `fid` (allocated as the file grows)."""
        self._alloc_key += 1  # one allocator entry per chunk of a growing file
        key = self._alloc_key
        try:
            extents = self.alloc.alloc(key, n)
        except _AllocFull:
            raise DeviceFullError(
                f"device full: {self.pages_total * self.page / 1e9:.2f} GB of logical capacity cannot hold "
                f"the tree and its in-flight outputs; raise device.capacity"
            ) from None
        lpns = extent_pages(extents)
        self._chunks.setdefault(fid, []).append(key)
        self.peak_used_pages = max(self.peak_used_pages, self.alloc.used_pages)
        return lpns

    def write_streams(self, writes: list[tuple[int, float, int]]) -> None:
        """Bytes each file received in this step: (file id, bytes, level hint), in one batch."""
        parts, hints = [], []
        for fid, nbytes, hint in writes:
            if nbytes <= 0:
                continue
            if fid not in self._written:
                self._hint[fid] = self._frontier(hint)
            done = self._written.get(fid, 0.0) + nbytes
            self._written[fid] = done
            n = int(done // self.page) - self._pages.get(fid, 0)
            if n <= 0:
                continue
            self._pages[fid] = self._pages.get(fid, 0) + n
            parts.append(self._take_pages(fid, n))
            hints.append(self._hint[fid])
        if not parts or self.ftl is None:
            return
        if len(parts) == 1:
            self.ftl.write(parts[0], hints[0])
        else:  # interleave the files' pages in arrival order within the step
            times = np.concatenate([(np.arange(p.size) + 0.5) / p.size for p in parts])
            order = np.argsort(times, kind="stable")
            fronts = np.concatenate([np.full(p.size, h, np.int32) for p, h in zip(parts, hints)])
            self.ftl.write(np.concatenate(parts)[order], fronts[order])
        self._charge_gc()

    def file_written(self, file_id, nbytes):
        """The file is complete: write its last partial page."""
        done = self._written.get(file_id, 0.0)
        n = int(math.ceil(done / self.page)) - self._pages.get(file_id, 0)
        if n > 0 and self.ftl is not None:
            self._pages[file_id] = self._pages.get(file_id, 0) + n
            self.ftl.write(self._take_pages(file_id, n), self._hint.get(file_id, 0))
            self._charge_gc()

    def file_deleted(self, file_id, nbytes):
        lpns = [self.alloc.free(k) for k in self._chunks.pop(file_id, [])]
        self._written.pop(file_id, None)
        self._pages.pop(file_id, None)
        self._hint.pop(file_id, None)
        if self.ftl is None:
            return
        pages = extent_pages([e for ex in lpns for e in ex])
        if not pages.size:
            return
        mode = self.cfg.ftl.trim
        if mode == "immediate":
            self.ftl.trim(pages)
        elif mode == "periodic":
            self._to_trim.append(pages)

    def _charge_gc(self) -> None:
        copies = self.ftl.fg_gc_copies - self._last_copies
        self._last_copies = self.ftl.fg_gc_copies
        if copies:
            t = copies * self._copy_s
            self.gc_stall_s += t
            self.busy_seconds += t
        host = self.ftl.host_pages
        new = max(1, host - self._last_host)
        w = min(1.0, new / self.GC_WINDOW_PAGES)
        recent = copies / new
        self.gc_ratio += w * (recent - self.gc_ratio)
        self._last_host = host

    # ---------------------------------------------------------------- time passing
    def advance(self, now: float, idle_seconds: float) -> None:
        """Periodic fstrim and background GC in the device's idle time."""
        if self.ftl is None:
            return
        if self._to_trim and now >= self._next_fstrim:
            self.ftl.trim(np.concatenate(self._to_trim))
            self._to_trim.clear()
        while now >= self._next_fstrim:
            self._next_fstrim += self.cfg.ftl.fstrim_period
        if self.cfg.ftl.background_gc and idle_seconds > 0:
            self.ftl.idle_gc(int(idle_seconds / self._copy_s))

    def sample(self) -> dict:
        if self.ftl is None:
            return {"gc_write_amp": 1.0, "gc_write_amp_interval": 1.0, "erases": 0}
        f = self.ftl
        last = getattr(self, "_sample_last", (0, 0))
        dh, dfl = f.host_pages - last[0], f.flash_pages - last[1]
        self._sample_last = (f.host_pages, f.flash_pages)
        return {
            "gc_write_amp": f.flash_pages / f.host_pages if f.host_pages else 1.0,
            "gc_write_amp_interval": dfl / dh if dh else float("nan"),
            "erases": int(f.erases),
            "gc_stall_s": self.gc_stall_s,
        }

    def stats(self) -> dict:
        s = super().stats()
        s["device_peak_utilization"] = self.peak_used_pages / self.pages_total
        if self.ftl is None:
            s.update(
                {
                    "gc_write_amp": 1.0,
                    "flash_write_bytes": self.host_write_bytes,
                    "erases": 0,
                    "gc_copies": 0,
                    "gc_stall_s": 0.0,
                }
            )
            return s
        f = self.ftl
        ec = f.erase_counts
        s.update(
            {
                "gc_write_amp": f.flash_pages / f.host_pages if f.host_pages else 1.0,
                "ftl_mapping_unit": self.page,
                "flash_write_bytes": float(f.flash_pages * self.page),
                "erases": int(f.erases),
                "gc_copies": int(f.gc_copies),
                "gc_copies_foreground": int(f.fg_gc_copies),
                "gc_copies_background": int(f.bg_gc_copies),
                "gc_stall_s": self.gc_stall_s,
                "erase_count_max": int(ec.max()) if ec.size else 0,
                "erase_count_mean": float(ec.mean()) if ec.size else 0.0,
                "wear_spread": float(ec.max() - ec.min()) if ec.size else 0.0,
            }
        )
        return s
