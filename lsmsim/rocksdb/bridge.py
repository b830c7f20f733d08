"""A small Python API over RocksDB's C API (`rocksdb/c.h`, RocksDB 7.8): open/put/get/delete, write
batches, iterators, flush, manual compactions, properties, statistics and live-file metadata.

Every C handle is owned by one Python object that frees it exactly once. Methods on a closed DB,
iterator or batch raise RocksDBError("... is closed") instead of touching freed memory; a DB closes its
open iterators before itself (RocksDB requires iterators to be destroyed before their DB).
"""

from __future__ import annotations

import builtins
import ctypes
import threading
import time
import weakref
from ctypes import byref, c_size_t, c_uint64, c_void_p
from dataclasses import dataclass

from . import lib as _lib
from .lib import RocksDBError

COMPACTION_STYLES = {"level": 0, "universal": 1, "fifo": 2}  # c.h: rocksdb_level_compaction, ...
COMPRESSIONS = {"none": 0, "snappy": 1, "zlib": 2, "bz2": 3, "lz4": 4, "lz4hc": 5, "xpress": 6, "zstd": 7}
UINT_MAX = 2**32 - 1


def _bytes(x) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, (bytearray, memoryview)):
        return bytes(x)
    raise TypeError(f"keys and values are bytes (or str), not {type(x).__name__}")


def _c_int(v: int) -> int:
    """An unsigned value passed through a C `int` parameter (c.cc stores it in an unsigned field)."""
    v = int(v)
    return v - 2**32 if v > 2**31 - 1 else v


