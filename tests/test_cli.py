import json
import os
import re
import subprocess
import sys

import pandas as pd
import yaml

from tests.conftest import small_config


def lsmsim(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "lsmsim.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_help_and_version():
    r = lsmsim("--help")
    assert r.returncode == 0 and "run" in r.stdout
    r = lsmsim("run", "--help")
    assert r.returncode == 0 and "--set" in r.stdout and "--out" in r.stdout
    r = lsmsim("--version")
    assert r.returncode == 0 and r.stdout.startswith("lsmsim ")
    for cmd in ("import", "export"):
        r = lsmsim(cmd, "--help")
        assert r.returncode == 0 and "OPTIONS" in r.stdout and "--out" in r.stdout


def test_run_writes_results(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(small_config()))
    out = tmp_path / "out"
    r = lsmsim("run", str(cfg), "-o", str(out), "--set", "lsm.write_buffer_size=512KiB")
    assert r.returncode == 0, r.stderr
    assert "write-amp" in r.stdout and "throughput" in r.stdout

    def no_nan(c):
        raise AssertionError(f"{c} is not JSON")  # Python writes NaN unless told not to; other parsers refuse it

    summary = json.loads((out / "summary.json").read_text(), parse_constant=no_nan)
    assert summary["write_amp"] > 1 and summary["delete_persistence_mean_s"] is None  # no deletes: null, not NaN
    ts = pd.read_parquet(out / "timeseries.parquet")
    assert len(ts) > 1 and "runs_L0" in ts
    assert (
        len(pd.read_parquet(out / "compactions.parquet"))
        == summary["flushes"] + summary["compactions"] + summary["trivial_moves"]
    )
    saved = yaml.safe_load((out / "config.yaml").read_text())
    assert saved["lsm"]["write_buffer_size"] == 512 * 1024  # the resolved config, override applied
    assert json.loads((out / "provenance.json").read_text())["seed"] == 7
    assert (out / "tree.png").stat().st_size > 1000
    assert not list(out.glob(".*.tmp"))  # atomic writes leave no temporaries


def test_bad_config_exits_2_without_traceback(tmp_path):
    cfg = tmp_path / "c.yaml"
    data = small_config()
    data["lsm"]["write_buffer_size"] = "huge"
    data["policy"]["nonsense"] = 1
    cfg.write_text(yaml.safe_dump(data))
    r = lsmsim("run", str(cfg))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "lsm.write_buffer_size" in r.stderr and "policy.nonsense" in r.stderr
    assert str(cfg) in r.stderr
    r = lsmsim("run", str(tmp_path / "missing.yaml"))
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr
    r = lsmsim("run", str(cfg), "--set", "garbage")
    assert r.returncode == 2 and "PATH=VALUE" in r.stderr


def test_json_output(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(small_config()))
    r = lsmsim("run", str(cfg), "--json", "-q")
    assert r.returncode == 0
    assert json.loads(r.stdout, parse_constant=lambda c: None)["flushes"] > 0 and "NaN" not in r.stdout


import pytest  # noqa: E402


@pytest.mark.parametrize(
    "override,path",
    [
        ("workload.phases.0.keys.theta=11", "workload.phases[0].keys.theta"),
        ("seed=-1", "seed"),
        ("machine.io_priority=[flush]", "machine"),
        ("workload.num=1e30", "workload.num"),
        (
            "workload.phases.0.queries={mode: open, arrival_rate: 1000, arrival: bursty, burst_factor: 10}",
            "workload.phases[0].queries",
        ),
        ("policy={num_levels: 3}", "policy"),
        # not finite, or beyond what any quantity can be (units.LIMIT), as a number or a unit string
        ("lsm.write_buffer_size=1e400", "lsm.write_buffer_size"),
        ("lsm.bloom_bits_per_key=.inf", "lsm.bloom_bits_per_key"),
        ("lsm.bloom_bits_per_key=.nan", "lsm.bloom_bits_per_key"),
        ("workload.phases.0.mix.insert=.inf", "workload.phases[0].mix.insert"),
        ("sim.max_time=1e400s", "sim.max_time"),
        ("device.write_bandwidth=1e400MB/s", "device.write_bandwidth"),
        # input that is not a value at all
        ("seed=[1, 2", "seed"),
        ("seed=" + "[" * 5000 + "]" * 5000, "seed"),
    ],
)
def test_bad_values_exit_2_naming_the_path(tmp_path, override, path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(small_config()))
    r = lsmsim("run", str(cfg), "--set", override)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and path in r.stderr, r.stderr


def test_unreadable_inputs_exit_2(tmp_path):
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    r = lsmsim("run", str(binary))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "UTF-8" in r.stderr
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(small_config()))
    afile = tmp_path / "afile"
    afile.write_text("x")
    r = lsmsim("run", str(cfg), "-o", str(afile / "sub"))
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_files_that_are_not_configs_exit_2(tmp_path):
    import os

    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # reading it would block forever
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    for path, what in ((fifo, "not a regular file"), (deep, "nested too deeply"), (tmp_path, "not a regular file")):
        r = lsmsim("run", str(path))
        assert r.returncode == 2 and "Traceback" not in r.stderr and what in r.stderr, r.stderr


