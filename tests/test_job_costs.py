"""Fixed costs of a flush or compaction whatever its size (cpu.flush_per_job, cpu.merge_per_file,
device.sync_per_job, device.sync_per_file): the simulator charges them as the closed form says, and the LOG fit
(validation/job_costs.py) recovers them from jobs of several sizes."""

import numpy as np
import pytest

from lsmsim.loading import load_config
from lsmsim.sim.kernel import Simulation
from lsmsim.validation.job_costs import fit_job_costs, flush_times


def _run(**extra):
    cpu = {"flush_per_entry": "1us", "merge_per_entry": "1us", **extra.get("cpu", {})}
    device = {"model": "simple", "sync_bandwidth": "200MiB/s", **extra.get("device", {})}
    cfg = load_config(
        {
            "machine": {"preset": "default", "cores": 8, "threads": {"flush": 1, "compaction": 2}, "cpu": cpu},
            "device": device,
            "lsm": {"write_buffer_size": "256KiB"},
            "policy": {"name": "leveled", "max_bytes_for_level_base": "1MiB", "target_file_size_base": "256KiB"},
            "workload": {"num": 40_000, "value_size": "200B", "phases": [{"name": "fill", "operations": 40_000}]},
        }
    )
    return cfg, Simulation(cfg).run()


def test_each_job_pays_its_fixed_cpu_and_syncs_as_the_closed_form_says():
    """A job on an otherwise idle 8-core machine lasts its CPU plus its syncs: bytes / sync_bandwidth + sync_per_job +
    files x sync_per_file; its CPU has flush_per_job (a flush) or merge_per_file per output (a compaction) on top of
    its per-entry, per-byte and per-block parts."""
    fixed = {"cpu": {"flush_per_job": "300us", "merge_per_file": "700us"}}
    fixed["device"] = {"sync_per_job": "1.5ms", "sync_per_file": "0.5ms"}
    cfg, res = _run(**fixed)
    c, j = cfg.machine.cpu, res.compactions
    flush, comp = (j.kind == "flush").to_numpy(), (j.kind == "compaction").to_numpy()
    assert flush.sum() >= 10 and comp.sum() >= 3
    entries, read, written = (j[k].to_numpy().astype(float) for k in ("input_entries", "read_bytes", "write_bytes"))
    files = j.output_files.to_numpy()
    cpu = np.where(
        flush,
        300e-6 + entries * c.flush_per_entry + written * c.flush_per_byte,
        entries * c.merge_per_entry
        + read * c.merge_per_byte
        + (read + written) / cfg.lsm.block_size * c.merge_per_block
        + 700e-6 * files,
    )
    jobs = flush | comp
    assert j.cpu_s.to_numpy()[jobs] == pytest.approx(cpu[jobs], rel=1e-9)
    sync = written / (200 * 2**20) + 1.5e-3 + 0.5e-3 * files
    took = (j.end - j.start).to_numpy()[jobs]
    assert took == pytest.approx(np.maximum(cpu + sync, j.device_s.to_numpy())[jobs], rel=1e-6)
    _, base = _run()
    assert res.summary["sim_time_s"] > base.summary["sim_time_s"]  # with 256 KiB buffers the fill waits for them


def _jobs(rng, n, fixed, per_byte, files_of=None):
    out = []
    for _ in range(n):
        b = float(rng.uniform(64e3, 8e6))
        files = files_of(rng) if files_of else 1
        out.append((b, files, fixed * files + per_byte * b + rng.normal(0, 2e-5)))
    return out


