"""Latency distributions in the fluid mode (issue 34, 3); RocksDB's rate limiter and its write thread (issue 34, 2).

The fluid's mean latency per operation is the solver's; `foreground.latency_distribution` spreads it without moving
it: the op's CPU as a lognormal (machine.cpu_spread), the wait for a core as whole scheduler slices that few
operations wait (machine.sched_slice), the synchronous reads as before."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

import lsmsim
from lsmsim.sim.foreground import Group, _spread_points, latency_distribution, latency_points
from tests.conftest import small_config


def _group(cpu=5e-6, slow=1.0, reads=0.0, op="get") -> Group:
    g = Group("clients", 1, {op: 1.0})
    g.cpu = {op: cpu}
    g.cpu_wait = {op: cpu * (slow - 1.0)}
    g.per_op = {op: cpu * slow}
    g.reads = {op: reads}
    return g


def _mean(lat, prob):
    return float((np.asarray(lat) * np.asarray(prob)).sum())


def _quantile(lat, prob, q):
    order = np.argsort(lat)
    c = np.cumsum(np.asarray(prob)[order])
    return float(np.asarray(lat)[order][np.searchsorted(c, q)])


@pytest.mark.parametrize("sigma", [0.0, 0.2, 0.45, 1.0])
def test_the_spread_is_a_lognormal_of_mean_one(sigma):
    mult, prob = _spread_points(sigma)
    assert prob.sum() == pytest.approx(1.0) and _mean(mult, prob) == pytest.approx(1.0)
    # each bin's point sits at its middle quantile: the 0.6 quantile is bin [0.5, 0.75)'s, the 0.995 one bin
    # [0.99, 0.997)'s, and their ratio is the lognormal's between those quantiles
    z = NormalDist().inv_cdf
    ratio = _quantile(mult, prob, 0.995) / _quantile(mult, prob, 0.6)
    assert ratio == pytest.approx(math.exp(sigma * (z(0.9935) - z(0.625))))
    assert np.all(np.diff(mult) >= 0)


@pytest.mark.parametrize("slow, reads", [(1.0, 0.0), (1.0, 1.4), (2.5, 0.0), (1.7, 0.3)])
def test_the_distribution_keeps_the_fluid_mean(slow, reads):
    g = _group(slow=slow, reads=reads)
    base = latency_points(g, "get", 80e-6)
    lat, prob = latency_distribution(g, "get", 80e-6, 0.45, 1.5e-3)
    assert prob.sum() == pytest.approx(1.0)
    assert _mean(lat, prob) == pytest.approx(sum(a * p for a, p in base), rel=1e-9)
    # without spread or slices it is latency_points itself
    lat0, prob0 = latency_distribution(g, "get", 80e-6, 0.0, 0.0)
    got = sorted(zip(lat0.tolist(), prob0.tolist()))
    assert np.allclose(got, sorted(base), rtol=1e-12, atol=0)


def test_threads_that_outnumber_cores_wait_whole_slices_rarely():
    """An op of 5 us CPU on a thread holding 1 / 2.5 of a core waits 1.5 x 1.5 ms with the chance 5 us / 1.5 ms."""
    g = _group(cpu=5e-6, slow=2.5)
    lat, prob = latency_distribution(g, "get", 80e-6, 0.0, 1.5e-3)
    q = 5e-6 / 1.5e-3
    assert _quantile(lat, prob, 0.99) == pytest.approx(5e-6)  # most do not wait at all
    assert _quantile(lat, prob, 1 - q / 2) == pytest.approx(5e-6 + 1.5 * 1.5e-3)
    assert float(prob[lat > 1e-3].sum()) == pytest.approx(q)


def test_fluid_runs_report_tails_not_atoms():
    """Write p50 < p99 < p99.9 in a fluid run, and the means are those of a run without spread."""
    cfg = small_config(machine={"cores": 2})
    r = lsmsim.run(cfg).summary
    flat = lsmsim.run(cfg, ["machine.cpu_spread=0", "machine.sched_slice=0"]).summary
    assert r["latency_write_p50_s"] < r["latency_write_p99_s"] < r["latency_write_p999_s"]
    # without them, percentiles spread only as the steps' contention differs (a flush running or not)
    assert r["latency_write_p999_s"] / r["latency_write_p50_s"] > 1.5 * (
        flat["latency_write_p999_s"] / flat["latency_write_p50_s"]
    )
    assert r["latency_write_mean_s"] == pytest.approx(flat["latency_write_mean_s"], rel=1e-6)
    assert r["throughput_ops_per_s"] == flat["throughput_ops_per_s"]


def test_the_rate_limiter_holds_background_writes_to_its_rate():
    """lsm.rate_limiter_bytes_per_sec (RocksDB's GenericRateLimiter on flush and compaction writes): the bytes flushes
    and compactions write per second of the run stay within the rate, which slows the background down (and with it
    the writes, through the write controller) against a run without the limiter."""
    cfg = small_config(phases=[{"operations": 150_000, "mix": {"insert": 1.0}}])
    free = lsmsim.run(cfg).summary
    rate = 4 * 2**20
    limited = lsmsim.run(cfg, [f"lsm.rate_limiter_bytes_per_sec={rate}"]).summary
    background = limited["flush_bytes"] + limited["compaction_write_bytes"]
    assert background / limited["sim_time_s"] <= rate * 1.001
    assert (free["flush_bytes"] + free["compaction_write_bytes"]) / free["sim_time_s"] > 1.5 * rate
    assert limited["sim_time_s"] > free["sim_time_s"]
    assert lsmsim.load_config(cfg, ["lsm.rate_limiter_bytes_per_sec=4MiB/s"]).lsm.rate_limiter_bytes_per_sec == rate


def test_flushes_and_compactions_share_the_rate_limiter():
    from lsmsim.sim.jobs import Job, job_flow
    from lsmsim.sim.rate_limiter import limit_background

    class M:
        reserved_for: list = []

    def job(i, kind, write, cpu):
        j = Job(id=i, kind=kind, io_class=kind, start=0.0, cpu=cpu, read_bytes=0.0, write_bytes=write, outputs=[])
        job_flow(j, 0, M())
        return j

    flush, c1, c2 = job(1, "flush", 4e6, 0.1), job(2, "compaction", 8e6, 0.1), job(3, "compaction", 8e6, 1.0)
    limit_background([flush, c1, c2], 60e6)
    # alone: the flush writes 40 MB/s, compaction 1 80 MB/s, compaction 2 8 MB/s; max-min fair on 60 MB/s:
    # compaction 2 its 8, the other two 26 each
    assert c2.flow.cap * 8e6 == pytest.approx(8e6)
    assert flush.flow.cap * 4e6 == pytest.approx(26e6)
    assert c1.flow.cap * 8e6 == pytest.approx(26e6)


def test_concurrent_writers_share_one_write_thread():
    """With machine.cpu.write_serial, two writer threads write no faster than one (RocksDB's write thread; db_bench
    fillrandom from 2 threads wrote 0.81-0.87x what 1 thread wrote on the Xeon host), while two reader threads read
    faster than one; without it (0, the built-in costs) writers scale with cores."""

    def run(threads, mix, serial="10us"):
        cfg = small_config(
            machine={"cores": 2, "cpu": {"write_serial": serial}},
            phases=[{"duration": 0.5, "mix": mix, "writers": {"threads": threads}}],
        )
        cfg["workload"]["num"] = 200_000
        return lsmsim.run(cfg).summary

    one, two = run(1, {"insert": 1.0}), run(2, {"insert": 1.0})
    free = run(2, {"insert": 1.0}, "0us")["throughput_write_ops_per_s"]
    assert free > 1.3 * one["throughput_write_ops_per_s"]  # without it, two threads scale
    assert one["throughput_write_ops_per_s"] > 1 / 10e-6  # one writer does not queue behind itself
    assert two["throughput_write_ops_per_s"] == pytest.approx(1 / 10e-6, rel=0.01)  # two share the lane
    r1, r2 = run(1, {"get": 1.0}), run(2, {"get": 1.0})
    assert r2["throughput_get_ops_per_s"] > 1.5 * r1["throughput_get_ops_per_s"]


def _sync_run(threads, sync=True, latency="200us", mix=None, cores=8):
    cfg = small_config(
        machine={"cores": cores},
        phases=[{"duration": 0.5, "mix": mix or {"insert": 1.0}, "writers": {"threads": threads}}],
    )
    cfg["workload"]["num"] = 200_000
    cfg["lsm"]["wal_sync"] = sync
    cfg["device"] = {"model": "simple", "sync_latency": latency}
    return lsmsim.run(cfg).summary


def test_a_synced_write_waits_for_its_wal_sync():
    """lsm.wal_sync: one writer's write takes its CPU, its WAL bytes and the sync (DBImpl::WriteToWAL syncs before the
    write returns): throughput 1 / (unsynced latency + sync), and the sync is in every write's latency."""
    free, synced = _sync_run(1, sync=False), _sync_run(1)
    t0 = 1.0 / free["throughput_write_ops_per_s"]
    assert synced["throughput_write_ops_per_s"] == pytest.approx(1.0 / (t0 + 200e-6), rel=0.01)
    assert synced["latency_write_p99_s"] > 200e-6 > free["latency_write_p99_s"]


