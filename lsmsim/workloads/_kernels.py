"""Numba kernels of the key samplers (`keys.py`): YCSB's FNV hash, Gray et al.'s zipfian inverse (theta < 1),
Hormann and Derflinger's rejection-inversion for zipf exponents >= 1, the clipped normal and the Feistel
permutation.

They live in one file because numba's on-disk cache does not see edits to njit functions defined
in other files (numba issue 1833). Plain-Python references of the hash and the zipfian inverse
are in tests/test_keys.py.
"""

from __future__ import annotations

import math

import numpy as np

from .._numba import numba

_FNV_OFFSET_BASIS_64 = np.uint64(0xCBF29CE484222325)
_FNV_PRIME_64 = np.uint64(1099511628211)
_U8_MASK = np.uint64(0xFF)
_U8 = np.uint64(8)
_U63 = np.uint64(63)
_U1 = np.uint64(1)


@numba.njit(cache=True, nogil=True)
def fnv1a64_scalar(val):
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
def fnv1a64_array(vals, out):
    for i in range(vals.size):
        out[i] = fnv1a64_scalar(vals[i])


@numba.njit(cache=True, nogil=True)
def gray_rank(u, items, zetan, theta, alpha, eta, half_pow_theta):
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


@numba.njit(cache=True, inline="always")
def _put_rank(out, i, r, mode, offset):
    """Rank r as drawn (modes 0 and 1: scrambled afterwards) or as offset - r (mode 2, latest)."""
    if mode == 2:
        out[i] = np.uint64(offset - r)
    else:
        out[i] = np.uint64(r)


# mode: 0 = raw rank, 1 = fnv(rank) % modulus, 2 = offset - rank
@numba.njit(cache=True, nogil=True)
def zipf_kernel(u, items, zetan, theta, alpha, eta, mode, modulus, offset, out):
    half_pow_theta = 0.5**theta
    for i in range(u.size):
        _put_rank(out, i, gray_rank(u[i], items, zetan, theta, alpha, eta, half_pow_theta), mode, offset)
    if mode == 1:
        # Separate pass: fused with the pow loop, the serial pow -> hash ->
        # divide latency chain made scrambling ~2x slower than this.
        _scramble(out, modulus, offset)


@numba.njit(cache=True, inline="always")
def _scramble(out, modulus, offset):
    """Ranks to keys: fnv(rank + offset) % modulus; offset != 0 picks another scatter of the ranks (a moved hot
    set), 0 is YCSB's."""
    umod = np.uint64(modulus)
    shift = np.uint64(offset)
    for i in range(out.size):
        out[i] = fnv1a64_scalar(out[i] + shift) % umod


# ---- zipf with exponent s >= 1: rejection-inversion (Hormann & Derflinger, "Rejection-inversion to generate
# variates from monotone discrete distributions", ACM TOMACS 6(3), 1996; the form of Apache Commons RNG's
# RejectionInversionZipfSampler). Ranks k = 1..n with P(k) ~ k^-s; exact, and a draw is O(1) for any n.
@numba.njit(cache=True, inline="always")
def _log1p_over_x(x):
    if abs(x) > 1e-8:
        return math.log1p(x) / x
    return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))


@numba.njit(cache=True, inline="always")
def _expm1_over_x(x):
    if abs(x) > 1e-8:
        return math.expm1(x) / x
    return 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x))


@numba.njit(cache=True, inline="always")
def ri_h_integral(x, s):
    """H(x) = (x^(1-s) - 1) / (1 - s), log(x) at s = 1: an integral of h(x) = x^-s."""
    lx = math.log(x)
    return _expm1_over_x((1.0 - s) * lx) * lx


@numba.njit(cache=True, inline="always")
def ri_h(x, s):
    return math.exp(-s * math.log(x))


@numba.njit(cache=True, inline="always")
def ri_h_integral_inverse(x, s):
    t = x * (1.0 - s)
    if t < -1.0:  # rounding only: H's range keeps t >= -1
        t = -1.0
    return math.exp(_log1p_over_x(t) * x)


@numba.njit(cache=True, nogil=True)
def zipf_ri_kernel(u, items, s, h_x1, h_n, s_cut, mode, modulus, offset, out):
    """Zipf ranks 0..items-1 for exponent s from one uniform each; a rejected draw (rare) takes its next
    uniforms from a splitmix64 stream seeded by the draw's own bits, so each rank depends on its uniform alone
    (not on its place in the batch: the kernel's steps, and so its batches, differ from policy to policy)."""
    n = float(items)
    for i in range(u.size):
        v_u = u[i]
        state = np.uint64(int(v_u * 9007199254740992.0))
        while True:
            v = h_n + v_u * (h_x1 - h_n)
            x = ri_h_integral_inverse(v, s)
            k = math.floor(x + 0.5)
            if k < 1.0:
                k = 1.0
            elif k > n:
                k = n
            if k - x <= s_cut or v >= ri_h_integral(k + 0.5, s) - ri_h(k, s):
                break
            state += np.uint64(0x9E3779B97F4A7C15)
            z = state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            v_u = float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        _put_rank(out, i, np.int64(k) - 1, mode, offset)
    if mode == 1:
        _scramble(out, modulus, offset)


@numba.njit(cache=True, nogil=True)
def normal_kernel(z, mu, sigma, num, out):
    hi = float(num - 1)
    for i in range(z.size):
        x = math.floor(mu + sigma * z[i])
        # Clip in float space first: huge |x| must not overflow the cast.
        if x < 0.0:
            x = 0.0
        elif x > hi:
            x = hi
        out[i] = np.uint64(x)


@numba.njit(cache=True, inline="always")
def _feistel_one(x, num, half_bits, key0, key1):
    """P(x) of the cycle-walking 4-round Feistel permutation of [0, num) (Black & Rogaway, CT-RSA'02)."""
    mask = np.uint64((1 << half_bits) - 1)
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
            return x


@numba.njit(cache=True)
def feistel_kernel(cursor0, n, num, half_bits, key0, key1, out):
    """P(cursor0), P(cursor0 + 1), ... (positions modulo num)."""
    for i in range(n):
        out[i] = _feistel_one(np.uint64((cursor0 + i) % num), num, half_bits, key0, key1)


@numba.njit(cache=True)
def feistel_at_kernel(positions, num, half_bits, key0, key1, out):
    """P at arbitrary positions (modulo num): the keys that insert numbers got (deletes of existing keys)."""
    for i in range(positions.size):
        out[i] = _feistel_one(np.uint64(positions[i] % num), num, half_bits, key0, key1)


@numba.njit(cache=True)
def splitmix(x):
    """SplitMix64 finaliser (Steele et al., OOPSLA'14) of one 64-bit value."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))
