"""A small Python API over RocksDB's C API (`rocksdb/c.h`, RocksDB 7.8): open/put/get/delete, write
batches, iterators, flush, manual compactions, properties, statistics and live-file metadata.

`RocksDB`, the open DB, composes the pieces: `Options` (options.py) configure it, `WriteBatch`
(batch.py) and `Iterator` (iterator.py) work on it, and its statistics and live files are decoded by
metadata.py. Every C handle is owned by one Python object that frees it exactly once. Methods on a
closed DB, iterator or batch raise RocksDBError("... is closed") instead of touching freed memory; every native
call on a DB or its iterators holds the DB's lock, so a close() from another thread waits for it; a DB closes
its open iterators before itself (RocksDB requires iterators to be destroyed before their DB).
"""

from __future__ import annotations

import builtins
import ctypes
import operator
import threading
import time
import weakref
from ctypes import byref, c_size_t, c_uint64, c_void_p

from . import lib as _lib
from .batch import WriteBatch
from .handles import Closable, to_bytes
from .iterator import Iterator
from .lib import RocksDBError
from .metadata import LiveFile, parse_statistics, read_live_files
from .options import Options


def _int_in(v, lo: int, hi: int) -> bool:
    """`v` is an integer (numpy's too, not a bool) within [lo, hi]."""
    try:
        i = operator.index(v)
    except TypeError:
        return False
    return not isinstance(v, bool) and lo <= i <= hi


