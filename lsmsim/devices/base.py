"""The device interface the kernel talks to.

Every flow's I/O is converted to *device seconds*: the time the device is busy serving it, so that
read/write interference follows from one shared capacity of 1 device-second per second. The simple
bandwidth/latency model (`simple.py`) and the SSD model (`ssd.py`) implement it.

A new device model is one module in this package: an options class (`DeviceOptions` with a
`model: Literal["..."]`) and a `Device` subclass with `model`, `Options` set and `@register`.
"""

from __future__ import annotations

import abc
from typing import ClassVar

from pydantic import Field

from ..errors import LsmsimError
from ..fields import Bandwidth, Duration, Section


class DeviceFullError(LsmsimError):
    """A device model ran out of logical capacity (files, WAL, outputs in flight). The kernel ends the run there
    (sim/limits.py), as Spooky's runs crashed."""


class DeviceOptions(Section):
    """Base of every device model's options (the YAML `device:` section); subclasses add `model: Literal[...]`."""

    model: str
    sync_bandwidth: Bandwidth | None = Field(
        None,
        gt=0,
        description="How fast an fsync of freshly written buffered data completes. RocksDB syncs every flush "
        "and compaction output file at close (WritableFileWriter::Sync), and its thread waits. None: free.",
    )
    sync_latency: Duration | None = Field(
        None,
        gt=0,
        description="How long an fdatasync of a small WAL append takes (lsm.wal_sync: one per write group; RocksDB's "
        "rocksdb.wal.file.sync.micros). None: the drive's write latency (one 4 KiB write at queue depth 1).",
    )
    sync_per_file: Duration = Field(
        0.0,
        ge=0,
        description="A flush or compaction thread's wait per output file beyond sync_bandwidth's share: the fsync of "
        "a new file commits its inode and the journal whatever the bytes (WritableFileWriter::Sync at close). "
        "0.6-1.0 ms in three fits on the EPYC host's virtio disk on 2026-11-29 (LOG: wall less CPU time against jobs, "
        "files and bytes; job_costs.py), with sync_per_job a one-file job's 1.4-3.2 ms in all.",
    )
    sync_per_job: Duration = Field(
        0.0,
        ge=0,
        description="A flush or compaction's wait once per job beyond its files': the directory fsync after its "
        "outputs (FlushJob::WriteLevel0Table, CompactionJob::Run: FsyncWithDirOptions). 0.3-2.4 ms in three fits on "
        "the EPYC host's virtio disk on 2026-11-29 (as sync_per_file; the split between the two is the least sure).",
    )


class Device(abc.ABC):
    """What the kernel asks of a device."""

    model: ClassVar[str]
    Options: ClassVar[type[DeviceOptions]]

    def __init__(self):
        self.host_read_bytes = 0.0
        self.host_write_bytes = 0.0
        self.random_reads = 0.0
        self.busy_seconds = 0.0

    @abc.abstractmethod
    def seconds(self, read_bytes: float, write_bytes: float, random_reads: float) -> float:
        """Device-busy seconds to serve this much I/O."""

    def sync_seconds(self, write_bytes: float, files: int = 0) -> float:
        """Seconds a thread waits in fsync for `write_bytes` it wrote through the page cache, in `files` new table
        files of one job (a flush or compaction: its per-file and per-job syncs; none without files)."""
        cfg = getattr(self, "cfg", None)
        bw = getattr(cfg, "sync_bandwidth", None)
        seconds = write_bytes / bw if bw else 0.0
        if files:
            seconds += getattr(cfg, "sync_per_job", 0.0) + files * getattr(cfg, "sync_per_file", 0.0)
        return seconds

    def wal_sync_seconds(self) -> float:
        """Seconds one WAL sync (fdatasync of a small append) takes: `sync_latency`, or the drive's write latency."""
        cfg = getattr(self, "cfg", None)
        s = getattr(cfg, "sync_latency", None)
        return s if s is not None else self.write_latency()

    def write_latency(self) -> float:
        """Latency of one 4 KiB write alone (queue depth 1); models override it."""
        return self.seconds(0.0, 4096.0, 0.0)

    @abc.abstractmethod
    def read_latency(self, utilization: float, write_bps: float = 0.0) -> float:
        """Latency of one synchronous random block read at this device utilisation, of which
        `write_bps` bytes/s are writes (flushes, compactions, WAL)."""

    def account(self, read_bytes: float, write_bytes: float, random_reads: float, block_size: float) -> None:
        """Record I/O served (the FTL model also maps writes to flash here)."""
        self.host_read_bytes += read_bytes + random_reads * block_size
        self.host_write_bytes += write_bytes
        self.random_reads += random_reads
        self.busy_seconds += self.seconds(read_bytes, write_bytes, random_reads)

    def write_streams(self, writes: list[tuple[int, float, int]]) -> None:
        """Bytes each file received during one kernel step, as (file id, bytes, level hint); the
        SSD model interleaves them into flash in arrival order."""

    def advance(self, now: float, idle_seconds: float) -> None:
        """Time passed; `idle_seconds` of it the device was idle (background GC, periodic fstrim)."""

    def file_written(self, file_id: int, nbytes: int) -> None:
        """A file is complete (the SSD model writes its last partial page)."""

    def file_deleted(self, file_id: int, nbytes: int) -> None:
        """A file was deleted (the FTL model TRIMs it)."""

    def sample(self) -> dict:
        """Columns for the time series (the SSD model adds GC write-amp and erases)."""
        return {}

    def stats(self) -> dict:
        return {
            "device_host_read_bytes": self.host_read_bytes,
            "device_host_write_bytes": self.host_write_bytes,
            "device_random_reads": self.random_reads,
            "device_busy_s": self.busy_seconds,
        }
