"""db_bench's mixgraph (tools/db_bench_tool.cc, RocksDB 7.8: Benchmark::MixGraph, GenerateTwoTermExpKeys,
ParetoCdfInversion, PowerCdfInversion, QueryDecider, SineRate), the workload model of Cao et al., "Characterizing,
Modeling, and Benchmarking RocksDB Key-Value Workloads at Facebook", FAST'20 §6:

- keys: with `key_dist_a` and `key_dist_b` both non-zero, a key's seed follows the power CDF F(x) = a x^b
  (seed = ceil((u / a)^(1 / b)) for a uniform u) and the seed is hashed to a key; with `keyrange_dist_*` too, the key
  space is cut into `keyrange_num` ranges whose hotness is the two-term exponential a e^(b x) + c e^(d x), shuffled
  over the key space, and the power model places the key inside its range. With a or b zero, keys are uniform
  (db_bench checks that first: the key-range model alone does nothing);
- values: sizes from the generalized Pareto (theta, k, sigma), at least 10 bytes, modulo `mix_max_value_size`;
- Seeks: Seek and a generalized-Pareto (iter_theta, iter_k, iter_sigma) number of Nexts, modulo `mix_max_scan_len`;
- the mix: Get, Put and Seek in the ratios' shares of 1,000 (QueryDecider rounds each up);
- rate: with `sine_mix_rate`, the clients' shared rate limiters hold their operations to A sin(B t + C) + D per
  second, re-set every `sine_mix_rate_interval_milliseconds` (until the first re-set, 1,000,000/s per type).

lsmsim draws the keys as db_bench does, with splitmix64 in place of RocksDB's Random64 (std::mt19937_64) for the
seed's hash and the ranges' shuffle: the same distribution, not the same keys. A phase's writes take the mean value
size and its Seeks the mean scan length (`mean_value_size`, `mean_scan_length`).
"""

from __future__ import annotations

import math

import numpy as np

from .._numba import numba
from ._kernels import splitmix

MAX_VALUE = 1 << 20  # MixGraph's value buffer (default_value_max)
_GRID = 1 << 20  # midpoints of u for the means below


@numba.njit(cache=True)
def _seed(u, a, b):
    """PowerCdfInversion: ceil((u / a)^(1 / b))."""
    return np.uint64(math.ceil((u / a) ** (1.0 / b)))


@numba.njit(cache=True)
def mixgraph_keys(ini, num, a, b, starts, size, rand_max, out):
    """Keys of uniform draws `ini` in [0, num): the power model over [0, num) (no `starts`), or over the key range
    whose share of [0, rand_max) holds ini % rand_max (DistGetKeyID: `starts` are the shuffled ranges' first
    positions)."""
    for i in range(ini.shape[0]):
        r = ini[i]
        if starts.shape[0] == 0:
            out[i] = splitmix(_seed(r / num, a, b)) % np.uint64(num)
            continue
        pos = r % np.uint64(rand_max)
        lo, hi = 0, starts.shape[0]  # the last range whose start <= pos
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if pos < starts[mid]:
                hi = mid
            else:
                lo = mid
        u = (r % np.uint64(size)) / size
        out[i] = np.uint64(size) * np.uint64(lo) + splitmix(_seed(u, a, b)) % np.uint64(size)


def key_space_share(a: float, b: float, ranges: bool) -> float:
    """The share of MixGraph's keys inside [0, num). With the power model alone, db_bench takes the key as
    `static_cast<int64_t>(rand.Next()) % FLAGS_num` (tools/db_bench_tool.cc, Benchmark::MixGraph, RocksDB 7.8.3): the
    hash's top bit makes half the keys negative, and GenerateKeyFromInt writes them as 2^64 + key, past every key a
    fill wrote, so only MixGraph's own Puts ever write them. DistGetKeyID's `rand_key.Next() % keyrange_size_` (key
    ranges) and GetRandomKey (a or b zero) stay unsigned. lsmsim draws the hashed keys in [0, num) and counts the
    negative half as never found (`found_reach`); their Puts' and Seeks' own region is not modelled."""
    return 0.5 if a != 0 and b != 0 and not ranges else 1.0


def key_ranges(num: int, keyrange_num: int, a: float, b: float, c: float, d: float) -> tuple[np.ndarray, int, int]:
    """GenerateTwoTermExpKeys::InitiateExpDistribution: each range's share of the draws in integer units (the
    coldest range gets at least one), shuffled; returns the shuffled ranges' units, the units' total and the range
    size."""
    n = max(1, keyrange_num)
    units, amplify = [], 0
    for pfx in range(n, 0, -1):
        p = a * math.exp(b * pfx) + c * math.exp(d * pfx)
        p = 0.0 if p < 1e-16 else p
        if amplify == 0 and p > 0:
            amplify = math.floor(1 / p) + 1
        units.append(math.floor(amplify * p) if p > 0 else 0)
    units_a = np.array(units, np.int64)
    rng = np.random.default_rng(int(units_a.sum()))  # db_bench seeds its shuffle with the units' total too
    for i in range(n):
        j = int(rng.integers(0, n))
        units_a[i], units_a[j] = units_a[j], units_a[i]
    return units_a, int(units_a.sum()), num // n


