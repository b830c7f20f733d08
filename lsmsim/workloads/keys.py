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
* ``shuffled``   -- every key once, in a fixed pseudo-random order.
* ``mixgraph``   -- db_bench's mixgraph: power-law keys in two-term-exponential
  key ranges (Cao et al., FAST'20; ``mixgraph.py``).

The zipfian constants (zeta, Gray's eta) are in ``zipf.py``, the numba
kernels in ``_kernels.py``. ``hotset.HotSetSampler`` restricts any sampler to
``hot`` keys spread evenly over the key space.

Use :func:`make_sampler` to build one by name.
"""

from __future__ import annotations

import abc
import math

import numpy as np

from ..tolerances import ROUND_EPS
from . import mixgraph
from ._kernels import feistel_at_kernel, feistel_kernel, fnv1a64_array, normal_kernel, zipf_kernel, zipf_ri_kernel
from .zipf import ri_params, zeta, zipf_params

__all__ = [
    "KeySampler",
    "UniformSampler",
    "SequentialSampler",
    "ZipfianSampler",
    "LatestSampler",
    "NormalSampler",
    "ShuffledSampler",
    "MixGraphSampler",
    "make_sampler",
    "SAMPLERS",
    "fnv1a64",
]

# Random numbers are generated in chunks of this many values so temporaries
# stay cache-sized even for 10^7-key batches. The generator stream consumed
# is the same whatever the chunking (one double per key).
_CHUNK = 1 << 16


def fnv1a64(vals) -> np.ndarray:
    """YCSB ``Utils.fnvhash64`` applied elementwise to a uint64 array."""
    vals = np.ascontiguousarray(vals, dtype=np.uint64)
    out = np.empty_like(vals)
    fnv1a64_array(vals.ravel(), out.ravel())
    return out


THETA_MAX = 10.0  # beyond it nearly every draw is rank 0 (P = 1 / zeta(10) = 0.999)


def _zipf_draw(rng, n, items, theta, mode, modulus, offset, u=None) -> np.ndarray:
    """Zipf ranks over `items`: Gray et al.'s inverse for theta < 1 (YCSB's), rejection-inversion at and
    above 1 (Gray's exponent 1/(1 - theta) has no value there). One uniform per draw, from `rng` or `u`."""
    if theta >= 1.0:
        ri = ri_params(items, theta)
    else:
        zetan, alpha, eta = zipf_params(items, theta)

    def kernel(u, out):
        if theta >= 1.0:
            zipf_ri_kernel(u, items, theta, *ri, mode, modulus, offset, out)
        else:
            zipf_kernel(u, items, zetan, theta, alpha, eta, mode, modulus, offset, out)

    out = np.empty(n, dtype=np.uint64)
    if u is not None:
        kernel(np.ascontiguousarray(u, dtype=np.float64), out)
        return out
    buf = np.empty(min(n, _CHUNK), dtype=np.float64)
    for start in range(0, n, _CHUNK):
        m = min(_CHUNK, n - start)
        rng.random(out=buf[:m])
        kernel(buf[:m], out[start : start + m])
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
    return min(num, int(math.floor(fraction * num + ROUND_EPS)))


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

    def at(self, positions: np.ndarray) -> np.ndarray:
        """The keys insert numbers `positions` got."""
        return positions.astype(np.uint64) % np.uint64(self.num)

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

    def __init__(self, num: int, theta: float = 0.99, scramble: int = 0):
        super().__init__(num)
        self.theta = _check_theta(theta)
        # scramble s != 0 scatters rank r to fnvhash64(r + s * golden) % num: another hot set of the same skew
        # (Spooky PVLDB'22 §6: "the hot keys are randomly distributed ... and they change every two hours")
        self.offset = (int(scramble) * 0x9E3779B97F4A7C15) % 2**63  # the kernel takes an int64
        zeta(self.num, self.theta)  # pay zeta(num) once, up front

    def draw_ranks(self, rng, n):
        """Unscrambled zipf ranks (0 = most popular); consumes rng as draw."""
        n, _ = _check_draw_args(n, 0)
        return _zipf_draw(rng, n, self.num, self.theta, 0, 1, 0)

    def draw(self, rng, n, cursor=0):
        n, _ = _check_draw_args(n, cursor)
        return _zipf_draw(rng, n, self.num, self.theta, 1, self.num, self.offset)

    def hot_fraction(self, fraction):
        """zeta(k, theta) / zeta(num, theta) with k = fraction * num.

        Exact for ranks; ignores hash collisions (a slight underestimate for
        scrambled keys).
        """
        k = _top_count(_check_fraction(fraction), self.num)
        return zeta(k, self.theta) / zeta(self.num, self.theta)

    def __repr__(self):
        return f"ZipfianSampler(num={self.num}, theta={self.theta})"


class PrefixZipfSampler(KeySampler):
    """PrefixZipf (Sarkar et al. PVLDB'21 §5.2.1, after their KV-WorkloadGenerator): the key space is cut into
    `prefixes` ranges of equal width; a key's range (its prefix) is zipfian with exponent `theta`, the hottest
    first, and its place inside the range (the suffix) uniform. Skew over ranges without many repeated keys:
    inserts stay nearly unique while ranges of the key space are hot."""

    name = "prefix_zipf"

    def __init__(self, num: int, theta: float = 1.0, prefixes: int = 1024):
        super().__init__(num)
        self.theta = _check_theta(theta)
        self.prefixes = max(1, min(int(prefixes), self.num))
        self.width = self.num // self.prefixes  # the last range also takes num % prefixes keys
        zeta(self.prefixes, self.theta)

    def draw(self, rng, n, cursor=0):
        n, _ = _check_draw_args(n, cursor)
        u = rng.random((n, 2))  # one pair per key (prefix, suffix): draws do not depend on how they are batched
        prefix = _zipf_draw(rng, n, self.prefixes, self.theta, 0, 1, 0, u=u[:, 0])
        start = prefix * np.uint64(self.width)
        width = np.where(prefix == self.prefixes - 1, self.num - start, self.width).astype(np.uint64)
        return start + (u[:, 1] * width).astype(np.uint64)

    def hot_fraction(self, fraction):
        """The zipf mass of the hottest prefixes the top fraction * num keys fill (whole ranges, then a share)."""
        f = _check_fraction(fraction) * self.prefixes
        k = int(f)
        whole = zeta(k, self.theta)
        part = (f - k) * (k + 1) ** -self.theta if k < self.prefixes else 0.0
        return min(1.0, (whole + part) / zeta(self.prefixes, self.theta))

    def __repr__(self):
        return f"PrefixZipfSampler(num={self.num}, theta={self.theta}, prefixes={self.prefixes})"


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
            normal_kernel(z, mu, sigma, self.num, out[start : start + m])
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
        return f"NormalSampler(num={self.num}, mean={self.mean}, stddev={self.stddev})"


def _check_theta(theta: float) -> float:
    theta = float(theta)
    # below 1 Gray's inverse, from 1 on rejection-inversion (_zipf_draw)
    if not 0.0 <= theta <= THETA_MAX:
        raise ValueError(f"theta must be in [0, {THETA_MAX}], got {theta}")
    return theta


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
        feistel_kernel(cursor, n, self.num, self.half_bits, self.k0, self.k1, out)
        return out

    def at(self, positions: np.ndarray) -> np.ndarray:
        """The keys insert numbers `positions` got (P(c mod num))."""
        out = np.empty(positions.size, np.uint64)
        feistel_at_kernel(positions.astype(np.uint64), self.num, self.half_bits, self.k0, self.k1, out)
        return out

    def hot_fraction(self, fraction):
        return _check_fraction(fraction)


class MixGraphSampler(KeySampler):
    """db_bench's mixgraph keys (workloads/mixgraph.py): the power model F(x) = key_dist_a x^key_dist_b over hashed
    seeds, inside two-term-exponential key ranges when `keyrange_dist_*` are given; uniform when key_dist_a or
    key_dist_b is 0, as in db_bench."""

    name = "mixgraph"

    def __init__(self, num, key_dist_a=0.0, key_dist_b=0.0, keyrange_dist=(0.0, 0.0, 0.0, 0.0), keyrange_num=1):
        super().__init__(num)
        self.a, self.b = float(key_dist_a), float(key_dist_b)
        self.uniform = self.a == 0.0 or self.b == 0.0
        self.starts = np.empty(0, np.uint64)
        self.size, self.rand_max, shares = self.num, 1, np.ones(1)
        if any(keyrange_dist) and not self.uniform:
            units, self.rand_max, self.size = mixgraph.key_ranges(self.num, keyrange_num, *keyrange_dist)
            self.starts = np.concatenate([[0], np.cumsum(units)[:-1]]).astype(np.uint64)
            shares = units / self.rand_max
        if not self.uniform:  # the hottest keys first: each range's curve in pieces, merged by their density
            pieces = [mixgraph.power_pieces(self.num * s, self.size, self.a, self.b) for s in shares if s > 0]
            live = shares[shares > 0]
            dens = np.concatenate([s * dm / dk for s, (dk, dm) in zip(live, pieces)])
            order = np.argsort(-dens, kind="stable")
            self._keys = np.concatenate([[0.0], np.cumsum(np.concatenate([dk for dk, _ in pieces])[order])]) / self.num
            mass = np.concatenate([s * dm for s, (_, dm) in zip(live, pieces)])[order]
            self._mass = np.concatenate([[0.0], np.cumsum(mass)])

    def draw(self, rng, n, cursor=0):
        n, _ = _check_draw_args(n, cursor)
        ini = rng.integers(0, self.num, size=n, dtype=np.uint64)  # GetRandomKey: rand % num
        if self.uniform:
            return ini
        out = np.empty(n, np.uint64)
        mixgraph.mixgraph_keys(ini, self.num, self.a, self.b, self.starts, self.size, self.rand_max, out)
        return out

    def hot_fraction(self, fraction):
        f = _check_fraction(fraction)
        return f if self.uniform else float(min(1.0, np.interp(f, self._keys, self._mass)))

    def __repr__(self):
        return f"MixGraphSampler(num={self.num}, a={self.a}, b={self.b}, ranges={max(1, self.starts.size)})"


#: name -> (class, allowed keyword parameters)
SAMPLERS: dict[str, tuple[type[KeySampler], tuple[str, ...]]] = {
    "uniform": (UniformSampler, ()),
    "sequential": (SequentialSampler, ()),
    "zipfian": (ZipfianSampler, ("theta", "scramble")),
    "latest": (LatestSampler, ("theta",)),
    "prefix_zipf": (PrefixZipfSampler, ("theta", "prefixes")),
    "normal": (NormalSampler, ("mean", "stddev")),
    "shuffled": (ShuffledSampler, ("seed",)),
    "mixgraph": (MixGraphSampler, ("key_dist_a", "key_dist_b", "keyrange_dist", "keyrange_num")),
}


def _describe_samplers() -> str:
    return "; ".join(
        f"{name}({', '.join(params) if params else 'no params'})" for name, (_, params) in SAMPLERS.items()
    )


def make_sampler(name: str, num: int, **params) -> KeySampler:
    """Build a key sampler by name over keys [0, num).

    Names/params: uniform, sequential, zipfian(theta=0.99, scramble=0),
    latest(theta=0.99), prefix_zipf(theta=1.0, prefixes=1024), normal(mean=0.5, stddev=0.1), shuffled(seed=0).
    """
    if name not in SAMPLERS:
        raise ValueError(f"unknown key distribution {name!r}; allowed: {_describe_samplers()}")
    cls, allowed = SAMPLERS[name]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(f"{name}: unknown parameter(s) {unknown}; allowed: {list(allowed) if allowed else 'none'}")
    if isinstance(num, bool) or int(num) != num:
        raise ValueError(f"num must be an integer, got {num!r}")
    num = int(num)
    # Ranks/hashes are handled as signed-safe 64-bit values.
    if not 1 <= num < 2**63:
        raise ValueError(f"num must be in [1, 2**63), got {num}")
    return cls(num, **params)
