"""Bloom-filter false-positive rate from bits per key."""

from __future__ import annotations

import math


def bloom_fpr(bits_per_key: float) -> float:
    """FPR of a Bloom filter with b bits per key and the optimal k = round(b ln 2) probes:
    (1 - e^{-k/b})^k (Bloom 1970; the form Monkey, SIGMOD'17 Eq. 2, uses). 0 bits = no filter."""
    if bits_per_key <= 0:
        return 1.0
    k = max(1, round(bits_per_key * math.log(2)))
    return (1.0 - math.exp(-k / bits_per_key)) ** k