@dataclass
class Options:
    """RocksDB options (DBOptions + ColumnFamilyOptions + BlockBasedTableOptions) the bridge sets.

    Defaults are RocksDB 7.8's, except compression ("none"; RocksDB's is snappy), create_if_missing (True),
    statistics (True) and bloom_bits_per_key (10; RocksDB has no filter by default; 0 = no filter).
    block_cache_size 0 disables the block cache. disable_wal applies to every write (WriteOptions).
    universal_* apply to compaction_style="universal", fifo_max_table_files_size to "fifo".
    """

    compaction_style: str = "level"
    write_buffer_size: int = 64 << 20
    max_write_buffer_number: int = 2
    level0_file_num_compaction_trigger: int = 4
    level0_slowdown_writes_trigger: int = 20
    level0_stop_writes_trigger: int = 36
    max_bytes_for_level_base: int = 256 << 20
    max_bytes_for_level_multiplier: float = 10.0
    target_file_size_base: int = 64 << 20
    target_file_size_multiplier: int = 1
    level_compaction_dynamic_level_bytes: bool = False
    num_levels: int = 7
    bloom_bits_per_key: float = 10.0
    block_cache_size: int = 8 << 20
    use_direct_reads: bool = False
    use_direct_io_for_flush_and_compaction: bool = False
    max_background_jobs: int = 2
    max_subcompactions: int = 1
    disable_auto_compactions: bool = False
    compression: str = "none"
    create_if_missing: bool = True
    statistics: bool = True
    disable_wal: bool = False
    universal_size_ratio: int = 1
    universal_min_merge_width: int = 2
    universal_max_merge_width: int = UINT_MAX
    universal_max_size_amplification_percent: int = 200
    fifo_max_table_files_size: int = 1 << 30

    def __post_init__(self):
        if self.compaction_style not in COMPACTION_STYLES:
            raise ValueError(
                f"compaction_style must be one of {', '.join(map(repr, COMPACTION_STYLES))}, "
                f"not {self.compaction_style!r}"
            )
        if self.compression not in COMPRESSIONS:
            raise ValueError(
                f"compression must be one of {', '.join(map(repr, COMPRESSIONS))}, not {self.compression!r}"
            )

    def _to_c(self, lib) -> int:
        """A new rocksdb_options_t* (the caller destroys it) with these options set."""
        o = lib.rocksdb_options_create()
        lib.rocksdb_options_set_create_if_missing(o, bool(self.create_if_missing))
        lib.rocksdb_options_set_compaction_style(o, COMPACTION_STYLES[self.compaction_style])
        lib.rocksdb_options_set_write_buffer_size(o, int(self.write_buffer_size))
        lib.rocksdb_options_set_max_write_buffer_number(o, int(self.max_write_buffer_number))
        lib.rocksdb_options_set_level0_file_num_compaction_trigger(o, int(self.level0_file_num_compaction_trigger))
        lib.rocksdb_options_set_level0_slowdown_writes_trigger(o, int(self.level0_slowdown_writes_trigger))
        lib.rocksdb_options_set_level0_stop_writes_trigger(o, int(self.level0_stop_writes_trigger))
        lib.rocksdb_options_set_max_bytes_for_level_base(o, int(self.max_bytes_for_level_base))
        lib.rocksdb_options_set_max_bytes_for_level_multiplier(o, float(self.max_bytes_for_level_multiplier))
        lib.rocksdb_options_set_target_file_size_base(o, int(self.target_file_size_base))
        lib.rocksdb_options_set_target_file_size_multiplier(o, int(self.target_file_size_multiplier))
        lib.rocksdb_options_set_level_compaction_dynamic_level_bytes(o, bool(self.level_compaction_dynamic_level_bytes))
        lib.rocksdb_options_set_num_levels(o, int(self.num_levels))
        lib.rocksdb_options_set_max_background_jobs(o, int(self.max_background_jobs))
        lib.rocksdb_options_set_max_subcompactions(o, int(self.max_subcompactions))
        lib.rocksdb_options_set_disable_auto_compactions(o, int(bool(self.disable_auto_compactions)))
        lib.rocksdb_options_set_compression(o, COMPRESSIONS[self.compression])
        lib.rocksdb_options_set_use_direct_reads(o, bool(self.use_direct_reads))
        lib.rocksdb_options_set_use_direct_io_for_flush_and_compaction(
            o, bool(self.use_direct_io_for_flush_and_compaction)
        )
        if self.statistics:
            lib.rocksdb_options_enable_statistics(o)
        # table options: the factory copies them; the filter policy is owned by them once set (c.cc:
        # filter_policy.reset(p)), the cache is a shared_ptr copy, so only the cache handle is ours to free
        t = lib.rocksdb_block_based_options_create()
        if self.bloom_bits_per_key > 0:
            lib.rocksdb_block_based_options_set_filter_policy(
                t, lib.rocksdb_filterpolicy_create_bloom_full(float(self.bloom_bits_per_key))
            )
        if self.block_cache_size > 0:
            cache = lib.rocksdb_cache_create_lru(int(self.block_cache_size))
            lib.rocksdb_block_based_options_set_block_cache(t, cache)
            lib.rocksdb_cache_destroy(cache)
        else:
            lib.rocksdb_block_based_options_set_no_block_cache(t, 1)
        lib.rocksdb_options_set_block_based_table_factory(o, t)
        lib.rocksdb_block_based_options_destroy(t)
        if self.compaction_style == "universal":  # copied into the options (c.cc: *(uco->rep))
            u = lib.rocksdb_universal_compaction_options_create()
            lib.rocksdb_universal_compaction_options_set_size_ratio(u, _c_int(self.universal_size_ratio))
            lib.rocksdb_universal_compaction_options_set_min_merge_width(u, _c_int(self.universal_min_merge_width))
            lib.rocksdb_universal_compaction_options_set_max_merge_width(u, _c_int(self.universal_max_merge_width))
            lib.rocksdb_universal_compaction_options_set_max_size_amplification_percent(
                u, _c_int(self.universal_max_size_amplification_percent)
            )
            lib.rocksdb_options_set_universal_compaction_options(o, u)
            lib.rocksdb_universal_compaction_options_destroy(u)
        elif self.compaction_style == "fifo":
            f = lib.rocksdb_fifo_compaction_options_create()
            lib.rocksdb_fifo_compaction_options_set_max_table_files_size(f, int(self.fifo_max_table_files_size))
            lib.rocksdb_options_set_fifo_compaction_options(o, f)
            lib.rocksdb_fifo_compaction_options_destroy(f)
        return o


@dataclass(frozen=True)
class LiveFile:
    """One SST file as GetLiveFilesMetaData reports it (c.h rocksdb_livefiles_*); name like "/000012.sst"."""

    name: str
    level: int
    size: int
    smallest_key: bytes
    largest_key: bytes
    entries: int
    deletions: int


def parse_statistics(text: str) -> dict:
    """Statistics::ToString() -> {ticker: int} and {histogram: {"P50": .., "COUNT": .., "SUM": ..}}.

    Tickers read "rocksdb.compact.read.bytes COUNT : 123"; histograms
    "rocksdb.db.get.micros P50 : 1.0 P95 : 2.0 P99 : 3.0 P100 : 4.0 COUNT : 5 SUM : 6".
    """
    out: dict = {}
    for line in text.splitlines():
        tok = line.split()
        if len(tok) < 4 or (len(tok) - 1) % 3 or any(s != ":" for s in tok[2::3]):
            continue
        fields = dict(zip(tok[1::3], tok[3::3]))
        try:
            if list(fields) == ["COUNT"]:
                out[tok[0]] = int(fields["COUNT"])
            else:
                out[tok[0]] = {k: float(v) for k, v in fields.items()}
        except ValueError:
            continue
    return out


