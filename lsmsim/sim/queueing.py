"""Open-loop query arrivals and exact FCFS multi-server queueing.

The simulator models foreground query service as a fluid: between background
events (flushes, compactions) the mean per-request service time of one query
thread is constant.  This module turns that piecewise-constant profile into
per-request latencies *including queueing time* (EcoTune, SIGMOD'25, §5.3):

* :func:`poisson_arrivals` / :func:`bursty_rates` generate open-loop arrivals
  (non-homogeneous Poisson with piecewise-constant rate).
* :func:`fcfs_multiserver` runs the exact FCFS recursion for ``c`` identical
  servers over those arrivals.  It is the Kiefer–Wolfowitz workload-vector
  recursion (J. Kiefer & J. Wolfowitz, "On the theory of queues with many
  servers", Trans. AMS 78, 1955), which for ``c == 1`` reduces to Lindley's
  recursion (D. V. Lindley, "The theory of queues with a single server",
  Proc. Camb. Phil. Soc. 48, 1952):

      start_n  = max(a_n, min_j V_j)            (V = server free times)
      finish_n = start_n + S_n
      V_{argmin} <- finish_n

  Requests start in arrival order (start times are non-decreasing for any c).

* :func:`latency_summary` reduces latencies to the usual statistics.

Modelling choice: a request that *starts* at time ``s`` draws an exponential
service time ``S = -mean(s) * ln(u)`` where ``mean(s)`` is the mean service
time of the segment containing ``s`` and ``u`` its pre-drawn uniform.  The
service time is fixed at start (a later change of the profile does not
stretch or shrink an in-flight request).  Exponential service is a choice
(it makes the M/M/c formulas available as a check); deterministic service is
obtained by passing ``u = exp(-1)`` for every request.
"""

from __future__ import annotations

import math

import numpy as np

from .._numba import njit
from ..tolerances import TIME_EPS

__all__ = [
    "poisson_arrivals",
    "bursty_rates",
    "fcfs_multiserver",
    "fcfs_multiserver_py",
    "latency_summary",
]


# --------------------------------------------------------------------------
# Arrivals
# --------------------------------------------------------------------------


def poisson_arrivals(rng, rate_segments_t, rates, t_end: float) -> np.ndarray:
    """Arrival times of a non-homogeneous Poisson process, piecewise-constant rate.

    ``rates[i]`` (arrivals / second, >= 0) applies on
    ``[rate_segments_t[i], rate_segments_t[i+1])``; the last segment extends
    to ``t_end``.  Segments starting at or after ``t_end`` are ignored.
    Returns sorted float64 times in ``[rate_segments_t[0], t_end)``.

    Vectorized: per segment a Poisson count with mean ``rate * length``, then
    that many i.i.d. uniforms on the segment (the conditional law of a
    Poisson process given its count), then one sort.  ``rng`` is a
    ``numpy.random.Generator`` (or anything ``np.random.default_rng`` takes).
    """
    rng = np.random.default_rng(rng)
    seg_t = np.asarray(rate_segments_t, dtype=np.float64).ravel()
    rates = np.asarray(rates, dtype=np.float64).ravel()
    if seg_t.shape != rates.shape:
        raise ValueError("rate_segments_t and rates must have the same length")
    if seg_t.size == 0:
        return np.empty(0, dtype=np.float64)
    if not np.all(np.isfinite(seg_t)) or np.any(np.diff(seg_t) < 0):
        raise ValueError("rate_segments_t must be finite and non-decreasing")
    if not np.all(np.isfinite(rates)) or np.any(rates < 0):
        raise ValueError("rates must be finite and >= 0")
    ends = np.empty_like(seg_t)
    ends[:-1] = seg_t[1:]
    ends[-1] = t_end
    ends = np.minimum(ends, t_end)
    lengths = np.maximum(ends - seg_t, 0.0)
    counts = rng.poisson(rates * lengths)
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, dtype=np.float64)
    idx = np.repeat(np.arange(seg_t.size), counts)
    t = seg_t[idx] + rng.random(total) * lengths[idx]
    # Guard the half-open interval against rounding up to the segment end.
    t = np.minimum(t, np.nextafter(ends[idx], -np.inf))
    t.sort()
    return t


