"""Tests for lsmsim.workloads.keys (key-choice distributions)."""

import math
import time

import numpy as np
import pytest

from lsmsim.workloads import keys as K
from lsmsim.workloads import zipf as Z

NAMES = ["uniform", "sequential", "zipfian", "latest", "normal"]
MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------------------
# Plain-Python references (transcribed from YCSB / Gray et al.)
# ---------------------------------------------------------------------------


def fnv_ref(val: int) -> int:
    """YCSB Utils.fnvhash64 on Python ints (unsigned 64-bit result)."""
    h = 0xCBF29CE484222325
    for _ in range(8):
        h ^= val & 0xFF
        h = (h * 1099511628211) & MASK64
        val >>= 8
    if h >> 63:  # Math.abs of the signed long
        h = (-h) & MASK64
    return h


def zeta_ref(n: int, theta: float) -> float:
    return math.fsum(i**-theta for i in range(1, n + 1))


def zipf_params_ref(items: int, theta: float):
    zetan = zeta_ref(items, theta)
    if items <= 2:  # eta unused (and 0/0) with two items
        return zetan, 1.0 / (1.0 - theta), 0.0
    eta = (1 - (2.0 / items) ** (1 - theta)) / (1 - zeta_ref(2, theta) / zetan)
    return zetan, 1.0 / (1.0 - theta), eta


def gray_rank_ref(u: float, items: int, theta: float, params) -> int:
    """YCSB ZipfianGenerator.nextLong, base 0."""
    zetan, alpha, eta = params
    uz = u * zetan
    if uz < 1.0:
        return 0
    if uz < 1.0 + 0.5**theta:
        return 1
    return min(int(items * (eta * u - eta + 1) ** alpha), items - 1)


def draw(name, num, n, seed=0, cursor=0, **params):
    return K.make_sampler(name, num, **params).draw(np.random.default_rng(seed), n, cursor)


# ---------------------------------------------------------------------------
# Contract shared by all samplers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("num", [1, 2, 1000, 10**9])
def test_contract_dtype_range_length_determinism(name, num):
    s = K.make_sampler(name, num)
    a = s.draw(np.random.default_rng(42), 5000, 777)
    b = s.draw(np.random.default_rng(42), 5000, 777)
    assert a.dtype == np.uint64
    assert a.shape == (5000,)
    assert int(a.max()) < num
    np.testing.assert_array_equal(a, b)
    assert s.draw(np.random.default_rng(42), 0, 777).shape == (0,)
    if num == 1:
        assert not a.any()
    if name != "sequential" and num >= 1000:
        c = s.draw(np.random.default_rng(43), 5000, 777)
        assert not np.array_equal(a, c)


@pytest.mark.parametrize(
    "name, params",
    [("zipfian", {}), ("zipfian", {"theta": 1.0}), ("normal", {}), ("latest", {}), ("prefix_zipf", {"theta": 1.0})],
)
def test_draw_is_independent_of_chunking(name, params):
    # One rng value per key: two batches equal one batch of the same total, including across the internal chunk
    # boundary, and with rejection-inversion (theta >= 1), whose rejected draws must not depend on their place in
    # the batch (the second batch is long enough to hold rejections: the kernel steps in different places per policy)
    s = K.make_sampler(name, 10**6, **params)
    n1 = K._CHUNK + 123
    rng = np.random.default_rng(5)
    split = np.concatenate([s.draw(rng, n1, 4321), s.draw(rng, 200_000, 4321)])
    whole = s.draw(np.random.default_rng(5), n1 + 200_000, 4321)
    np.testing.assert_array_equal(split, whole)


# ---------------------------------------------------------------------------
# uniform / sequential
# ---------------------------------------------------------------------------


def test_uniform_histogram_is_flat():
    num, n = 200, 400_000
    counts = np.bincount(draw("uniform", num, n, seed=1).astype(np.int64), minlength=num)
    expected = n / num
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    # df = 199: mean 199, sd ~20; 5 sd margin.
    assert chi2 < 199 + 5 * math.sqrt(2 * 199)
    assert counts.min() > 0.9 * expected and counts.max() < 1.1 * expected


def test_sequential_wraps_with_cursor():
    s = K.make_sampler("sequential", 10)
    rng = np.random.default_rng(0)
    assert s.draw(rng, 5, 8).tolist() == [8, 9, 0, 1, 2]
    assert s.draw(rng, 3, 25).tolist() == [5, 6, 7]
    assert s.draw(rng, 25, 0).tolist() == list(range(10)) * 2 + list(range(5))
    big = K.make_sampler("sequential", 10**12).draw(rng, 4, 10**12 - 2)
    assert big.tolist() == [10**12 - 2, 10**12 - 1, 0, 1]


