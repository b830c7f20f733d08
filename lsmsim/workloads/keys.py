"""Key-choice distributions for lsmsim workloads.

Keys are integer ids in ``[0, num)`` returned as ``numpy.uint64`` arrays.
Samplers draw whole batches at once (numpy / numba kernels, no per-key
Python work) and are deterministic given the state of the
``numpy.random.Generator`` passed to :meth:`KeySampler.draw`.

Distributions and their sources:

* ``uniform``    -- db_bench ``fillrandom`` / ``readrandom``: uniform with
  replacement over the key space.
* ``sequential`` -- db_bench ``fillseq``: ``cursor, cursor+1, ...`` mod num.
* ``zipfian``    -- YCSB ``ScrambledZipfianGenerator``: zipfian rank from the
  closed-form inverse of Gray et al., "Quickly generating billion-record
  synthetic databases", SIGMOD 1994 (as in YCSB ``ZipfianGenerator``), then
  scattered over the key space with YCSB's ``Utils.fnvhash64`` mod num.
* ``latest``     -- YCSB ``SkewedLatestGenerator``: ``max_inserted - rank``.
* ``normal``     -- keys ~ N(mean*num, (stddev*num)^2), floored and clipped.

:class:`HotSetSampler` restricts any of them to ``hot`` keys spread evenly
over the key space (ArceKV, PVLDB'26 Sec. 5.3, "Read Amplification under
MVCC": 1 million hot keys).

Use :func:`make_sampler` to build one by name.
"""

from __future__ import annotations

import abc
import functools
import math

import numba
import numpy as np

__all__ = [
    "KeySampler",
    "UniformSampler",
    "SequentialSampler",
    "ZipfianSampler",
    "LatestSampler",
    "NormalSampler",
    "HotSetSampler",
    "make_sampler",
    "SAMPLERS",
    "zeta",
    "zeta_exact",
    "zeta_euler_maclaurin",
    "zipf_params",
    "gray_rank_cdf",
    "fnv1a64",
    "ZETA_EXACT_MAX",
]

#: zeta(n, theta) is summed exactly up to this n, Euler-Maclaurin above.
ZETA_EXACT_MAX = 10_000_000

# Block size of the cached exact prefix sums of zeta. Any zeta_exact(n) is
# prefix[n // B] + (< B terms), so 'latest' can afford a new zeta per batch.
_ZETA_BLOCK = 4096

# Random numbers are generated in chunks of this many values so temporaries
# stay cache-sized even for 10^7-key batches. The generator stream consumed
# is the same whatever the chunking (one double per key).
_CHUNK = 1 << 16

_FNV_OFFSET_BASIS_64 = np.uint64(0xCBF29CE484222325)
_FNV_PRIME_64 = np.uint64(1099511628211)
_U8_MASK = np.uint64(0xFF)
_U8 = np.uint64(8)
_U63 = np.uint64(63)
_U1 = np.uint64(1)


# ---------------------------------------------------------------------------
# numba kernels
# ---------------------------------------------------------------------------

@numba.njit(cache=True, nogil=True)
def _fnv1a64_scalar(val):
    # YCSB Utils.fnvhash64: FNV-1a over the 8 little-endian bytes of the
    # value, then Math.abs of the signed result (two's-complement negate
    # when the top bit is set). Java shifts arithmetically; identical for
    # val < 2**63, which all ranks are.
    h = _FNV_OFFSET_BASIS_64
    v = val
    for _ in range(8):
        h ^= v & _U8_MASK
        h *= _FNV_PRIME_64
        v >>= _U8
    if (h >> _U63) != 0:
        # Java's Math.abs(Long.MIN_VALUE) stays negative; here 2**63 stays
        # 2**63 (unsigned), which keeps the later "% num" in range.
        h = (~h) + _U1
    return h


@numba.njit(cache=True, nogil=True)
def _fnv1a64_array(vals, out):
    for i in range(vals.size):
        out[i] = _fnv1a64_scalar(vals[i])


@numba.njit(cache=True, nogil=True)
def _zeta_range(lo, hi, theta):
    """Kahan-compensated sum_{i=lo}^{hi} i**-theta (empty if hi < lo)."""
    s = 0.0
    c = 0.0
    for i in range(lo, hi + 1):
        y = float(i) ** -theta - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