class _Closable:
    """A native handle's lifetime: `with` closes it, and so does garbage collection."""

    def close(self) -> None:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class WriteBatch(_Closable):
    """An atomic group of puts and deletes (rocksdb_writebatch_t), applied with RocksDB.write()."""

    def __init__(self):
        self._lib = _lib.load()
        self._h = self._lib.rocksdb_writebatch_create()

    def _handle(self) -> int:
        if not self._h:
            raise RocksDBError("write batch is closed")
        return self._h

    def put(self, key, value) -> None:
        k, v = _bytes(key), _bytes(value)
        self._lib.rocksdb_writebatch_put(self._handle(), k, len(k), v, len(v))

    def delete(self, key) -> None:
        k = _bytes(key)
        self._lib.rocksdb_writebatch_delete(self._handle(), k, len(k))

    def clear(self) -> None:
        self._lib.rocksdb_writebatch_clear(self._handle())

    def __len__(self) -> int:
        return self._lib.rocksdb_writebatch_count(self._handle())

    @property
    def closed(self) -> bool:
        return not self._h

    def close(self) -> None:
        """Free the batch; closing twice is a no-op."""
        h, self._h = self._h, None
        if h:
            self._lib.rocksdb_writebatch_destroy(h)


class Iterator(_Closable):
    """A RocksDB iterator (rocksdb_iterator_t) over a consistent snapshot of its DB; create with db.iterator()."""

    def __init__(self, db: RocksDB):
        self._db, self._lib = db, db._lib
        self._h = None
        with db._lock:
            self._h = self._lib.rocksdb_create_iterator(db._handle(), db._ropts)
            db._live_iters += 1
            db._iters.add(self)

    def _handle(self) -> int:
        if not self._h:
            raise RocksDBError("iterator is closed")
        return self._h

    def seek(self, key) -> None:
        """Position at the first key >= key."""
        k = _bytes(key)
        self._lib.rocksdb_iter_seek(self._handle(), k, len(k))

    def seek_to_first(self) -> None:
        self._lib.rocksdb_iter_seek_to_first(self._handle())

    def seek_to_last(self) -> None:
        self._lib.rocksdb_iter_seek_to_last(self._handle())

    def valid(self) -> bool:
        """True while positioned at an entry; raises RocksDBError if the iterator stopped on an error."""
        h = self._handle()
        if self._lib.rocksdb_iter_valid(h):
            return True
        err = c_void_p()
        self._lib.rocksdb_iter_get_error(h, byref(err))
        _lib.check(self._lib, err)
        return False

    def _current(self) -> int:
        h = self._handle()
        if not self._lib.rocksdb_iter_valid(h):
            raise RocksDBError("iterator is not positioned at an entry (check valid() first)")
        return h

    def key(self) -> bytes:
        n = c_size_t()
        p = self._lib.rocksdb_iter_key(self._current(), byref(n))
        return ctypes.string_at(p, n.value)

    def value(self) -> bytes:
        n = c_size_t()
        p = self._lib.rocksdb_iter_value(self._current(), byref(n))
        return ctypes.string_at(p, n.value)

    def next(self) -> None:
        self._lib.rocksdb_iter_next(self._current())

    def prev(self) -> None:
        self._lib.rocksdb_iter_prev(self._current())

    @property
    def closed(self) -> bool:
        return not self._h

    def close(self) -> None:
        """Destroy the iterator; closing twice is a no-op."""
        db = self._db
        with db._lock:
            h, self._h = self._h, None
            if not h:
                return
            self._lib.rocksdb_iter_destroy(h)
            db._live_iters -= 1
            db._iters.discard(self)
        db._release_if_done()


