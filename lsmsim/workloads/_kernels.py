"""Numba kernels of the key samplers (`keys.py`): YCSB's FNV hash, Gray et al.'s zipfian inverse,
the clipped normal and the Feistel permutation.

They live in one file because numba's on-disk cache does not see edits to njit functions defined
in other files (numba issue 1833). Plain-Python references of the hash and the zipfian inverse
are in tests/test_keys.py.
"""

from __future__ import annotations

import math

import numba
import numpy as np

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


# mode: 0 = raw rank, 1 = fnv(rank) % modulus, 2 = offset - rank
@numba.njit(cache=True, nogil=True)
def zipf_kernel(u, items, zetan, theta, alpha, eta, mode, modulus, offset, out):
    half_pow_theta = 0.5**theta
    for i in range(u.size):
        r = gray_rank(u[i], items, zetan, theta, alpha, eta, half_pow_theta)
        if mode == 2:
            out[i] = np.uint64(offset - r)
        else:
            out[i] = np.uint64(r)
    if mode == 1:
        # Separate pass: fused with the pow loop, the serial pow -> hash ->
        # divide latency chain made scrambling ~2x slower than this.
        # offset != 0 picks another scatter of the ranks (a moved hot set); 0 is YCSB's
        umod = np.uint64(modulus)
        shift = np.uint64(offset)
        for i in range(u.size):
            out[i] = fnv1a64_scalar(out[i] + shift) % umod


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


@numba.njit(cache=True)
def feistel_kernel(cursor0, n, num, half_bits, key0, key1, out):
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