# ---------------------------------------------------------------------------
# hashing and zeta
# ---------------------------------------------------------------------------


def test_fnv_numba_matches_python_reference():
    rng = np.random.default_rng(3)
    vals = np.concatenate(
        [
            np.array([0, 1, 2, 255, 256, 2**32, 2**63 - 1, 2**63, MASK64], dtype=np.uint64),
            np.arange(1000, dtype=np.uint64),
            rng.integers(0, MASK64, size=2000, dtype=np.uint64, endpoint=True),
        ]
    )
    got = K.fnv1a64(vals)
    assert got.dtype == np.uint64
    assert got.tolist() == [fnv_ref(int(v)) for v in vals]
    assert int(got.max()) <= 2**63  # Math.abs keeps results non-negative


@pytest.mark.parametrize("theta", [0.0, 0.5, 0.99])
def test_zeta_matches_fsum(theta):
    for n in [0, 1, 2, 3, 4095, 4096, 4097, 12_345, 50_000]:
        assert Z.zeta(n, theta) == pytest.approx(zeta_ref(n, theta), rel=1e-14, abs=0)


@pytest.mark.parametrize("theta", [0.5, 0.99])
def test_zeta_matches_direct_sum_up_to_1e7(theta):
    m = 10_000_000
    terms = np.arange(1, m + 1, dtype=np.float64) ** -theta
    for n in [100, 1000, 5000, 123_457, m - 1, m]:
        # numpy's pairwise sum: relative error ~1e-16 * log2(n)
        exact = float(np.sum(terms[:n]))
        assert Z.zeta(n, theta) == pytest.approx(exact, rel=1e-13)
    # Consecutive values differ by the added term.
    step = Z.zeta(m + 1, theta) - Z.zeta(m, theta)
    assert step == pytest.approx((m + 1) ** -theta, rel=1e-4)


def test_zeta_large_n_fast_and_matches_ycsb_constant():
    Z.zeta.cache_clear()
    t0 = time.perf_counter()
    z = Z.zeta(10**10, 0.99)
    assert time.perf_counter() - t0 < 0.05
    # YCSB ScrambledZipfianGenerator.ZETAN (naive Java sum over 1e10 terms).
    assert z == pytest.approx(26.46902820178302, rel=1e-11)


def test_zeta_independent_of_call_order():
    theta = 0.777  # unused elsewhere: nothing is cached for it yet
    Z.zeta.cache_clear()
    first = Z.zeta(50_000, theta)
    Z.zeta.cache_clear()
    Z.zeta(1_000_000, theta)
    assert Z.zeta(50_000, theta) == first


def test_zipf_params_match_reference():
    for items in [2, 3, 1000]:
        got = Z.zipf_params(items, 0.99)
        ref = zipf_params_ref(items, 0.99)
        np.testing.assert_allclose(got, ref, rtol=1e-13)


# ---------------------------------------------------------------------------
# zipfian / latest
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("items,theta", [(1000, 0.99), (37, 0.5), (2, 0.99)])
def test_zipf_kernels_match_python_reference(items, theta):
    n = 3000
    params = Z.zipf_params(items, theta)
    u = np.random.default_rng(9).random(n)
    ranks = [gray_rank_ref(x, items, theta, params) for x in u]

    z = K.make_sampler("zipfian", items, theta=theta)
    assert z.draw_ranks(np.random.default_rng(9), n).tolist() == ranks
    assert z.draw(np.random.default_rng(9), n, 0).tolist() == [fnv_ref(r) % items for r in ranks]
    # latest with cursor >= num: count = num, key = num - 1 - rank.
    lat = K.make_sampler("latest", items, theta=theta)
    assert lat.draw(np.random.default_rng(9), n, 10 * items).tolist() == [items - 1 - r for r in ranks]


