"""The WAL on its way to the drive. RocksDB appends the WAL to the OS page cache (PosixWritableFile::Append returns
once the bytes are in memory), so a writer never waits for the device; who writes the dirty pages back decides
what reaches the drive, and when:

- WriteOptions::sync (`lsm.wal_sync`): each write group's leader fdatasyncs the WAL, every byte at once, and the
  group waits for it (device.sync_latency, sim/foreground.py group_commit).
- DBOptions::wal_bytes_per_sync = B > 0 (`lsm.wal_bytes_per_sync`): the writer starts the writeback of the WAL's
  pages B bytes at a time, up to 1 MiB behind its end (file/writable_file_writer.cc WritableFileWriter::Flush:
  kBytesNotSyncRange; RangeSync is sync_file_range with SYNC_FILE_RANGE_WRITE, which does not wait): a WAL of W
  bytes sends B floor((W - 1 MiB) / B) of them as they are appended; the rest is the OS's, as below.
- Neither, and the bytes a range sync left: Linux's flusher threads write an inode's dirty pages back once it has
  been dirty for vm.dirty_expire_centisecs (30 s), looking every vm.dirty_writeback_centisecs (5 s)
  (fs/fs-writeback.c, wb_writeback's kupdate pass; `machine.dirty_expire`, `machine.dirty_writeback`). A WAL is
  deleted once its memtable's flush is installed (db/db_impl/db_impl_files.cc PurgeObsoleteFiles), and the pages
  of a deleted file that were never written back never reach the drive.

Measured with db_bench 7.8.3 fillrandom 2M (64 MiB buffers, no compression) on this project's Xeon host, from
/proc/diskstats around the run: 262 MB of WAL appended, 291 MB reached the disk against 284 MB of flushes and
compactions; with --wal_bytes_per_sync=1048576, 606 MB against 346 MB (tests/test_wal.py repeats this with 4 MiB
memtables, where the last MiB of each 4 MB WAL is lost with it). The dirty-memory thresholds
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


def _varint_len(n: float) -> int:
    """Bytes of n as a varint32 (util/coding.h)."""
    return max(1, math.ceil(max(0, round(n)).bit_length() / 7))


LOG_HEADER = 7  # log::Writer's record header (db/log_format.h kHeaderSize)
NOT_SYNCED = 1 << 20  # the WAL's last bytes a range sync leaves (kBytesNotSyncRange)


class WalWriteback:
    """Which WAL bytes reach the drive (the device's writes and wear) and the device time they take: a flow of its
    own that no writer waits for, in the flushes' I/O class (the kernel's writeback writes a flush's buffered pages
    and the WAL's alike; RocksDB's IO priorities reach only its own rate limiter)."""

    def __init__(self, lsm, machine, key_size: int = 16):
        self.enabled = bool(lsm.wal)
        self.key_size = int(key_size)
        self.synced = self.enabled and bool(lsm.wal_sync)  # every write group's bytes, at once
        self.per_sync = float(lsm.wal_bytes_per_sync) if self.enabled else 0.0
        self.expire, self.period = float(machine.dirty_expire), float(machine.dirty_writeback)
        # of the appended bytes, the share the drive writes (the last deleted WAL's; a first guess before one)
        self.share = 1.0 if self.synced or self.per_sync > 0 else 0.0
        self.rate = 0.0  # writes/s the writers appended in the last step
        self._wals: dict[int, list[float]] = {}  # memtable id -> [first append, last append, bytes, bytes sent]

    def record_bytes(self, user_bytes: float, writes: int = 1) -> float:
        """The WAL's bytes for `writes` single-write batches of `user_bytes` keys and values in all: a WriteBatch's
        12-byte header, each entry's tag and varint lengths (db/write_batch.cc), and log::Writer's 7-byte record
        header (db/log_format.h kHeaderSize). 16-byte keys and 100-byte values take 138 bytes."""
        if writes <= 0:
            return 0.0
        value = max(0.0, user_bytes / writes - self.key_size)
        return user_bytes + writes * (12 + 1 + LOG_HEADER + _varint_len(self.key_size) + _varint_len(value))

    def user_share(self, user_bytes: float) -> float:
        """Of a one-write batch (WriteBatch::GetDataSize, what RocksDB's write limiters count), the user's bytes."""
        return user_bytes / (self.record_bytes(user_bytes) - LOG_HEADER)

    def appended(self, memtable_id: int, nbytes: float, now: float) -> float:
        """A batch of WAL appends to memtable `memtable_id`'s log; returns the bytes that reach the drive now."""
        w = self._wals.setdefault(memtable_id, [now, now, 0.0, 0.0])
        w[1] = now
        w[2] += nbytes
        if self.synced:
            w[3] = w[2]
            return nbytes
        if self.per_sync > 0:
            to = self.per_sync * math.floor(max(0.0, w[2] - NOT_SYNCED) / self.per_sync)
            if to > w[3]:
                sent, w[3] = to - w[3], to
                return sent
        return 0.0

    def deleted(self, memtable_id: int, now: float) -> float:
        """Memtable `memtable_id`'s WAL is deleted; returns the bytes the flusher wrote back before then (of those the
        range syncs or a sync had not sent as they were appended)."""
        w = self._wals.pop(memtable_id, None)
        if w is None or w[2] <= 0:
            return 0.0
        later = (w[2] - w[3]) * written_back_share(w[0], w[1], now, self.expire, self.period)
        self.share = (w[3] + later) / w[2]
        return later

    def flow(self, dev, user_bytes_per_write: float, rank: int) -> Flow | None:
        """The writeback's flow this step: the device time of the share of the last step's appends that reaches the
        drive (the OS follows the writers, one step behind)."""
        if not self.enabled or self.rate <= 0 or self.share <= 0:
            return None
        seconds = dev.seconds(0.0, self.record_bytes(user_bytes_per_write), 0.0)
        return Flow("wal-writeback", rank, 1, 0.0, seconds, cap=self.rate * self.share)
