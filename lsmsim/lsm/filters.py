"""Bloom-filter false-positive rates from bits per key: the standard filter's, and RocksDB's cache-local one."""

from __future__ import annotations

import math

CACHE_LINE_BITS = 512  # FastLocalBloom keeps all of a key's probes in one 64-byte cache line


def bloom_fpr(bits_per_key: float) -> float:
    """FPR of a standard Bloom filter with b bits per key and the optimal k = round(b ln 2) probes:
    (1 - e^{-k/b})^k (Bloom 1970; the form Monkey, SIGMOD'17 Eq. 2, uses). 0 bits = no filter."""
    if bits_per_key <= 0:
        return 1.0
    k = max(1, round(bits_per_key * math.log(2)))
    return (1.0 - math.exp(-k / bits_per_key)) ** k


def fast_local_probes(bits_per_key: float) -> int:
    """Probes RocksDB's FastLocalBloom makes at these bits per key (util/bloom_impl.h,
    FastLocalBloomImpl::ChooseNumProbes: tuned on the implementation, fewer than a standard filter's)."""
    m = round(bits_per_key * 1000)
    for limit, probes in (
        (2080, 1),
        (3580, 2),
        (5100, 3),
        (6640, 4),
        (8300, 5),
        (10070, 6),
        (11720, 7),
        (14001, 8),
        (16050, 9),
        (18300, 10),
        (22001, 11),
        (25501, 12),
    ):
        if m <= limit:
            return probes
    return 24 if m > 50000 else (m - 1) // 2000 - 1


def rocksdb_bloom_fpr(bits_per_key: float) -> float:
    """FPR of RocksDB's filter (format_version 5's FastLocalBloom, the default from RocksDB 6.6 on): a Bloom
    filter whose probes stay in one cache line, so a crowded line errs more. RocksDB's own estimate
    (util/bloom_impl.h, BloomMath::CacheLocalFpRate): the mean of the standard FPR at one standard deviation of
    line occupancy above and below the mean (its 64-bit hash adds no measurable fingerprint term). 10 bits per
    key: 0.955% (the standard filter's 0.819%); Debian's librocksdb measures 0.89-0.95%
    (lsmsim.validation.static_shape, tests/test_rocksdb_shapes.py). 0 bits = no filter."""
    if bits_per_key <= 0:
        return 1.0
    k = fast_local_probes(bits_per_key)
    per_line = CACHE_LINE_BITS / bits_per_key
    sd = math.sqrt(per_line)

    def standard(b: float) -> float:
        return (1.0 - math.exp(-k / b)) ** k

    return (standard(CACHE_LINE_BITS / (per_line + sd)) + standard(CACHE_LINE_BITS / (per_line - sd))) / 2