@numba.njit(cache=True, nogil=True)
def _zeta_blocks(first_block, nblocks, block, theta, out):
    # out[j] = sum of block (first_block + j), i.e. i in (k*B, (k+1)*B].
    for j in range(nblocks):
        k = first_block + j
        out[j] = _zeta_range(k * block + 1, (k + 1) * block, theta)


@numba.njit(cache=True, nogil=True)
def _gray_rank(u, items, zetan, theta, alpha, eta, half_pow_theta):
    # YCSB ZipfianGenerator.nextLong(itemcount) with base 0.
    uz = u * zetan
    if uz < 1.0:
        return 0
    if uz < 1.0 + half_pow_theta:
        return 1
    r = np.int64(items * (eta * u - eta + 1.0) ** alpha)
    # Float rounding could in principle reach `items`; keep it a valid rank.
    if r >= items:
        r = items - 1
    return r


# mode: 0 = raw rank, 1 = fnv(rank) % modulus, 2 = offset - rank
@numba.njit(cache=True, nogil=True)
def _zipf_kernel(u, items, zetan, theta, alpha, eta, mode, modulus, offset, out):
    half_pow_theta = 0.5 ** theta
    for i in range(u.size):
        r = _gray_rank(u[i], items, zetan, theta, alpha, eta, half_pow_theta)
        if mode == 2:
            out[i] = np.uint64(offset - r)
        else:
            out[i] = np.uint64(r)
    if mode == 1:
        # Separate pass: fused with the pow loop, the serial pow -> hash ->
        # divide latency chain made scrambling ~2x slower than this.
        umod = np.uint64(modulus)
        for i in range(u.size):
            out[i] = _fnv1a64_scalar(out[i]) % umod


@numba.njit(cache=True, nogil=True)
def _normal_kernel(z, mu, sigma, num, out):
    hi = float(num - 1)
    for i in range(z.size):
        x = math.floor(mu + sigma * z[i])
        # Clip in float space first: huge |x| must not overflow the cast.
        if x < 0.0:
            x = 0.0
        elif x > hi:
            x = hi
        out[i] = np.uint64(x)


# ---------------------------------------------------------------------------
# zeta(n, theta) = sum_{i=1}^{n} i**-theta
# ---------------------------------------------------------------------------

# theta -> [prefix sums at multiples of _ZETA_BLOCK (list), Kahan carry]
_zeta_prefix_cache: dict[float, list] = {}


def _zeta_prefix(theta: float, k: int) -> float:
    """Exact sum_{i=1}^{k*B} i**-theta, from lazily extended block sums.

    Extension continues the same compensated running sum, so the value for a
    given k does not depend on the order in which calls were made.
    """
    state = _zeta_prefix_cache.setdefault(theta, [[0.0], 0.0])
    prefix, carry = state
    have = len(prefix) - 1
    if k > have:
        blocks = np.empty(k - have, dtype=np.float64)
        _zeta_blocks(have, k - have, _ZETA_BLOCK, theta, blocks)
        s = prefix[-1]
        for b in blocks.tolist():
            y = b - carry
            t = s + y
            carry = (t - s) - y
            s = t
            prefix.append(s)
        state[1] = carry
    return prefix[k]


def zeta_exact(n: int, theta: float) -> float:
    """sum_{i=1}^{n} i**-theta by direct (compensated) summation.

    Cost O(n) the first time per theta, then O(_ZETA_BLOCK) thanks to the
    cached block prefix sums.
    """
    n = int(n)
    theta = float(theta)
    if n <= 0:
        return 0.0
    k = n // _ZETA_BLOCK
    return _zeta_prefix(theta, k) + _zeta_range(k * _ZETA_BLOCK + 1, n, theta)


