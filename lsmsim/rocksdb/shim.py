"""Building and loading the CompactFiles shim (`shim/compact_files.cc`, a C++ wrapper around
DB::CompactFiles, which RocksDB 7.8's C API lacks).

`build()` compiles it once per user with g++ against librocksdb into a cache directory
($LSMSIM_CACHE_DIR, else $XDG_CACHE_HOME/lsmsim, else ~/.cache/lsmsim); the file name carries a hash of
the source, the librocksdb file (path, size, mtime) and the compiler, so editing the source or upgrading
RocksDB rebuilds it. Compilation writes a temporary file renamed into place, so concurrent builds are
safe. `load()` returns the ctypes CDLL (building on first use).

    python -m lsmsim.rocksdb.shim --build [--force]    # build now, print the path
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import threading
from ctypes import POINTER, c_char_p, c_int, c_size_t, c_uint64, c_void_p
from pathlib import Path

from ..atomic import atomic_write
from . import lib as _lib
from .lib import RocksDBError

SOURCE = Path(__file__).with_name("shim") / "compact_files.cc"
LIB_NAME = "liblsmsim_rocksdb_shim"
FLAGS = ["-O2", "-shared", "-fPIC", "-std=c++17"]
INSTALL_HINT = (
    "install a C++ compiler and RocksDB's headers: `apt-get install g++ librocksdb-dev` "
    "(Debian packages g++ and librocksdb-dev)"
)

_lock = threading.Lock()
_loaded: dict[str, ctypes.CDLL] = {}


def cache_dir() -> Path:
    """Where built shims go: $LSMSIM_CACHE_DIR, $XDG_CACHE_HOME/lsmsim or ~/.cache/lsmsim."""
    if os.environ.get("LSMSIM_CACHE_DIR"):
        return Path(os.environ["LSMSIM_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lsmsim"


def _compiler() -> str:
    cxx = os.environ.get("CXX", "g++")
    path = shutil.which(cxx)
    if not path:
        raise RocksDBError(
            f"cannot build the RocksDB CompactFiles shim: C++ compiler {cxx!r} not found; {INSTALL_HINT}"
        )
    return path


def _link_args(rocksdb_path: str) -> list[str]:
    """-lrocksdb normally; with $LSMSIM_LIBROCKSDB, that very file (and an rpath to its directory)."""
    explicit = os.environ.get(_lib.ENV_VAR)
    if explicit:
        d = os.path.dirname(os.path.abspath(rocksdb_path))
        return [os.path.abspath(rocksdb_path), f"-Wl,-rpath,{d}"]
    return ["-lrocksdb"]


def shim_path() -> Path:
    """The path the shim for the current source, librocksdb and compiler is (or would be) built at."""
    rocks = _lib.library_path(_lib.load())
    h = hashlib.sha256(SOURCE.read_bytes())
    try:
        st = os.stat(rocks)
        h.update(f"{rocks}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    except OSError:
        h.update(rocks.encode())
    h.update(f"\0{os.environ.get('CXX', 'g++')}\0{' '.join(FLAGS + _link_args(rocks))}".encode())
    return cache_dir() / f"{LIB_NAME}-{h.hexdigest()[:16]}.so"


def build(force: bool = False) -> Path:
    """Compile the shim into the cache (unless already there, or with force); returns its path."""
    out = shim_path()
    if out.exists() and not force:
        return out
    cxx = _compiler()
    rocks = _lib.library_path(_lib.load())
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RocksDBError(f"cannot create the shim cache directory {out.parent}: {e} (set LSMSIM_CACHE_DIR)") from e

    def compile_to(tmp: str) -> None:
        cmd = [cxx, *FLAGS, str(SOURCE), "-o", tmp, *_link_args(rocks)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            hint = f"; {INSTALL_HINT}" if ("rocksdb/" in p.stderr or "-lrocksdb" in p.stderr) else ""
            tail = "\n".join(p.stderr.strip().splitlines()[-15:])
            raise RocksDBError(f"building the RocksDB CompactFiles shim failed ({' '.join(cmd)}):\n{tail}{hint}")
        os.chmod(tmp, 0o755)

    atomic_write(out, compile_to)
    return out


def load() -> ctypes.CDLL:
    """The shim as a ctypes CDLL (librocksdb loaded first, so both share one RocksDB), built if needed."""
    _lib.load()
    with _lock:
        path = str(build())
        if path not in _loaded:
            try:
                shim = ctypes.CDLL(path)
            except OSError as e:
                raise RocksDBError(f"cannot load the RocksDB CompactFiles shim {path}: {e}") from e
            fn = shim.lsmsim_compact_files
            fn.restype = c_int
            fn.argtypes = [c_void_p, POINTER(c_char_p), c_size_t, c_int, c_uint64, POINTER(c_void_p)]
            _loaded[path] = shim
        return _loaded[path]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsmsim.rocksdb.shim", description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true", help="build the shim (if not cached) and print its path")
    ap.add_argument("--force", action="store_true", help="rebuild even if a cached build exists")
    args = ap.parse_args(argv)
    try:
        if args.build or args.force:
            print(build(force=args.force))
        else:
            print(shim_path())
    except RocksDBError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
