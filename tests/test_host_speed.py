"""The host's own run-to-run spread (machine.speed_spread, validation/host_speed.py) and tune's ranges with it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy import stats

from lsmsim.tuning.search import Candidate, Tuning, evaluate, speed_points
from lsmsim.validation.calibrate import Measurements
from lsmsim.validation.host_speed import fit_speed_spread, repeated_runs

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ROOT / "lsmsim" / "presets" / "machines"
HOSTS = ROOT / "benchmarks" / "validation" / "hosts"


def test_the_spread_pools_every_kind_of_repeated_run():
    """Two kinds, each a pair whose logs lie 0.1 either side of their mean, and a kind run once (no degree of
    freedom): sqrt((2 x 0.01 + 2 x 0.01) / 2) = 0.1414."""
    m = Measurements(host={})
    m.writes = [{"kind": "fillrandom", "value": 100, "wal": True, "per_write_s": x} for x in (1.0, math.exp(0.2))]
    m.big_memtable = [{"buffer": 4 << 20, "per_write_s": x} for x in (2.0, 2.0 * math.exp(-0.2))]
    m.block_reads = [{"block_size": 4096, "cache": 8 << 20, "cpu_per_get_s": 3.0}]
    assert len(repeated_runs(m)) == 3
    assert fit_speed_spread(m) == pytest.approx(math.sqrt(0.02))
    assert fit_speed_spread(Measurements(host={}, block_reads=m.block_reads)) is None


def _held_out(record: Path, phase: str) -> tuple[float, int]:
    """The pooled log-standard deviation of the recorded db_bench repeats of each config's `phase` throughput, and
    its degrees of freedom."""
    squares, dof = 0.0, 0
    for repeats in json.loads(record.read_text())["runs"].values():
        logs = [math.log(r[phase]["throughput"]) for r in repeats if r.get(phase)]
        if len(logs) > 1:
            mean = sum(logs) / len(logs)
            squares += sum((x - mean) ** 2 for x in logs)
            dof += len(logs) - 1
    return math.sqrt(squares / dof), dof


CASES = [
    pytest.param(host, phase, id=f"{host}-{phase}", marks=mark)
    for host, phase, mark in [
        ("intel-xeon-processor-2vcpu-24g", "write", ()),
        ("intel-xeon-processor-2vcpu-24g", "mixed", ()),
        ("amd-epyc-2vcpu-24g", "write", ()),
        (
            "amd-epyc-2vcpu-24g",
            "mixed",
            pytest.mark.xfail(
                strict=True,
                reason="the EPYC calibration's back-to-back repeats (0.063) under-state its mixed runs' spread over "
                "the decision-fidelity recording (0.109): docs/tuning.md",
            ),
        ),
    ]
]


@pytest.mark.parametrize("host,phase", CASES)
def test_the_calibrations_spread_is_the_spread_of_runs_it_never_saw(host, phase):
    """The decision-fidelity recordings ran each of 32 configs three times on the same host, apart from the
    calibration: the variance of their repeats' log throughput over the calibration's (machine.speed_spread
    squared) lies within the F distribution's 99% range for their degrees of freedom, as two samples of one spread
    do (Xeon: 0.152 and 0.128 against 0.168)."""
    m = Measurements.from_json((PRESETS / f"{host}-calibration.json").read_text())
    s, cal_dof = fit_speed_spread(m), sum(len(v) - 1 for v in repeated_runs(m).values())
    held, dof = _held_out(HOSTS / f"{host}-fidelity.json", phase)
    assert s is not None
    ratio = (held / s) ** 2
    assert stats.f.ppf(0.005, dof, cal_dof) <= ratio <= stats.f.ppf(0.995, dof, cal_dof), (held, s)


def test_tunes_ranges_widen_by_the_hosts_band_for_the_timed_figures_only():
    runs = [{"throughput": 100.0, "p99": 1e-3, "p999": 2e-3, "stall": 0.0, "wamp": 3.0} for _ in range(2)]
    c = Candidate(0, {}, runs)
    t = Tuning(c, [c], c, 1, {"throughput": 1.0}, 0.0, host_spread=0.1)
    f = math.exp(1.959964 * 0.1)
    assert t.range(c, "throughput") == pytest.approx((100 / f, 100 * f))
    assert t.range(c, "p99") == pytest.approx((1e-3 / f, 1e-3 * f))
    assert t.range(c, "wamp") == (3.0, 3.0)
    assert Tuning(c, [c], c, 1, {"throughput": 1.0}, 0.0).range(c, "throughput") == (100.0, 100.0)


def test_the_speed_points_are_the_quantiles_of_the_hosts_spread():
    assert speed_points(2, 0.168) == pytest.approx([math.exp(-0.674490 * 0.168), math.exp(0.674490 * 0.168)])
    assert speed_points(3, 0.1)[1] == 1.0 and speed_points(4, 0.0) == [1.0] * 4
    three = speed_points(3, 0.2)
    assert math.log(three[0]) == pytest.approx(-math.log(three[2])) and three[0] < 1 < three[2]


def test_a_run_at_a_faster_host_speed_divides_every_cpu_time():
    """tune's runs at a host speed: a CPU-bound fill (no device time to speak of) runs about that much faster."""
    from lsmsim.formats.dbbench_args import dbbench_config
    from lsmsim.loading import load_config

    cfg, _ = dbbench_config(
        "--benchmarks=fillrandom --num=200000 --key_size=16 --value_size=100 --write_buffer_size=4194304"
    )
    data = load_config({**cfg, "machine": {"preset": "default"}}).model_dump(mode="json")
    slow, fast = evaluate(data, [(0, 1.0), (0, 1.25)])
    assert fast["throughput"] / slow["throughput"] == pytest.approx(1.25, rel=0.05)
    assert fast["wamp"] == pytest.approx(slow["wamp"], rel=0.05)


def test_the_ranges_reach_the_band_beyond_the_speeds_run():
    runs = [{"throughput": 90.0, "p99": 1e-3, "p999": 2e-3, "stall": 0.0, "wamp": 3.0}, {"throughput": 110.0}]
    runs[1] = {**runs[0], "throughput": 110.0}
    c = Candidate(0, {}, runs)
    t = Tuning(c, [c], c, 1, {"throughput": 1.0}, 0.0, host_spread=0.1, speeds=speed_points(2, 0.1))
    f = math.exp((1.959964 - 0.674490) * 0.1)
    assert t.range(c, "throughput") == pytest.approx((90 / f, 110 * f))
    assert c.mean("throughput") == 100.0


def test_a_host_speed_divides_the_cpu_times_but_not_the_bytes_the_cpu_keeps_close():
    """machine.cpu_speed on a calibrated preset (which sets memtable_cache): the times divide, memtable_cache (bytes)
    and write_wait (a multiplier) stay; before, dividing the bytes failed the config's validation."""
    from lsmsim.loading import load_config

    cpu = {"memtable_insert": "3us", "memtable_cache": "16MiB", "write_wait": 2.0}
    base = load_config({"machine": {"preset": "default", "cpu": cpu}, "workload": {"preset": "fillrandom"}})
    fast = load_config(
        {"machine": {"preset": "default", "cpu": cpu, "cpu_speed": 1.12}, "workload": {"preset": "fillrandom"}}
    )
    assert fast.machine.cpu.memtable_insert == pytest.approx(base.machine.cpu.memtable_insert / 1.12)
    assert fast.machine.cpu.memtable_cache == base.machine.cpu.memtable_cache == 16 << 20
    assert fast.machine.cpu.write_wait == base.machine.cpu.write_wait == 2.0
