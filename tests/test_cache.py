"""The block cache over the page cache (lsm/cache.py): Che's approximation against exact LRU caches,
and what the page cache does to the cost of a read."""

from collections import OrderedDict

import numpy as np
import pytest

from lsmsim.config import CpuCostConfig, LsmConfig
from lsmsim.lsm.cache import Caches
from lsmsim.lsm.costs import build_costs, page_cache_bytes
from lsmsim.testing import TreeBuilder
from lsmsim.workloads.keys import UniformSampler, ZipfianSampler


def exact_two_lru(trace: np.ndarray, c1: int, c2: int, warmup: int) -> tuple[float, float]:
    """Two LRU caches in series (the second sees the first's misses), run on a block trace:
    (hit ratio of the first, hit ratio of the second on the first's misses) after `warmup` references."""
    first: OrderedDict = OrderedDict()
    second: OrderedDict = OrderedDict()
    h1 = m1 = h2 = 0
    for i, b in enumerate(trace.tolist()):
        count = i >= warmup
        if b in first:
            first.move_to_end(b)
            h1 += count
            continue
        m1 += count
        first[b] = None
        if len(first) > c1:
            first.popitem(last=False)
        if b in second:
            second.move_to_end(b)
            h2 += count
        else:
            second[b] = None
            if len(second) > c2:
                second.popitem(last=False)
    return h1 / (h1 + m1), h2 / m1


@pytest.mark.parametrize(
    "sampler, c1, c2",
    [
        (ZipfianSampler(20_000, 0.99), 1_000, 4_000),
        (ZipfianSampler(20_000, 0.8), 2_000, 2_000),
        (ZipfianSampler(20_000, 0.8), 1_000, 6_000),
        (ZipfianSampler(20_000, 0.99), 4_000, 2_000),
        (UniformSampler(20_000), 2_000, 6_000),
    ],
    ids=["zipf-0.99", "zipf-0.8-equal", "zipf-0.8", "page-cache-smaller", "uniform"],
)
def test_che_matches_exact_lru(sampler, c1, c2):
    """The block cache's hit ratio, and the share of accesses either cache serves (1 - device
    reads), within 0.03 of two exact LRU caches on 400K references of the same distribution
    (blocks = keys here; the page cache sees the block cache's misses and takes every block read
    through it). The model is given the keys' own popularity, measured on another 10M draws: the
    zipfian sampler's `hot_fraction` counts ranks, not the keys they hash to (collisions make
    hashed keys hotter), which is the sampler's approximation, not the cache's."""
    n = sampler.num
    trace = sampler.draw(np.random.default_rng(7), 400_000).astype(np.int64)
    exact = exact_two_lru(trace, c1, c2, warmup=100_000)
    freq = np.sort(np.bincount(sampler.draw(np.random.default_rng(1), 10_000_000).astype(np.int64), minlength=n))
    cum = np.concatenate([[0.0], np.cumsum(freq[::-1]) / freq.sum()])
    caches = Caches(lambda x: float(np.interp(x * n, np.arange(n + 1), cum)))
    bc, either = caches.run_hit_ratios(np.ones(1), np.array([n * 4096.0]), c1 * 4096.0, c2 * 4096.0, 4096.0)
    assert bc[0] == pytest.approx(exact[0], abs=0.03)
    assert either[0] == pytest.approx(exact[0] + (1 - exact[0]) * exact[1], abs=0.03)


def test_lru_is_below_the_static_optimum_under_skew():
    """LRU keeps less than the hottest blocks would give (Che): the old static model overstated hits."""
    one_run = np.ones(1), np.array([1000.0 * 4096])

    def lru(hot_fraction, share):
        return Caches(hot_fraction).run_hit_ratios(*one_run, share * 1000 * 4096, 0.0, 4096)[0][0]

    z = ZipfianSampler(100_000, 0.99)
    assert lru(z.hot_fraction, 0.05) < z.hot_fraction(0.05) - 0.02
    u = UniformSampler(1000)
    assert lru(u.hot_fraction, 0.3) == pytest.approx(0.3, abs=1e-6)  # uniform: LRU = C/N


