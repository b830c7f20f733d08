"""Write batches: an atomic group of puts and deletes built in Python and applied with RocksDB.write()."""

from __future__ import annotations

import threading

from . import lib as _lib
from .handles import Closable, to_bytes
from .lib import RocksDBError


class WriteBatch(Closable):
    """An atomic group of puts and deletes (rocksdb_writebatch_t), applied with RocksDB.write()."""

    def __init__(self):
        self._lib = _lib.load()
        # every native call on the batch holds it, RocksDB.write too: close() or put() from another thread
        # waits instead of freeing or changing the batch under a running write (issue 18)
        self._lock = threading.RLock()
        self._h = self._lib.rocksdb_writebatch_create()

    def _handle(self) -> int:
        if not self._h:
            raise RocksDBError("write batch is closed")
        return self._h

    def put(self, key, value) -> None:
        k, v = to_bytes(key), to_bytes(value)
        with self._lock:
            self._lib.rocksdb_writebatch_put(self._handle(), k, len(k), v, len(v))

    def delete(self, key) -> None:
        k = to_bytes(key)
        with self._lock:
            self._lib.rocksdb_writebatch_delete(self._handle(), k, len(k))

    def clear(self) -> None:
        with self._lock:
            self._lib.rocksdb_writebatch_clear(self._handle())

    def __len__(self) -> int:
        with self._lock:
            return self._lib.rocksdb_writebatch_count(self._handle())

    @property
    def closed(self) -> bool:
        return not self._h

    def close(self) -> None:
        """Free the batch; closing twice is a no-op."""
        with self._lock:
            h, self._h = self._h, None
            if h:
                self._lib.rocksdb_writebatch_destroy(h)


__all__ = ["WriteBatch"]