def test_zipf_rank_frequencies_match_pmf():
    num, n, theta = 1000, 1_000_000, 0.99
    ranks = K.make_sampler("zipfian", num).draw_ranks(np.random.default_rng(11), n)
    assert int(ranks.max()) < num
    freq = np.bincount(ranks.astype(np.int64), minlength=num) / n
    zetan = Z.zeta(num, theta)
    for i in range(20):
        pmf = 1.0 / ((i + 1) ** theta * zetan)
        sd = math.sqrt(pmf * (1 - pmf) / n)
        # Gray's inverse is the sampler's exact law: tight statistical check.
        gray = Z.gray_rank_cdf(i + 1, num, theta) - Z.gray_rank_cdf(i, num, theta)
        assert abs(freq[i] - gray) < 5 * sd, i
        if i < 2:  # ranks 0 and 1 are exact zipf
            assert abs(freq[i] - pmf) < 5 * sd, i
        else:  # larger ranks: the approximation is within ~20%
            assert abs(freq[i] / pmf - 1) < 0.25, i
    # Popularity decreases with rank over the head.
    assert np.all(np.diff(freq[:10]) < 0)


def ri_rank_ref(u: float, items: int, s: float) -> int:
    """Rejection-inversion (Hormann & Derflinger 1996) in plain Python, with the kernel's retry stream."""

    def h_int(x):
        lx = math.log(x)
        t = (1 - s) * lx
        return (math.expm1(t) / t if abs(t) > 1e-8 else 1 + t / 2 * (1 + t / 3 * (1 + t / 4))) * lx

    def h_inv(x):
        t = max(-1.0, x * (1 - s))
        return math.exp((math.log1p(t) / t if abs(t) > 1e-8 else 1 - t * (0.5 - t * (1 / 3 - 0.25 * t))) * x)

    h_x1, h_n = h_int(1.5) - 1, h_int(items + 0.5)
    cut = 2 - h_inv(h_int(2.5) - 2.0**-s)
    state, mask = int(u * 2**53) & (2**64 - 1), 2**64 - 1  # the draw's own bits, not its place in the batch
    while True:
        v = h_n + u * (h_x1 - h_n)
        x = h_inv(v)
        k = min(max(math.floor(x + 0.5), 1), items)
        if k - x <= cut or v >= h_int(k + 0.5) - k**-s:
            return k - 1
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        u = ((z ^ (z >> 31)) >> 11) / 2**53


@pytest.mark.parametrize("items,theta", [(1000, 1.0), (37, 1.5), (10**9, 1.0)])
def test_zipf_from_exponent_one_matches_python_reference(items, theta):
    """theta >= 1 (Zipf with s = 1, the design space's and Spooky's) draws by rejection-inversion: the kernel
    equals the plain-Python reference draw for draw, rejections included."""
    n = 3000
    u = np.random.default_rng(5).random(n)
    ranks = [ri_rank_ref(x, items, theta) for x in u]
    z = K.make_sampler("zipfian", items, theta=theta)
    assert z.draw_ranks(np.random.default_rng(5), n).tolist() == ranks
    lat = K.make_sampler("latest", items, theta=theta)
    assert lat.draw(np.random.default_rng(5), n, 10 * items).tolist() == [items - 1 - r for r in ranks]


@pytest.mark.parametrize("theta", [1.0, 1.3])
def test_zipf_from_exponent_one_is_exact(theta):
    """Rejection-inversion is exact: every rank's frequency within 5 sd of 1 / (k^s zeta(n, s)), zeta(n, 1)
    being the harmonic number; hot_fraction agrees with the draws."""
    num, n = 500, 1_000_000
    ranks = K.make_sampler("zipfian", num, theta=theta).draw_ranks(np.random.default_rng(3), n)
    freq = np.bincount(ranks.astype(np.int64), minlength=num) / n
    pmf = np.arange(1, num + 1) ** -theta / Z.zeta(num, theta)
    assert Z.zeta(num, 1.0) == pytest.approx(math.fsum(1 / k for k in range(1, num + 1)), rel=1e-14) or theta != 1
    sd = np.sqrt(pmf * (1 - pmf) / n)
    assert np.all(np.abs(freq - pmf) < 5 * sd + 1e-12)
    hot = K.make_sampler("zipfian", num, theta=theta).hot_fraction(0.01)
    assert hot == pytest.approx(freq[:5].sum(), abs=5e-3)