def test_an_internal_error_is_one_line_and_a_report(tmp_path, monkeypatch, capsys):
    """A bug of ours (here: a command that raises) never shows a traceback: one line naming the error and the
    file that holds the traceback, exit 1."""
    from lsmsim import cli

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR

    def boom(args):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cli, "_cmd_config", boom)
    assert cli.main(["config"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: RuntimeError: kaboom" in err and "Traceback" not in err
    (report,) = tmp_path.glob("lsmsim-crash-*.txt")
    assert str(report) in err and "Traceback" in report.read_text() and "kaboom" in report.read_text()


def test_load_config_leaves_the_callers_dict_alone():
    from lsmsim import load_config

    base = small_config()
    load_config(base, ["lsm.wal=false"])
    assert base["lsm"]["wal"] is True


def test_ssd_calibrate_and_replay(tmp_path):
    from pathlib import Path

    fio = Path(__file__).parent.parent / "experiments" / "ssd" / "fio"
    traces = sorted(str(p) for p in (fio / "traces").glob("*.json"))
    prof = tmp_path / "dev.yaml"
    # the host-cached virtio disk takes writes faster than any drive can: refused, naming the write rate the fit
    # pushed to its upper bound (the command rate or the program rate: which one depends on the optimiser's path,
    # and scipy releases have moved it from one to the other)
    r = lsmsim("ssd", "calibrate", *traces, "-o", str(prof), "--units", "8", "--holdout", "none")
    assert r.returncode == 2 and "at its bound" in r.stderr, r.stderr
    assert re.search(r"write_(iops|bandwidth) = \S+ at its bound", r.stderr), r.stderr
    assert "Traceback" not in r.stderr and not prof.exists()
    # a read-only set fits: the write side keeps its defaults, and the profile loads and replays
    reads = [t for t in traces if "randread" in t]
    r = lsmsim(
        "ssd", "calibrate", *reads, "-o", str(prof), "--units", "8", "--fix", "read_sigma=0.1", "program_first=1",
        "--start", "read_flash_time=50e-6", "--robust", "--goal-polish", "--steady", os.path.relpath(reads[0]),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    polished = re.search(r"goal polish: (\d+) -> (\d+) directions meet every goal on the fitted jobs, summed", r.stdout)
    assert polished and int(polished[2]) >= int(polished[1]), r.stdout  # never below the fit it starts from
    assert "fitted (" in r.stdout and "goal" in r.stdout  # which parameters the traces constrained
    assert "default (no trace constrains it)" in r.stdout and "fixed (--fix)" in r.stdout
    # judged on what it never saw: of the reads at queue depths 1, 8 and 32, depth 8 is held out of the fit
    assert "fitting 2 of 3 fio jobs (held out to judge the fit: 1, by queue depth 1)" in r.stderr, r.stderr
    fitted, held = r.stdout.split("held out, never fitted (1 jobs, by queue depth 1):")
    assert "randread-4k-qd8" in held and "randread-4k-qd8" not in fitted and "randread-4k-qd32" in fitted
    data = yaml.safe_load(prof.read_text())
    assert data["model"] == "ssd" and data["read"]["flash_time"] and data["read"]["sigma"] == 0.1
    assert data["program_first"] is True  # a switch held with --fix
    assert data["write"]["bandwidth"] == "1000MB/s"  # the documented default
    r = lsmsim("ssd", "replay", str(prof), str(fio / "randrw70-4k-qd32.fio"))
    assert r.returncode == 0, r.stderr
    assert "randrw70-4k-qd32" in r.stdout and "err%" in r.stdout and r.stdout.count("\n") >= 3
    # the profile works as a config's device section
    from lsmsim import load_config

    cfg = load_config({"device": data, "workload": {"preset": "fillrandom"}})
    assert cfg.device.read.flash_time > 0
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = lsmsim("ssd", "calibrate", str(bad), "-o", str(tmp_path / "x.yaml"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "bad.json" in r.stderr
    r = lsmsim("ssd", "calibrate", *reads, "-o", str(tmp_path / "x.yaml"), "--fix", "program_first=on")
    assert r.returncode == 2 and "program_first=on" in r.stderr and "1 or 0" in r.stderr, r.stderr
    r = lsmsim("ssd", "calibrate", *reads, "-o", str(tmp_path / "x.yaml"), "--start", "flash=1")
    assert r.returncode == 2 and "--start flash" in r.stderr and "read_flash_time" in r.stderr, r.stderr
    r = lsmsim("ssd", "calibrate", *reads, "-o", str(tmp_path / "x.yaml"), "--steady", str(bad))
    assert r.returncode == 2 and "--steady" in r.stderr and "bad.json" in r.stderr and "not among" in r.stderr
    r = lsmsim("ssd", "calibrate", *reads, "-o", str(tmp_path / "x.yaml"), "--starts", "0")
    assert r.returncode == 2 and "--starts" in r.stderr and "at least 1" in r.stderr and "Traceback" not in r.stderr


def test_setup_warms_every_policy_kernel():
    """scripts/warm_numba.py (run by scripts/setup.sh) reaches every registered policy with its tiny config: a new
    policy whose options it cannot satisfy would silently stay cold, so it must report none."""
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "scripts/warm_numba.py"
    out = subprocess.run([sys.executable, str(script), "-v"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "not warmed" not in out.stderr, out.stderr
    from lsmsim.policies.registry import names

    assert all(f"policy {n}" in out.stdout for n in names())


def test_a_run_that_writes_nothing_imports_neither_pandas_nor_matplotlib(tmp_path):
    """Start-up (issue 15): pandas (~0.5 s) and matplotlib are imported only by what needs them; `lsmsim run -q`
    without -o prints the summary from the run's rows."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(small_config()))
    code = (
        "import sys; from lsmsim.cli import main; rc = main(['run', sys.argv[1], '-q']); "
        "print(sorted(m for m in ('pandas', 'matplotlib', 'pyarrow') if m in sys.modules)); sys.exit(rc)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(cfg)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "latency        mean" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_ctrl_c_while_the_command_starts_is_one_line_and_130():
    """A Ctrl-C that lands while `lsmsim` imports its own modules (before `main` runs; simulated by an import hook
    raising KeyboardInterrupt at lsmsim.errors) ends with one line and exit 130, as one inside `main` does."""
    code = (
        "import sys\n"
        "class Hook:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'lsmsim.errors':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Hook())\n"
        "from lsmsim.cli import main\n"
        "sys.exit(main())\n"
    )
    r = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 130, r.stderr
    assert r.stderr.strip() == "lsmsim: interrupted"


def test_the_summary_prints_a_line_per_phase():
    """Issue 37, finding 3: fillrandom then readrandom printed one ops/s for writes and gets (over both phases'
    time); each phase now has its own line at its own rate, as db_bench prints one per benchmark."""
    r = lsmsim("run", "--dbbench", "--benchmarks=fillrandom,readrandom --num=50000 --compression_type=none", "-q")
    assert r.returncode == 0, r.stderr
    lines = {ln.split()[0]: ln.split() for ln in r.stdout.splitlines() if ln.startswith("  ")}
    fill, read = float(lines["fillrandom"][1].replace(",", "")), float(lines["readrandom"][1].replace(",", ""))
    assert float(lines["fillrandom"][2]) == pytest.approx(1e6 / fill, rel=1e-3)  # us/op
    assert read > 1.5 * fill and "get" in lines["readrandom"]  # reads of an in-memory store outrun the fill
