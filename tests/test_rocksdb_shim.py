"""The CompactFiles shim (C++ DB::CompactFiles behind a C function), built with g++ against librocksdb."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from lsmsim.rocksdb import LibraryNotFoundError, Options, RocksDB, RocksDBError, shim
from lsmsim.rocksdb import lib as rlib

try:
    rlib.load()
except LibraryNotFoundError as e:  # pragma: no cover - depends on the machine
    pytest.skip(f"librocksdb not available: {e}", allow_module_level=True)
if not shutil.which(os.environ.get("CXX", "g++")) or not os.path.exists("/usr/include/rocksdb/db.h"):
    pytest.skip("g++ or RocksDB's headers (librocksdb-dev) missing", allow_module_level=True)


def key(i: int) -> bytes:
    return b"k%08d" % i


def value(i: int) -> bytes:
    return bytes([i % 251]) * 200


def test_build_and_cli():
    p = shim.build()
    assert p.exists() and p.name.startswith("liblsmsim_rocksdb_shim-") and p == shim.shim_path()
    assert shim.load().lsmsim_compact_files is not None
    out = subprocess.run(
        [sys.executable, "-m", "lsmsim.rocksdb.shim", "--build"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(p)


def test_cache_key_follows_source(tmp_path, monkeypatch):
    before = shim.shim_path()
    src = tmp_path / "compact_files.cc"
    src.write_text(shim.SOURCE.read_text() + "\n// changed\n")
    monkeypatch.setattr(shim, "SOURCE", src)
    assert shim.shim_path() != before and shim.shim_path().parent == before.parent


def test_missing_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("LSMSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CXX", "no-such-compiler-lsmsim")
    with pytest.raises(RocksDBError, match="g\\+\\+.*librocksdb-dev"):
        shim.build()


def test_compact_files_l0_to_l1(tmp_path):
    opts = Options(disable_auto_compactions=True, write_buffer_size=4 << 20)
    n, batches, limit = 2000, 4, 128 << 10
    with RocksDB.open(tmp_path / "db", opts) as db:
        for b in range(batches):  # interleaved keys: every L0 file spans the whole range
            for i in range(b, n * batches, batches):
                db.put(key(i), value(i))
            db.flush()
        l0 = db.live_files()
        assert len(l0) == batches and all(f.level == 0 for f in l0)
        total = sum(f.size for f in l0)

        db.compact_files([f.name for f in l0], output_level=1, output_file_size=limit)  # names as "/000012.sst"
        files = db.live_files()
        assert files and all(f.level == 1 for f in files)
        assert db.num_files_at_level(0) == 0 and db.num_files_at_level(1) == len(files)
        assert len(files) >= total // limit - 1
        sizes = sorted(f.size for f in files)
        assert all(0.8 * limit <= s <= 1.3 * limit for s in sizes[1:])  # all but the last (smallest) cut
        assert sum(f.entries for f in files) == n * batches
        assert all(db.get(key(i)) == value(i) for i in range(n * batches))
        assert db.statistics()["rocksdb.compact.write.bytes"] > 0

        # bare names ("000012.sst") work too; 0 = no size limit: one output file
        db.compact_files([f.name.lstrip("/") for f in files], output_level=2, output_file_size=0)
        files = db.live_files()
        assert len(files) == 1 and files[0].level == 2 and files[0].entries == n * batches

        with pytest.raises(RocksDBError, match="does not exist"):
            db.compact_files(["/999999.sst"], output_level=3, output_file_size=limit)
        with pytest.raises(RocksDBError):
            db.compact_files([files[0].name], output_level=1, output_file_size=limit)  # upward: invalid
        assert db.scan(key(0), 3) == [(key(i), value(i)) for i in range(3)]
