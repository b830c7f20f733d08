"""`lsmsim calibrate --check` (lsmsim/validation/host_check.py): whether the host's machine preset still holds."""

from __future__ import annotations

import math
import shutil

import pytest

from lsmsim.validation import host_check as hc
from lsmsim.validation.dbbench import DbBenchRun

needs_db_bench = pytest.mark.skipif(shutil.which("db_bench") is None, reason="db_bench (rocksdb-tools) not installed")


def _parts(wal: float, no_wal: float, compaction: float, disk: float | None = None) -> list[hc.Part]:
    parts = [hc.Part("write_wal", wal, 1.0), hc.Part("write_no_wal", no_wal, 1.0)]
    parts.append(hc.Part("compaction_per_record", compaction, 1.0))
    return parts + ([hc.Part("sync_per_mib", disk, 1.0)] if disk is not None else [])


def test_band_is_three_spreads_and_at_least_a_quarter():
    assert hc.band(None) == pytest.approx(math.log(1.25))
    assert hc.band(0.05) == pytest.approx(math.log(1.25))  # 3 x 0.05 = 0.15 < ln 1.25
    assert hc.band(0.145) == pytest.approx(0.435)


def test_verdict_names_what_moved_and_the_stopgap():
    assert hc.judge(_parts(1.2, 0.85, 1.1, 1.2), 0.0).holds
    together = hc.judge(_parts(2.2, 2.5, 2.4), 0.0)  # the 2026-11-28 preset on the EPYC host a day later
    assert not together.holds and len(together.far) == 3
    text = hc.report(together)
    assert "recalibrate" in text and "machine.cpu_speed 0.42" in text  # 1 / geometric mean of 2.2, 2.5, 2.4
    apart = hc.report(hc.judge(_parts(1.0, 1.0, 2.0), 0.0))
    assert "moved apart" in apart and "cpu_speed 0" not in apart
    disk = hc.judge(_parts(1.0, 1.0, 1.0, disk=3.0), 0.0)
    assert [p.name for p in disk.far] == ["sync_per_mib"]
    assert "device.sync_bandwidth" in hc.report(disk) and "cpu_speed" not in hc.report(disk)
    unmeasured = hc.judge([*_parts(1.0, 1.0, 1.0), hc.Part("compaction_per_record", float("nan"), 1.0)], 0.0)
    assert not unmeasured.holds and len(unmeasured.far) == 1  # a fill without a compaction proves nothing


def test_real_parts_leave_stalls_out():
    def run(seconds: float, stall_us: float, jobs: list[dict]) -> DbBenchRun:
        stats = {"rocksdb.stall.micros": stall_us}
        return DbBenchRun([], seconds, {}, {"fillrandom": seconds}, {}, statistics=stats, compactions=jobs)

    jobs = [{"input_records": 1000, "cpu_micros": 1500}, {"input_records": 3000, "cpu_micros": 2500}]
    parts = hc.real_parts({"wal": run(10.0, 2e6, jobs[:1]), "no_wal": run(5.0, 0, jobs[1:])}, 1_000_000)
    assert parts["write_wal"] == pytest.approx(8e-6)  # (10 s - 2 s of stalls) / 1M writes
    assert parts["write_no_wal"] == pytest.approx(5e-6)
    assert parts["compaction_per_record"] == pytest.approx(4000e-6 / 4000)  # both fills' compactions pooled


@pytest.fixture(scope="module")
def probe():
    return hc.measure(200_000)


@needs_db_bench
def test_check_clears_a_preset_fitted_to_the_host_and_flags_one_four_times_off(probe):
    """On this host's real db_bench: lsmsim's costs scaled to what db_bench ran (machine.cpu_speed) bring the write
    part to 1, and a preset 4x off in every CPU part fails whatever this host's speed is."""
    preset = "epyc-2vcpu-24g"
    real = hc.real_parts(probe, 200_000)
    base = hc.sim_parts({"preset": preset}, probe, 200_000)
    r = real["write_wal"] / base["write_wal"]
    assert 0.05 < r < 20 and all(v > 0 for v in (*real.values(), *base.values()))
    fitted = hc.sim_parts({"preset": preset, "cpu_speed": 1 / r}, probe, 200_000)
    assert real["write_wal"] / fitted["write_wal"] == pytest.approx(1.0, rel=0.10)
    for k in hc.CPU_PARTS:  # every CPU part scales with the costs
        assert fitted[k] == pytest.approx(base[k] * r, rel=0.15), k
    off = hc.sim_parts({"preset": preset, "cpu_speed": 1 / (4 * r)}, probe, 200_000)
    verdict = hc.judge([hc.Part(k, real[k], off[k]) for k in hc.CPU_PARTS], 0.1)
    assert not verdict.holds and "recalibrate" in hc.report(verdict)
    assert verdict.parts[0].ratio == pytest.approx(0.25, rel=0.15)


def test_cli_check_refuses_an_unknown_preset(capsys):
    from lsmsim.cli import main

    assert main(["calibrate", "--check", "--preset", "no-such-host"]) == 2
    err = capsys.readouterr().err
    assert "--preset no-such-host: no such machine preset" in err and "amd-epyc-2vcpu-24g" in err
