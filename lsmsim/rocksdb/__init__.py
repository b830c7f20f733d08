"""Real RocksDB (Debian's librocksdb 7.8) through ctypes: `RocksDB`, `Options`, `WriteBatch`, iterators,
live-file metadata, statistics, and `compact_files` through a small C++ shim (`shim.py`).

Importing this package never loads librocksdb; the first RocksDB call does (LibraryNotFoundError, naming
the Debian package librocksdb-dev, if it is missing; $LSMSIM_LIBROCKSDB overrides the library path).
"""

from .batch import WriteBatch
from .bridge import RocksDB
from .iterator import Iterator
from .lib import LibraryNotFoundError, RocksDBError
from .metadata import LiveFile, parse_statistics
from .options import Options

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
