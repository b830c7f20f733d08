"""The caches' warm-up within a run (lsm/cache.py `warmth`, sim/foreground.py `warming_rate`)."""

import pytest

from lsmsim.loading import load_config
from lsmsim.sim.kernel import Simulation
from tests.conftest import small_config


def _cold_reads(interval: str) -> tuple[float, float, float]:
    """A fill whose memtable is flushed (db_bench's reopen), then one second of Gets from a block cache that holds
    all the data and starts empty: (the phase's Gets/s, data-block misses, the data's blocks)."""
    fill = {"name": "fill", "operations": 50_000, "mix": {"insert": 1.0}, "measure": False, "flush": True}
    reads = {"name": "reads", "duration": 1.0, "mix": {"get": 1.0}}
    sections = {"lsm": {"block_cache_size": "64MiB"}, "sim": {"sample_interval": interval, "drain": False}}
    sim = Simulation(load_config(small_config(phases=[fill, reads], **sections)))
    res = sim.run()
    n = sim.counters
    misses = sum(n.blocks.values()) - sum(n.block_cache_hits.values())
    blocks = sum(r.bytes for r in sim.tree.runs()) / sim.cfg.lsm.block_size
    return res.summary["phase_reads_ops_per_s"], misses, blocks


def test_a_cold_block_cache_warms_within_a_read_phase_whatever_the_sample_interval():
    """The costs hold one hit ratio, so the kernel rebuilds them whenever the reads' warm-up has raised the share of
    accesses the cache serves by WARM_STEP: the figures do not follow the step length. Before, only a sample rebuilt
    them: with 10 s samples this phase read from a cold cache all along (hit ratio 0) and with 1 ms ones from a warm
    one; a 2 s readrandom of db_bench's shape ran 5.5 us/op with 10 s samples and 3.1 with 10 ms ones. Under the
    model a run's blocks warm linearly in the reads credited to it (a hit ratio near 1 is served after one read per
    block), so the warm-up misses about half the data's blocks: between a half and all of them."""
    base = _cold_reads("1s")
    for interval in ("1ms", "10s"):
        other = _cold_reads(interval)
        assert other[0] == pytest.approx(base[0], rel=1e-4) and other[1] == pytest.approx(base[1], rel=1e-3)
    rate, misses, blocks = base
    assert 0.5 * blocks <= misses <= blocks
    assert rate * 1.0 > 20 * blocks  # the warm-up is a small part of the phase: most of it reads a warm cache