def test_the_fit_recovers_fixed_costs_from_jobs_of_several_sizes():
    rng = np.random.default_rng(3)
    flushes = [
        {"bytes": b, "cpu_s": c, "wall_s": c + 2e-3 + b / 150e6 + rng.normal(0, 2e-5)}
        for b, _, c in _jobs(rng, 80, 1.1e-3, 4e-9)
    ]
    comps = []
    for b, files, c in _jobs(rng, 80, 1.5e-3, 3e-9, lambda r: int(r.integers(1, 9))):
        wait = 1.4e-3 + 0.6e-3 * files + b / 250e6 + rng.normal(0, 2e-5)
        comps.append(
            {"files": files, "input_bytes": 0.0, "bytes": b, "cpu_micros": c * 1e6, "micros": (c + wait) * 1e6}
        )
    fit = fit_job_costs(flushes, comps)
    assert fit["flush_per_job"] == pytest.approx(1.1e-3, rel=0.05)
    assert fit["merge_per_file"] == pytest.approx(1.5e-3, rel=0.05)
    assert fit["sync_per_file"] == pytest.approx(0.6e-3, rel=0.1)
    assert fit["sync_per_job"] == pytest.approx(1.4e-3, rel=0.1)
    assert fit["_flush_fixed_wait"] == pytest.approx(2e-3, rel=0.1)


def test_the_fit_refuses_jobs_of_one_size_and_reads_the_log_lines():
    one = [{"bytes": 1e6, "cpu_s": 1e-3, "wall_s": 2e-3}] * 5
    comps = [{"files": 1, "input_bytes": 1e6, "bytes": 1e6, "cpu_micros": 1e3, "micros": 2e3}] * 5
    with pytest.raises(ValueError, match="span less than 4x"):
        fit_job_costs(one, comps)
    log = (
        "2026/11/29-21:30:01.000 123 [db/flush_job.cc:1045] [default] [JOB 3] Flush lasted 3077 microseconds, "
        "and 1181 cpu microseconds.\nother line\n... [JOB 5] Flush lasted 10 microseconds, and 4 cpu microseconds.\n"
    )
    assert flush_times(log) == [pytest.approx((3077e-6, 1181e-6)), pytest.approx((1e-5, 4e-6))]


def test_calibrate_writes_the_fitted_fixed_costs_into_both_presets(tmp_path):
    """`lsmsim calibrate` on recorded runs plus job-cost runs: the machine preset gets flush_per_job and
    merge_per_file, the host's device preset sync_per_job and sync_per_file, and both load."""
    import json

    import yaml

    from lsmsim.cli import main
    from lsmsim.preset_files import PRESET_ROOT

    rng = np.random.default_rng(5)
    flushes = [{"bytes": b, "cpu_s": c, "wall_s": c + 2e-3 + b / 150e6} for b, _, c in _jobs(rng, 40, 1.1e-3, 4e-9)]
    comps = [
        {"files": f, "input_bytes": b, "bytes": b, "cpu_micros": c * 1e6, "micros": (c + 1.4e-3 + 6e-4 * f) * 1e6}
        for b, f, c in _jobs(rng, 40, 1.5e-3, 3e-9, lambda r: int(r.integers(1, 9)))
    ]
    runs = json.loads((PRESET_ROOT / "machines" / "amd-epyc-2vcpu-24g-calibration.json").read_text())
    runs["job_costs"] = [{"buffer": 65536, "flushes": flushes, "compactions": comps}]
    (tmp_path / "runs.json").write_text(json.dumps(runs))
    out = tmp_path / "preset.yaml"
    assert main(["calibrate", "--measurements", str(tmp_path / "runs.json"), "-o", str(out)]) == 0
    machine, disk = yaml.safe_load(out.read_text()), yaml.safe_load((tmp_path / "preset-device.yaml").read_text())
    from tests.conftest import small_config

    cfg = load_config({**small_config(), "machine": {"preset": "default", **machine}, "device": disk})
    assert cfg.machine.cpu.flush_per_job == pytest.approx(1.1e-3, rel=0.05)
    assert cfg.machine.cpu.merge_per_file == pytest.approx(1.5e-3, rel=0.05)
    assert cfg.device.sync_per_job == pytest.approx(1.4e-3, rel=0.1)
    assert cfg.device.sync_per_file == pytest.approx(6e-4, rel=0.1)
