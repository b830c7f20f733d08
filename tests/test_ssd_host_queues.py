"""The host's submission queues (drive_sim's SQs, lsmsim/ssd/host_queues.py): a plain-Python reference of requests
waiting for command slots in per-CPU queues fetched round robin, what the moves leave alone, and the search."""

import collections
from dataclasses import replace

import numpy as np
import pytest

from lsmsim.ssd import drive_sim as ds
from lsmsim.ssd import host_queues
from lsmsim.ssd.timing import Job, fio_job
from tests.test_ssd_order import GAP, KIB4, command_bound
from tests.test_ssd_timing import _synthetic


def reference(q: int, gap: float, interval: float, n_sq: int, n: int, seed: int) -> np.ndarray:
    """q requests outstanding, one command slot: the drive takes one request every `gap` s, from the non-empty SQs
    in turn; the completed one's thread submits the next at once, into the SQ of the CPU it is on, and moves to
    another of the n_sq CPUs at exponential intervals of mean `interval`. Latencies of the last n."""
    rng = np.random.default_rng(seed)
    sqs = [collections.deque() for _ in range(n_sq)]
    cur, rr, now = 0, 0, 0.0
    sqs[0].extend([0.0] * q)
    move = rng.exponential(interval)
    lat = []
    while len(lat) < n + 4 * q:
        now += gap
        while move <= now:
            cur = (cur + 1 + int(rng.integers(n_sq - 1))) % n_sq
            move += rng.exponential(interval)
        for _ in range(n_sq):
            sq = sqs[rr]
            rr = (rr + 1) % n_sq
            if sq:
                break
        lat.append(now - sq.popleft())
        sqs[cur].append(now)
    return np.array(lat[-n:])


def simulated(interval: float, n_sq: int, q: int, n: int, slots: int = 1) -> np.ndarray:
    m = command_bound(command_slots=slots, sq_count=n_sq, sq_move_interval=interval)
    _, lat, _, _ = ds.simulate(m.params(), KIB4, KIB4, 0.0, q, 1, n, 4 * q, 3)
    return lat


def test_moves_between_round_robin_queues_spread_latencies_as_the_reference_does():
    """Between moves the backlog is served in order (every request q services); a move leaves the old SQ draining
    at half the rate beside the new one: the new requests finish early, the last old ones up to twice as late."""
    q, n = 64, 100_000
    interval = 2 * q * GAP  # a move about every second drain of the backlog: most requests meet one
    ref = reference(q, GAP, interval, 8, n, seed=5)
    sim = simulated(interval, 8, q, n)
    pcts = (1, 10, 50, 90, 99)
    r, s = np.percentile(ref, pcts), np.percentile(sim, pcts)
    # within 10%, or 3 services at the low end (the model adds the command path's own steps)
    assert s == pytest.approx(r, rel=0.1, abs=3 * GAP), (r / (q * GAP), s / (q * GAP))
    # the shape itself: Little's mean, early new requests and late old ones
    assert sim.mean() == pytest.approx(q * GAP, rel=0.01)
    assert s[0] < 0.3 * q * GAP and s[-1] > 1.5 * q * GAP


def test_one_queue_or_no_moves_keep_submission_order():
    q, n = 64, 20_000
    for interval, n_sq in ((0.0, 8), (2 * q * GAP, 1)):
        lat = simulated(interval, n_sq, q, n)
        assert lat.min() == pytest.approx(q * GAP, rel=0.01) and lat.max() == pytest.approx(q * GAP, rel=0.01)


def test_moves_change_nothing_without_a_backlog_and_never_the_rate():
    m = command_bound(command_slots=64)
    moved = replace(m, sq_count=8, sq_move_interval=100 * GAP)
    shallow = [fio_job(x, Job(KIB4, KIB4, 0.0, 64), 20000) for x in (m, moved)]
    assert shallow[0].percentiles == shallow[1].percentiles  # every request has a slot: the SQs stay empty
    deep = [fio_job(x, Job(KIB4, KIB4, 0.0, 512), 40000) for x in (m, moved)]
    assert deep[1].iops["write"] == pytest.approx(deep[0].iops["write"], rel=0.01)
    assert deep[1].percentiles["write"][99.0] > 1.3 * deep[0].percentiles["write"][99.0]


def test_the_search_recovers_the_move_interval_of_a_host(monkeypatch):
    """fio-like results of a drive with 8 command slots behind a host whose thread moves every 2 ms: among the
    intervals searched the truth meets every goal and submission order does not."""
    truth = command_bound(command_slots=8, sq_count=8, sq_move_interval=2e-3)
    jobs = [(f"rw{q}", "write", KIB4, q, 0.0) for q in (4, 64, 128, 256)]
    traces = _synthetic(truth, jobs)
    monkeypatch.setattr(host_queues, "MOVE_INTERVALS", (0.0, 2e-4, 2e-3, 2e-2))
    start = replace(truth, sq_count=1, sq_move_interval=0.0)
    assert len(host_queues.backlogged(start, traces)) == 3
    found, table = host_queues.search(start, traces)
    assert len(table) == 4
    assert found.sq_move_interval == pytest.approx(2e-3) and found.sq_count == host_queues.SQ_COUNT
    met = {c["sq_move_interval"]: k for c, k, _ in table}
    assert met[2e-3] == 3 > met[0.0]


def test_the_search_leaves_a_drive_without_a_backlog_alone():
    m = command_bound(command_slots=1024)
    traces = _synthetic(m, [("rw64", "write", KIB4, 64, 0.0)])
    assert host_queues.search(m, traces) == (m, [])


def test_command_bytes_admit_as_many_commands_as_their_data_fits():
    """`command_bytes` (sq_fetch.py): commands in service carry at most that much data, the rest wait in their SQ in
    order. For one request size it is the same as that many command slots: the same latencies, draw for draw."""
    m = command_bound(command_slots=1024)
    for q in (8, 64, 256):
        by_bytes = fio_job(replace(m, command_bytes=6 * KIB4), Job(KIB4, KIB4, 0.0, q), 10000)
        by_slots = fio_job(replace(m, command_slots=6), Job(KIB4, KIB4, 0.0, q), 10000)
        assert by_bytes.percentiles == by_slots.percentiles
    big = fio_job(replace(m, command_bytes=KIB4), Job(4 * KIB4, 4 * KIB4, 0.0, 8), 2000)  # larger than the room:
    assert big.iops["write"] > 0  # one command always goes


def test_command_bytes_make_large_writes_wait_with_the_reads_of_a_mix():
    """A drive whose units program first keeps a mix's writes fast while its reads queue; with the data of the
    commands in service capped, large requests past the cap wait in submission order, writes behind reads (the
    PM981a's 128 KiB 50/50 mix at depth 64: writes 5.7 ms at p50, reads 8.1 ms), while small ones all fit."""
    from tests.test_ssd_timing import quiet

    m = quiet(units=4, write_bandwidth=400e6, program_time=1e-3, write_buffer=64e6, program_first=True)
    capped = replace(m, command_bytes=1.5e6)
    job = Job(131072, 131072, 0.5, 64, runtime=1)
    free, held = fio_job(m, job, 20000), fio_job(capped, job, 20000)
    assert free.percentiles["write"][50.0] < 0.05 * free.percentiles["read"][50.0]
    assert held.percentiles["write"][50.0] > 0.3 * held.percentiles["read"][50.0]
    small = Job(16384, 16384, 0.5, 64, runtime=1)  # 1 MiB in flight: under the cap, nothing changes
    assert fio_job(capped, small, 20000).percentiles == fio_job(m, small, 20000).percentiles
