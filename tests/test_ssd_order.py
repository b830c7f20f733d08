"""The order random writes are served in (lsmsim/ssd/order.py, drive_sim's write window and deferred mapping work):
closed forms of random order of service, the rate the deferred work keeps, and the search recovering both."""

from dataclasses import replace

import numpy as np
import pytest

from lsmsim.ssd import order
from lsmsim.ssd.timing import DriveModel, Job, fio_job
from tests.test_ssd_timing import _synthetic, quiet

KIB4 = 4096.0
GAP = 10e-6  # the command stage's interval: the only wait of these drives' writes


def command_bound(**kw) -> DriveModel:
    """Writes wait only at the command stage, one at a time (share 1), the rest of their path nearly free."""
    base = dict(
        write_iops=1 / GAP,
        write_command_share=1.0,
        write_overhead=1e-9,
        write_stream_bandwidth=1e15,
        write_bandwidth=1e15,
        write_buffer=1e15,
        host_per_io=1e-9,
    )
    base.update(kw)
    return quiet(**base)


def test_random_order_of_service_waits_a_geometric_number_of_services():
    """A closed loop of q writes at one deterministic server taking any waiting one at random: each of the q - 1
    waiting is taken at each service with probability 1 / (q - 1), so a write waits K services, K geometric, and
    takes (K + 1) services in all (Little: mean q services). In submission order every write takes q services."""
    q = 11
    fifo = fio_job(command_bound(), Job(KIB4, KIB4, 0.0, q), 40000)
    assert fifo.percentiles["write"][50.0] == pytest.approx(q * GAP, rel=0.01)
    assert fifo.percentiles["write"][90.0] == pytest.approx(q * GAP, rel=0.01)
    ros = fio_job(command_bound(write_window=64), Job(KIB4, KIB4, 0.0, q), 40000)
    p = 1 / (q - 1)

    def quantile(f):  # the least k with P(K <= k) >= f
        return int(np.ceil(np.log(1 - f) / np.log(1 - p)))

    assert ros.mean["write"] == pytest.approx(q * GAP, rel=0.01)
    for pct in (50.0, 90.0, 99.0):
        services = ros.percentiles["write"][pct] / GAP  # K waited + its own
        assert abs(services - (quantile(pct / 100) + 1)) <= 1, pct
    # beyond the window the order holds: a window of 2 spreads the latencies far less
    narrow = fio_job(command_bound(write_window=2), Job(KIB4, KIB4, 0.0, q), 40000)
    assert ros.percentiles["write"][99.0] > 1.5 * narrow.percentiles["write"][99.0]


def test_sequential_writes_keep_their_order():
    m = command_bound()
    for window, defer in ((64, 0.0), (64, 0.4 * GAP)):
        other = replace(m, write_window=window, map_update_time=defer)
        a = fio_job(m, Job(KIB4, KIB4, 0.0, 8, sequential=True), 5000)
        b = fio_job(other, Job(KIB4, KIB4, 0.0, 8, sequential=True), 5000)
        assert a.percentiles == b.percentiles and a.iops == b.iops


def test_deferred_mapping_work_keeps_the_rate_hides_at_depth_one_and_spreads_at_depth():
    """The deferred part of the command interval is still done: at depth the rate is 1 / interval as before. A lone
    write leaves the stage idle long enough to do it, so depth 1 is unchanged; at depth most writes pass in the
    shorter interval and those behind a catch-up of the backlog wait (p50 well under the mean)."""
    m = command_bound()  # a write holds the stage its whole interval: the next one finds it idle
    deferred = replace(m, map_update_time=0.4 * GAP, map_update_backlog=200e-6)
    one_a, one_b = (fio_job(x, Job(KIB4, KIB4, 0.0, 1), 5000) for x in (m, deferred))
    assert one_a.percentiles == one_b.percentiles
    deep_a, deep_b = (fio_job(x, Job(KIB4, KIB4, 0.0, 4), 40000) for x in (m, deferred))
    assert deep_b.iops["write"] == pytest.approx(deep_a.iops["write"], rel=0.01)
    assert deep_a.iops["write"] == pytest.approx(1 / GAP, rel=0.01)
    assert deep_a.percentiles["write"][50.0] == pytest.approx(deep_a.mean["write"], rel=0.05)
    assert deep_b.percentiles["write"][50.0] < 0.7 * deep_b.mean["write"]
    assert deep_b.percentiles["write"][99.0] > 2 * deep_b.mean["write"]


def test_the_search_recovers_the_order_of_a_drive(monkeypatch):
    """fio-like results of a drive with a write window and deferred mapping work: the search over a small grid
    finds both, and every direction meets the replay's goals with them (in submission order most do not)."""
    truth = command_bound(write_window=8, map_update_time=3e-6, map_update_backlog=100e-6)
    jobs = [(f"rw{q}", "randwrite", KIB4, q, 0.0) for q in (1, 2, 4, 8, 16, 32)]
    traces = _synthetic(truth, jobs)
    monkeypatch.setattr(order, "WINDOWS", (1, 8, 64))
    monkeypatch.setattr(order, "MAP_SHARES", (0.0, 0.3))
    monkeypatch.setattr(order, "BACKLOGS", (100e-6,))
    start = replace(truth, write_window=1, map_update_time=0.0)
    found, table = order.search(start, traces)
    assert len(table) == 6
    assert found.write_window == 8 and found.map_update_time == pytest.approx(3e-6, rel=1e-6)
    met = {(c["write_window"], c["map_update_time"] > 0): m for c, m, _ in table}
    assert met[(8, True)] == len(jobs) > met[(1, False)]


def test_the_search_leaves_a_drive_without_random_writes_alone():
    m = DriveModel()
    traces = _synthetic(m, [("rr4", "randread", KIB4, 4, 100.0), ("sw4", "write", KIB4, 4, 0.0)])
    assert order.search(m, traces) == (m, [])


def test_calibrate_says_which_order_it_chose(monkeypatch, capsys):
    """`lsmsim ssd calibrate --write-order` (cli.write_order): the chosen order and what it meets against
    submission order."""
    from lsmsim.ssd import cli

    truth = command_bound(write_window=8)
    traces = _synthetic(truth, [(f"rw{q}", "randwrite", KIB4, q, 0.0) for q in (2, 8, 32)])
    monkeypatch.setattr(order, "WINDOWS", (1, 8))
    monkeypatch.setattr(order, "MAP_SHARES", (0.0,))
    found = cli.write_order(replace(truth, write_window=1), traces)
    out = capsys.readouterr().out
    assert found.write_window == 8
    assert "write order: write_window 8, map_update_time 0us" in out
    assert "3 directions meet every goal (" in out and "of 2 candidates" in out