def zeta_euler_maclaurin(n: int, theta: float, head: int = 100) -> float:
    """sum_{i=1}^{n} i**-theta via Euler-Maclaurin, O(head) cost.

    Terms 1..head-1 are summed exactly; the tail sum_{i=head}^{n} f(i) with
    f(x) = x**-theta is int_a^b f + (f(a)+f(b))/2 + sum_k B_2k/(2k)!
    (f^(2k-1)(b) - f^(2k-1)(a)), k = 1..3. With a = 100 the remainder is
    ~1e-17, below double precision.
    """
    n = int(n)
    theta = float(theta)
    if n < head:
        return zeta_exact(n, theta)
    a, b = float(head), float(n)
    s = 1.0 - theta
    # int_a^b x**-theta dx, written with expm1 so theta -> 1 stays accurate.
    ln_ratio = math.log(b / a)
    integral = ln_ratio if s == 0.0 else a ** s * math.expm1(s * ln_ratio) / s

    def f(x):
        return x ** -theta

    def d1(x):  # f'
        return -theta * x ** (-theta - 1.0)

    def d3(x):  # f'''
        return -theta * (theta + 1) * (theta + 2) * x ** (-theta - 3.0)

    def d5(x):  # f^(5)
        return (-theta * (theta + 1) * (theta + 2) * (theta + 3) * (theta + 4)
                * x ** (-theta - 5.0))

    tail = (integral + 0.5 * (f(a) + f(b))
            + (d1(b) - d1(a)) / 12.0
            - (d3(b) - d3(a)) / 720.0
            + (d5(b) - d5(a)) / 30240.0)
    return _zeta_range(1, head - 1, theta) + tail


@functools.lru_cache(maxsize=4096)
def zeta(n: int, theta: float) -> float:
    """zeta(n, theta) = sum_{i=1}^{n} i**-theta (Gray et al. 1994 notation).

    Exact for n <= ZETA_EXACT_MAX, Euler-Maclaurin above (relative error
    ~1e-15; e.g. n = 1e9 costs microseconds instead of seconds).
    """
    n = int(n)
    if n <= ZETA_EXACT_MAX:
        return zeta_exact(n, theta)
    return zeta_euler_maclaurin(n, theta)


@functools.lru_cache(maxsize=1024)
def zipf_params(items: int, theta: float) -> tuple[float, float, float]:
    """(zetan, alpha, eta) of YCSB's ZipfianGenerator for `items` ranks."""
    zetan = zeta(items, theta)
    zeta2 = zeta(2, theta)
    alpha = 1.0 / (1.0 - theta)
    if items <= 2:
        # zetan == zeta2 would divide by zero; with <= 2 items u*zetan is
        # always below 1 + 0.5**theta, so eta is never used.
        return zetan, alpha, 0.0
    eta = (1.0 - (2.0 / items) ** (1.0 - theta)) / (1.0 - zeta2 / zetan)
    return zetan, alpha, eta


def gray_rank_cdf(k: int, items: int, theta: float) -> float:
    """P(rank < k) for the Gray et al. inverse as drawn by the kernels.

    Ranks 0 and 1 get their exact zipf mass; larger ranks follow the
    continuous approximation, which over-weights ranks >= 2 slightly (rank 2
    by ~+18% at theta=0.99), so this CDF exceeds zeta(k)/zeta(items) by
    ~0.01-0.02 near the head.
    """
    k, items = int(k), int(items)
    if k <= 0:
        return 0.0
    if k >= items:
        return 1.0
    zetan, _, eta = zipf_params(items, theta)
    if k == 1:
        return min(1.0, 1.0 / zetan)
    first_two = min(1.0, (1.0 + 0.5 ** theta) / zetan)
    if k == 2:
        return first_two
    # rank >= k  <=>  eta*u - eta + 1 >= (k/items)**(1-theta)
    u_k = 1.0 - (1.0 - (k / items) ** (1.0 - theta)) / eta
    return min(1.0, max(first_two, u_k))


def fnv1a64(vals) -> np.ndarray:
    """YCSB ``Utils.fnvhash64`` applied elementwise to a uint64 array."""
    vals = np.ascontiguousarray(vals, dtype=np.uint64)
    out = np.empty_like(vals)
    _fnv1a64_array(vals.ravel(), out.ravel())
    return out


def _zipf_draw(rng, n, items, theta, mode, modulus, offset) -> np.ndarray:
    zetan, alpha, eta = zipf_params(items, theta)
    out = np.empty(n, dtype=np.uint64)
    buf = np.empty(min(n, _CHUNK), dtype=np.float64)
    for start in range(0, n, _CHUNK):
        m = min(_CHUNK, n - start)
        u = buf[:m]
        rng.random(out=u)
        _zipf_kernel(u, items, zetan, theta, alpha, eta, mode, modulus, offset,
                     out[start:start + m])
    return out


