"""Real RocksDB as the referee of EcoTune Table 3's read terms (lsmsim.validation.static_shape): on Debian's
librocksdb, a Get of a last-level key reads one data block plus one per filter false positive above it, the
filter errs at RocksDB's cache-local Bloom rate, and a Seek reads a block per run; lsmsim's static shape of the
same runs reads the same. Skipped when the library is missing."""

from __future__ import annotations

import pytest

import lsmsim
from lsmsim.lsm.filters import bloom_fpr, rocksdb_bloom_fpr
from lsmsim.rocksdb import LibraryNotFoundError
from lsmsim.rocksdb import lib as rlib
from lsmsim.validation.static_shape import measure_shape
from tests.test_ecotune_shapes import shape_config

pytestmark = pytest.mark.serial  # real RocksDB: its compactions' timing moves with a busy CPU

try:
    rlib.load()
except LibraryNotFoundError as e:  # pragma: no cover - depends on the machine
    pytest.skip(f"librocksdb not available: {e}", allow_module_level=True)

NUM, RUN, UPPER, OPS = 100_000, 2048, 15, 10_000  # 2048 keys x 10 bits = 40 whole cache lines: exactly 10 bits/key


@pytest.fixture(scope="module")
def real():
    return measure_shape([RUN] * UPPER, NUM, ops=OPS, seed=3)


def test_rocksdb_filter_errs_at_its_cache_local_rate(real):
    """150,000 filter probes of absent keys: the rate is RocksDB's own estimate (util/bloom_impl.h), not the
    standard Bloom filter's (0.82% at 10 bits/key), within 3 standard errors."""
    probes = UPPER * OPS
    est = rocksdb_bloom_fpr(10)
    se = (est * (1 - est) / probes) ** 0.5
    assert abs(real["filter_fpr"] - est) < 3 * se, real
    assert abs(real["filter_fpr"] - bloom_fpr(10)) > 5 * se


def test_a_get_of_a_last_level_key_reads_one_block_plus_its_false_positives(real):
    assert real["runs"] == UPPER + 1
    assert real["data_blocks_per_get"] == pytest.approx(1 + real["false_positives_per_get"], abs=0.005)


def test_lsmsim_reads_what_rocksdb_reads_on_the_same_shape(real):
    """The same 16 runs in lsmsim (Bloom filters, no range filter): Gets within 3% of RocksDB's false-positive
    term, and a Seek reads one block per run (RocksDB reads ~1.3% more: not modelled)."""
    q = {"mode": "closed", "threads": 1}
    cfg = shape_config(
        [{"runs": UPPER, "run_share": RUN / NUM}, {"runs": 0}, {"runs": 0}, {"runs": 1}],
        num=NUM,
        phases=[
            {"name": "get", "duration": "0.2s", "mix": {"get": 1}, "get_from": "last_level", "queries": q},
            {"name": "seek", "duration": "0.2s", "mix": {"short_scan": 1}, "short_scan_length": 1, "queries": q},
        ],
        range_filter_fpr=None,
        range_filter_point_fpr=None,
    )
    s = lsmsim.run(cfg).summary
    extra_sim = s["phase_get_pages_per_query"] - 1
    extra_real = real["data_blocks_per_get"] - 1
    assert extra_sim == pytest.approx(extra_real, rel=0.1)
    assert s["phase_seek_pages_per_query"] == pytest.approx(UPPER + 1, rel=0.001)
    assert real["data_blocks_per_seek"] == pytest.approx(UPPER + 1, rel=0.03)