class RocksDB(Closable):
    """An open RocksDB database. Open with RocksDB.open(path, options); usable as a context manager."""

    def __init__(self, lib, handle: int, path: str, options: Options, c_options: int):
        self._lib, self._h, self.path, self.options = lib, handle, path, options
        self._copts = c_options  # kept alive: the statistics object lives in it
        self._ropts = lib.rocksdb_readoptions_create()
        self._wopts = lib.rocksdb_writeoptions_create()
        lib.rocksdb_writeoptions_disable_WAL(self._wopts, int(bool(options.disable_wal)))
        lib.rocksdb_writeoptions_set_sync(self._wopts, int(bool(options.sync)))
        lib.rocksdb_writeoptions_set_low_pri(self._wopts, int(bool(options.low_pri)))
        self._closed = False
        self._lock = threading.RLock()
        self._iters: weakref.WeakSet = weakref.WeakSet()
        self._live_iters = 0  # native iterators not yet destroyed (the WeakSet can miss some in GC)

    @classmethod
    def open(cls, path, options: Options | None = None) -> RocksDB:
        """Open (creating, with create_if_missing) the database at `path` (rocksdb_open)."""
        lib = _lib.load()
        options = options or Options()
        if "\0" in str(path):  # C would cut the path there and open another database
            raise RocksDBError(f"cannot open RocksDB at {str(path)!r}: a path cannot hold a NUL byte")
        copts = options._to_c(lib)
        err = c_void_p()
        h = lib.rocksdb_open(copts, str(path).encode(), byref(err))
        msg = _lib.take_error(lib, err)
        if msg is not None or not h:
            lib.rocksdb_options_destroy(copts)
            raise RocksDBError(f"cannot open RocksDB at {path}: {msg or 'rocksdb_open returned NULL'}")
        return cls(lib, h, str(path), options, copts)

    @staticmethod
    def destroy(path, options: Options | None = None) -> None:
        """Delete the database at `path` and its files (rocksdb_destroy_db); the DB must not be open."""
        lib = _lib.load()
        copts = (options or Options())._to_c(lib)
        try:
            err = c_void_p()
            lib.rocksdb_destroy_db(copts, str(path).encode(), byref(err))
            _lib.check(lib, err)
        finally:
            lib.rocksdb_options_destroy(copts)

    def _handle(self) -> int:
        if self._closed:
            raise RocksDBError(f"RocksDB at {self.path} is closed")
        return self._h

    # -- reads and writes ---------------------------------------------------------------------------
    def put(self, key, value) -> None:
        k, v = to_bytes(key), to_bytes(value)
        err = c_void_p()
        with self._lock:  # close() from another thread waits for the native call (issue 18: it segfaulted)
            self._lib.rocksdb_put(self._handle(), self._wopts, k, len(k), v, len(v), byref(err))
        if err.value:
            _lib.check(self._lib, err)

    def delete(self, key) -> None:
        k = to_bytes(key)
        err = c_void_p()
        with self._lock:
            self._lib.rocksdb_delete(self._handle(), self._wopts, k, len(k), byref(err))
        if err.value:
            _lib.check(self._lib, err)

    def get(self, key) -> bytes | None:
        """The value of `key`, or None when absent (c.h: rocksdb_get returns NULL if not found)."""
        k = to_bytes(key)
        err, n = c_void_p(), c_size_t()
        with self._lock:
            p = self._lib.rocksdb_get(self._handle(), self._ropts, k, len(k), byref(n), byref(err))
        if err.value:
            _lib.take_buffer(self._lib, p)
            _lib.check(self._lib, err)
        return _lib.take_buffer(self._lib, p, n.value)

    def write(self, batch: WriteBatch) -> None:
        """Apply a WriteBatch atomically (rocksdb_write); the batch stays usable (and is not cleared)."""
        err = c_void_p()
        with self._lock, batch._lock:
            self._lib.rocksdb_write(self._handle(), self._wopts, batch._handle(), byref(err))
        _lib.check(self._lib, err)

    def iterator(self) -> Iterator:
        """A new iterator (unpositioned: call seek or seek_to_first); close it, or use it in `with`."""
        return Iterator(self)

    def scan(self, start=None, n: int = 100) -> list[tuple[bytes, bytes]]:
        """Up to `n` (key, value) pairs from the first key >= start (from the first key when start is None)."""
        out = []
        with self.iterator() as it:
            if start is None:
                it.seek_to_first()
            else:
                it.seek(start)
            while len(out) < n and it.valid():
                out.append((it.key(), it.value()))
                it.next()
        return out

    # -- flush and compaction -----------------------------------------------------------------------
    def flush(self, wait: bool = True) -> None:
        """Flush the memtables to L0 (rocksdb_flush); with wait, return once the flush is done."""
        fo = self._lib.rocksdb_flushoptions_create()
        try:
            self._lib.rocksdb_flushoptions_set_wait(fo, bool(wait))
            err = c_void_p()
            with self._lock:
                self._lib.rocksdb_flush(self._handle(), fo, byref(err))
            _lib.check(self._lib, err)
        finally:
            self._lib.rocksdb_flushoptions_destroy(fo)

    BUSY_PROPERTIES = (
        "rocksdb.mem-table-flush-pending",
        "rocksdb.num-running-flushes",
        "rocksdb.compaction-pending",
        "rocksdb.num-running-compactions",
    )

    def wait_for_compactions(self, timeout: float = 600.0, poll: float = 0.02, settle: float = 0.5) -> None:
        """Block until flushes and compactions are done: BUSY_PROPERTIES all 0 on two consecutive polls
        (they are read one by one, not atomically); RocksDBError after `timeout` seconds.

        rocksdb.compaction-pending alone can stay 1 for good: it is "some score >= 1", and universal's
        picker may then still find nothing worth merging (size_ratio), or auto compactions are disabled.
        So a compaction-pending with nothing running nor flushing for `settle` seconds counts as done
        (ignored outright with disable_auto_compactions)."""
        deadline = time.monotonic() + timeout
        idle, stuck_since = 0, None
        while True:
            flush_pending, flushes, pending, running = (self.property_int(p) or 0 for p in self.BUSY_PROPERTIES)
            now = time.monotonic()
            if self.options.disable_auto_compactions:
                pending = 0
            if flush_pending or flushes or running:
                idle, stuck_since = 0, None
            elif pending:
                idle, stuck_since = 0, stuck_since or now
                if now - stuck_since >= settle:
                    return
            else:
                idle, stuck_since = idle + 1, None
                if idle >= 2:
                    return
            if now > deadline:
                state = {p: self.property_int(p) for p in self.BUSY_PROPERTIES}
                raise RocksDBError(f"flushes/compactions still busy after {timeout:g} s: {state}")
            time.sleep(poll)

    def compact_range(self, start=None, end=None, target_level: int | None = None) -> None:
        """Manually compact [start, end] (None = unbounded) with rocksdb_compact_range_opt; with
        target_level, the output is moved to that level (CompactRangeOptions change_level/target_level).
        c.h gives this call no errptr: RocksDB's status is dropped."""
        if target_level is not None:
            self._check_level("target_level", target_level)
        s = None if start is None else to_bytes(start)
        e = None if end is None else to_bytes(end)
        co = self._lib.rocksdb_compactoptions_create()
        try:
            if target_level is not None:
                self._lib.rocksdb_compactoptions_set_change_level(co, 1)
                self._lib.rocksdb_compactoptions_set_target_level(co, int(target_level))
            with self._lock:
                self._lib.rocksdb_compact_range_opt(self._handle(), co, s, len(s or b""), e, len(e or b""))
        finally:
            self._lib.rocksdb_compactoptions_destroy(co)

    def compact_files(self, names: list[str], output_level: int, output_file_size: int = 0) -> None:
        """Compact exactly these live files into `output_level` (DB::CompactFiles through the C++ shim,
        built with g++ on first use); output files are cut at about `output_file_size` bytes (0 = no
        limit); no compression. Names as LiveFile.name ("/000012.sst") or bare ("000012.sst")."""
        from . import shim

        self._handle()
        self._check_level("output_level", output_level)
        if not _int_in(output_file_size, 0, 2**63 - 1):
            raise ValueError(f"output_file_size must be an integer in [0, 2^63), got {output_file_size!r}")
        fn = shim.load().lsmsim_compact_files
        raw = [str(n).encode() for n in names]
        arr = (ctypes.c_char_p * max(1, len(raw)))(*raw)
        err = c_void_p()
        with self._lock:
            rc = fn(self._handle(), arr, len(raw), int(output_level), int(output_file_size), byref(err))
        _lib.check(self._lib, err)
        if rc != 0:
            raise RocksDBError("lsmsim_compact_files failed without a message")

    def _check_level(self, what: str, level) -> None:
        """A level the DB has (0 .. num_levels - 1): C would take any int, RocksDB's checks vary by call."""
        n = self.options.num_levels
        if not _int_in(level, 0, n - 1):
            raise ValueError(f"{what} must be an integer in [0, {n - 1}] (num_levels = {n}), got {level!r}")

    # -- introspection --------------------------------------------------------------------------------
    def property(self, name: str) -> str | None:
        """A DB property as a string (rocksdb_property_value), None if RocksDB does not know it."""
        with self._lock:
            p = self._lib.rocksdb_property_value(self._handle(), name.encode())
        b = _lib.take_buffer(self._lib, p)
        return None if b is None else b.decode("utf-8", "replace")

    def property_int(self, name: str) -> int | None:
        """A numeric DB property: rocksdb_property_int, else the string property parsed as an int
        (some numeric-looking properties, e.g. rocksdb.num-files-at-level<N>, are string-only)."""
        v = c_uint64()
        with self._lock:
            found = self._lib.rocksdb_property_int(self._handle(), name.encode(), byref(v)) == 0
        if found:
            return v.value
        s = self.property(name)
        try:
            return int(s.strip()) if s is not None else None
        except ValueError:
            return None

    def num_files_at_level(self, level: int) -> int:
        return self.property_int(f"rocksdb.num-files-at-level{int(level)}") or 0

    def statistics(self) -> dict:
        """RocksDB's statistics (tickers -> int, histograms -> dict of floats); {} without statistics.
        7.8's C API has no per-ticker getter, so this parses rocksdb_options_statistics_get_string."""
        with self._lock:
            self._handle()
            b = _lib.take_buffer(self._lib, self._lib.rocksdb_options_statistics_get_string(self._copts))
        return parse_statistics(b.decode("utf-8", "replace")) if b else {}

    def live_files(self) -> list[LiveFile]:
        """The live SST files (rocksdb_livefiles: GetLiveFilesMetaData), in RocksDB's order."""
        with self._lock:
            return read_live_files(self._lib, self._handle())

    # -- lifetime -------------------------------------------------------------------------------------
    @builtins.property  # (the method `property` above shadows the builtin in this class body)
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close the open iterators, then the DB (rocksdb_close); closing twice is a no-op."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            iters = list(self._iters)
        for it in iters:
            it.close()
        self._release_if_done()

    def _release_if_done(self) -> None:
        # rocksdb_close only once no native iterator is left (during garbage collection an unreachable
        # iterator can outlive the WeakSet entry; its own close then finishes closing the DB)
        with self._lock:
            if not self._closed or self._live_iters or not self._h:
                return
            h, self._h = self._h, None
            self._lib.rocksdb_close(h)
            self._lib.rocksdb_readoptions_destroy(self._ropts)
            self._lib.rocksdb_writeoptions_destroy(self._wopts)
            self._lib.rocksdb_options_destroy(self._copts)

    def __repr__(self):
        return f"<RocksDB {self.path!r}{' closed' if self._closed else ''}>"


__all__ = ["RocksDB"]
