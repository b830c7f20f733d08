"""Loading librocksdb (RocksDB's C API, `rocksdb/c.h`) through ctypes, lazily, with every function the
bridge uses declared with its exact C signature.

`load()` finds the library on first use: `$LSMSIM_LIBROCKSDB` when set (a path), else Debian's
`librocksdb.so` (package librocksdb-dev) or its versioned names. Nothing is loaded at import, so
`import lsmsim.rocksdb` works on machines without RocksDB; the first call that needs the library raises
`LibraryNotFoundError` there.

Conventions of c.h the bridge relies on (quoted from its comments and from c.cc):
  * `char** errptr`: NULL on success, else a malloc()ed message the caller frees with `rocksdb_free`.
  * `rocksdb_get`, `rocksdb_property_value`, `rocksdb_options_statistics_get_string` return malloc()ed
    buffers (freed with `rocksdb_free`); `rocksdb_iter_key/value` and `rocksdb_livefiles_*` return
    pointers into memory the iterator / livefiles object owns (copied, never freed).
  * `rocksdb_block_based_options_set_filter_policy` takes ownership of the filter policy; the table,
    cache, universal and fifo options setters copy (the caller destroys its own object).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from ctypes import POINTER, c_char_p, c_double, c_int, c_size_t, c_ubyte, c_uint32, c_uint64, c_void_p

from ..errors import LsmsimError

ENV_VAR = "LSMSIM_LIBROCKSDB"
INSTALL_HINT = (
    "install RocksDB's C library: `apt-get install librocksdb-dev` (Debian package librocksdb-dev), "
    f"or point {ENV_VAR}=/path/to/librocksdb.so at one"
)
# names tried in order when $LSMSIM_LIBROCKSDB is unset (librocksdb.so is the -dev package's symlink)
CANDIDATES = ("librocksdb.so", "librocksdb.so.7.8", "librocksdb.so.7", "librocksdb.so.8", "librocksdb.so.9")


class RocksDBError(LsmsimError):
    """An error reported by RocksDB (its `char** errptr` message) or a misuse of the bridge."""


class LibraryNotFoundError(RocksDBError):
    """librocksdb could not be loaded (or lacks a function the bridge needs)."""


P, S, I, U8, U32, U64, D, B = c_void_p, c_size_t, c_int, c_ubyte, c_uint32, c_uint64, c_double, c_char_p
ERR = POINTER(c_void_p)  # char** errptr, read as an address so it can be handed back to rocksdb_free
SP = POINTER(c_size_t)

# name: (restype, argtypes), exactly as in RocksDB 7.8's c.h
SIGNATURES: dict[str, tuple] = {
    # DB operations
    "rocksdb_open": (P, [P, B, ERR]),
    "rocksdb_close": (None, [P]),
    "rocksdb_destroy_db": (None, [P, B, ERR]),
    "rocksdb_put": (None, [P, P, B, S, B, S, ERR]),
    "rocksdb_delete": (None, [P, P, B, S, ERR]),
    "rocksdb_write": (None, [P, P, P, ERR]),
    "rocksdb_get": (P, [P, P, B, S, SP, ERR]),
    "rocksdb_flush": (None, [P, P, ERR]),
    "rocksdb_compact_range_opt": (None, [P, P, B, S, B, S]),
    "rocksdb_property_value": (P, [P, B]),
    "rocksdb_property_int": (I, [P, B, POINTER(c_uint64)]),
    "rocksdb_free": (None, [P]),
    # iterator
    "rocksdb_create_iterator": (P, [P, P]),
    "rocksdb_iter_destroy": (None, [P]),
    "rocksdb_iter_valid": (U8, [P]),
    "rocksdb_iter_seek_to_first": (None, [P]),
    "rocksdb_iter_seek_to_last": (None, [P]),
    "rocksdb_iter_seek": (None, [P, B, S]),
    "rocksdb_iter_next": (None, [P]),
    "rocksdb_iter_prev": (None, [P]),
    "rocksdb_iter_key": (P, [P, SP]),
    "rocksdb_iter_value": (P, [P, SP]),
    "rocksdb_iter_get_error": (None, [P, ERR]),
    # write batch
    "rocksdb_writebatch_create": (P, []),
    "rocksdb_writebatch_destroy": (None, [P]),
    "rocksdb_writebatch_clear": (None, [P]),
    "rocksdb_writebatch_count": (I, [P]),
    "rocksdb_writebatch_put": (None, [P, B, S, B, S]),
    "rocksdb_writebatch_delete": (None, [P, B, S]),
    # live files (GetLiveFilesMetaData)
    "rocksdb_livefiles": (P, [P]),
    "rocksdb_livefiles_count": (I, [P]),
    "rocksdb_livefiles_name": (B, [P, I]),
    "rocksdb_livefiles_level": (I, [P, I]),
    "rocksdb_livefiles_size": (S, [P, I]),
    "rocksdb_livefiles_smallestkey": (P, [P, I, SP]),
    "rocksdb_livefiles_largestkey": (P, [P, I, SP]),
    "rocksdb_livefiles_entries": (U64, [P, I]),
    "rocksdb_livefiles_deletions": (U64, [P, I]),
    "rocksdb_livefiles_destroy": (None, [P]),
    # options
    "rocksdb_options_create": (P, []),
    "rocksdb_options_destroy": (None, [P]),
    "rocksdb_options_set_create_if_missing": (None, [P, U8]),
    "rocksdb_options_set_compaction_style": (None, [P, I]),
    "rocksdb_options_set_write_buffer_size": (None, [P, S]),
    "rocksdb_options_set_max_write_buffer_number": (None, [P, I]),
    "rocksdb_options_set_level0_file_num_compaction_trigger": (None, [P, I]),
    "rocksdb_options_set_level0_slowdown_writes_trigger": (None, [P, I]),
    "rocksdb_options_set_level0_stop_writes_trigger": (None, [P, I]),
    "rocksdb_options_set_manual_wal_flush": (None, [P, U8]),
    "rocksdb_options_set_wal_bytes_per_sync": (None, [P, U64]),
    "rocksdb_options_set_soft_pending_compaction_bytes_limit": (None, [P, S]),
    "rocksdb_options_set_hard_pending_compaction_bytes_limit": (None, [P, S]),
    "rocksdb_options_set_max_bytes_for_level_base": (None, [P, U64]),
    "rocksdb_options_set_max_bytes_for_level_multiplier": (None, [P, D]),
    "rocksdb_options_set_target_file_size_base": (None, [P, U64]),
    "rocksdb_options_set_target_file_size_multiplier": (None, [P, I]),
    "rocksdb_options_set_level_compaction_dynamic_level_bytes": (None, [P, U8]),
    "rocksdb_options_set_num_levels": (None, [P, I]),
    "rocksdb_options_set_max_background_jobs": (None, [P, I]),
    "rocksdb_options_set_max_subcompactions": (None, [P, U32]),
    "rocksdb_options_set_disable_auto_compactions": (None, [P, I]),
    "rocksdb_options_set_compression": (None, [P, I]),
    "rocksdb_options_set_use_direct_reads": (None, [P, U8]),
    "rocksdb_options_set_use_direct_io_for_flush_and_compaction": (None, [P, U8]),
    "rocksdb_options_enable_statistics": (None, [P]),
    "rocksdb_options_statistics_get_string": (P, [P]),
    "rocksdb_options_set_block_based_table_factory": (None, [P, P]),
    "rocksdb_options_set_universal_compaction_options": (None, [P, P]),
    "rocksdb_options_set_fifo_compaction_options": (None, [P, P]),
    # table, filter, cache
    "rocksdb_block_based_options_create": (P, []),
    "rocksdb_block_based_options_destroy": (None, [P]),
    "rocksdb_block_based_options_set_filter_policy": (None, [P, P]),
    "rocksdb_block_based_options_set_block_cache": (None, [P, P]),
    "rocksdb_block_based_options_set_no_block_cache": (None, [P, U8]),
    "rocksdb_filterpolicy_create_bloom_full": (P, [D]),
    "rocksdb_cache_create_lru": (P, [S]),
    "rocksdb_cache_destroy": (None, [P]),
    # universal / fifo
    "rocksdb_universal_compaction_options_create": (P, []),
    "rocksdb_universal_compaction_options_destroy": (None, [P]),
    "rocksdb_universal_compaction_options_set_size_ratio": (None, [P, I]),
    "rocksdb_universal_compaction_options_set_min_merge_width": (None, [P, I]),
    "rocksdb_universal_compaction_options_set_max_merge_width": (None, [P, I]),
    "rocksdb_universal_compaction_options_set_max_size_amplification_percent": (None, [P, I]),
    "rocksdb_fifo_compaction_options_create": (P, []),
    "rocksdb_fifo_compaction_options_destroy": (None, [P]),
    "rocksdb_fifo_compaction_options_set_max_table_files_size": (None, [P, U64]),
    # read / write / flush / compact options
    "rocksdb_readoptions_create": (P, []),
    "rocksdb_readoptions_destroy": (None, [P]),
    "rocksdb_writeoptions_create": (P, []),
    "rocksdb_writeoptions_destroy": (None, [P]),
    "rocksdb_writeoptions_disable_WAL": (None, [P, I]),
    "rocksdb_writeoptions_set_sync": (None, [P, ctypes.c_ubyte]),
    "rocksdb_writeoptions_set_low_pri": (None, [P, U8]),
    "rocksdb_flushoptions_create": (P, []),
    "rocksdb_flushoptions_destroy": (None, [P]),
    "rocksdb_flushoptions_set_wait": (None, [P, U8]),
    "rocksdb_compactoptions_create": (P, []),
    "rocksdb_compactoptions_destroy": (None, [P]),
    "rocksdb_compactoptions_set_change_level": (None, [P, U8]),
    "rocksdb_compactoptions_set_target_level": (None, [P, I]),
}

_lock = threading.Lock()
_loaded: dict[str, ctypes.CDLL] = {}


def _declare(lib: ctypes.CDLL, where: str) -> ctypes.CDLL:
    for name, (res, args) in SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise LibraryNotFoundError(
                f"{where} lacks {name}(): the bridge needs RocksDB 7.x's C API; {INSTALL_HINT}"
            ) from None
        fn.restype, fn.argtypes = res, args
    return lib


def load(path: str | os.PathLike | None = None) -> ctypes.CDLL:
    """librocksdb as a ctypes CDLL with SIGNATURES declared; cached per path.

    `path` (or else $LSMSIM_LIBROCKSDB) names one library file; without either, the CANDIDATES are tried.
    Raises LibraryNotFoundError (naming the Debian package librocksdb-dev) when none loads.
    """
    path = os.fspath(path) if path is not None else os.environ.get(ENV_VAR) or None
    key = path or ""
    with _lock:
        if key in _loaded:
            return _loaded[key]
        names = [path] if path else list(CANDIDATES) + [n for n in [ctypes.util.find_library("rocksdb")] if n]
        errors = []
        for name in names:
            try:
                lib = ctypes.CDLL(name)
            except OSError as e:
                errors.append(str(e))
                continue
            _loaded[key] = _declare(lib, name)
            return _loaded[key]
        src = f"{ENV_VAR}={path}" if path else "librocksdb"
        raise LibraryNotFoundError(f"cannot load {src} ({'; '.join(errors)}); {INSTALL_HINT}")


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", c_char_p), ("dli_fbase", c_void_p), ("dli_sname", c_char_p), ("dli_saddr", c_void_p)]


def library_path(lib: ctypes.CDLL | None = None) -> str:
    """The file the loaded librocksdb was mapped from (via dladdr), resolved; its load name if unknown."""
    lib = lib or load()
    try:
        dladdr = ctypes.CDLL(None).dladdr
        dladdr.argtypes, dladdr.restype = [c_void_p, POINTER(_DlInfo)], c_int
        info = _DlInfo()
        if dladdr(ctypes.cast(lib.rocksdb_open, c_void_p), ctypes.byref(info)) and info.dli_fname:
            return os.path.realpath(os.fsdecode(info.dli_fname))
    except (AttributeError, OSError):
        pass
    return lib._name


def take_error(lib: ctypes.CDLL, err: c_void_p) -> str | None:
    """The message an `errptr` holds (freed with rocksdb_free), or None when it is NULL."""
    if not err.value:
        return None
    try:
        return ctypes.string_at(err.value).decode("utf-8", "replace")
    finally:
        lib.rocksdb_free(err.value)
        err.value = None


def check(lib: ctypes.CDLL, err: c_void_p) -> None:
    """Raise RocksDBError with the message `errptr` holds, if any."""
    msg = take_error(lib, err)
    if msg is not None:
        raise RocksDBError(msg)


def take_buffer(lib: ctypes.CDLL, ptr: int | None, size: int | None = None) -> bytes | None:
    """Copy a malloc()ed C buffer (`size` bytes, or NUL-terminated) and free it with rocksdb_free."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr, size) if size is not None else ctypes.string_at(ptr)
    finally:
        lib.rocksdb_free(ptr)
