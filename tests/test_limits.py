"""A run ends at the device's capacity or the OS's open-file limit as Spooky's runs crashed (lsmsim/sim/limits.py),
with an event row and the summary saying so; physical and transient space over time (Spooky Eq. 1)."""

import json

import pandas as pd
import pytest

import lsmsim
from lsmsim.sim import limits
from tests.conftest import small_config

INSERTS = [{"operations": 400_000, "mix": {"insert": 1.0}}]  # 400K x ~124 B: ~50 MB of unique keys


def _run(*sets, **kw):
    return lsmsim.run(small_config(phases=INSERTS, **kw), ["workload.num=400000", *sets])


def test_simple_device_full_ends_the_run_with_an_event():
    res = _run(device={"model": "simple", "capacity": "12MiB"})
    s, ev, ts = res.summary, res.events, res.timeseries
    assert s["ended_by"] == limits.DISK_FULL and s["completed"] is False
    assert len(ev) == 1 and ev.event[0] == limits.DISK_FULL and "device.capacity" in ev.message[0]
    assert ev.time[0] == pytest.approx(s["sim_time_s"])
    # it ended at the first step over the capacity: over it at the event, at or under it at every sample before
    cap = 12 * 2**20
    assert ev.capacity_bytes[0] == cap and ev.physical_bytes[0] > cap
    assert (ts.physical_bytes.iloc[:-1] <= cap).all()
    levels = json.loads(ev.levels[0])
    in_flight = sum(j["progress"] * j["output_bytes"] for j in json.loads(ev.running_jobs[0]))
    assert sum(lv["bytes"] for lv in levels) == pytest.approx(ev.physical_bytes[0] - in_flight - ev.obsolete_bytes[0])
    assert s["user_bytes"] < 400_000 * (16 + 100)  # stopped before the workload's end


def test_ssd_device_full_is_an_event_not_an_error():
    """The SSD model's allocator (files, WAL pages, outputs in flight) runs out first: the same ending."""
    res = _run(
        device={"model": "ssd", "preset": "samsung-pm9a3-960gb", "capacity": "24MiB", "ftl": {"erase_unit": "1MiB"}}
    )
    s, ev = res.summary, res.events
    assert s["ended_by"] == limits.DISK_FULL and not s["completed"]
    assert len(ev) == 1 and "device full" in ev.message[0] and ev.physical_bytes[0] > 0.5 * 24 * 2**20


def test_open_files_limit_ends_the_run():
    """Small files make many: the run ends at the first step with more open files than the limit (tables of the
    tree, outputs in flight, one WAL per memtable), as Spooky's X = L-4 run crashed at 1024."""
    policy = {"name": "leveled", "max_bytes_for_level_base": "1MiB", "target_file_size_base": "64KiB"}
    res = lsmsim.run(
        small_config(policy=policy, phases=INSERTS), ["workload.num=400000", "machine.open_files_limit=40"]
    )
    s, ev, ts = res.summary, res.events, res.timeseries
    assert s["ended_by"] == limits.OPEN_FILES and not s["completed"]
    assert ev.open_files[0] > 40 and ev.open_files_limit[0] == 40
    assert (ts.open_files.iloc[:-1] <= 40).all()
    levels = json.loads(ev.levels[0])
    running = json.loads(ev.running_jobs[0])
    tables = sum(lv["files"] for lv in levels)
    assert tables <= ev.open_files[0] <= tables + sum(j["output_files"] for j in running) + 1 + 2
    # without the limit the same run finishes, with more files than the limit at some point
    full = lsmsim.run(small_config(policy=policy, phases=INSERTS), ["workload.num=400000"])
    assert full.summary["ended_by"] == "phases" and full.summary["completed"] and len(full.events) == 0
    assert full.timeseries.open_files.max() > 40


def test_physical_and_transient_space():
    """physical = tree + transient at every sample, transient = outputs in flight + files running jobs still hold;
    Eq. 1's parts over time add up; the transient peak bounds every sampled transient part."""
    res = _run("sim.sample_interval=0.05")
    s, ts = res.summary, res.timeseries
    assert s["ended_by"] == "phases" and len(ts) > 50
    assert (ts.physical_bytes == ts.space_bytes + ts.transient_bytes).all() and (ts.transient_bytes >= 0).all()
    assert (ts.transient_bytes >= ts.obsolete_bytes).all() and (ts.obsolete_bytes >= 0).all()
    assert ts.transient_bytes.max() > 0  # some sample caught a compaction mid-way
    t = ts[ts.logical_bytes > 0]
    assert t.space_amp.to_numpy() == pytest.approx((1 + t.space_amp_durable + t.space_amp_transient).to_numpy())
    assert t.space_amp_transient.max() <= s["space_amp_transient_peak"] + 1e-12
    assert s["space_amp_durable"] == pytest.approx(s["space_amp"] - 1)


@pytest.mark.parametrize(
    "mix, eps",
    [({"insert": 1.0}, 1), ({"update": 0.6, "delete": 0.4}, 1), ({"update": 0.6, "delete": 0.4}, 4)],
)
def test_live_keys_track_the_logical_size(mix, eps):
    """The bitmap of live keys (lsm/live.py) gives, at the end, exactly the logical size the recorder computes by
    merging every sample (newest versions, tombstones dropped), with deletes and with sampling; in between it
    moves with the writes."""
    phases = [{"operations": 60_000, "mix": {"insert": 1.0}}, {"operations": 60_000, "mix": mix}]
    res = lsmsim.run(small_config(phases=phases), [f"lsm.entries_per_sample={eps}", "sim.sample_interval=0.02"])
    s, ts = res.summary, res.timeseries
    assert ts.logical_bytes.iloc[-1] == s["logical_bytes"] > 0
    if "delete" in mix:  # deletes of live keys shrink it
        assert ts.logical_bytes.iloc[-1] < ts.logical_bytes.max()


def test_events_table_is_saved(tmp_path):
    res = _run(device={"model": "simple", "capacity": "12MiB"})
    res.save(tmp_path)
    ev = pd.read_parquet(tmp_path / "events.parquet")
    assert list(ev.event) == [limits.DISK_FULL]
    assert json.loads((tmp_path / "summary.json").read_text())["ended_by"] == limits.DISK_FULL


def test_open_files_limit_is_validated():
    from lsmsim.errors import ConfigError

    with pytest.raises(ConfigError) as e:
        lsmsim.run(small_config(), ["machine.open_files_limit=3"])
    assert any(p == "machine.open_files_limit" for p, _ in e.value.errors)
