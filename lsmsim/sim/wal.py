"""The WAL on its way to the drive. RocksDB appends the WAL to the OS page cache (PosixWritableFile::Append returns
once the bytes are in memory), so a writer never waits for the device; who writes the dirty pages back decides
what reaches the drive, and when:

- WriteOptions::sync (`lsm.wal_sync`): each write group's leader fdatasyncs the WAL, every byte at once, and the
  group waits for it (device.sync_latency, sim/foreground.py group_commit).
- DBOptions::wal_bytes_per_sync > 0 (`lsm.wal_bytes_per_sync`): every that many bytes the writer starts the pages'
  writeback (file/writable_file_writer.cc WritableFileWriter::Flush -> RangeSync, sync_file_range with
  SYNC_FILE_RANGE_WRITE, which does not wait for it): every byte, soon after it is appended.
- Neither (RocksDB's and db_bench's default): Linux's flusher threads write an inode's dirty pages back once it has
  been dirty for vm.dirty_expire_centisecs (30 s), looking every vm.dirty_writeback_centisecs (5 s)
  (fs/fs-writeback.c, wb_writeback's kupdate pass; `machine.dirty_expire`, `machine.dirty_writeback`). A WAL is
  deleted once its memtable's flush is installed (db/db_impl/db_impl_files.cc PurgeObsoleteFiles), and the pages
  of a deleted file that were never written back never reach the drive.

Measured with db_bench 7.8.3 fillrandom 2M (64 MiB buffers, no compression) on this project's Xeon host, from
/proc/diskstats around the run: 262 MB of WAL appended, 291 MB reached the disk against 284 MB of flushes and
compactions; with --wal_bytes_per_sync=1048576, 606 MB against 346 MB. The dirty-memory thresholds
(vm.dirty_background_ratio, 10% of memory) are not modelled: they bind only when the unflushed memtables' WALs
exceed a tenth of the memory.
"""

from __future__ import annotations

import math

from .sharing import Flow


def written_back_share(first: float, last: float, deleted: float, expire: float, period: float) -> float:
    """The share of a WAL's bytes, appended evenly from `first` to `last` and deleted at `deleted`, that the flusher
    wrote back. The inode is first dirtied at `first`; the flusher writes all its dirty pages once they are
    `expire` old, on its next wake-up (on average `period` / 2 later), and the next append dirties it afresh."""
    cycle = expire + period / 2
    writebacks = math.floor((deleted - first) / cycle) if cycle > 0 else math.inf
    if writebacks < 1:
        return 0.0
    if writebacks == math.inf or last <= first:
        return 1.0
    return min(1.0, (writebacks * cycle) / (last - first))


class WalWriteback:
    """Which WAL bytes reach the drive (the device's writes and wear) and the device time they take: a flow of its
    own that no writer waits for, in the flushes' I/O class (the kernel's writeback writes a flush's buffered pages
    and the WAL's alike; RocksDB's IO priorities reach only its own rate limiter)."""

    def __init__(self, lsm, machine):
        self.enabled = bool(lsm.wal)
        # every byte goes to the drive while it is appended (a sync, or the writer's range syncs)
        self.immediate = self.enabled and (bool(lsm.wal_sync) or lsm.wal_bytes_per_sync > 0)
        self.expire, self.period = float(machine.dirty_expire), float(machine.dirty_writeback)
        self.share = 1.0 if self.immediate else 0.0  # of the appended bytes the drive writes (the last WAL's)
        self.rate = 0.0  # writes/s the writers appended in the last step
        self._times: dict[int, list[float]] = {}  # memtable id -> [first append, last append]

    def appended(self, memtable_id: int, nbytes: float, now: float) -> float:
        """A batch of WAL appends to memtable `memtable_id`'s log; returns the bytes that reach the drive now."""
        t = self._times.setdefault(memtable_id, [now, now])
        t[1] = now
        if self.immediate:
            return nbytes
        return 0.0

    def deleted(self, memtable_id: int, wal_bytes: float, now: float) -> float:
        """The WAL of memtable `memtable_id` (`wal_bytes` appended) is deleted; returns the bytes the flusher wrote
        back before that (0 when they went to the drive as they were appended)."""
        t = self._times.pop(memtable_id, None)
        if self.immediate or t is None:
            return 0.0
        self.share = written_back_share(t[0], t[1], now, self.expire, self.period)
        return self.share * wal_bytes

    def flow(self, seconds_per_write: float, rank: int) -> Flow | None:
        """The writeback's flow this step: the device time of the share of the last step's appends that reaches the
        drive (the OS follows the writers, one step behind)."""
        if not self.enabled or self.rate <= 0 or self.share <= 0 or seconds_per_write <= 0:
            return None
        return Flow("wal-writeback", rank, 1, 0.0, seconds_per_write, cap=self.rate * self.share)
