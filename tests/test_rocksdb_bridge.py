"""The ctypes bridge to real RocksDB (Debian's librocksdb 7.8): skipped when the library is missing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from lsmsim.rocksdb import LibraryNotFoundError, LiveFile, Options, RocksDB, RocksDBError, WriteBatch
from lsmsim.rocksdb import lib as rlib
from lsmsim.rocksdb.metadata import parse_statistics

try:
    rlib.load()
except LibraryNotFoundError as e:  # pragma: no cover - depends on the machine
    pytest.skip(f"librocksdb not available: {e}", allow_module_level=True)

SMALL = dict(write_buffer_size=1 << 20, disable_auto_compactions=True, block_cache_size=1 << 20)


def key(i: int) -> bytes:
    return b"k%08d" % i


def fill(db, n: int, start: int = 0, step: int = 1, size: int = 100) -> None:
    for i in range(start, start + n * step, step):
        db.put(key(i), bytes([i % 251]) * size)


@pytest.fixture
def db(tmp_path):
    with RocksDB.open(tmp_path / "db", Options(**SMALL)) as d:
        yield d


def test_put_get_delete_binary(db):
    pairs = {b"a": b"1", b"\x00": b"nul", b"a\x00b": b"\x00\x01\x02", b"a\x00": b"", b"\xff" * 3: b"x" * 10000}
    for k, v in pairs.items():
        db.put(k, v)
    for k, v in pairs.items():
        assert db.get(k) == v
    assert db.get(b"absent") is None
    db.delete(b"a\x00b")
    assert db.get(b"a\x00b") is None and db.get(b"a") == b"1"
    db.put("text", "värde")  # str is utf-8 encoded
    assert db.get(b"text") == "värde".encode()
    with pytest.raises(TypeError):
        db.put(1, b"x")


def test_write_batch_iterator_and_scan(db):
    b = WriteBatch()
    for i in range(10, 0, -1):
        b.put(key(i), b"v%d" % i)
    b.delete(key(5))
    assert len(b) == 11
    db.write(b)
    b.close()
    b.close()  # no-op
    with pytest.raises(RocksDBError, match="closed"):
        b.put(b"k", b"v")
    with pytest.raises(RocksDBError, match="closed"):
        db.write(b)
    assert db.get(key(5)) is None and db.get(key(7)) == b"v7"
    with db.iterator() as it:
        it.seek(key(3))
        got = []
        while it.valid():
            got.append(it.key())
            it.next()
        assert got == [key(i) for i in (3, 4, 6, 7, 8, 9, 10)]
        it.seek_to_first()
        assert it.key() == key(1) and it.value() == b"v1"
        with pytest.raises(RocksDBError, match="not positioned"):
            it.seek(b"zzz")
            it.key()
    assert it.closed
    assert db.scan(key(8), 5) == [(key(8), b"v8"), (key(9), b"v9"), (key(10), b"v10")]
    assert [k for k, _ in db.scan(None, 2)] == [key(1), key(2)]


def test_flush_live_files_properties_statistics(db):
    fill(db, 1000, start=10, step=3)
    db.delete(key(13))
    db.flush(wait=True)
    files = db.live_files()
    assert len(files) == 1
    f = files[0]
    assert isinstance(f, LiveFile) and f.level == 0 and f.name.endswith(".sst")
    assert f.size > 100_000 and f.size == os.path.getsize(db.path + f.name)
    assert (f.smallest_key, f.largest_key) == (key(10), key(10 + 999 * 3))
    assert (f.entries, f.deletions) == (1000, 1)  # the put of key(13) died in the memtable
    assert db.num_files_at_level(0) == 1 and db.num_files_at_level(1) == 0
    assert db.property_int("rocksdb.num-files-at-level0") == 1
    assert db.property_int("rocksdb.estimate-num-keys") > 0
    assert "Level" in db.property("rocksdb.levelstats") and db.property("rocksdb.no-such-property") is None
    st = db.statistics()
    assert st["rocksdb.flush.write.bytes"] > 100_000 and isinstance(st["rocksdb.bytes.written"], int)
    h = st["rocksdb.db.flush.micros"]
    assert isinstance(h, dict) and h["COUNT"] == 1.0 and {"P50", "P99", "SUM"} <= h.keys()
    assert st.get("rocksdb.compact.write.bytes", 0) == 0
    # a second L0 file, then everything compacted to L2
    fill(db, 1000, start=11, step=3)
    db.flush()
    assert db.num_files_at_level(0) == 2
    db.compact_range(target_level=2)
    files = db.live_files()
    assert files and all(f.level == 2 for f in files) and db.num_files_at_level(0) == 0
    assert sum(f.entries for f in files) == 1999  # the tombstone is dropped at the bottom
    st = db.statistics()
    assert st["rocksdb.compact.write.bytes"] > 0 and st["rocksdb.compact.read.bytes"] > 0
    assert db.get(key(11)) == bytes([11]) * 100 and db.get(key(13)) is None


def test_parse_statistics():
    text = (
        "rocksdb.block.cache.miss COUNT : 12\nrocksdb.db.get.micros P50 : 1.5 P95 : 2.000000 P99 : 3 "
        "P100 : 4 COUNT : 5 SUM : 6\njunk line\n"
    )
    assert parse_statistics(text) == {
        "rocksdb.block.cache.miss": 12,
        "rocksdb.db.get.micros": {"P50": 1.5, "P95": 2.0, "P99": 3.0, "P100": 4.0, "COUNT": 5.0, "SUM": 6.0},
    }


def test_auto_compaction_and_wait(tmp_path):
    opts = Options(
        write_buffer_size=256 << 10,
        level0_file_num_compaction_trigger=2,
        max_bytes_for_level_base=1 << 20,
        target_file_size_base=256 << 10,
        statistics=True,
    )
    with RocksDB.open(tmp_path / "db", opts) as db:
        for i in range(12_000):  # scattered keys: L0 files overlap, no trivial moves
            j = i * 7919 % 12_000
            db.put(key(j), bytes([j % 251]) * 100)
        db.flush()
        db.wait_for_compactions(timeout=60)
        assert all(db.property_int(p) == 0 for p in RocksDB.BUSY_PROPERTIES)
        assert db.num_files_at_level(0) < 2
        assert db.statistics()["rocksdb.compact.write.bytes"] > 0
        assert db.get(key(11_999)) == bytes([11_999 % 251]) * 100


@pytest.mark.parametrize(
    "style,extra",
    [
        (
            "universal",
            dict(
                universal_size_ratio=1,
                universal_min_merge_width=2,
                universal_max_merge_width=2**32 - 1,
                universal_max_size_amplification_percent=200,
            ),
        ),
        ("fifo", dict(fifo_max_table_files_size=64 << 20)),
    ],
)
def test_universal_and_fifo(tmp_path, style, extra):
    opts = Options(compaction_style=style, write_buffer_size=256 << 10, level0_file_num_compaction_trigger=2, **extra)
    with RocksDB.open(tmp_path / "db", opts) as db:
        for part in range(3):
            fill(db, 1000, start=part * 1000)
            db.flush()
        db.wait_for_compactions(timeout=60)
        assert all(db.get(key(i)) == bytes([i % 251]) * 100 for i in range(0, 3000, 97))
        assert sum(f.entries for f in db.live_files()) >= 3000
        if style == "universal":
            assert len(db.live_files()) < 3  # the size-ratio rule merged the runs


def test_bad_options():
    with pytest.raises(ValueError, match="'level', 'universal', 'fifo'"):
        Options(compaction_style="tiered")
    with pytest.raises(ValueError, match="compression"):
        Options(compression="brotli")


def test_misuse_after_close(tmp_path):
    db = RocksDB.open(tmp_path / "db", Options(**SMALL))
    db.put(b"a", b"1")
    it = db.iterator()
    it.seek_to_first()
    db.close()
    assert db.closed and it.closed
    db.close()  # no-op
    it.close()  # no-op
    for call in (
        lambda: db.get(b"a"),
        lambda: db.put(b"a", b"2"),
        lambda: db.delete(b"a"),
        db.iterator,
        db.flush,
        db.live_files,
        db.statistics,
        lambda: db.property("rocksdb.levelstats"),
        lambda: db.compact_range(),
        lambda: db.compact_files(["/000001.sst"], 1, 0),
        it.seek_to_first,
        it.valid,
        it.key,
        it.next,
    ):
        with pytest.raises(RocksDBError, match="closed"):
            call()
    # reopening works (the lock was released) and the data is there
    with RocksDB.open(tmp_path / "db", Options(**SMALL)) as db2:
        assert db2.get(b"a") == b"1"
    assert db2.closed
    RocksDB.destroy(tmp_path / "db")
    assert not (tmp_path / "db" / "CURRENT").exists()


def test_open_errors(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(RocksDBError, match="cannot open RocksDB"):
        RocksDB.open(tmp_path / "file" / "db", Options())
    with pytest.raises(RocksDBError, match="does not exist"):
        RocksDB.open(tmp_path / "missing", Options(create_if_missing=False))


def test_library_not_found(tmp_path):
    with pytest.raises(LibraryNotFoundError, match="librocksdb-dev") as e:
        rlib.load(tmp_path / "nope" / "librocksdb.so")
    assert "apt-get install librocksdb-dev" in str(e.value)
    # with the override pointing nowhere, importing still works and the first use raises
    code = (
        "import lsmsim.rocksdb as r\n"
        "try:\n    r.RocksDB.open('unused')\nexcept r.LibraryNotFoundError as e:\n    print('ERR', e)\n"
    )
    env = {**os.environ, "LSMSIM_LIBROCKSDB": str(tmp_path / "missing.so")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ERR") and "librocksdb-dev" in out.stdout and "missing.so" in out.stdout


# ------------------------------------------------------------------ inputs that crashed the interpreter (issue 18)
_CRASHERS = {
    "negative num_levels": "Options(num_levels=-3)",
    "multiplier below 1": "Options(max_bytes_for_level_multiplier=0.5)",
    "negative size": "Options(write_buffer_size=-1)",
    "size beyond 64 bits": "Options(target_file_size_base=2**70)",
    "NUL in the path": "RocksDB.open(sys.argv[1] + '/a\\0b', Options())",
}


@pytest.mark.parametrize("case", list(_CRASHERS))
def test_former_crashes_raise_python_exceptions(tmp_path, case):
    """Each once aborted or misled the C library; run in a subprocess, it must end in a Python exception."""
    code = (
        "import sys\nfrom lsmsim.rocksdb import Options, RocksDB, RocksDBError\n"
        f"try:\n    {_CRASHERS[case]}\n"
        "except (ValueError, RocksDBError) as e:\n    print('raised', type(e).__name__, e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("raised"), (r.returncode, r.stdout, r.stderr)
    assert not list(tmp_path.iterdir())  # no database was made


_CLOSE_WHILE_READING = """
import sys, threading, time
from lsmsim.rocksdb import Options, RocksDB, RocksDBError
db = RocksDB.open(sys.argv[1], Options(write_buffer_size=256 << 10))
for i in range(20000):
    db.put(b"k%08d" % i, b"v" * 100)