def test_prefix_zipf_ranges_are_zipfian_and_keys_within_uniform():
    """PrefixZipf (Sarkar et al. §5.2.1): each of the `prefixes` key ranges is drawn with zipf mass, the hottest
    first, keys uniform inside it; hot_fraction follows the ranges' mass."""
    num, prefixes, n = 100_000, 50, 1_000_000
    s = K.make_sampler("prefix_zipf", num, theta=1.0, prefixes=prefixes)
    keys = s.draw(np.random.default_rng(4), n).astype(np.int64)
    per_range = np.bincount(keys // (num // prefixes), minlength=prefixes) / n
    pmf = np.arange(1, prefixes + 1) ** -1.0 / Z.zeta(prefixes, 1.0)
    assert np.all(np.abs(per_range - pmf) < 5 * np.sqrt(pmf * (1 - pmf) / n))
    inside = keys[keys < num // prefixes]  # the hottest range: flat inside
    halves = np.bincount(inside // (num // prefixes // 2), minlength=2)
    assert abs(halves[0] / halves.sum() - 0.5) < 0.01
    assert s.hot_fraction(1 / prefixes) == pytest.approx(pmf[0]) and s.hot_fraction(1.0) == 1.0
    big = K.make_sampler("prefix_zipf", 10**9, theta=1.0).draw(np.random.default_rng(4), 100_000)
    assert len(np.unique(big)) > 99_000  # skewed ranges, yet inserts into a large key space stay nearly unique


def test_zipfian_theta_controls_skew():
    a = K.make_sampler("zipfian", 10**5, theta=0.99).hot_fraction(0.01)
    b = K.make_sampler("zipfian", 10**5, theta=0.5).hot_fraction(0.01)
    assert a > 0.5 > b > 0.01


def test_scrambled_hot_keys_spread_over_key_space():
    num, n = 10**6, 300_000
    keys = draw("zipfian", num, n, seed=2)
    uniq, counts = np.unique(keys, return_counts=True)
    hot = uniq[np.argsort(counts)[::-1][:50]].astype(np.int64)
    assert hot[0] == fnv_ref(0) % num  # hottest key = hash of rank 0
    assert hot.max() - hot.min() > num // 2
    assert np.mean(hot < num // 100) < 0.2  # not piled up near key 0
    # Deciles of the key space touched by the 50 hottest keys.
    assert len(np.unique(hot * 10 // num)) >= 6


def test_latest_concentrates_near_cursor():
    num, n, cursor = 10**6, 200_000, 5000
    keys = draw("latest", num, n, seed=4, cursor=cursor).astype(np.int64)
    assert keys.max() == cursor - 1  # only inserted keys, newest hottest
    assert np.bincount(keys).argmax() == cursor - 1
    near = np.mean(keys >= cursor - 100)
    assert near > 0.5
    assert near == pytest.approx(Z.gray_rank_cdf(100, cursor, 0.99), abs=0.01)


def test_latest_cursor_zero_and_beyond_num():
    num = 1000
    for cursor in (0, 5 * num):
        keys = draw("latest", num, 50_000, seed=6, cursor=cursor).astype(np.int64)
        assert np.bincount(keys).argmax() == num - 1
        assert np.mean(keys >= num - 10) > 0.3
    one = draw("latest", num, 100, seed=6, cursor=1)
    assert not one.any()  # only key 0 inserted


# ---------------------------------------------------------------------------
# hot_fraction
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_hot_fraction_bounds_and_monotone(name):
    s = K.make_sampler(name, 10**6)
    assert s.hot_fraction(0.0) == pytest.approx(0.0, abs=1e-12)
    assert s.hot_fraction(1.0) == pytest.approx(1.0)
    fr = [s.hot_fraction(f) for f in (0.001, 0.01, 0.1, 0.5, 0.9)]
    assert all(0 <= x <= 1 for x in fr)
    assert fr == sorted(fr)
    with pytest.raises(ValueError):
        s.hot_fraction(1.5)


def test_hot_fraction_zipfian_matches_empirical():
    num, n = 10**5, 1_000_000
    s = K.make_sampler("zipfian", num)
    ranks = s.draw_ranks(np.random.default_rng(7), n)
    keys = s.draw(np.random.default_rng(7), n, 0)
    counts = np.sort(np.bincount(keys.astype(np.int64), minlength=num))[::-1]
    for f in (0.0001, 0.001, 0.01, 0.1, 0.5):
        k = int(round(f * num))
        model = s.hot_fraction(f)
        emp_ranks = np.mean(ranks < k)
        # zeta ratio vs Gray's approximate inverse: within 2 points.
        assert emp_ranks == pytest.approx(model, abs=0.02), f
        assert emp_ranks == pytest.approx(Z.gray_rank_cdf(k, num, 0.99), abs=0.003), f
        # Scrambled keys: collisions only merge ranks, so the k hottest keys
        # carry at least about the model's mass.
        assert counts[:k].sum() / n > model - 0.02, f
    assert s.hot_fraction(0.001) > 0.3  # real skew, not uniform


def test_hot_fraction_uniform_matches_empirical():
    num, n = 10**4, 500_000
    s = K.make_sampler("uniform", num)
    keys = s.draw(np.random.default_rng(8), n, 0)
    for f in (0.01, 0.1, 0.5):
        emp = np.mean(keys < int(f * num))
        assert emp == pytest.approx(s.hot_fraction(f), abs=0.005)


@pytest.mark.parametrize("mean,stddev", [(0.5, 0.1), (0.02, 0.05)])
def test_hot_fraction_normal_matches_empirical(mean, stddev):
    num, n = 10**5, 300_000
    s = K.make_sampler("normal", num, mean=mean, stddev=stddev)
    keys = s.draw(np.random.default_rng(10), n, 0).astype(np.int64)
    counts = np.bincount(keys, minlength=num)
    for f in (0.01, 0.1, 0.3):
        w = int(f * num)
        # Best contiguous window of w keys, via prefix sums.
        c = np.concatenate([[0], np.cumsum(counts)])
        best = (c[w:] - c[:-w]).max() / n
        assert best == pytest.approx(s.hot_fraction(f), abs=0.01), f
    if mean < 0.1:
        # Clipped left tail piles onto key 0.
        assert counts[0] / n == pytest.approx(0.5 * math.erfc(mean / stddev / math.sqrt(2)), abs=0.01)


def test_normal_centered():
    num = 10**6
    keys = draw("normal", num, 200_000, seed=12).astype(np.float64)
    assert keys.mean() == pytest.approx(0.5 * num, rel=0.005)
    assert keys.std() == pytest.approx(0.1 * num, rel=0.02)


# ---------------------------------------------------------------------------
# make_sampler validation
# ---------------------------------------------------------------------------


def test_bad_name_lists_allowed_names():
    with pytest.raises(ValueError) as exc:
        K.make_sampler("pareto", 100)
    for name in NAMES:
        assert name in str(exc.value)


def test_bad_params_rejected():
    with pytest.raises(ValueError, match="theta"):
        K.make_sampler("zipfian", 100, skew=0.9)
    with pytest.raises(ValueError, match="mean"):
        K.make_sampler("normal", 100, theta=0.9)
    with pytest.raises(ValueError, match="none"):
        K.make_sampler("uniform", 100, theta=0.9)
    for bad in (10.5, -0.1):
        with pytest.raises(ValueError, match="theta"):
            K.make_sampler("latest", 100, theta=bad)
    with pytest.raises(ValueError, match="stddev"):
        K.make_sampler("normal", 100, stddev=0)
    for bad_num in (0, -5, 2.5, 2**63):
        with pytest.raises(ValueError, match="num"):
            K.make_sampler("uniform", bad_num)
    with pytest.raises(ValueError, match="cursor"):
        K.make_sampler("sequential", 10).draw(np.random.default_rng(0), 3, -1)


def test_zipfian_scramble_moves_the_hot_set():
    """`keys.scramble` (Spooky §6's moving hot set): 0 is YCSB's scatter; another value keeps the skew and moves
    the hottest keys elsewhere."""
    import numpy as np

    from lsmsim.workloads.keys import ZipfianSampler

    def top(sampler, k=50):
        keys = sampler.draw(np.random.default_rng(3), 200_000)
        vals, counts = np.unique(keys, return_counts=True)
        return set(vals[np.argsort(-counts)[:k]].tolist()), counts.max()

    base = ZipfianSampler(1_000_000, 0.99)
    same = ZipfianSampler(1_000_000, 0.99, scramble=0)
    moved = ZipfianSampler(1_000_000, 0.99, scramble=1)
    rng = np.random.default_rng(1)
    assert np.array_equal(base.draw(np.random.default_rng(1), 1000), same.draw(rng, 1000))
    (hot0, max0), (hot1, max1) = top(base), top(moved)
    assert len(hot0 & hot1) <= 2 and abs(max0 - max1) < 0.05 * max0


def test_scramble_outside_zipfian_is_a_config_error():
    import pytest

    import lsmsim
    from lsmsim.errors import ConfigError
    from tests.conftest import small_config

    cfg = small_config(phases=[{"operations": 1000, "mix": {"insert": 1.0}, "keys": {"scramble": 2}}])
    with pytest.raises(ConfigError, match=r"keys.*scramble moves a zipfian hot set"):
        lsmsim.run(cfg)