def bursty_rates(base_rate: float, burst_factor: float, period: float, duty: float, t_end: float):
    """On/off modulated rate with time-average ``base_rate``.

    Each period of length ``period`` starts with an "on" phase of length
    ``duty * period`` at rate ``r_on = burst_factor * base_rate`` followed by an
    "off" phase at

        r_off = base_rate * (1 - duty * burst_factor) / (1 - duty),

    chosen so that ``duty * r_on + (1 - duty) * r_off = base_rate`` over every
    whole period (a trailing partial period up to ``t_end`` is not
    mean-corrected).  Requires ``base_rate >= 0``, ``period > 0``,
    ``0 < duty < 1``, ``burst_factor >= 1`` and ``duty * burst_factor <= 1``
    (otherwise ``r_off`` would be negative) -- ``ValueError`` if not.

    Returns ``(seg_t, rates)`` for :func:`poisson_arrivals`, starting at 0.
    """
    if not (base_rate >= 0 and math.isfinite(base_rate)):
        raise ValueError("base_rate must be finite and >= 0")
    if not (period > 0 and math.isfinite(period)):
        raise ValueError("period must be finite and > 0")
    if not (0.0 < duty < 1.0):
        raise ValueError("duty must be in (0, 1)")
    if not (burst_factor >= 1.0 and math.isfinite(burst_factor)):
        raise ValueError("burst_factor must be finite and >= 1")
    if duty * burst_factor > 1.0 + TIME_EPS:
        raise ValueError(
            f"impossible burst: duty*burst_factor = {duty * burst_factor:g} > 1 would need a negative off-phase rate"
        )
    if not (t_end > 0 and math.isfinite(t_end)):
        raise ValueError("t_end must be finite and > 0")
    r_on = burst_factor * base_rate
    r_off = max(base_rate * (1.0 - duty * burst_factor) / (1.0 - duty), 0.0)
    n_periods = int(math.ceil(t_end / period))
    starts = np.arange(n_periods, dtype=np.float64) * period
    seg_t = np.empty(2 * n_periods, dtype=np.float64)
    seg_t[0::2] = starts
    seg_t[1::2] = starts + duty * period
    rates = np.empty(2 * n_periods, dtype=np.float64)
    rates[0::2] = r_on
    rates[1::2] = r_off
    keep = seg_t < t_end
    return seg_t[keep], rates[keep]


# --------------------------------------------------------------------------
# FCFS multi-server recursion
# --------------------------------------------------------------------------