def power_pieces(n: float, size: int, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """A key range's popularity in pieces of equal popularity, hottest first: (keys, share of the range's draws).
    db_bench's key is a function of one uniform integer in [0, num): `n` of them fall in the range, at
    m = min(n, size) distinct points u = (i % size) / size, each with the seed ceil((u / a)^(1 / b)) hashed onto the
    range's `size` keys. The hottest seeds k <= k*, where m a (k^b - (k - 1)^b) >= 1, hold several points each
    (F(k) = a k^b); past k* each point has a seed of its own, so a key holds Poisson(m (1 - F(k*)) / size) points."""
    n = min(n, float(size))
    kstar = min((n * a * b) ** (1.0 / (1.0 - b)) if b < 1 else n, float(size), (1.0 / a) ** (1.0 / b))
    dk, dm = np.empty(0), np.empty(0)
    head = 0.0
    if kstar >= 1:
        k = np.unique(np.geomspace(1.0, kstar, 256).round())
        dk, dm = np.diff(k, prepend=0.0), np.diff(np.minimum(1.0, a * k**b), prepend=0.0)
        head = min(1.0, a * k[-1] ** b)
    mu = n * (1.0 - head) / size  # the tail's points per key
    if mu > 0:
        c = np.arange(1, max(8, int(mu + 12 * math.sqrt(mu) + 8)))
        pois = np.exp(c * math.log(mu) - mu - np.array([math.lgamma(x + 1) for x in c]))
        dk = np.concatenate([dk, size * pois[::-1]])
        dm = np.concatenate([dm, (c * pois)[::-1] * size / n])
    return dk, dm


def _pareto(u: np.ndarray, theta: float, k: float, sigma: float) -> np.ndarray:
    """ParetoCdfInversion before its ceil."""
    with np.errstate(over="ignore", divide="ignore"):
        return theta - sigma * np.log(u) if k == 0.0 else theta + sigma * (u ** (-k) - 1) / k


def _points(num: int | None, band: tuple[int, int, int] | None) -> np.ndarray:
    """The u = rand / num a type's draws see: rand of [0, num) whose rand % R falls in [lo, hi) (QueryDecider gives a
    type its own residues, and MixGraph takes the type and u from the same rand), enumerated up to 2^22 keys; past
    that, or without a band, midpoints of [0, 1) (the residues' bias on u is below 2^-22 x R)."""
    if num is not None and band is not None and num <= _GRID * 4:
        lo, hi, r = band
        rand = np.arange(num, dtype=np.int64)
        return rand[(rand % r >= lo) & (rand % r < hi)] / num
    return (np.arange(_GRID, dtype=np.float64) + 0.5) / _GRID


def _ceiled(num, band, theta: float, k: float, sigma: float) -> np.ndarray:
    """ParetoCdfInversion (ceil included) at the u a type's draws see, kept below int64's top as db_bench's cast."""
    return np.ceil(np.minimum(_pareto(_points(num, band), theta, k, sigma), 2.0**62))


def mean_value_size(theta: float, k: float, sigma: float, max_value_size: int, num=None, band=None) -> float:
    """The mean value size of MixGraph's Puts: ceil(Pareto(u)), at least 10, modulo min(max_value_size, 1 MiB); `num`
    and the Puts' `band` (query_bands) give the u they see."""
    vmax = min(int(max_value_size), MAX_VALUE)
    v = _ceiled(num, band, theta, k, sigma)
    v = np.where(v < 10, 10.0, np.where(v > vmax, np.mod(v, vmax), v))
    return float(v.mean())


def mean_scan_length(theta: float, k: float, sigma: float, max_scan: int, num=None, band=None) -> float:
    """The mean number of Nexts after a MixGraph Seek: ceil(Pareto(u)) modulo mix_max_scan_len (`num` and `band` as
    for mean_value_size)."""
    return float(np.mod(_ceiled(num, band, theta, k, sigma), max(1, int(max_scan))).mean())


def query_bands(get: float, put: float, seek: float) -> list[tuple[int, int, int]]:
    """QueryDecider's residues of each type: [lo, hi) of rand % R, and R, for Get, Put and Seek."""
    total = get + put + seek
    ends = np.cumsum([math.ceil(1000 * r / total) for r in (get, put, seek)]).tolist()
    return [(lo, hi, ends[-1]) for lo, hi in zip([0, *ends[:-1]], ends)]


def query_shares(get: float, put: float, seek: float, num: int | None = None) -> tuple[float, float, float]:
    """QueryDecider: each type's ceil(1000 x ratio / sum) of the rounded-up total R. MixGraph decides on
    rand_v = GetRandomKey % num, uniform over [0, num) (tools/db_bench_tool.cc, MixGraph and QueryDecider::GetType),
    so with `num` a type's share is its residues mod R counted over [0, num): num = 20,000 and R = 1,003 leave the
    last 60 residues one draw short, and a 10% Seek band at the top gets 9.80%, not 10.07% (seven db_bench runs of
    40,000 drew 9.41-9.92%)."""
    bands = query_bands(get, put, seek)
    if num is None:
        return tuple((hi - lo) / r for lo, hi, r in bands)  # type: ignore[return-value]
    full, rest = divmod(num, bands[0][2])
    return tuple(((hi - lo) * full + max(0, min(hi, rest) - lo)) / num for lo, hi, _ in bands)  # type: ignore[return-value]


def sine_rate(t: float, a: float, b: float, c: float, d: float, interval: float, noise: float = 0.0, seed=()) -> float:
    """The operations per second MixGraph's rate limiters allow `t` seconds into the benchmark: A sin(B t_k + C) + D
    at the last re-set t_k = k x interval (none before the first: inf), with AddNoise's uniform
    (-A/2, A/2) x noise drawn per re-set from `seed` (a tuple of ints)."""
    k = math.floor(t / interval + 1e-9) if interval > 0 else 0
    if k < 1:
        return math.inf
    tk = k * interval
    rate = a * math.sin(b * tk + c) + d
    if 0.0 < noise <= 1.0 and int(a) > 0:
        band = int(a)
        draw = int(np.random.default_rng([*seed, k]).integers(0, band))
        rate += (draw - band // 2) * noise
    return max(rate, 0.0)