def _tree():
    return TreeBuilder(key_size=16, entry_overhead=6).run(0, (0, 99_000, 10_000)).run(1, (0, 99_999, 50_000)).build()


def test_small_runs_that_every_scan_visits_stay_cached():
    """A seek reads one block of every run: a small run's blocks are hit far more often than the last
    level's, so an LRU cache keeps them (db_bench seekrandom with direct reads: about 3 device reads
    for 5 runs, not 5)."""
    blocks = np.array([800.0, 800.0, 800.0, 4000.0, 30000.0])  # three L0 files, L1, L2
    caches = Caches(UniformSampler(10**6).hot_fraction)
    hb, _ = caches.run_hit_ratios(np.ones(5), blocks * 4096, 2048 * 4096, 0.0, 4096)
    assert hb[0] > 0.3 and hb[4] < 0.02 and hb[0] > 10 * hb[4]
    # the cache holds 2048 blocks: the steady-state occupancy equals its size
    flat, _ = caches.run_hit_ratios(np.ones(1), np.array([blocks.sum() * 4096]), 2048 * 4096, 0.0, 4096)
    assert flat[0] == pytest.approx(2048 / blocks.sum(), rel=1e-3)  # one run, uniform: C / N


def test_page_cache_serves_block_cache_misses():
    """With memory to hold the data and buffered reads, a get reads no device block and pays
    `block_read` CPU per block-cache miss; with direct reads the same misses go to the device."""
    cpu = CpuCostConfig()
    tree = _tree()
    uniform = UniformSampler(100_000).hot_fraction
    buffered = LsmConfig(block_cache_size=1 << 20)
    direct = LsmConfig(block_cache_size=1 << 20, use_direct_reads=True)
    pc = page_cache_bytes(24 << 30, buffered)
    assert pc == (24 << 30) - (1 << 20) - buffered.write_buffer_size * buffered.max_write_buffer_number
    assert page_cache_bytes(24 << 30, direct) == 0.0
    assert page_cache_bytes(None, buffered) == 0.0
    cb = build_costs(tree, buffered, cpu, uniform, 100, 5, page_cache=pc)
    cd = build_costs(tree, direct, cpu, uniform, 100, 5, page_cache=0.0)
    assert cb.page_hit_ratio == 1.0 and cd.page_hit_ratio == 0.0
    assert cb.get.reads == pytest.approx(0.0, abs=1e-12)
    assert cd.get.reads > 0.5
    # same CPU either way: block_read is paid per block-cache miss, wherever it is served
    assert cb.get.cpu == pytest.approx(cd.get.cpu)
    blocks = float(cb.get.level_blocks.sum())
    assert float(cb.get.level_block_hits.sum()) < blocks
    assert float(cb.get.level_page_hits.sum()) == pytest.approx(blocks - float(cb.get.level_block_hits.sum()))


def test_direct_io_writes_start_cold_in_the_page_cache():
    """Under use_direct_io_for_flush_and_compaction a new file is not in the page cache until read."""
    cpu = CpuCostConfig()
    uniform = UniformSampler(100_000).hot_fraction
    warm = build_costs(_tree(), LsmConfig(), cpu, uniform, 100, 5, page_cache=1 << 30)
    cold = build_costs(
        _tree(), LsmConfig(use_direct_io_for_flush_and_compaction=True), cpu, uniform, 100, 5, page_cache=1 << 30
    )
    assert warm.get.reads < 0.1 * cold.get.reads


