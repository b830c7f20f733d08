"""Real RocksDB (Debian's librocksdb 7.8) through ctypes: `RocksDB`, `Options`, `WriteBatch`, iterators,
live-file metadata, statistics, and `compact_files` through a small C++ shim (`shim.py`).

Importing this package never loads librocksdb; the first RocksDB call does (LibraryNotFoundError, naming
the Debian package librocksdb-dev, if it is missing; $LSMSIM_LIBROCKSDB overrides the library path).
"""

from .bridge import Iterator, LiveFile, Options, RocksDB, WriteBatch, parse_statistics
from .lib import LibraryNotFoundError, RocksDBError

__all__ = [
    "RocksDB",
    "Options",
    "WriteBatch",
    "Iterator",
    "LiveFile",
    "RocksDBError",
    "LibraryNotFoundError",
    "parse_statistics",
]
