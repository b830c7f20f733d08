"""Write batches: an atomic group of puts and deletes built in Python and applied with RocksDB.write()."""

from __future__ import annotations

from . import lib as _lib
from .handles import Closable, to_bytes
from .lib import RocksDBError


class WriteBatch(Closable):
    """An atomic group of puts and deletes (rocksdb_writebatch_t), applied with RocksDB.write()."""

    def __init__(self):
        self._lib = _lib.load()
        self._h = self._lib.rocksdb_writebatch_create()

    def _handle(self) -> int:
        if not self._h:
            raise RocksDBError("write batch is closed")
        return self._h

    def put(self, key, value) -> None:
        k, v = to_bytes(key), to_bytes(value)
        self._lib.rocksdb_writebatch_put(self._handle(), k, len(k), v, len(v))

    def delete(self, key) -> None:
        k = to_bytes(key)
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


__all__ = ["WriteBatch"]