def test_synced_writers_commit_in_two_alternating_groups():
    """With N >= 2 writers each group holds the write thread for one write and its sync, and passes N / 2 writes
    (foreground.group_commit): 2 writers write as fast as 1, 4 twice as fast, 8 four times (cores to spare); reads
    do not wait for syncs."""
    x = {n: _sync_run(n)["throughput_write_ops_per_s"] for n in (1, 2, 4, 8)}
    assert x[2] == pytest.approx(x[1], rel=0.02)
    assert x[4] == pytest.approx(2 * x[1], rel=0.02)
    assert x[8] == pytest.approx(4 * x[1], rel=0.02)
    mixed = _sync_run(2, mix={"insert": 0.5, "get": 0.5})
    assert mixed["latency_get_p99_s"] < 100e-6 < mixed["latency_write_p99_s"]


def test_sync_latency_defaults_to_the_drives_write_latency():
    from lsmsim.devices.registry import make_device

    cfg = lsmsim.load_config(small_config())
    dev = make_device(cfg.device)
    assert cfg.device.sync_latency is None
    assert dev.wal_sync_seconds() == pytest.approx(dev.write_latency()) and dev.write_latency() > 0


def test_a_histograms_percentiles_never_exceed_its_largest_latency():
    """Issue 37, finding 7: a long scan's max_s was below its p999_s (a bin's midpoint above the largest value)."""
    from lsmsim.sim.recorder import LatencyHistogram

    h = LatencyHistogram()
    h.add_many(np.array([1.0e-4, 1.001e-4, 1.002e-4]), 0.5)
    h.add(1.0e-5, 2.25)
    row = h.row()
    assert row["p999_s"] <= row["max_s"] == pytest.approx(1.002e-4) and row["p50_s"] <= row["p99_s"]
    assert row["count"] == 4 and isinstance(row["count"], int)  # 3.75 operations of mass: 4


