"""The page-mapped FTL (lsmsim/ssd/ftl/), its GC theory (gc_theory.py) and the extent allocator."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from lsmsim.errors import ConfigError, InvariantError
from lsmsim.ssd import alloc_reference
from lsmsim.ssd import gc_theory as gt
from lsmsim.ssd.alloc import DeviceFullError, ExtentAllocator
from lsmsim.ssd.alloc_reference import ReferenceAllocator, WalkingAllocator
from lsmsim.ssd.ftl import FTL, FTLConfig, ratio_to_spare_factor, spare_factor_to_ratio
from tests.ftl_reference import FTLReference

PAGE = 4096


def make(cls=FTL, *, L, P, sf, **kw):
    return cls(
        FTLConfig(
            logical_bytes=PAGE * L,
            mapping_unit=PAGE,
            erase_unit=PAGE * P,
            over_provisioning=sf,
            op_definition="spare_factor",
            **kw,
        )
    )


def hot_cold(rng, n, L, hot_frac=0.1, hot_share=0.9):
    """n page numbers: hot_share of them uniform over the first hot_frac of [0, L)."""
    nh = int(L * hot_frac)
    return np.where(rng.random(n) < hot_share, rng.integers(0, nh, n), rng.integers(nh, L, n))


# ---------------------------------------------------------------- numba == reference
def assert_same(a: FTL, b: FTLReference):
    assert a.snapshot() == b.snapshot()
    np.testing.assert_array_equal(a.l2p, b.l2p)
    np.testing.assert_array_equal(a.erase_counts, b.erase_counts)
    np.testing.assert_array_equal(a.valid_counts, np.array(b.valid, dtype=np.int32))
    np.testing.assert_array_equal(a.p2l, np.array(b.p2l_list))


@pytest.mark.parametrize("victim", ["greedy", "cost_benefit"])
def test_numba_matches_reference(victim):
    L, P = 1536, 16
    kw = dict(L=L, P=P, sf=0.15, frontiers=2, victim=victim, gc_free_high=12)
    a, b = make(FTL, **kw), make(FTLReference, **kw)
    rng = np.random.default_rng(42)
    for step in range(25):
        n = int(rng.integers(1, 2500))
        lpns = hot_cold(rng, n, L, 0.2, 0.7) if step % 2 else rng.integers(0, L, n)
        if step % 5 == 4:
            a.write(lpns, 1), b.write(lpns, 1)  # one frontier for the batch
        else:
            fr = rng.integers(0, 2, n)
            a.write(lpns, fr), b.write(lpns, fr)
        t = rng.integers(0, L, int(rng.integers(0, 300)))
        a.trim(t), b.trim(t)
        budget = int(rng.integers(0, 80))
        assert a.idle_gc(budget) == b.idle_gc(budget)
        assert_same(a, b)
    a.check_invariants()
    # the workload exercised everything compared
    s = a.snapshot()
    assert s["fg_gc_copies"] > 0 and s["bg_gc_copies"] > 0 and s["trimmed_pages"] > 0 and s["erases"] > 0


def test_reference_would_see_a_different_policy():
    """The comparison above is sensitive: greedy and cost-benefit diverge on the same workload."""
    L, P = 1536, 16
    g, c = make(FTL, L=L, P=P, sf=0.15, victim="greedy"), make(FTL, L=L, P=P, sf=0.15, victim="cost_benefit")
    rng = np.random.default_rng(1)
    lp = hot_cold(rng, 20_000, L, 0.2, 0.8)
    g.write(lp), c.write(lp)
    assert g.snapshot() != c.snapshot()


# ---------------------------------------------------------------- GC validation against theory
def test_theory_matches_published_values():
    # Xiang & Kurkoski (arXiv:1110.4245) abstract: 2.36 at rho = 0.3; Agarwal & Marrow's form 2.17
    assert gt.wa_greedy_limit(op_ratio=0.3) == pytest.approx(2.36, abs=0.005)
    assert gt.wa_agarwal(op_ratio=0.3) == pytest.approx(2.17, abs=0.005)
    # both OP definitions give the same alpha; finite-N_p model tends to the limit
    assert gt.wa_greedy_limit(0.2) == pytest.approx(gt.wa_greedy_limit(op_ratio=0.25))
    assert gt.wa_greedy(0.1, 10**7) == pytest.approx(gt.wa_greedy_limit(0.1), rel=1e-5)
    assert gt.wa_greedy(0.1, 32) < gt.wa_greedy(0.1, 256) < gt.wa_greedy_limit(0.1)
    # the victim's valid fraction solves (u - 1) / ln u = 1 / alpha, and A = 1 / (1 - u)
    u = gt.victim_valid_fraction(0.1)
    assert (u - 1) / np.log(u) == pytest.approx(0.9)
    assert 1 / (1 - u) == pytest.approx(gt.wa_greedy_limit(0.1))
    assert gt.wa_greedy_limit(0.0) == np.inf


@pytest.mark.parametrize("sf", [0.07, 0.28])
def test_greedy_uniform_random_matches_analytic_wa(sf):
    """Fill sequentially, overwrite uniformly at random; steady-state WA within 5% of Eq. (1), (2)."""
    L, P = 1 << 20, 256
    f = make(L=L, P=P, sf=sf)
    rng = np.random.default_rng(7)
    f.write(np.arange(L))
    f.write(rng.integers(0, L, L))  # warm-up: WA settles after ~0.5 L overwrites
    s0 = f.snapshot()
    f.write(rng.integers(0, L, 2 * L))
    wa = FTL.window_write_amp(s0, f.snapshot())
    limit, finite = gt.wa_greedy_limit(f.spare_factor), gt.wa_greedy(f.spare_factor, P)
    print(f"sf={sf}: measured WA {wa:.3f}, Eq.(1) {limit:.3f}, Eq.(2) N_p={P} {finite:.3f}")
    assert wa == pytest.approx(limit, rel=0.05)
    assert wa == pytest.approx(finite, rel=0.05)
    assert wa > 1.5  # GC really ran
    f.check_invariants()


# ---------------------------------------------------------------- workloads with known answers
def test_sequential_overwrite_has_no_gc_copies():
    L, P = 1 << 16, 64
    f = make(L=L, P=P, sf=0.07)
    f.write(np.arange(L))
    s0 = f.snapshot()
    for _ in range(5):
        f.write(np.arange(L))
    wa = FTL.window_write_amp(s0, f.snapshot())
    assert wa == pytest.approx(1.0, abs=0.02)
    assert f.erases > 4 * L // P  # it did recycle blocks


def _files_workload(f: FTL, order: str, rng) -> float:
    """Whole files written sequentially, deleted (TRIM) whole, device kept 85% full."""
    L, P = f.logical_pages, f.pages_per_block
    al = ExtentAllocator(L)
    live, fid, s0 = [], 0, None
    while f.host_pages < 8 * L:
        n = int(rng.integers(8 * P, 32 * P))
        while al.free_pages < n or al.used_pages > 0.85 * L:
            k = 0 if order == "fifo" else int(rng.integers(len(live)))
            victim = live.pop(k)
            pages = al.pages(victim)
            trimmed = al.free(victim)
            assert sum(n for _, n in trimmed) == pages.size
            f.trim(pages)
        al.alloc(fid, n)
        f.write(al.pages(fid))
        live.append(fid)
        fid += 1
        if s0 is None and f.host_pages > 2 * L:
            s0 = f.snapshot()
    assert f.mapped_pages == al.used_pages
    return FTL.window_write_amp(s0, f.snapshot())


@pytest.mark.parametrize("order", ["fifo", "random"])
def test_whole_files_trimmed_give_wa_one(order):
    f = make(L=1 << 16, P=64, sf=0.1)
    wa = _files_workload(f, order, np.random.default_rng(3))
    assert wa == pytest.approx(1.0, abs=0.02)
    assert f.trimmed_pages > 4 * f.logical_pages


def _mixed_lifetimes(separate: bool, L=1 << 16, P=64, fsize=512) -> float:
    """Each round writes a long-lived and a short-lived file, page by page interleaved (two concurrent
    writers); the short one is deleted next round, the long one after ~0.8 L pages of later writes."""
    f = make(L=L, P=P, sf=0.1, frontiers=2)
    al = ExtentAllocator(L)
    keep = int(0.8 * L / fsize)
    longs, short, fid, s0 = deque(), None, 0, None
    while f.host_pages < 10 * L:
        a, b = fid, fid + 1
        fid += 2
        if len(longs) >= keep:
            old = longs.popleft()
            f.trim(al.pages(old))
            al.free(old)
        al.alloc(a, fsize)
        al.alloc(b, fsize)
        lpns = np.empty(2 * fsize, np.int64)
        lpns[0::2], lpns[1::2] = al.pages(a), al.pages(b)
        fr = np.zeros(2 * fsize, np.int64)
        if separate:
            fr[1::2] = 1  # short-lived pages to their own frontier
        f.write(lpns, fr)
        if short is not None:
            f.trim(al.pages(short))
            al.free(short)
        short = b
        longs.append(a)
        if s0 is None and f.host_pages > 3 * L:
            s0 = f.snapshot()
    return FTL.window_write_amp(s0, f.snapshot())


def test_mixed_lifetimes_in_one_erase_unit_cost_gc_and_separation_fixes_it():
    mixed, separated = _mixed_lifetimes(False), _mixed_lifetimes(True)
    print(f"mixed lifetimes: one frontier WA {mixed:.3f}, two frontiers WA {separated:.3f}")
    assert mixed > 1.3
    assert separated == pytest.approx(1.0, abs=0.02)
    assert separated < mixed - 0.25


def test_cost_benefit_beats_greedy_on_hot_cold():
    """90% of writes to 10% of the pages: cost-benefit leaves cold blocks alone until they are
    worth cleaning; greedy keeps copying cold pages out of blocks that are only slightly invalid."""
    L, P, n = 1 << 17, 64, 12 << 17
    wa = {}
    for victim in ("greedy", "cost_benefit"):
        f = make(L=L, P=P, sf=0.1, victim=victim)
        rng = np.random.default_rng(5)
        f.write(rng.permutation(L))
        f.write(hot_cold(rng, n // 3, L))
        s0 = f.snapshot()
        f.write(hot_cold(rng, n, L))
        wa[victim] = FTL.window_write_amp(s0, f.snapshot())
        f.check_invariants()
    print(f"hot/cold 90/10, sf=0.1: greedy WA {wa['greedy']:.3f}, cost-benefit WA {wa['cost_benefit']:.3f}")
    assert wa["cost_benefit"] < 0.8 * wa["greedy"]


# ---------------------------------------------------------------- counters, wear, trim, idle GC
def test_erase_counts_and_wear_spread():
    L, P = 1 << 15, 64
    f = make(L=L, P=P, sf=0.1)
    rng = np.random.default_rng(0)
    f.write(np.arange(L))
    f.write(rng.integers(0, L, 10 * L))
    ec = f.erase_counts
    assert ec.shape == (f.physical_blocks,)
    assert int(ec.sum()) == f.erases > 0
    spread, cv = f.wear_spread()
    assert spread == int(ec.max() - ec.min())
    assert cv == pytest.approx(ec.std() / ec.mean())
    assert cv < 0.1  # uniform traffic + FIFO free list: even wear
    assert f.flash_pages == f.host_pages + f.gc_copies
    assert f.gc_copies == f.fg_gc_copies + f.bg_gc_copies
    assert f.write_amp == pytest.approx(f.flash_pages / f.host_pages)


def test_trim_frees_space_and_lowers_wa():
    L, P = 1 << 16, 64
    wa = {}
    for trim in (False, True):
        f = make(L=L, P=P, sf=0.1)
        rng = np.random.default_rng(2)
        f.write(np.arange(L))
        if trim:
            f.trim(np.arange(L // 2, L))
            assert f.mapped_pages == L // 2 and f.trimmed_pages == L // 2
            assert (f.l2p[L // 2 :] == -1).all()
            f.trim(np.arange(L // 2, L))  # trimming unmapped pages does nothing
            assert f.trimmed_pages == L // 2
        f.write(rng.integers(0, L // 2, 4 * L))
        wa[trim] = f.write_amp
        f.check_invariants()
    assert wa[True] < 0.6 * wa[False]


def test_idle_gc_reaches_free_high_within_budget():
    L, P = 1 << 14, 32
    f = make(L=L, P=P, sf=0.15, gc_free_low=4, gc_free_high=20)
    rng = np.random.default_rng(4)
    f.write(np.arange(L))
    f.write(rng.integers(0, L, 3 * L))
    assert f.free_blocks < 20
    assert f.idle_gc(0) == 0
    copies = f.idle_gc(10)
    assert 0 <= copies <= 10 and f.bg_gc_copies == copies
    total = copies + f.idle_gc(10**9)
    assert f.free_blocks >= 20
    assert f.bg_gc_copies == total > 0
    assert f.idle_gc(10**9) == 0  # already at the target
    f.check_invariants()
    # the next host writes need no foreground GC until the reserve is used up
    fg0 = f.fg_gc_copies
    f.write(rng.integers(0, L, (20 - 4 - 2) * P))
    assert f.fg_gc_copies == fg0


def test_frontiers_keep_streams_apart():
    L, P = 1 << 12, 16
    f = make(L=L, P=P, sf=0.2, frontiers=3)
    fr = np.zeros(128, np.int32)
    fr[1::2] = 2  # two writers interleaved page by page
    f.write(np.arange(128), fr)
    blocks0 = set((f.l2p[0:128:2] // P).tolist())
    blocks2 = set((f.l2p[1:128:2] // P).tolist())
    assert len(blocks0) == len(blocks2) == 4 and not blocks0 & blocks2
    f.write(np.arange(128, 136), 1)
    assert not set((f.l2p[128:136] // P).tolist()) & (blocks0 | blocks2)


def test_bad_arguments():
    f = make(L=1 << 12, P=16, sf=0.2, frontiers=2)
    with pytest.raises(ValueError):
        f.write(np.array([1 << 12]))
    with pytest.raises(ValueError):
        f.write(np.array([-1]))
    with pytest.raises(ValueError):
        f.write(np.array([1, 2]), 2)
    with pytest.raises(ValueError):
        f.write(np.array([1, 2]), np.array([0]))
    f.write(np.array([], dtype=np.int64))
    assert f.host_pages == 0 and np.isnan(f.write_amp)


# ---------------------------------------------------------------- over-provisioning definitions
def test_op_conversions_and_geometry():
    assert spare_factor_to_ratio(0.2) == pytest.approx(0.25)
    assert ratio_to_spare_factor(0.25) == pytest.approx(0.2)
    assert ratio_to_spare_factor(spare_factor_to_ratio(0.07)) == pytest.approx(0.07)
    assert ratio_to_spare_factor(0.28) == pytest.approx(0.21875)
    L, P = 1 << 16, 256
    a = FTLConfig(logical_bytes=PAGE * L, erase_unit=PAGE * P, over_provisioning=0.28, op_definition="ratio")
    b = FTLConfig(logical_bytes=PAGE * L, erase_unit=PAGE * P, over_provisioning=0.21875, op_definition="spare_factor")
    assert a.physical_blocks == b.physical_blocks == int(np.ceil(L * 1.28 / P))
    c = FTLConfig(logical_bytes=PAGE * L, erase_unit=PAGE * P, over_provisioning=0.2, op_definition="spare_factor")
    assert c.physical_blocks == L // P * 5 // 4  # exactly L / (1 - 0.2), no extra block
    f = FTL(c)
    assert f.spare_factor == pytest.approx(0.2) and f.op_ratio == pytest.approx(0.25)
    with pytest.raises(ConfigError, match="over_provisioning"):
        FTLConfig(logical_bytes=PAGE * L, erase_unit=PAGE * P, over_provisioning=0.01)
    # the default GC reserve shrinks to fit a small spare space; an explicit one is checked
    small = FTLConfig(logical_bytes=256 << 20, erase_unit=4 << 20, over_provisioning=0.07)
    assert small.physical_blocks == 69 and small.free_low == 3
    assert FTLConfig(logical_bytes=PAGE * L, erase_unit=PAGE * P, over_provisioning=0.5).free_low == 4
    with pytest.raises(ConfigError, match="gc_free_low"):
        FTLConfig(logical_bytes=256 << 20, erase_unit=4 << 20, over_provisioning=0.07, gc_free_low=4)
    with pytest.raises(ConfigError, match="op_definition"):
        FTLConfig(logical_bytes=PAGE * L, op_definition="percent")
    with pytest.raises(ConfigError, match="erase_unit"):
        FTLConfig(logical_bytes=PAGE * L, erase_unit=PAGE * 3 // 2)
    with pytest.raises(ConfigError, match="gc_free_high"):
        FTLConfig(logical_bytes=PAGE * L, over_provisioning=0.5, gc_free_low=6, gc_free_high=3)


# ---------------------------------------------------------------- extent allocator
BOTH = pytest.mark.parametrize("Alloc", [ExtentAllocator, ReferenceAllocator], ids=["numba", "reference"])


@BOTH
def test_alloc_free_round_trip(Alloc):
    al = Alloc(100)
    assert al.alloc("a", 30) == [(0, 30)]
    assert al.alloc("b", 20) == [(30, 20)]
    assert al.used_pages == 50 and al.free_pages == 50
    np.testing.assert_array_equal(al.pages("b"), np.arange(30, 50))
    assert al.free("a") == [(0, 30)]
    assert al.used_pages == 20
    assert al.free_extents == [(0, 30), (50, 50)]
    assert al.free("b") == [(30, 20)]
    assert al.free_extents == [(0, 100)] and al.used_pages == 0
    with pytest.raises(KeyError):
        al.free("b")


@BOTH
def test_alloc_is_next_fit_and_files_grow(Alloc):
    al = Alloc(100)
    al.alloc(1, 10), al.alloc(2, 10), al.alloc(3, 10)
    al.free(1)  # hole at 0..10, but the rover is at 30
    assert al.alloc(4, 5) == [(30, 5)]
    assert al.alloc(4, 5) == [(35, 5)]  # growing a file: contiguous, merged
    assert al.extents(4) == [(30, 10)]
    al.alloc(5, 60)  # up to the end: rover wraps to 0
    assert al.alloc(6, 10) == [(0, 10)]


@BOTH
def test_alloc_splits_a_file_when_fragmented(Alloc):
    al = Alloc(100)
    for i in range(10):
        al.alloc(i, 10)
    for i in (1, 4, 7):
        al.free(i)  # three holes of 10 pages
    ex = al.alloc("big", 25)
    assert ex == [(10, 10), (40, 10), (70, 5)]
    assert al.largest_free_extent == 5
    np.testing.assert_array_equal(al.pages("big"), np.r_[10:20, 40:50, 70:75])
    assert al.free("big") == ex
    assert al.free_extents == [(10, 10), (40, 10), (70, 10)]


@BOTH
def test_alloc_device_full(Alloc):
    al = Alloc(64)
    al.alloc("x", 60)
    with pytest.raises(DeviceFullError, match="only 4 of 64"):
        al.alloc("y", 5)
    assert isinstance(DeviceFullError("m"), ValueError)
    assert al.used_pages == 60 and "y" not in al  # a failed alloc changes nothing
    assert al.alloc("y", 4) == [(60, 4)]
    with pytest.raises(DeviceFullError):
        al.alloc("z", 1)


@BOTH
def test_free_coalesces_neighbours(Alloc):
    al = Alloc(50)
    for i in range(5):
        al.alloc(i, 10)
    al.free(1), al.free(3)
    assert al.free_extents == [(10, 10), (30, 10)]
    al.free(2)  # joins both neighbours
    assert al.free_extents == [(10, 30)]
    al.free(0), al.free(4)
    assert al.free_extents == [(0, 50)]
    assert al.alloc("all", 50) == [(0, 50)]  # one extent again


@BOTH
def test_allocator_random_churn_keeps_invariants(Alloc):
    rng = np.random.default_rng(9)
    al = Alloc(5000)
    owner = np.full(5000, -1)
    live = []
    for fid in range(3000):
        n = int(rng.integers(1, 200))
        if al.free_pages < n or rng.random() < 0.45 and live:
            victim = live.pop(int(rng.integers(len(live))))
            pages = al.pages(victim)
            al.free(victim)
            assert (owner[pages] == victim).all()
            owner[pages] = -1
            continue
        al.alloc(fid, n)
        pages = al.pages(fid)
        assert pages.size == n and (owner[pages] == -1).all()  # never hands out a used page
        owner[pages] = fid
        live.append(fid)
        free = al.free_extents
        assert all(s + n < t for (s, n), (t, _) in zip(free, free[1:]))  # sorted and coalesced
        assert sum(n for _, n in free) == al.free_pages == np.count_nonzero(owner == -1)


@pytest.mark.parametrize("leaves", [1, 7, 64, 1 << 16])
def test_allocator_max_tree_picks_the_extent_the_walk_picks(monkeypatch, leaves):
    """Next-fit through the bucket max-tree hands out the same extents as the walk, with any bucket width."""
    monkeypatch.setattr(alloc_reference, "_LEAVES", leaves)
    rng = np.random.default_rng(leaves)
    total = 7919
    fast, walk = ReferenceAllocator(total), WalkingAllocator(total)
    assert fast._width == -(-total // leaves)
    live, fragmented = [], 0
    for fid in range(4000):
        n = int(rng.choice([1, 3, 20, 64, 150, 400]))
        if fast.free_pages < n or rng.random() < 0.47 and live:
            victim = live.pop(int(rng.integers(len(live))))
            assert fast.free(victim) == walk.free(victim)
            continue
        fragmented += fast.largest_free_extent < n
        assert fast.alloc(fid, n) == walk.alloc(fid, n)
        live.append(fid)
        assert fast.largest_free_extent == max((m for _, m in fast.free_extents), default=0)
    assert fast.free_extents == walk.free_extents
    assert fragmented > 0  # the fragmented path ran too


@pytest.mark.parametrize("width", [1, 3, 64, 5000])
def test_numba_allocator_follows_the_python_reference_call_by_call(width):
    """The numba kernels hand out, return and coalesce exactly as the plain-Python reference, with any bucket
    width, through growing files, fragmentation, wrap-around and a full device."""
    rng = np.random.default_rng(width)
    total = 6007
    fast, ref = ExtentAllocator(total, width=width), ReferenceAllocator(total)
    live, fragmented, grown = [], 0, 0
    for step in range(5000):
        n = int(rng.choice([1, 2, 7, 33, 150, 600]))
        if fast.free_pages < n or rng.random() < 0.45 and live:
            victim = live.pop(int(rng.integers(len(live))))
            assert fast.free(victim) == ref.free(victim)
        else:
            fid = live[-1] if live and rng.random() < 0.2 else step  # sometimes a file grows
            grown += fid != step
            fragmented += ref.largest_free_extent < n
            assert fast.alloc(fid, n) == ref.alloc(fid, n)
            if fid == step:
                live.append(fid)
            np.testing.assert_array_equal(fast.pages(fid), ref.pages(fid))
        assert fast.largest_free_extent == ref.largest_free_extent
        assert fast.free_pages == ref.free_pages
    assert fast.free_extents == ref.free_extents
    assert fragmented > 10 and grown > 50


@BOTH
def test_double_free_is_detected(Alloc):
    al = Alloc(20)
    al.alloc("a", 10)
    with pytest.raises(InvariantError):
        al._give_back(15, 2)  # inside free space
    with pytest.raises(InvariantError):
        al._give_back(9, 2)  # its end lies in free space
    with pytest.raises(InvariantError):
        al._give_back(5, 20)  # it holds free space
