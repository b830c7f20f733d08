"""Headroom (lsmsim/headroom.py, `lsmsim headroom`): when writes first stall and why, the highest stall-free write
rate by bisection, peak physical space and SSD wear."""

import math
import subprocess
import sys

import pandas as pd
import pytest
import yaml

import lsmsim
from lsmsim.headroom import headroom
from tests.conftest import small_config

# a slow device and L0 triggers close together: the closed-loop writer outruns the compactions
TIGHT = small_config(
    device={"read_bandwidth": "20MB/s", "write_bandwidth": "20MB/s"},
    lsm={
        "write_buffer_size": "128KiB",
        "level0_slowdown_writes_trigger": 5,
        "level0_stop_writes_trigger": 8,
        "wal": False,
    },
    phases=[{"name": "load", "operations": 40_000, "mix": {"insert": 1.0}}],
)


def test_the_first_stalls_are_timed_and_explained():
    s = lsmsim.run(TIGHT).summary
    assert s["stall_slowdown_s"] > 0 and s["first_slowdown_s"] > 0
    assert "L0 runs >= level0_slowdown_writes_trigger 5" in s["first_slowdown_cause"]
    # the writer fills both memtables before the first flush ends: a stop comes first
    assert s["stall_stop_s"] > 0 and s["first_stop_s"] < s["first_slowdown_s"]
    assert s["first_stop_cause"] == "memtables: 2 full (max_write_buffer_number)"
    ts = lsmsim.run(TIGHT).timeseries
    assert ts.time[ts.stall != "none"].min() >= s["first_stop_s"]  # the samples see it no earlier
    calm = lsmsim.run(small_config()).summary
    assert calm["stall_slowdown_s"] == 0 and math.isnan(calm["first_slowdown_s"]) and calm["first_slowdown_cause"] == ""


def test_bisection_brackets_the_highest_stall_free_rate():
    h = headroom(TIGHT, searches=6)
    assert h.write_phases == ["load"] and h.client_rate > 0
    free, stalls = h.max_stall_free_rate, h.lowest_stalling_rate
    assert 0 < free < stalls <= h.client_rate
    assert stalls - free <= h.client_rate / 2**5 * 1.0001  # six runs halve the bracket five times
    assert len(h.rate_runs) == 6
    # the bracket holds when run again at its ends (deterministic runs)
    at = lambda r: lsmsim.run(TIGHT, [f"workload.phases.0.writers={{mode: rate, rate: {r}}}"]).summary  # noqa: E731
    assert at(free)["stall_slowdown_s"] + at(free)["stall_stop_s"] == 0
    assert at(stalls)["stall_slowdown_s"] + at(stalls)["stall_stop_s"] > 0
    t = h.table()
    assert t.value[t.figure == "peak physical space (GB)"].iloc[0] == pytest.approx(
        h.summary["physical_bytes_peak"] / 1e9
    )


def test_above_the_clients_rate_the_search_doubles_then_bisects():
    """small_config never stalls at its one writer's rate: the search doubles the rate (from a writer per core)
    until a rate fails, here because the machine cannot write that fast, then bisects; the failure is named."""
    h = headroom(small_config(), searches=6)
    rates = list(h.rate_runs)
    assert rates[0] == h.client_rate and not h.rate_runs[rates[0]] and rates[1] == 2 * h.client_rate
    assert h.client_rate <= h.max_stall_free_rate < h.lowest_stalling_rate <= 2 * h.client_rate
    assert h.failures[h.lowest_stalling_rate] in ("stalls", "cannot be written that fast")
    assert h.failures[h.lowest_stalling_rate] in h.table().note[2]


def test_ssd_wear_and_the_cli(tmp_path):
    cfg = small_config(
        device={"model": "ssd", "preset": "samsung-pm9a3-960gb", "capacity": "64MiB", "ftl": {"erase_unit": "1MiB"}}
    )
    f = tmp_path / "c.yaml"
    f.write_text(yaml.safe_dump(cfg))
    r = subprocess.run(
        [sys.executable, "-m", "lsmsim.cli", "headroom", str(f), "-o", str(tmp_path / "h"), "--searches", "3"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "first slowdown" in r.stdout and "erases per TB ingested" in r.stdout
    t = pd.read_csv(tmp_path / "h" / "headroom.csv")
    assert t.value[t.figure == "flash TB written per TB ingested"].iloc[0] >= 1.0
    assert (tmp_path / "h" / "headroom.png").stat().st_size > 5000