@njit(cache=True)
def fcfs_multiserver(arrivals, seg_t, seg_mean_service, servers, u):  # noqa: C901 (the exact FCFS recursion across service-time segments, one loop)
    """Exact FCFS ``c``-server queue (Kiefer & Wolfowitz 1955; Lindley 1952 for c=1).

    arrivals: sorted float64 arrival times; seg_t: sorted segment start times
    with ``seg_t[0] <= arrivals[0]``; seg_mean_service[i]: mean service time of
    one request on one server in segment i (``np.inf`` = no request may
    start there: it waits for the next finite segment; if none follows it
    never starts and gets ``start = finish = inf``); servers: number ``c`` of
    identical servers; u: one uniform in (0, 1) per arrival.

    A request starts at ``s = max(arrival, earliest server free time)``
    (pushed to the next finite segment if needed) and takes
    ``-mean(s) * ln(u)`` (exponential service, a modelling choice).  Ties
    go to the lowest server index (irrelevant to the output, which depends
    only on the multiset of free times).  O(n*c + n_segments) using
    a plain array of server free times.  Returns ``(start, finish)``.
    """
    n = arrivals.shape[0]
    nseg = seg_t.shape[0]
    c = servers
    if c < 1:
        raise ValueError("servers must be >= 1")
    if u.shape[0] != n:
        raise ValueError("u must have one entry per arrival")
    if seg_mean_service.shape[0] != nseg:
        raise ValueError("seg_t and seg_mean_service must have equal length")
    start = np.empty(n, dtype=np.float64)
    finish = np.empty(n, dtype=np.float64)
    if n == 0:
        return start, finish
    if nseg == 0:
        raise ValueError("need at least one service segment")
    if not (seg_t[0] <= arrivals[0]):
        raise ValueError("seg_t[0] must be <= arrivals[0]")
    # next_fin[k] = first segment >= k with finite mean (-1 if none).
    next_fin = np.empty(nseg, dtype=np.int64)
    nxt = -1
    for k in range(nseg - 1, -1, -1):
        m = seg_mean_service[k]
        if not (m >= 0.0):
            raise ValueError("seg_mean_service must be >= 0 (inf allowed)")
        if k + 1 < nseg and seg_t[k + 1] < seg_t[k]:
            raise ValueError("seg_t must be sorted")
        if m < np.inf:
            nxt = k
        next_fin[k] = nxt
    free = np.zeros(c, dtype=np.float64)
    for j in range(c):
        free[j] = -np.inf
    k = 0
    prev_a = arrivals[0]
    for i in range(n):
        a = arrivals[i]
        if a < prev_a:
            raise ValueError("arrivals must be sorted")
        prev_a = a
        # earliest free server (lowest index on ties)
        best = 0
        bf = free[0]
        for j in range(1, c):
            if free[j] < bf:
                bf = free[j]
                best = j
        s = a if a >= bf else bf
        # raw s is non-decreasing in i, so the segment pointer only advances
        while k + 1 < nseg and seg_t[k + 1] <= s:
            k += 1
        m = seg_mean_service[k]
        if not (m < np.inf):
            kf = next_fin[k]
            if kf < 0:
                s = np.inf
                m = 0.0
            else:
                s = seg_t[kf]
                m = seg_mean_service[kf]
        f = s + (-m * np.log(u[i]))
        start[i] = s
        finish[i] = f
        free[best] = f
    return start, finish


def fcfs_multiserver_py(arrivals, seg_t, seg_mean_service, servers, u):
    """Plain-Python reference of :func:`fcfs_multiserver` (same semantics).

    Deliberately naive: linear scan for the earliest-free server, bisection
    for the segment, forward scan for the next finite segment.
    """
    import bisect

    arrivals = [float(x) for x in arrivals]
    seg_t = [float(x) for x in seg_t]
    means = [float(x) for x in seg_mean_service]
    u = [float(x) for x in u]
    c = int(servers)
    if c < 1:
        raise ValueError("servers must be >= 1")
    n = len(arrivals)
    if len(u) != n or len(means) != len(seg_t):
        raise ValueError("length mismatch")
    start = np.empty(n, dtype=np.float64)
    finish = np.empty(n, dtype=np.float64)
    if n and seg_t[0] > arrivals[0]:
        raise ValueError("seg_t[0] must be <= arrivals[0]")
    free = [-math.inf] * c
    for i, a in enumerate(arrivals):
        best = min(range(c), key=lambda j: (free[j], j))
        s = max(a, free[best])
        k = bisect.bisect_right(seg_t, s) - 1
        while k < len(seg_t) and math.isinf(means[k]):
            k += 1
        if k == len(seg_t):
            s, m = math.inf, 0.0
        else:
            s = max(s, seg_t[k])
            m = means[k]
        f = s + (-m * math.log(u[i]))
        start[i] = s
        finish[i] = f
        free[best] = f
    return start, finish


# --------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------


def latency_summary(latencies) -> dict:
    """Mean, p50, p90, p99, p999, max (seconds, linear-interpolated
    quantiles) and count of ``latencies``; NaN statistics when empty."""
    x = np.asarray(latencies, dtype=np.float64).ravel()
    n = int(x.size)
    if n == 0:
        nan = float("nan")
        return {"mean": nan, "p50": nan, "p90": nan, "p99": nan, "p999": nan, "max": nan, "count": 0}
    q = np.quantile(x, [0.5, 0.9, 0.99, 0.999])
    return {
        "mean": float(x.mean()),
        "p50": float(q[0]),
        "p90": float(q[1]),
        "p99": float(q[2]),
        "p999": float(q[3]),
        "max": float(x.max()),
        "count": n,
    }