@pytest.mark.parametrize("hi", [3.0, 7.0])
def test_the_binning_kernel_puts_each_mass_where_add_does(hi):
    """add_many (the numba kernel) against one plain-Python `add` a mass: the same bins, totals, sum and max, for
    latencies below the lowest edge and above the highest, non-finite ones and masses of zero, below zero or NaN."""
    from lsmsim.sim.recorder import LatencyHistogram

    rng = np.random.default_rng(3)
    lat = 10.0 ** rng.uniform(-9.5, hi + 1.0, 2000)
    lat[:6] = [np.nan, np.inf, -np.inf, 0.0, -1.0, 1e-8]
    mass = rng.exponential(1.0, lat.size)
    mass[6:12] = [0.0, -1.0, np.nan, np.inf, 1e-300, 3.0]
    for weight in (mass, 0.25):
        kernel, reference = LatencyHistogram(hi=hi), LatencyHistogram(hi=hi)
        kernel.add_many(lat, weight)
        for x, m in zip(lat, np.broadcast_to(weight, lat.shape)):
            if np.isfinite(m) or m > 0:  # add_many drops a NaN mass (`add` alone would take it)
                reference.add(float(x), float(m))
        assert np.array_equal(kernel.w, reference.w, equal_nan=True)
        assert kernel.total == pytest.approx(reference.total) and kernel.max == reference.max
        if np.isfinite(kernel.sum):
            assert kernel.sum == pytest.approx(reference.sum)
    with pytest.raises(ValueError, match="3 weights for 2"):
        LatencyHistogram().add_many(np.array([1e-3, 2e-3]), np.ones(3))