def test_a_run_reports_both_caches_per_level():
    """Summary and time series carry block- and page-cache hit ratios, overall and per level; with memory
    for the data every block-cache miss is a page-cache hit, with direct reads none is."""
    import lsmsim

    base = {
        "machine": {"cores": 2, "memory": "4GiB"},
        "lsm": {"write_buffer_size": "1MiB", "block_cache_size": "1MiB"},
        "policy": {"name": "leveled", "max_bytes_for_level_base": "4MiB", "target_file_size_base": "1MiB"},
        "workload": {
            "num": 200_000,
            "phases": [
                {"name": "load", "operations": 200_000, "mix": {"insert": 1.0}, "measure": False},
                {"name": "scan", "operations": 20_000, "mix": {"short_scan": 1.0}, "keys": {"distribution": "uniform"}},
            ],
        },
    }
    buffered = lsmsim.run(base).summary
    direct = lsmsim.run(base, ["lsm.use_direct_reads=true"])
    assert buffered["page_cache_hit_ratio"] == pytest.approx(1.0)
    assert direct.summary["page_cache_hit_ratio"] == 0.0
    assert 0 < direct.summary["block_cache_hit_ratio"] < 1
    # a seek visits every run: L1's blocks (4 MiB of them) stay cached more than L2's (13 MiB)
    assert direct.summary["block_cache_hit_ratio_L1"] > 2 * direct.summary["block_cache_hit_ratio_L2"] > 0
    ts = direct.timeseries
    assert {"block_cache_hit_ratio", "page_cache_hit_ratio", "block_cache_hit_ratio_L0"} <= set(ts.columns)
    assert ts["block_cache_hit_ratio"].dropna().between(0, 1).all()


def test_run_warmth_arrays_match_the_per_file_reference():
    """The run's arrays (credit, then warm bytes) give what the scalar `warmth` gives file by file, and survive the
    run's files changing (reads are written back to the files, which outlive runs)."""
    from lsmsim.lsm.cache import warm_bytes, warmth

    t = TreeBuilder().run(1, (0, 10**6, 4000), (10**6 + 1, 2 * 10**6, 12000), (2 * 10**6 + 1, 3 * 10**6, 8000)).build()
    run = t.runs()[0]
    run.credit_block_reads(300.0)
    run.credit_block_reads(50.0)
    files = list(run.files)
    expect = [350.0 * f.bytes / run.bytes for f in files]
    for h in (0.01, 0.3, 1.0):
        ref = sum(f.bytes * warmth(r, f.bytes, h, 4096) for f, r in zip(files, expect))
        assert warm_bytes(*run.block_read_state(), h, 4096) == pytest.approx(ref, rel=1e-12)
        assert run.warm_bytes(h, 4096) == pytest.approx(ref, rel=1e-12)
    run.replace({files[0].id}, [])  # the run changes: the removed file takes its reads along, the others keep theirs
    assert files[0].block_reads == pytest.approx(expect[0], rel=1e-12)
    assert run.block_read_state()[1] == pytest.approx(expect[1:], rel=1e-12)
    run.replace(set(), [files[0]])  # and brings them back (a trivial move into a run)
    assert run.block_read_state()[1] == pytest.approx(expect, rel=1e-12)


def _characteristic_time_reference(count, rate, capacity):
    """Plain numpy + scipy's brentq on log T: the reference for the numba kernel."""
    import math

    from scipy.optimize import brentq

    def excess(u):
        return float(np.sum(count * -np.expm1(-rate * math.exp(u)))) - capacity

    lo, hi = -30.0, 0.0
    while excess(lo) > 0:
        lo -= 30.0
    while excess(hi) < 0:
        hi += 2.0
    return math.exp(brentq(excess, lo, hi, xtol=1e-12, rtol=1e-12))


