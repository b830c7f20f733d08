"""Closed-form write amplification of greedy GC under uniform random overwrites.

Setting: a page-mapped FTL whose whole logical space holds data and is overwritten uniformly at
random (no TRIM), T physical pages for U logical ones, greedy victim selection, steady state.
Write amplification A = flash pages written / host pages written.

Notation: alpha = T / U (physical / logical);  spare factor S_f = (T - U) / T = 1 - 1/alpha;
OP ratio rho = (T - U) / U = alpha - 1 (see lsmsim.ssd.ftl for the two OP definitions).
W is the principal branch W_0 of the Lambert W function (scipy.special.lambertw(x, 0)).

1. Many pages per erase block (N_p -> infinity):

       A = alpha / (alpha + W(-alpha * exp(-alpha)))                                   (1)

   P. Desnoyers, "Analytic modeling of SSD write performance", SYSTOR 2012, Eq. (4) (also ACM
   TOS 10(2), 2014, "Analytic models of SSD write performance"): derived there for LRW/FIFO
   cleaning, which greedy matches as N_p -> infinity. Written with rho, (1) is

       A = (1 + rho) / (1 + rho + W(-(1 + rho) * exp(-(1 + rho))))

   the "improved analytic expression" of L. Xiang and B. M. Kurkoski, "An improved analytic
   expression for write amplification in NAND flash", ICNC 2012 (arXiv:1110.4245), obtained for
   greedy GC from the invalid-page probability of the block selected for GC; their abstract quotes
   A = 2.36 at rho = 0.3 (simulation: 2.35), which (1) reproduces. Equivalently, the valid
   fraction u of the victim solves  (u - 1) / ln u = 1 / alpha  (the classic LFS relation between
   disk and cleaned-segment utilisation), u = -W(-alpha exp(-alpha)) / alpha, and A = 1 / (1 - u).

2. Finite pages per block, greedy (Desnoyers SYSTOR 2012, Eq. (12)): with k = 1 + 1/(2 N_p),

       A_greedy(alpha, N_p) = A_(1)(k * alpha) / k
                            = alpha / (k * alpha + W(-k * alpha * exp(-k * alpha)))     (2)

   (equation numbers as in the author's model script for the SYSTOR'12 paper). It tends to (1)
   as N_p grows. At N_p = 256, (2) is below (1) by 2.7% at S_f = 0.07, 0.9% at 0.2 and 0.6% at
   0.28; at N_p = 64 by 9.8%, 3.5% and 2.5%.

   Measured with lsmsim.ssd.ftl.FTL (greedy, 2^20 logical pages, N_p = 256, steady state after a
   sequential fill and one logical size of uniform overwrites, tests/test_ftl.py): WA 7.185 at
   S_f = 0.07 (Eq. 1: 7.303, Eq. 2: 7.110) and 1.985 at S_f = 0.28 (1.992, 1.979).

3. For comparison, the earlier closed form of R. Agarwal and M. Marrow, "A closed-form expression
   for write amplification in NAND flash", IEEE GLOBECOM Workshops 2010:  A = (1 + rho) / (2 rho)
   (2.17 at rho = 0.3, the value Xiang & Kurkoski's abstract quotes for it).

Caveats when comparing with a simulation: the model assumes every logical page holds data and
ignores the free blocks the FTL keeps in reserve and its partially written open blocks; pass the
effective spare factor (lsmsim.ssd.ftl.FTL.spare_factor) and use many erase blocks.
"""

from __future__ import annotations

import numpy as np
from scipy.special import lambertw

__all__ = ["alpha_of", "wa_greedy_limit", "wa_greedy", "wa_agarwal", "victim_valid_fraction"]


def alpha_of(spare_factor=None, *, op_ratio=None):
    """alpha = physical / logical from a spare factor or (keyword) an OP ratio."""
    if (spare_factor is None) == (op_ratio is None):
        raise TypeError("give exactly one of spare_factor and op_ratio")
    if op_ratio is not None:
        r = np.asarray(op_ratio, dtype=np.float64)
        if np.any(r < 0):
            raise ValueError("op_ratio must be >= 0")
        return 1.0 + r
    s = np.asarray(spare_factor, dtype=np.float64)
    if np.any((s < 0) | (s >= 1)):
        raise ValueError("spare_factor must be in [0, 1)")
    return 1.0 / (1.0 - s)


def _lru(alpha):
    """Eq. (1) as a function of alpha (inf at alpha = 1)."""
    a = np.asarray(alpha, dtype=np.float64)
    w = lambertw(-a * np.exp(-a), 0).real
    with np.errstate(divide="ignore"):
        out = np.where(a > 1.0, a / (a + w), np.inf)
    return out if out.ndim else float(out)


def wa_greedy_limit(spare_factor=None, *, op_ratio=None):
    """Eq. (1): greedy GC, uniform random overwrites, N_p -> infinity."""
    return _lru(alpha_of(spare_factor, op_ratio=op_ratio))


def wa_greedy(spare_factor=None, pages_per_block: int = 256, *, op_ratio=None):
    """Eq. (2): greedy GC with `pages_per_block` pages per erase block (Desnoyers 2012, Eq. 12)."""
    if pages_per_block < 1:
        raise ValueError("pages_per_block must be >= 1")
    a = alpha_of(spare_factor, op_ratio=op_ratio)
    k = 1.0 + 1.0 / (2.0 * pages_per_block)
    out = np.asarray(_lru(k * a)) / k
    return out if out.ndim else float(out)


def wa_agarwal(spare_factor=None, *, op_ratio=None):
    """Agarwal & Marrow 2010: (1 + rho) / (2 rho); less accurate than Eq. (1), kept for comparison."""
    rho = alpha_of(spare_factor, op_ratio=op_ratio) - 1.0
    with np.errstate(divide="ignore"):
        out = np.where(rho > 0, (1.0 + rho) / (2.0 * np.where(rho > 0, rho, 1.0)), np.inf)
    return out if out.ndim else float(out)


def victim_valid_fraction(spare_factor=None, *, op_ratio=None):
    """Valid fraction u of greedy's victim in the N_p -> infinity limit: (u - 1)/ln u = 1/alpha."""
    a = alpha_of(spare_factor, op_ratio=op_ratio)
    u = -lambertw(-a * np.exp(-a), 0).real / a
    return u if np.ndim(u) else float(u)