# ---------------------------------------------------------------------------
# Samplers
# ---------------------------------------------------------------------------

def _check_draw_args(n: int, cursor: int) -> tuple[int, int]:
    n, cursor = int(n), int(cursor)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if cursor < 0:
        raise ValueError(f"cursor must be >= 0, got {cursor}")
    return n, cursor


def _check_fraction(fraction: float) -> float:
    fraction = float(fraction)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be in [0, 1], got {fraction}")
    return fraction


def _top_count(fraction: float, num: int) -> int:
    # Tolerate float noise such as 0.3 * 10 = 2.9999999999999996.
    return min(num, int(math.floor(fraction * num + 1e-9)))


class KeySampler(abc.ABC):
    """Draws batches of integer keys in ``[0, num)``."""

    name: str = ""
    num: int

    def __init__(self, num: int):
        self.num = int(num)

    @abc.abstractmethod
    def draw(self, rng: np.random.Generator, n: int, cursor: int) -> np.ndarray:
        """Return `n` uint64 keys in [0, num).

        `cursor` is the number of inserts issued so far in the run (used by
        'sequential' and 'latest'). Deterministic given the rng state.
        """

    @abc.abstractmethod
    def hot_fraction(self, fraction: float) -> float:
        """Fraction of accesses hitting the most popular `fraction` of keys."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num={self.num})"


class UniformSampler(KeySampler):
    """Uniform with replacement (db_bench fillrandom/readrandom)."""

    name = "uniform"

    def draw(self, rng, n, cursor=0):
        n, _ = _check_draw_args(n, cursor)
        return rng.integers(0, self.num, size=n, dtype=np.uint64)

    def hot_fraction(self, fraction):
        return _check_fraction(fraction)


class SequentialSampler(KeySampler):
    """Keys cursor, cursor+1, ... modulo num (db_bench fillseq)."""

    name = "sequential"

    def draw(self, rng, n, cursor=0):
        n, cursor = _check_draw_args(n, cursor)
        num = np.uint64(self.num)
        keys = np.arange(n, dtype=np.uint64)
        keys += np.uint64(cursor % self.num)
        if cursor % self.num + n > self.num:  # only pay for % when wrapping
            keys %= num
        return keys

    def hot_fraction(self, fraction):
        # Each key is touched once per pass: no key is hotter than another.
        return _check_fraction(fraction)


class ZipfianSampler(KeySampler):
    """YCSB ScrambledZipfianGenerator (default theta 0.99).

    Rank r in [0, num) follows Gray et al. (SIGMOD 1994)'s closed-form
    zipfian inverse as in YCSB's ZipfianGenerator; key = fnvhash64(r) % num.
    Unlike YCSB, which draws ranks over a fixed 10^10 items, ranks are drawn
    over `num` items so the pmf and hot_fraction match zeta(num, theta).
    Gray's inverse is exact for ranks 0 and 1 and approximate beyond (see
    gray_rank_cdf). The hash is not a bijection: some ranks collide on a
    key, so the hottest keys carry slightly more mass than the hottest ranks.
    """

    name = "zipfian"

    def __init__(self, num: int, theta: float = 0.99):
        super().__init__(num)
        self.theta = _check_theta(theta)
        zipf_params(self.num, self.theta)  # pay zeta(num) once, up front

    def draw_ranks(self, rng, n):
        """Unscrambled zipf ranks (0 = most popular); consumes rng as draw."""
        n, _ = _check_draw_args(n, 0)
        return _zipf_draw(rng, n, self.num, self.theta, 0, 1, 0)

    def draw(self, rng, n, cursor=0):
        n, _ = _check_draw_args(n, cursor)
        return _zipf_draw(rng, n, self.num, self.theta, 1, self.num, 0)

    def hot_fraction(self, fraction):
        """zeta(k, theta) / zeta(num, theta) with k = fraction * num.

        Exact for ranks; ignores hash collisions (a slight underestimate for
        scrambled keys).
        """
        k = _top_count(_check_fraction(fraction), self.num)
        return zeta(k, self.theta) / zeta(self.num, self.theta)

    def __repr__(self):
        return f"ZipfianSampler(num={self.num}, theta={self.theta})"


class LatestSampler(KeySampler):
    """YCSB SkewedLatestGenerator: recently inserted keys are most popular.

    Assumes inserts were sequential ids 0..cursor-1, so count =
    min(cursor, num) keys exist (count = num when cursor == 0) and
    key = (count - 1) - rank with rank zipfian over `count` items.
    """

    name = "latest"

    def __init__(self, num: int, theta: float = 0.99):
        super().__init__(num)
        self.theta = _check_theta(theta)

    def draw(self, rng, n, cursor=0):
        n, cursor = _check_draw_args(n, cursor)
        count = min(cursor, self.num) if cursor > 0 else self.num
        # rank <= count - 1, so keys already land in [0, count - 1].
        return _zipf_draw(rng, n, count, self.theta, 2, 1, count - 1)

    def hot_fraction(self, fraction):
        """Zipf mass of the top fraction*num ranks over the full key space."""
        k = _top_count(_check_fraction(fraction), self.num)
        return zeta(k, self.theta) / zeta(self.num, self.theta)

    def __repr__(self):
        return f"LatestSampler(num={self.num}, theta={self.theta})"


class NormalSampler(KeySampler):
    """key = floor(X), X ~ N(mean*num, (stddev*num)^2), clipped to [0, num)."""

    name = "normal"

    def __init__(self, num: int, mean: float = 0.5, stddev: float = 0.1):
        super().__init__(num)
        self.mean = float(mean)
        self.stddev = float(stddev)
        if not math.isfinite(self.mean):
            raise ValueError(f"normal: mean must be finite, got {mean}")
        if not (math.isfinite(self.stddev) and self.stddev > 0):
            raise ValueError(f"normal: stddev must be > 0, got {stddev}")

    def draw(self, rng, n, cursor=0):
        n, _ = _check_draw_args(n, cursor)
        mu, sigma = self.mean * self.num, self.stddev * self.num
        out = np.empty(n, dtype=np.uint64)
        buf = np.empty(min(n, _CHUNK), dtype=np.float64)
        for start in range(0, n, _CHUNK):
            m = min(_CHUNK, n - start)
            z = buf[:m]
            rng.standard_normal(out=z)
            _normal_kernel(z, mu, sigma, self.num, out[start:start + m])
        return out

    def hot_fraction(self, fraction):
        """Mass of the hottest window of floor(fraction*num) adjacent keys.

        Normally the window centred on the mean (shifted inside [0, num));
        when the mean sits near an edge, the clipped tail piled onto key 0
        or num-1 can make the window at that edge hotter, so those are
        candidates too.
        """
        num = self.num
        w = _top_count(_check_fraction(fraction), num)
        if w == 0:
            return 0.0
        mu, sigma = self.mean * num, self.stddev * num
        scale = sigma * math.sqrt(2.0)

        def mass(lo):
            # floor(X) in [lo, lo+w) <=> X in [lo, lo+w); the edge keys also
            # collect the clipped tails.
            hi = lo + w
            p_hi = 1.0 if hi >= num else 0.5 * math.erfc(-(hi - mu) / scale)
            p_lo = 0.0 if lo <= 0 else 0.5 * math.erfc(-(lo - mu) / scale)
            return p_hi - p_lo

        centred = min(max(mu - w / 2, 0.0), num - w)
        best = max(mass(centred), mass(0.0), mass(num - w))
        return max(0.0, min(1.0, best))

    def __repr__(self):
        return (f"NormalSampler(num={self.num}, mean={self.mean}, "
                f"stddev={self.stddev})")


def _check_theta(theta: float) -> float:
    theta = float(theta)
    # Gray's inverse has alpha = 1/(1-theta): theta must stay below 1.
    if not 0.0 <= theta < 1.0:
        raise ValueError(f"theta must be in [0, 1), got {theta}")
    return theta


@numba.njit(cache=True)
def _feistel_kernel(cursor0, n, num, half_bits, key0, key1, out):
    """Cycle-walking 4-round Feistel permutation of [0, num) (Black & Rogaway, CT-RSA'02)."""
    mask = np.uint64((1 << half_bits) - 1)
    for i in range(n):
        x = np.uint64((cursor0 + i) % num)
        while True:
            left = x >> np.uint64(half_bits)
            right = x & mask
            for r in range(4):
                z = right * np.uint64(0x9E3779B97F4A7C15) + (key0 if r % 2 == 0 else key1) + np.uint64(r)
                z = (z ^ (z >> np.uint64(29))) * np.uint64(0xBF58476D1CE4E5B9)
                z = z ^ (z >> np.uint64(32))
                left, right = right, (left ^ z) & mask
            x = (left << np.uint64(half_bits)) | right
            if x < np.uint64(num):
                break
        out[i] = x


class ShuffledSampler(KeySampler):
    """Each key exactly once, in random order: insert number c gets key P(c mod num) for a fixed
    pseudo-random permutation P of [0, num) (a Feistel network). These are the "unique uniform
    inserts" of Spooky's write-amp analysis (PVLDB'22 §3) and db_bench's fillrandom without
    replacement (--use_existing_keys aside)."""

    name = "shuffled"

    def __init__(self, num: int, seed: int = 0):
        super().__init__(num)
        bits = max(2, int(num - 1).bit_length())
        self.half_bits = (bits + 1) // 2
        r = np.random.default_rng([int(seed), 0x5EED])
        self.k0, self.k1 = (np.uint64(v) for v in r.integers(0, 2**63, 2, dtype=np.uint64))

    def draw(self, rng, n, cursor=0):
        n, cursor = _check_draw_args(n, cursor)
        out = np.empty(n, np.uint64)
        _feistel_kernel(cursor, n, self.num, self.half_bits, self.k0, self.k1, out)
        return out

    def hot_fraction(self, fraction):
        return _check_fraction(fraction)


class HotSetSampler(KeySampler):
    """Only `inner.num` hot keys, spread evenly over [0, num): the hot index h comes from `inner`
    (any distribution over [0, hot)) and maps to key h * (num // hot).

    hot_fraction treats the hot set as the hottest hot/num of the data, as if its keys were
    stored together; spread out, each hot key may sit in its own block, so for caching this is
    optimistic (by up to block size / entry size), like the scrambled zipfian's hash scatter.
    """

    name = "hot"

    def __init__(self, inner: KeySampler, num: int):
        super().__init__(num)
        if inner.num > self.num:
            raise ValueError(f"keys.hot_keys ({inner.num}) must not exceed the key space "
                             f"workload.num ({self.num})")
        self.inner = inner
        self.hot = inner.num
        self.stride = np.uint64(self.num // self.hot)

    def draw(self, rng, n, cursor=0):
        keys = self.inner.draw(rng, n, cursor)
        keys *= self.stride
        return keys

    def hot_fraction(self, fraction):
        f = _check_fraction(fraction)
        return self.inner.hot_fraction(min(1.0, f * self.num / self.hot))

    def __repr__(self):
        return f"HotSetSampler({self.inner!r}, num={self.num})"


#: name -> (class, allowed keyword parameters)
SAMPLERS: dict[str, tuple[type[KeySampler], tuple[str, ...]]] = {
    "uniform": (UniformSampler, ()),
    "sequential": (SequentialSampler, ()),
    "zipfian": (ZipfianSampler, ("theta",)),
    "latest": (LatestSampler, ("theta",)),
    "normal": (NormalSampler, ("mean", "stddev")),
    "shuffled": (ShuffledSampler, ("seed",)),
}


def _describe_samplers() -> str:
    return "; ".join(
        f"{name}({', '.join(params) if params else 'no params'})"
        for name, (_, params) in SAMPLERS.items())


def make_sampler(name: str, num: int, **params) -> KeySampler:
    """Build a key sampler by name over keys [0, num).

    Names/params: uniform, sequential, zipfian(theta=0.99),
    latest(theta=0.99), normal(mean=0.5, stddev=0.1), shuffled(seed=0).
    """
    if name not in SAMPLERS:
        raise ValueError(f"unknown key distribution {name!r}; allowed: "
                         f"{_describe_samplers()}")
    cls, allowed = SAMPLERS[name]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(f"{name}: unknown parameter(s) {unknown}; allowed: "
                         f"{list(allowed) if allowed else 'none'}")
    if isinstance(num, bool) or int(num) != num:
        raise ValueError(f"num must be an integer, got {num!r}")
    num = int(num)
    # Ranks/hashes are handled as signed-safe 64-bit values.
    if not 1 <= num < 2 ** 63:
        raise ValueError(f"num must be in [1, 2**63), got {num}")
    return cls(num, **params)