@pytest.mark.parametrize("seed", range(6))
def test_lru_hits_kernel_matches_brentq(seed):
    """Che's characteristic time and the hit ratios per run from the numba kernel equal scipy's brentq and numpy
    on random trees of runs under zipfian and uniform popularity, from a nearly empty cache to a nearly full one,
    whether Newton's method starts cold or from a previous root above or below this one."""
    from lsmsim.lsm.cache import lru_run_hits, profile

    rng = np.random.default_rng(seed)
    sampler = ZipfianSampler(100_000, 0.99) if seed % 2 else UniformSampler(100_000)
    w, a = profile(sampler.hot_fraction)
    runs = rng.integers(2, 30)
    blocks = rng.lognormal(8, 2, runs)
    access = rng.uniform(0, 1.5, runs) * (rng.uniform(size=runs) > 0.2)
    count = blocks[:, None] * w[None, :]
    rate = np.divide(access[:, None] * a[None, :], count, out=np.zeros_like(count), where=count > 0)
    total = count[rate > 0].sum()
    for frac in (1e-4, 0.01, 0.3, 0.9, 0.999):
        t_ref = _characteristic_time_reference(count, rate, frac * total)
        hits_ref = (-np.expm1(-rate * t_ref) * a[None, :]).sum(axis=1)
        for t0 in (0.0, t_ref * 30, t_ref / 3):
            hits, t = lru_run_hits(access, blocks, w, a, frac * total, t0)
            assert t == pytest.approx(t_ref, rel=1e-9)
            assert hits == pytest.approx(hits_ref, rel=1e-9, abs=1e-15)
    hits, t = lru_run_hits(access, blocks, w, a, total * 1.01)  # every referenced block fits
    assert t == np.inf and list(hits) == [1.0 if x > 0 else 0.0 for x in access]


@pytest.mark.parametrize("seed", range(4))
def test_run_splice_keeps_totals_order_and_arrays(seed):
    """`Run.splice` (install's in-place edit) against rebuilding the run from scratch, over random removals and
    insertions: the same files in key order, totals, key arrays and block reads per file."""
    from lsmsim.lsm.sstable import Run

    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, 10**6), 400, replace=False))
    t = TreeBuilder().run(1, *[(int(a), int(b), int(rng.integers(1, 30))) for a, b in zip(cuts[::2], cuts[1::2])])
    pool = t.build().runs()[0].files
    run = Run(1, [f for i, f in enumerate(pool) if i % 2 == 0])
    run.key_arrays()
    partly_warm = 0
    for _ in range(30):
        run.credit_block_reads(float(rng.uniform(0, 100)))
        outside = [f for f in pool if all(f is not g for g in run.files)]
        remove = sorted(rng.choice(len(run.files), min(len(run.files), int(rng.integers(0, 6))), replace=False))
        add = [outside[i] for i in rng.choice(len(outside), min(len(outside), int(rng.integers(0, 6))), replace=False)]
        reads = dict(zip((f.id for f in run.files), run.block_read_state()[1].tolist()))
        reads.update({f.id: f.block_reads for f in add})
        run.splice(list(remove), add)
        ref = Run(2, sorted(run.files, key=lambda f: f.min_key))
        assert [f.id for f in run.files] == [f.id for f in ref.files]
        assert (run.bytes, run.entries) == (ref.bytes, ref.entries)
        for a, b in zip(run.key_arrays(), ref.key_arrays()):
            assert np.array_equal(a, b)
        assert run.block_read_state()[1].tolist() == pytest.approx([reads[f.id] for f in run.files])
        # the prefix-sum answer equals the per-file reference, files of differing reads per byte included
        from lsmsim.lsm.cache import warm_bytes

        fb, rd = run.block_read_state()
        for h, bs in ((1e-4, 64.0), (0.5, 64.0), (1.0, 0.05), (0.5, 0.005)):
            assert run.warm_bytes(h, bs) == pytest.approx(warm_bytes(fb, rd, h, bs), rel=1e-9)
            partly_warm += int(0 < (rd * bs / (h * fb) < 1).sum() < len(fb))
    assert partly_warm > 10  # runs where some files were fully warm and others not
