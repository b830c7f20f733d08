"""`lsmsim check`, `lsmsim compare`, the table `lsmsim sweep` ends with, and a sweep plot of sized parameters
(issue 37: the newcomer's findings 5 and the two commands)."""

import json
import subprocess
import sys

import pytest
import yaml

import lsmsim


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "lsmsim.cli", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)  # fmt: skip


SMALL = {"name": "small", "workload": {"preset": "fillrandom", "num": "20K"}, "lsm": {"write_buffer_size": "256KiB"}}


def test_check_prints_what_will_run_without_running(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(SMALL))
    r = cli("check", str(path))
    assert r.returncode == 0, r.stderr
    assert "policy    leveled" in r.stdout and "20,000 of 116 B" in r.stdout and "fillrandom" in r.stdout
    at_least = float(r.stdout.split("estimate  at least ")[1].split()[0])
    ran = lsmsim.run(SMALL).summary["sim_time_s"]
    assert 0 < at_least <= ran  # a lower bound on the simulated time
    assert not list(tmp_path.glob("results*"))
    r = cli("check", str(path), "--set", "lsm.write_bufer_size=1MiB")
    assert r.returncode == 2 and "did you mean write_buffer_size" in r.stderr


def test_compare_puts_runs_side_by_side_with_ratios(tmp_path):
    for name, pol in (("lvl", "leveled"), ("tier", "tiering")):
        assert cli("run", "-q", "-o", str(tmp_path / name), "--set", f"policy.name={pol}",
                   *[a for k, v in (("workload.num", "30K"),) for a in ("--set", f"{k}={v}")],
                   str(_write(tmp_path, SMALL))).returncode == 0  # fmt: skip
    r = cli("compare", str(tmp_path / "lvl"), str(tmp_path / "tier"))
    assert r.returncode == 0, r.stderr
    lines = {ln.split("  ")[0].strip(): ln for ln in r.stdout.splitlines()}
    lvl = json.loads((tmp_path / "lvl" / "summary.json").read_text())
    tier = json.loads((tmp_path / "tier" / "summary.json").read_text())
    assert f"(x{tier['write_amp'] / lvl['write_amp']:.2f})" in lines["write-amp"]
    r = cli("compare", str(tmp_path / "lvl"), str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "no summary" in r.stderr and "Traceback" not in r.stderr


def _write(tmp_path, data):
    p = tmp_path / "base.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.fixture(scope="module")
def sized_sweep(tmp_path_factory):
    root = tmp_path_factory.mktemp("sweep")
    spec = {**SMALL, "sweep": {"grid": {"lsm.write_buffer_size": ["4MiB", "256KiB", "16MiB"]}}}
    path = root / "s.yaml"
    path.write_text(yaml.safe_dump(spec))
    r = cli("sweep", str(path), "--out", str(root / "out"), "-j", "1", "-q")
    assert r.returncode == 0, r.stderr
    return root / "out", r.stdout


def test_sweep_ends_with_a_table_of_its_points(sized_sweep):
    out, stdout = sized_sweep
    table = stdout.split("results.parquet\n", 1)[1]
    assert "lsm.write_buffer_size" in table and "write-amp" in table and "x first" in table
    assert len([ln for ln in table.splitlines() if "MiB" in ln or "KiB" in ln]) == 3


def test_sweep_plot_orders_sizes_by_value(sized_sweep):
    """Finding 5: 16MiB was drawn left of 4MiB (the sizes sorted as strings)."""
    fig = lsmsim.load_results(sized_sweep[0]).plot("lsm.write_buffer_size", "write_amp", hue=None)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["256KiB", "4MiB", "16MiB"]
    assert list(ax.get_lines()[0].get_xdata()) == [256 * 1024, 4 * 2**20, 16 * 2**20]
