"""Constants of the zipfian key distribution: the normaliser zeta(n, theta) and the parameters of
Gray et al.'s closed-form inverse ("Quickly generating billion-record synthetic databases",
SIGMOD 1994, as in YCSB's ``ZipfianGenerator``).

zeta(n, theta) = sum_{i=1}^{n} i**-theta is the difference of two Hurwitz zeta values,
zeta(theta, 1) - zeta(theta, n + 1), taken from mpmath at 30 digits and rounded once to a double.
"""

from __future__ import annotations

import functools
import threading

import mpmath

__all__ = ["zeta", "zipf_params", "gray_rank_cdf", "ri_params"]

# 30 digits: both Hurwitz values are of order 1/(1-theta) (about -100 at theta=0.99) while the sum
# is ~10-30, so the subtraction loses about log10(1/(1-theta)) digits. A private context, because
# mpmath changes its context's precision while it computes; the lock keeps two threads from doing
# that at once.
_MP = mpmath.MPContext()
_MP.dps = 30
_MP_LOCK = threading.Lock()


@functools.lru_cache(maxsize=64)
def _riemann_zeta(theta: float):
    """zeta(theta, 1) as an mpf (call with _MP_LOCK held)."""
    return _MP.zeta(theta)


@functools.lru_cache(maxsize=4096)
def zeta(n: int, theta: float) -> float:
    """zeta(n, theta) = sum_{i=1}^{n} i**-theta (Gray et al. 1994 notation), rounded once.

    Computed as the Hurwitz difference zeta(theta, 1) - zeta(theta, n + 1): 1-3 ms for any n
    (n = 1e10 included); 0.0 for n <= 0.
    """
    n = int(n)
    theta = float(theta)
    if n <= 0:
        return 0.0
    with _MP_LOCK:
        if theta == 1.0:  # the pole: the harmonic number H_n = digamma(n + 1) + Euler's gamma
            return float(_MP.harmonic(n))
        return float(_riemann_zeta(theta) - _MP.zeta(theta, n + 1))


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


def ri_params(items: int, s: float) -> tuple[float, float, float]:
    """(H(1.5) - 1, H(items + 0.5), s_cut) of the rejection-inversion sampler for exponent s >= 1 (the
    kernels' `zipf_ri_kernel`; Hormann & Derflinger 1996)."""
    from ._kernels import ri_h, ri_h_integral, ri_h_integral_inverse

    h_x1 = ri_h_integral(1.5, s) - 1.0
    h_n = ri_h_integral(items + 0.5, s)
    s_cut = 2.0 - ri_h_integral_inverse(ri_h_integral(2.5, s) - ri_h(2.0, s), s)
    return h_x1, h_n, s_cut


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
    first_two = min(1.0, (1.0 + 0.5**theta) / zetan)
    if k == 2:
        return first_two
    # rank >= k  <=>  eta*u - eta + 1 >= (k/items)**(1-theta)
    u_k = 1.0 - (1.0 - (k / items) ** (1.0 - theta)) / eta
    return min(1.0, max(first_two, u_k))
