"""Iterators over an open DB: seek, step and read entries, each iterator registered with its DB so the DB
destroys its open iterators before itself (RocksDB requires iterators to go first)."""

from __future__ import annotations

import ctypes
from ctypes import byref, c_size_t, c_void_p
from typing import TYPE_CHECKING

from . import lib as _lib
from .handles import Closable, to_bytes
from .lib import RocksDBError

if TYPE_CHECKING:
    from .bridge import RocksDB


class Iterator(Closable):
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
        k = to_bytes(key)
        with self._db._lock:  # every native call holds the DB's lock: a close from another thread waits
            self._lib.rocksdb_iter_seek(self._handle(), k, len(k))

    def seek_to_first(self) -> None:
        with self._db._lock:
            self._lib.rocksdb_iter_seek_to_first(self._handle())

    def seek_to_last(self) -> None:
        with self._db._lock:
            self._lib.rocksdb_iter_seek_to_last(self._handle())

    def valid(self) -> bool:
        """True while positioned at an entry; raises RocksDBError if the iterator stopped on an error."""
        err = c_void_p()
        with self._db._lock:
            h = self._handle()
            if self._lib.rocksdb_iter_valid(h):
                return True
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
        with self._db._lock:  # the bytes are the iterator's: copy them before it can move or close
            p = self._lib.rocksdb_iter_key(self._current(), byref(n))
            return ctypes.string_at(p, n.value)

    def value(self) -> bytes:
        n = c_size_t()
        with self._db._lock:
            p = self._lib.rocksdb_iter_value(self._current(), byref(n))
            return ctypes.string_at(p, n.value)

    def next(self) -> None:
        with self._db._lock:
            self._lib.rocksdb_iter_next(self._current())

    def prev(self) -> None:
        with self._db._lock:
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


__all__ = ["Iterator"]
