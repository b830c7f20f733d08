"""Runs that changed state: fio's `steadystate` option records the IOPS of a job's last seconds; a run whose IOPS lie
further from them than the replay's IOPS goal mixed two states of the drive (the Sabrent's random reads fall from 91K
to 33K IOPS at depth 8 within 20 s; its random writes at depth 16-64 spend their SLC cache and recover it). Such a run
is neither fitted nor judged, and the replay says so."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from lsmsim.ssd.calibrate import changed_state, compare, fit, observations
from lsmsim.ssd.fio import FioParseError, load_result
from lsmsim.ssd.goals import judge
from lsmsim.ssd.report import comparison, summary
from lsmsim.ssd.timing import DriveModel
from tests.test_ssd_timing import JOBS, _synthetic, quiet

TRACES = Path(__file__).resolve().parents[1] / "experiments" / "ssd" / "fio" / "traces"
REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "fio-real"
SABRENT = REAL / "SamYaple__fio-plot-results/benchmarks/4096_sector/1x"


def _with_window(tmp_path, iops_mean):
    """A recorded trace with a steadystate block whose window ran at `iops_mean` (None: no block)."""
    data = json.loads((TRACES / "randread-4k-qd8.json").read_text())
    if iops_mean is not None:
        data["jobs"][0]["steadystate"] = {
            "ss": "iops:10%",
            "duration": 10,
            "attained": 1,
            "data": {"iops_mean": iops_mean},
        }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    return load_result(path)[0]


def test_the_window_is_read_and_the_change_is_relative_to_it(tmp_path):
    plain = _with_window(tmp_path, None)
    assert plain.window_iops is None and plain.state_change is None
    slowed = _with_window(tmp_path, plain.iops / 1.4)
    assert slowed.state_change == pytest.approx(0.4)
    assert _with_window(tmp_path, plain.iops).state_change == pytest.approx(0.0)


def test_a_malformed_window_names_the_file(tmp_path):
    data = json.loads((TRACES / "randread-4k-qd8.json").read_text())
    data["jobs"][0]["steadystate"] = {"ss": "iops:10%", "data": {"iops_mean": "fast"}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FioParseError, match="iops_mean") as err:
        load_result(path)
    assert str(path) in str(err.value)


def test_a_changed_run_is_neither_fitted_nor_judged(tmp_path):
    """Its observation is marked, the fit finds the same model with or without it, the replay shows 'state'."""
    truth = quiet(units=16, read_flash_time=60e-6, read_overhead=12e-6)
    traces = _synthetic(truth, JOBS)
    run = _with_window(tmp_path, None)
    changed = replace(run, window_iops=run.iops / 3.0)  # its last seconds at a third of its IOPS
    assert changed_state(changed) and not changed_state(run) and not changed_state(traces[0])  # no window: none
    assert [o.changed for o in observations([changed])] == [True]
    assert not any(o.changed for o in observations(traces))
    with_it, without = fit([*traces, changed], units=(16,)), fit(traces, units=(16,))
    assert with_it.model == without.model
    rows = compare(DriveModel(units=16), [changed, *traces])
    assert rows[0]["limit"] == "state" and judge(rows[0]) is None
    table = comparison(rows)
    assert table.splitlines()[1].rstrip().endswith("state")
    assert "1 from runs that changed state (not judged)" in summary(rows)


@pytest.mark.skipif(not SABRENT.is_dir(), reason=f"no real-drive fio traces at {SABRENT}")
def test_the_sabrents_reads_at_depth_changed_state_and_its_mixes_did_not():
    """fio's own per-second window: reads at depth 8 ran at 47.7K IOPS on average but 33.5K at the end; the 50/50
    mixes held within 1% of their end."""
    (reads,) = load_result(SABRENT / "4k/randread-8-1.json")
    assert reads.state_change == pytest.approx(47716 / 33501 - 1, rel=1e-3)
    for q in (1, 8, 64):
        (mix,) = load_result(SABRENT / f"randrw50/4k/randrw-{q}-1.json")
        assert abs(mix.state_change) < 0.01
