"""The latency histogram's binning of a distribution (recorder.py's `LatencyHistogram.add_many`) as a numba kernel.

Every step of a fluid run records each operation kind's latency distribution, a few to a few hundred masses;
in numpy that was a dozen small array operations a call, 10% of a Spooky fig14d point and of an ArceKV one.
A mass lands in the bin `LatencyHistogram.add` puts it in (the same expression); tests/test_latency_tails.py checks
the kernel against one `add` a mass.
"""

from __future__ import annotations

import math

from .._numba import njit


@njit(cache=True)
def add_masses(hist, lat, weight, lo, hi, lat_min):
    """Add mass weight[k] (weight[0] for all when it holds one) at latency lat[k] into `hist`, log bins from 10^lo
    to 10^hi s; latencies below `lat_min` count in the first bin, non-finite ones and masses <= 0 not at all.
    Returns (mass added, mass x latency added, largest latency added or -inf)."""
    bins = hist.shape[0]
    one = weight.shape[0] == 1
    total = 0.0
    moment = 0.0
    top = -math.inf
    for k in range(lat.shape[0]):
        x = lat[k]
        m = weight[0] if one else weight[k]
        if not math.isfinite(x) or not m > 0:
            continue
        i = int((math.log10(max(x, lat_min)) - lo) / (hi - lo) * bins)
        hist[min(max(i, 0), bins - 1)] += m
        total += m
        moment += x * m
        top = max(top, x)
    return total, moment, top