errors = []
def read():
    try:
        while True:
            db.get(b"k%08d" % 7)
            db.scan(b"k00001000", 50)
    except RocksDBError as e:
        errors.append(str(e))
t = threading.Thread(target=read)
t.start()
time.sleep(0.05)
db.close()
t.join()
print("closed:", errors)
"""


def test_close_from_another_thread_while_reading(tmp_path):
    """db.close() while another thread gets and iterates segfaulted 3 times in 4: every native call now holds the
    DB's lock, so the reader sees RocksDBError('... is closed')."""
    for trial in range(4):
        r = subprocess.run(
            [sys.executable, "-c", _CLOSE_WHILE_READING, str(tmp_path / f"db{trial}")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, (trial, r.returncode, r.stderr[-2000:])
        assert "closed: [" in r.stdout and "closed" in r.stdout.split("closed: ", 1)[1], r.stdout


def test_levels_and_sizes_outside_the_db_are_refused(db):
    """C takes any int for a level or a size; the bridge refuses what the DB does not have, before any call."""
    fill(db, 2000)
    db.flush()
    name = db.live_files()[0].name
    for bad in (-1, 7, 2**40, 1.5, True):
        with pytest.raises(ValueError, match="target_level"):
            db.compact_range(target_level=bad)
        with pytest.raises(ValueError, match="output_level"):
            db.compact_files([name], bad)
    with pytest.raises(ValueError, match="output_file_size"):
        db.compact_files([name], 1, output_file_size=-1)
    import numpy as np

    db.compact_files([name], np.int64(1))  # numpy's integers are integers
    assert {f.level for f in db.live_files()} == {1}


_CLOSE_BATCH_WHILE_WRITING = """
import sys, threading
from lsmsim.rocksdb import Options, RocksDB, RocksDBError, WriteBatch
db = RocksDB.open(sys.argv[1], Options(write_buffer_size=256 << 10))
batch = WriteBatch()
for i in range(20000):
    batch.put(b"k%08d" % i, b"v" * 100)
errors, writes = [], [0]
def write():
    try:
        while True:
            db.write(batch)
            writes[0] += 1
    except RocksDBError as e:
        errors.append(str(e))
t = threading.Thread(target=write)
t.start()
while not writes[0]:
    pass
batch.close()
t.join()
db.close()
print("closed:", errors)
"""


def test_closing_a_batch_while_another_thread_writes_it(tmp_path):
    """batch.close() while another thread applies the batch freed it under the running rocksdb_write: the batch
    now has a lock of its own that RocksDB.write holds, so the writer sees RocksDBError('write batch is
    closed')."""
    for trial in range(3):
        r = subprocess.run(
            [sys.executable, "-c", _CLOSE_BATCH_WHILE_WRITING, str(tmp_path / f"db{trial}")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, (trial, r.returncode, r.stderr[-2000:])
        assert "write batch is closed" in r.stdout, r.stdout


@pytest.mark.parametrize("sync", [False, True])
def test_synced_writes_sync_the_wal(tmp_path, sync):
    """Options.sync is WriteOptions::sync (lsm.wal_sync): each write syncs the WAL (rocksdb.wal.synced counts them)."""
    with RocksDB.open(tmp_path / "db", Options(**SMALL, sync=sync, statistics=True)) as d:
        fill(d, 20)
        st = d.statistics()
    assert st.get("rocksdb.wal.synced", 0) == (20 if sync else 0)


def test_low_priority_writes_pass_rocksdbs_1_mib_limiter(tmp_path):
    """Options.low_pri is WriteOptions::low_pri (lsm.write_low_pri): with a soft pending limit of 0 RocksDB always
    speeds compactions up, so low-priority writes pass the 1 MiB/s limiter (db_impl_write.cc
    ThrottleLowPriWritesIfNeeded). 8,000 writes of 129-byte batches are 1.0 MB: the limiter makes them take at least
    0.6 s, and at least 0.5 s more than the same writes without it: lower bounds whatever the host's speed."""
    import time

    elapsed = {}
    for low in (False, True):
        opts = Options(write_buffer_size=1 << 20, low_pri=low, soft_pending_compaction_bytes_limit=0)
        with RocksDB.open(
            tmp_path / f"db-{low}", Options(**{**opts.__dict__, "hard_pending_compaction_bytes_limit": 0})
        ) as d:
            t0 = time.perf_counter()
            fill(d, 8000)
            elapsed[low] = time.perf_counter() - t0
    assert elapsed[True] > 0.6 and elapsed[True] > elapsed[False] + 0.5, elapsed  # the limiter's sleeps add up


def test_manual_wal_flush_buffers_the_wal_and_the_options_reach_rocksdb(tmp_path):
    """Options.manual_wal_flush keeps the WAL's records in RocksDB's buffer (no write() per record: the log file stays
    empty after 200 writes), and wal_bytes_per_sync and the pending limits are what RocksDB persists in its OPTIONS
    file (a soft limit of 0 as the hard one, as lsmsim's write controller reads it)."""
    sizes = {}
    for manual in (False, True):
        path = tmp_path / f"db-{manual}"
        opts = Options(**SMALL, manual_wal_flush=manual, wal_bytes_per_sync=1 << 20)
        with RocksDB.open(path, Options(**{**opts.__dict__, "soft_pending_compaction_bytes_limit": 0})) as d:
            fill(d, 200)
            sizes[manual] = sum(f.stat().st_size for f in path.glob("*.log"))
        text = max(path.glob("OPTIONS-*")).read_text()
        assert f"manual_wal_flush={'true' if manual else 'false'}" in text
        assert "wal_bytes_per_sync=1048576" in text
        assert f"soft_pending_compaction_bytes_limit={256 << 30}" in text  # a soft 0 takes the hard limit (Sanitize)
    assert sizes[False] >= 200 * 100 and sizes[True] == 0, sizes
