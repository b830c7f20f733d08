"""Tests for lsmsim.sim.queueing (arrivals + exact FCFS multi-server recursion)."""

import math

import numpy as np
import pytest
from scipy import stats

from lsmsim.sim.queueing import (
    bursty_rates,
    fcfs_multiserver,
    fcfs_multiserver_py,
    latency_summary,
    poisson_arrivals,
)


def _mmc_wait(c, lam, mu, n, seeds):
    """Mean waiting time (start - arrival) over independent M/M/c replicas."""
    waits = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        a = poisson_arrivals(rng, np.array([0.0]), np.array([lam]), n / lam)
        s, f = fcfs_multiserver(a, np.array([0.0]), np.array([1.0 / mu]), c, rng.random(a.size))
        w = s - a
        waits.append(w[a.size // 20 :])  # drop the empty-system warm-up
    return float(np.concatenate(waits).mean())


def _erlang_c(c, a):
    """Probability of waiting in M/M/c with offered load a = lam/mu (< c)."""
    head = sum(a**k / math.factorial(k) for k in range(c))
    tail = a**c / math.factorial(c) * c / (c - a)
    return tail / (head + tail)


def _random_case(seed, c):
    rng = np.random.default_rng(seed)
    n = 1500
    # coarse grid -> many exact ties between arrivals and with segment bounds
    a = np.sort(np.round(rng.uniform(0.0, 200.0, n), 1))
    nseg = 40
    seg_t = np.concatenate([[0.0], np.sort(np.round(rng.uniform(0, 220, nseg - 1), 1))])
    means = rng.uniform(0.05, 3.0, nseg) * c / 6.0
    means[rng.random(nseg) < 0.3] = np.inf
    if seed % 2:
        means[-1] = np.inf  # trailing inf: some requests may never start
    u = rng.random(n)
    return a, seg_t, means, u


@pytest.mark.parametrize("c", [1, 3, 8])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_numba_matches_python_reference(seed, c):
    a, seg_t, means, u = _random_case(seed, c)
    assert np.isinf(means).any()
    s_nb, f_nb = fcfs_multiserver(a, seg_t, means, c, u)
    s_py, f_py = fcfs_multiserver_py(a, seg_t, means, c, u)
    assert np.array_equal(s_nb, s_py)
    assert np.array_equal(f_nb, f_py)
    # the case must actually exercise queueing
    assert np.count_nonzero(s_nb > a) > 10


def test_single_server_is_lindley():
    rng = np.random.default_rng(7)
    a = poisson_arrivals(rng, np.array([0.0]), np.array([0.9]), 20000.0)
    u = rng.random(a.size)
    s, f = fcfs_multiserver(a, np.array([0.0]), np.array([1.0]), 1, u)
    svc = -np.log(u)
    w = np.empty(a.size)
    w[0] = 0.0
    for i in range(1, a.size):  # Lindley: W_n = max(0, W_{n-1} + S_{n-1} - A_n)
        w[i] = max(0.0, w[i - 1] + svc[i - 1] - (a[i] - a[i - 1]))
    np.testing.assert_allclose(s - a, w, rtol=0, atol=1e-8)


def test_mm1_mean_wait():
    lam, mu = 0.7, 1.0
    w = _mmc_wait(1, lam, mu, 1_000_000, seeds=[11, 12])
    expected = (lam / mu) / (mu - lam)
    assert abs(w / expected - 1.0) < 0.05, (w, expected)


def test_mmc_erlang_c_mean_wait():
    c, mu, rho = 4, 1.0, 0.8
    lam = rho * c * mu
    w = _mmc_wait(c, lam, mu, 1_000_000, seeds=[21, 22, 23, 24])
    expected = _erlang_c(c, lam / mu) / (c * mu - lam)
    assert abs(w / expected - 1.0) < 0.05, (w, expected)


def test_poisson_arrivals_counts_per_segment():
    rng = np.random.default_rng(3)
    seg_t = np.array([0.0, 10.0, 15.0, 40.0, 41.0])
    rates = np.array([500.0, 0.0, 2000.0, 100.0, 3000.0])
    t_end = 50.0
    t = poisson_arrivals(rng, seg_t, rates, t_end)
    assert np.all(np.diff(t) >= 0)
    assert t[0] >= 0.0 and t[-1] < t_end
    edges = np.append(seg_t, t_end)
    counts = np.histogram(t, bins=edges)[0]
    expected = rates * np.diff(edges)
    assert counts[1] == 0
    for k, mu in zip(counts, expected):
        assert abs(k - mu) <= 5 * math.sqrt(mu) + 1e-9, (counts, expected)
    # within a constant-rate segment the points are uniform
    seg = t[(t >= 15.0) & (t < 40.0)]
    assert stats.kstest((seg - 15.0) / 25.0, "uniform").pvalue > 1e-3


def test_bursty_rates_preserves_mean():
    base, bf, period, duty = 400.0, 3.0, 2.0, 0.25
    t_end = 20 * period
    seg_t, rates = bursty_rates(base, bf, period, duty, t_end)
    assert seg_t[0] == 0.0 and np.all(np.diff(seg_t) > 0)
    assert rates.max() == pytest.approx(bf * base)
    lengths = np.diff(np.append(seg_t, t_end))
    assert float(np.dot(rates, lengths)) / t_end == pytest.approx(base, rel=1e-12)
    # and the generated process has that mean
    t = poisson_arrivals(np.random.default_rng(5), seg_t, rates, t_end)
    assert abs(t.size - base * t_end) <= 5 * math.sqrt(base * t_end)
    # the extreme case duty*bf == 1 gives a zero off-rate
    _, r = bursty_rates(base, 4.0, period, 0.25, t_end)
    assert r.min() == 0.0


@pytest.mark.parametrize(
    "kw",
    [
        dict(burst_factor=5.0, duty=0.25),  # duty*bf > 1: negative off-rate
        dict(burst_factor=2.0, duty=0.0),
        dict(burst_factor=2.0, duty=1.0),
        dict(burst_factor=0.5, duty=0.5),
    ],
)
def test_bursty_rates_rejects_impossible(kw):
    with pytest.raises(ValueError):
        bursty_rates(100.0, period=1.0, t_end=10.0, **kw)


def test_inf_segment_blocks_starts():
    rng = np.random.default_rng(9)
    seg_t = np.array([0.0, 10.0, 20.0, 30.0, 35.0])
    means = np.array([0.1, np.inf, 0.05, np.inf, np.inf])  # trailing inf run
    a = poisson_arrivals(rng, np.array([0.0]), np.array([5.0]), 40.0)
    u = rng.random(a.size)
    for c in (1, 3):
        s, f = fcfs_multiserver(a, seg_t, means, c, u)
        fin = np.isfinite(s)
        assert not np.any((s >= 10.0) & (s < 20.0))
        assert not np.any(fin & (s >= 30.0))
        # arrivals during the blackout wait for its end; the first start right then
        blocked = (a >= 10.0) & (a < 20.0)
        assert blocked.sum() > 20
        assert np.all(s[blocked] >= 20.0)
        assert np.any(s[blocked] == 20.0)
        # arrivals after the last finite segment never start
        assert np.all(~fin[a >= 30.0]) and np.all(np.isinf(f[a >= 30.0]))


@pytest.mark.parametrize("c", [1, 8])
def test_fcfs_order_and_latency_ge_service(c):
    rng = np.random.default_rng(13)
    seg_t = np.array([0.0, 100.0, 200.0, 300.0])
    means = np.array([1.0, 1.1, 0.5, 1.0])  # overload in [100, 200), then drains
    a = poisson_arrivals(rng, np.array([0.0]), np.array([0.85 * c]), 400.0)
    u = rng.random(a.size)
    s, f = fcfs_multiserver(a, seg_t, means, c, u)
    assert np.all(np.diff(s) >= 0)  # FCFS: starts in arrival order
    assert np.all(s >= a)
    service = f - s
    assert np.all(f - a >= service)
    assert np.any(s > a)
    # service time is drawn from the segment in effect at the start time
    m_at_start = means[np.searchsorted(seg_t, s, side="right") - 1]
    np.testing.assert_allclose(service, -m_at_start * np.log(u), rtol=1e-9, atol=1e-10)
    # never more than c requests in service at once
    ev_t = np.concatenate([s, f])
    ev_d = np.concatenate([np.ones(a.size), -np.ones(a.size)])
    order = np.lexsort((ev_d, ev_t))  # departures before arrivals at ties
    assert np.cumsum(ev_d[order]).max() <= c


def test_input_validation():
    a = np.array([1.0, 0.5])
    with pytest.raises(ValueError):
        fcfs_multiserver(a, np.array([0.0]), np.array([1.0]), 1, np.full(2, 0.5))
    with pytest.raises(ValueError):
        fcfs_multiserver(np.array([0.5, 1.0]), np.array([0.7]), np.array([1.0]), 1, np.full(2, 0.5))


def test_latency_summary():
    x = np.arange(1, 1001, dtype=float)
    d = latency_summary(x)
    assert d["count"] == 1000
    assert d["mean"] == pytest.approx(500.5)
    assert d["p50"] == pytest.approx(500.5)
    assert d["p90"] == pytest.approx(np.quantile(x, 0.9))
    assert d["p99"] == pytest.approx(990.01)
    assert d["p999"] == pytest.approx(999.001)
    assert d["max"] == 1000.0
    assert latency_summary([])["count"] == 0
