"""A block-cache miss's CPU (machine.cpu.block_read and block_read_per_byte, validation/block_reads.py): the fit
recovers known costs from readrandom runs at two caches and two block sizes, the cost model charges a miss its
bytes, and db_bench's thread CPU is sampled from /proc as it runs."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from lsmsim.config import LsmConfig
from lsmsim.cpu_config import CpuCostConfig
from lsmsim.lsm.costs import build_costs
from lsmsim.validation.block_reads import CACHES, fit_block_read, miss_costs
from lsmsim.workloads.keys import UniformSampler
from tests.test_cache import _tree


def _runs(fixed: float, per_byte: float, base: float = 2e-6, noise: float = 0.0, rounds: int = 3) -> list[dict]:
    """readrandom rounds whose Get costs `base` plus (fixed + per_byte x block size) per data-block miss."""
    rng = np.random.default_rng(7)
    out = []
    for bs in (4096, 16384):
        for i in range(rounds):
            for cache, misses in zip(CACHES, (0.53, 0.01)):
                cost = base + misses * (fixed + per_byte * bs) + rng.normal(0, noise)
                run = {"block_size": bs, "cache": cache, "round": i}
                out.append({**run, "cpu_per_get_s": cost, "miss_per_get": misses})
    return out


def test_the_fit_recovers_a_miss_cost_and_its_bytes():
    runs = _runs(0.4e-6, 0.2e-9)
    costs = miss_costs(runs)
    assert costs[4096] == pytest.approx(0.4e-6 + 0.2e-9 * 4096, rel=1e-9)
    assert costs[16384] == pytest.approx(0.4e-6 + 0.2e-9 * 16384, rel=1e-9)
    fixed, per_byte = fit_block_read(runs)
    assert fixed == pytest.approx(0.4e-6, rel=1e-6) and per_byte == pytest.approx(0.2e-9, rel=1e-6)
    # the median over rounds keeps one wild round out
    noisy = _runs(0.4e-6, 0.2e-9)
    noisy[0]["cpu_per_get_s"] += 5e-6
    assert miss_costs(noisy)[4096] == pytest.approx(costs[4096], rel=1e-9)


def test_the_fit_keeps_costs_that_can_be():
    """A larger block never costs less (one cost for all sizes), no cost is negative, and one block size or caches
    that miss alike tell nothing."""
    fixed, per_byte = fit_block_read(_runs(3e-6, -0.1e-9))
    assert per_byte == 0.0 and fixed == pytest.approx(3e-6 - 0.1e-9 * (4096 + 16384) / 2, rel=1e-9)
    fixed, per_byte = fit_block_read(_runs(-0.5e-6, 0.3e-9))
    assert fixed == 0.0 and per_byte > 0
    assert fit_block_read([r for r in _runs(1e-6, 0.0) if r["block_size"] == 4096]) is None
    same = [{**r, "miss_per_get": 0.5} for r in _runs(1e-6, 0.0)]
    assert miss_costs(same) == {} and fit_block_read(same) is None


def test_a_miss_costs_its_bytes():
    """A Get's CPU grows by block_read_per_byte x block_size per block-cache miss, and not per hit."""
    uniform = UniformSampler(100_000).hot_fraction
    tree = _tree()
    for bs in (4096, 16384):
        lsm = LsmConfig(block_cache_size=1 << 20, block_size=bs)
        base = build_costs(tree, lsm, CpuCostConfig(), uniform, 100, 5, page_cache=1 << 30)
        more = build_costs(tree, lsm, CpuCostConfig(block_read_per_byte=1e-10), uniform, 100, 5, page_cache=1 << 30)
        misses = float(base.get.level_blocks.sum() - base.get.level_block_hits.sum())
        assert misses > 0.1
        assert more.get.cpu - base.get.cpu == pytest.approx(misses * 1e-10 * bs, rel=1e-9)
    cached = LsmConfig(block_cache_size=1 << 40)
    a = build_costs(tree, cached, CpuCostConfig(), uniform, 100, 5, page_cache=1 << 30)
    b = build_costs(tree, cached, CpuCostConfig(block_read_per_byte=1e-10), uniform, 100, 5, page_cache=1 << 30)
    assert b.get.cpu - a.get.cpu == pytest.approx(
        float(a.get.level_blocks.sum() - a.get.level_block_hits.sum()) * 1e-10 * 4096, abs=1e-15
    )


@pytest.mark.serial
@pytest.mark.skipif(shutil.which("db_bench") is None, reason="db_bench (rocksdb-tools) not installed")
def test_db_bench_threads_cpu_is_sampled(tmp_path):
    """run_db_bench(thread_cpu=True): the reader thread's CPU (schedstat) is most of a one-thread readrandom's time,
    and no thread's CPU exceeds the wall time (a thread runs on one core at a time)."""
    from lsmsim.validation.dbbench import run_db_bench

    common = ["--num=50000", "--key_size=16", "--value_size=100", "--compression_type=none", "--statistics=1"]
    run_db_bench(["--benchmarks=fillrandom", *common], db=tmp_path / "db")
    r = run_db_bench(
        ["--benchmarks=readrandom", "--use_existing_db=1", "--duration=1", *common], db=tmp_path / "db", thread_cpu=True
    )
    assert set(r.thread_cpu) >= {"main", "db_bench"}
    reader = r.thread_cpu["db_bench"]
    seconds = r.seconds["readrandom"]
    assert 0.5 * seconds < reader <= r.wall_s + 0.05
    assert all(v <= r.wall_s + 0.05 for v in r.thread_cpu.values())
    assert r.to_dict()["thread_cpu"] == r.thread_cpu
