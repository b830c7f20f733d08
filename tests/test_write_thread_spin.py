"""A write spins for the other threads' write groups in RocksDB's write thread (foreground.write_thread_spin,
machine.cpu.write_wait): its closed form, its latency, and calibrate's fit of it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import lsmsim
from lsmsim.sim.foreground import Group, latency_points
from tests.conftest import small_config

C, H = 5e-6, 2e-6  # a write's CPU (memtable_insert, no WAL, no skiplist walk) and its hold on the write thread


def _writers(threads: int, wait: float, serial: str = "2us") -> dict:
    cfg = small_config(
        machine={
            "cores": 8,  # a core per thread: nothing but the spin slows a writer
            "cpu": {"memtable_insert": "5us", "memtable_search": "0us", "write_serial": serial, "write_wait": wait},
        },
        lsm={"wal": False, "write_buffer_size": "64MiB"},  # no flush within the phase
        phases=[{"duration": 0.2, "mix": {"insert": 1.0}, "writers": {"threads": threads}}],
    )
    cfg["workload"]["num"] = 1_000_000
    return lsmsim.run(cfg).summary


@pytest.mark.parametrize("wait", [0.5, 1.0, 3.0])
def test_two_writers_spin_as_the_closed_form_says(wait):
    """Each of 2 writers spends C + wait x H x U per write, U = the other's writes/s x H: its rate r solves
    wait H^2 r^2 + C r = 1 (the write thread's cap 1 / H is far above)."""
    s = _writers(2, wait)
    r = (-C + math.sqrt(C * C + 4 * wait * H * H)) / (2 * wait * H * H)
    assert s["throughput_write_ops_per_s"] == pytest.approx(2 * r, rel=1e-3)
    assert s["latency_write_mean_s"] == pytest.approx(C + wait * H * (r * H), rel=1e-3)


def test_no_spin_without_another_writer_or_without_the_write_thread():
    assert _writers(1, 3.0)["throughput_write_ops_per_s"] == pytest.approx(1 / C, rel=1e-6)
    assert _writers(2, 0.0)["throughput_write_ops_per_s"] == pytest.approx(2 / C, rel=1e-6)
    assert _writers(2, 3.0, serial="0us")["throughput_write_ops_per_s"] == pytest.approx(2 / C, rel=1e-6)


def test_the_spin_is_all_in_the_writes_that_find_a_group():
    """A share spin_chance of the writes wait spin_latency / spin_chance; the rest none; the mean is kept."""
    g = Group("clients", 2, {"write": 0.5, "get": 0.5})
    g.per_op, g.reads = {"write": 7e-6, "get": 9e-6}, {"write": 0.0, "get": 0.0}
    g.spin_latency, g.spin_chance = 1e-6, 0.25
    pts = latency_points(g, "write", 0.0)
    lats, probs = zip(*sorted(pts))
    assert lats == pytest.approx((6e-6, 10e-6)) and probs == pytest.approx((0.75, 0.25))
    assert sum(lat * p for lat, p in pts) == pytest.approx(7e-6)
    assert latency_points(g, "get", 0.0) == [(9e-6, 1.0)]


RECORDED = (
    Path(__file__).resolve().parents[1] / "benchmarks/validation/hosts/intel-xeon-processor-2vcpu-24g-regimes.json"
)


def test_calibrate_fits_the_spin_that_gives_the_measured_speed_up():
    """fit_write_wait finds the write_wait at which lsmsim's readrandomwriterandom 50/50 from 2 threads runs the
    measured speed-up over 1 thread: given the speed-up lsmsim itself runs at write_wait 1.2, it finds 1.2."""
    from lsmsim.validation.contention import MIXED_PHASE, _mixed_config, fit_write_wait

    machine = json.loads(RECORDED.read_text())["machine"]
    machine = {**machine, "cpu": {**machine["cpu"], "write_wait": 1.2}}
    ops = [lsmsim.run(_mixed_config(t, machine)).summary[f"phase_{MIXED_PHASE}_ops_per_s"] for t in (1, 2)]
    assert 1.0 < ops[1] / ops[0] < 2.0
    runs = [{"ops_per_s_1": ops[0], "ops_per_s_2": ops[1]}]
    assert fit_write_wait(runs, machine) == pytest.approx(1.2, abs=0.05)
    assert fit_write_wait([], machine) == 0.5  # not measured: holds that keep their core
    no_thread = {**machine, "cpu": {**machine["cpu"], "write_serial": "0us"}}
    assert fit_write_wait(runs, no_thread) == 0.5  # no write thread to spin for
