"""The memtable's walk and its cache misses (lsm/costs.py `memtable_walks`, validation/memtable_fit.py)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from lsmsim.lsm.costs import memtable_walks
from lsmsim.preset_files import PRESET_ROOT
from lsmsim.validation.memtable_fit import (
    BIG_MEMTABLE,
    BIG_MEMTABLES,
    CACHE_GRID,
    CAL_MEMTABLE,
    ENTRY,
    fit_memtable_miss,
    last_level_cache,
)

MiB = 2**20


def cpu(search=0.1e-6, miss=0.0, cache=None):
    return SimpleNamespace(memtable_search=search, memtable_miss=miss, memtable_cache=cache)


def test_without_misses_the_walk_is_log2_of_the_entries():
    n = 4 * MiB / ENTRY
    walk = memtable_walks(cpu(), 4 * MiB, n)
    assert walk(None) == pytest.approx(0.1e-6 * (math.log2(n) - 1 / math.log(2)), rel=1e-12)  # E over [0, N]
    assert walk(n) == pytest.approx(0.1e-6 * math.log2(n), rel=1e-12)
    assert walk(1.0) == 0.0
    # a cache size without a miss cost, or a miss cost without a cache size, changes nothing
    assert memtable_walks(cpu(cache=MiB), 4 * MiB, n)(None) == walk(None)
    assert memtable_walks(cpu(miss=1e-6), 4 * MiB, n)(None) == walk(None)


def test_the_misses_start_where_the_memtable_outgrows_the_cache():
    cache, miss = 32 * MiB, 0.7e-6
    for buffer in (4 * MiB, 16 * MiB, 32 * MiB):  # fits: nothing more
        n = buffer / ENTRY
        assert memtable_walks(cpu(miss=miss, cache=cache), buffer, n)(None) == memtable_walks(cpu(), buffer, n)(None)
    n = 64 * MiB / ENTRY
    walk = memtable_walks(cpu(miss=miss, cache=cache), 64 * MiB, n)
    # the active memtable over its life: E[log2 m * max(0, 1 - C / (m e))], m uniform in [0, N], by a fine sum
    m = (np.arange(200_000) + 0.5) / 200_000 * n
    exact = float(np.mean(np.log2(m) * np.maximum(0.0, 1 - cache / (m * ENTRY))))
    assert walk(None) - memtable_walks(cpu(), 64 * MiB, n)(None) == pytest.approx(miss * exact, rel=0.01)
    # a full memtable of 64 MiB misses half its visits
    assert walk(n) == pytest.approx(math.log2(n) * (0.1e-6 + miss * 0.5), rel=1e-9)
    # and more memtable, more misses per write
    w = [memtable_walks(cpu(miss=miss, cache=cache), b * MiB, b * MiB / ENTRY)(None) for b in (32, 64, 128, 256)]
    assert w == sorted(w) and w[-1] > 2 * w[0]


def test_fit_memtable_miss_recovers_the_miss_and_the_cache_the_model_charges():
    search, miss, base = 0.08e-6, 0.1e-6, 2.0e-6

    def per_write(buffer, cache):  # the model's write at a buffer size: a fixed part and the active memtable's walk
        return base + memtable_walks(cpu(search, miss, cache), buffer, buffer / ENTRY)(None)

    for cache in (CACHE_GRID[2], 8 * MiB, CACHE_GRID[6]):  # both placed by the fills at 4-64 MiB (two or more miss)
        big = [{"buffer": b, "per_write_s": per_write(b, cache)} for b in BIG_MEMTABLES]
        got_miss, got_cache = fit_memtable_miss(per_write(CAL_MEMTABLE, cache), big, search, None)
        assert got_cache == pytest.approx(cache, rel=1e-9) and got_miss == pytest.approx(miss, rel=1e-6)
        # the sweep's own 4 MiB fill is its anchor: another window's (here 10% slower) does not move the fit
        assert fit_memtable_miss(1.1 * per_write(CAL_MEMTABLE, cache), big, search, None) == (got_miss, got_cache)
    # one larger size (earlier calibrations: 64 MiB only): the cache is the last-level cache, the miss exact
    big = [{"buffer": BIG_MEMTABLE, "per_write_s": per_write(BIG_MEMTABLE, 32 * MiB)}]
    assert fit_memtable_miss(per_write(CAL_MEMTABLE, 32 * MiB), big, search, 32 * MiB) == (
        pytest.approx(miss, rel=1e-9),
        32 * MiB,
    )
    assert fit_memtable_miss(per_write(CAL_MEMTABLE, 32 * MiB), big, search, None) == (0.0, None)  # no cache size
    assert fit_memtable_miss(per_write(CAL_MEMTABLE, 8 * MiB), [], search, 32 * MiB) == (0.0, None)  # no runs
    # a host whose big memtables cost no more than the walk: no miss, never a negative one
    flat = [{"buffer": b, "per_write_s": base + memtable_walks(cpu(search), b, b / ENTRY)(None)} for b in BIG_MEMTABLES]
    assert fit_memtable_miss(per_write(CAL_MEMTABLE, 8 * MiB), flat, search, None) == (0.0, None)


def test_last_level_cache_reads_the_highest_level_under_sys(tmp_path):
    for i, (level, size) in enumerate(((1, "32K"), (1, "32K"), (2, "1024K"), (3, "32768K"))):
        d = tmp_path / f"index{i}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "size").write_text(f"{size}\n")
    assert last_level_cache(tmp_path) == 32 * MiB
    assert last_level_cache(tmp_path / "absent") is None


@pytest.mark.parametrize("name, llc_mib", [("amd-epyc-2vcpu-24g", 32), ("intel-xeon-processor-2vcpu-24g", 300)])
def test_the_hosts_presets_place_the_memtable_cache_below_their_l3(name, llc_mib):
    """Each host's preset (the fit of its recorded runs: test_calibrate) has a memtable walk that misses beyond a
    cache the fills at 4-64 MiB placed below the host's L3 (32 MiB on the EPYC host, 300 MiB shared on the Xeon
    host's): the VM's share of a cache other tenants use too."""
    committed = yaml.safe_load((PRESET_ROOT / "machines" / f"{name}.yaml").read_text())
    cache = float(committed["cpu"]["memtable_cache"][:-3])
    assert 4 <= cache < llc_mib and float(committed["cpu"]["memtable_miss"][:-2]) > 0
