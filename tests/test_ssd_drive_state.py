"""The drive's state in the fio replay (lsmsim/ssd/timing.py gc_write_amp, gc_model): a trace recorded on a drive in
steady state starts with its write buffer spent, and its random writes carry greedy GC's write amplification."""

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from lsmsim.ssd.calibrate import compare
from lsmsim.ssd.gc_theory import wa_greedy_limit
from lsmsim.ssd.profile import load_profile, load_traces, ssd_presets
from lsmsim.ssd.timing import DriveModel, Job, fio_job, gc_model, gc_write_amp

KIB4 = 4096.0
REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "fio-real"
PM981_SECT6 = REAL / "AIALRA-0__ECSE-4320-Advanced-Computer-Systems/Project3 SSD/results/sect6"


def drive(**kw) -> DriveModel:
    """A flash-limited drive without randomness in service times: 8 units, 1 ms programs of 64 KiB."""
    base = dict(read_sigma=0.0, write_sigma=0.0, read_retry_fraction=0.0, host_per_io=0.0, units=8, page=16384.0)
    base.update(program_time=1e-3, write_bandwidth=8 * 65536 / 1e-3, write_iops=3e6, write_buffer=8e6)
    base.update(capacity=100e9, over_provisioning=0.07)
    base.update(kw)
    return DriveModel(**base)


def test_gc_write_amp_is_the_closed_form_over_the_span_and_one_where_gc_copies_nothing():
    """Random writes on a drive in steady state: Eq. 1 of gc_theory (Desnoyers, SYSTOR'12) with the span overwritten
    and the drive's spare flash beside it; 1 on a fresh drive, for sequential writes and for reads."""
    m = drive()
    steady = Job(KIB4, KIB4, 0.0, 32, steady=True)
    assert gc_write_amp(m, steady) == pytest.approx(wa_greedy_limit(op_ratio=0.07))
    assert gc_write_amp(m, replace(steady, span=25e9)) == pytest.approx(wa_greedy_limit(op_ratio=0.28))
    assert gc_write_amp(m, replace(steady, span=1e15)) == gc_write_amp(m, steady)  # no more than the drive
    assert 2.0 < wa_greedy_limit(op_ratio=0.28) < gc_write_amp(m, steady)
    for job in (replace(steady, steady=False), replace(steady, sequential=True), replace(steady, read_fraction=1.0)):
        assert gc_write_amp(m, job) == 1.0 and gc_model(m, job) == m
    assert gc_write_amp(replace(m, capacity=0.0), steady) == 1.0  # capacity unknown: no GC


def test_steady_random_writes_run_at_the_program_rate_over_the_write_amplification():
    """With every program carrying moved data (1 / A of it the host's) and a flash read per moved page, the units
    take A x program_time + (A - 1) x (pages a program writes) x read_flash_time per program's worth of host data."""
    m = drive()
    job = Job(KIB4, KIB4, 0.0, 64, runtime=30, steady=True)
    wa = gc_write_amp(m, job)
    program_bytes = m.program_bytes
    per_program = wa * m.program_time + (wa - 1) * program_bytes / m.page * m.read_flash_time
    expected = m.units * program_bytes / per_program
    steady = fio_job(m, job, 20000)
    assert steady.bandwidth["write"] == pytest.approx(expected, rel=0.03)
    fresh = fio_job(m, replace(job, steady=False, runtime=1.0), 20000)
    assert fresh.bandwidth["write"] > 2 * steady.bandwidth["write"]  # a fresh drive's buffer takes them at first
    assert gc_model(m, job).program_bytes == pytest.approx(program_bytes / wa)  # a program frees 1/A of its bytes


def test_steady_state_starts_with_the_buffer_spent():
    """A fresh drive absorbs a short burst in its write buffer (an SLC cache) faster than the flash programs; on a
    drive in steady state what ran before spent the buffer, so even sequential writes (no GC) run at the program rate
    from the start."""
    m = drive(write_buffer=20e9)
    job = Job(131072, 131072, 0.0, 8, runtime=10, sequential=True)
    fresh = fio_job(m, job, 20000)
    steady = fio_job(m, replace(job, steady=True), 20000)
    assert steady.bandwidth["write"] == pytest.approx(m.program_rate, rel=0.03)
    assert fresh.bandwidth["write"] > 1.5 * steady.bandwidth["write"]


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/data/fio-real is not beside the repository")
def test_pm981_sustained_random_writes_follow_gc_in_steady_state():
    """The PM981's 600 s of 4 KiB random writes over a 64 GiB file (277 GB written: more than the drive holds) ran at
    462 MB/s, its 30 s burst at 554. Its preset (fitted on neither) labels the long run steady (steady_traces): the
    model's GC at the drive's default 7% spare and the file's span brings the long run within 10% of the drive, and
    replayed as fresh it is not."""
    model, cfg = load_profile(ssd_presets()["samsung-pm981-256gb"])
    files = [PM981_SECT6 / "rw_steady.json"]
    assert any(g.endswith("sect6/rw_steady.json") for g in cfg.steady_traces)
    (steady,) = compare(model, load_traces(files, steady=files))
    (fresh,) = compare(model, load_traces(files))
    assert steady["model_job"].steady and steady["model_job"].span == 64 * 2**30
    assert steady["iops_model"] == pytest.approx(steady["iops_measured"], rel=0.10)
    assert abs(fresh["iops_model"] / fresh["iops_measured"] - 1) > 0.20


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/data/fio-real is not beside the repository")
def test_replay_takes_the_drive_state_from_the_command_line():
    """`lsmsim ssd replay PROFILE RESULT --state steady` replays the trace as recorded on a drive in steady state."""
    preset = ssd_presets()["samsung-pm981-256gb"]
    trace = PM981_SECT6 / "rw_steady.json"

    def model_mbs(*extra) -> float:
        cmd = [sys.executable, "-m", "lsmsim.cli", "ssd", "replay", str(preset), str(trace), "--ios", "8000", *extra]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        row = next(line for line in out.splitlines() if "rw_steady" in line).split()
        return float(row[row.index("0%") + 2])  # dir bs qd rd% | MB/s fio, MB/s model

    assert model_mbs("--state", "steady") < 0.85 * model_mbs()