class RocksDB(_Closable):
    """An open RocksDB database. Open with RocksDB.open(path, options); usable as a context manager."""

    def __init__(self, lib, handle: int, path: str, options: Options, c_options: int):
        self._lib, self._h, self.path, self.options = lib, handle, path, options
        self._copts = c_options  # kept alive: the statistics object lives in it
        self._ropts = lib.rocksdb_readoptions_create()
        self._wopts = lib.rocksdb_writeoptions_create()
        lib.rocksdb_writeoptions_disable_WAL(self._wopts, int(bool(options.disable_wal)))
        self._closed = False
        self._lock = threading.RLock()
        self._iters: weakref.WeakSet = weakref.WeakSet()
        self._live_iters = 0  # native iterators not yet destroyed (the WeakSet can miss some in GC)

    @classmethod
    def open(cls, path, options: Options | None = None) -> RocksDB:
        """Open (creating, with create_if_missing) the database at `path` (rocksdb_open)."""
        lib = _lib.load()
        options = options or Options()
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
        k, v = _bytes(key), _bytes(value)
        err = c_void_p()
        self._lib.rocksdb_put(self._handle(), self._wopts, k, len(k), v, len(v), byref(err))
        if err.value:
            _lib.check(self._lib, err)

    def delete(self, key) -> None:
        k = _bytes(key)
        err = c_void_p()
        self._lib.rocksdb_delete(self._handle(), self._wopts, k, len(k), byref(err))
        if err.value:
            _lib.check(self._lib, err)

    def get(self, key) -> bytes | None:
        """The value of `key`, or None when absent (c.h: rocksdb_get returns NULL if not found)."""
        k = _bytes(key)
        err, n = c_void_p(), c_size_t()
        p = self._lib.rocksdb_get(self._handle(), self._ropts, k, len(k), byref(n), byref(err))
        if err.value:
            _lib.take_buffer(self._lib, p)
            _lib.check(self._lib, err)
        return _lib.take_buffer(self._lib, p, n.value)

    def write(self, batch: WriteBatch) -> None:
        """Apply a WriteBatch atomically (rocksdb_write); the batch stays usable (and is not cleared)."""
        err = c_void_p()
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
        s = None if start is None else _bytes(start)
        e = None if end is None else _bytes(end)
        co = self._lib.rocksdb_compactoptions_create()
        try:
            if target_level is not None:
                self._lib.rocksdb_compactoptions_set_change_level(co, 1)
                self._lib.rocksdb_compactoptions_set_target_level(co, int(target_level))
            self._lib.rocksdb_compact_range_opt(self._handle(), co, s, len(s or b""), e, len(e or b""))
        finally:
            self._lib.rocksdb_compactoptions_destroy(co)

    def compact_files(self, names: list[str], output_level: int, output_file_size: int = 0) -> None:
        """Compact exactly these live files into `output_level` (DB::CompactFiles through the C++ shim,
        built with g++ on first use); output files are cut at about `output_file_size` bytes (0 = no
        limit); no compression. Names as LiveFile.name ("/000012.sst") or bare ("000012.sst")."""
        from . import shim

        self._handle()
        fn = shim.load().lsmsim_compact_files
        h = self._handle()
        raw = [str(n).encode() for n in names]
        arr = (ctypes.c_char_p * max(1, len(raw)))(*raw)
        err = c_void_p()
        rc = fn(h, arr, len(raw), int(output_level), int(output_file_size), byref(err))
        _lib.check(self._lib, err)
        if rc != 0:
            raise RocksDBError("lsmsim_compact_files failed without a message")

    # -- introspection --------------------------------------------------------------------------------
    def property(self, name: str) -> str | None:
        """A DB property as a string (rocksdb_property_value), None if RocksDB does not know it."""
        p = self._lib.rocksdb_property_value(self._handle(), name.encode())
        b = _lib.take_buffer(self._lib, p)
        return None if b is None else b.decode("utf-8", "replace")

    def property_int(self, name: str) -> int | None:
        """A numeric DB property: rocksdb_property_int, else the string property parsed as an int
        (some numeric-looking properties, e.g. rocksdb.num-files-at-level<N>, are string-only)."""
        v = c_uint64()
        if self._lib.rocksdb_property_int(self._handle(), name.encode(), byref(v)) == 0:
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
        self._handle()
        b = _lib.take_buffer(self._lib, self._lib.rocksdb_options_statistics_get_string(self._copts))
        return parse_statistics(b.decode("utf-8", "replace")) if b else {}

    def live_files(self) -> list[LiveFile]:
        """The live SST files (rocksdb_livefiles: GetLiveFilesMetaData), in RocksDB's order."""
        lib = self._lib
        lf = lib.rocksdb_livefiles(self._handle())
        if not lf:
            return []
        try:
            out = []
            n1, n2 = c_size_t(), c_size_t()
            for i in range(lib.rocksdb_livefiles_count(lf)):
                sp = lib.rocksdb_livefiles_smallestkey(lf, i, byref(n1))
                lp = lib.rocksdb_livefiles_largestkey(lf, i, byref(n2))
                out.append(
                    LiveFile(
                        name=(lib.rocksdb_livefiles_name(lf, i) or b"").decode(),
                        level=lib.rocksdb_livefiles_level(lf, i),
                        size=lib.rocksdb_livefiles_size(lf, i),
                        smallest_key=ctypes.string_at(sp, n1.value) if sp else b"",
                        largest_key=ctypes.string_at(lp, n2.value) if lp else b"",
                        entries=lib.rocksdb_livefiles_entries(lf, i),
                        deletions=lib.rocksdb_livefiles_deletions(lf, i),
                    )
                )
            return out
        finally:
            lib.rocksdb_livefiles_destroy(lf)

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


__all__ = ["RocksDB", "Options", "WriteBatch", "Iterator", "LiveFile", "parse_statistics"]
