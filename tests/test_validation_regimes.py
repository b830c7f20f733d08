"""The matrix's regimes (lsmsim/validation/regimes.py): mixed reads and writes, several writers, stalls, the rate
limiter and WAL syncs, against the db_bench runs recorded with their host and the calibration measured beside them
(benchmarks/validation/hosts/<host>-regimes.json): every judged figure within its budget (issue 34, 5), or a known
gap with its cause. Only lsmsim runs here; recording is `python benchmarks/validation_regimes.py --record`."""

import json
from pathlib import Path

import pytest

import lsmsim
from lsmsim.validation.dbbench import DbBenchRun
from lsmsim.validation.regimes import (
    KNOWN_GAPS,
    REGIMES,
    compare,
    host_name,
    real_figures,
    real_once,
    sim_config,
    sim_figures,
)
from tests.budgets import judge

HOSTS = Path(__file__).resolve().parents[1] / "benchmarks" / "validation" / "hosts"
RECORDS = sorted(HOSTS.glob("*-regimes.json"))


@pytest.fixture(scope="module", params=RECORDS, ids=[host_name(p) for p in RECORDS])
def recorded(request):
    return {**json.loads(request.param.read_text()), "preset_name": host_name(request.param)}


def test_a_host_has_recorded_regimes():
    assert RECORDS, f"no <host>-regimes.json in {HOSTS}: record with benchmarks/validation_regimes.py --record"


@pytest.mark.parametrize("regime", REGIMES, ids=[r.name for r in REGIMES])
def test_regime_within_budget(regime, recorded):
    runs = recorded["runs"].get(regime.name)
    if runs is None:
        pytest.skip(f"{regime.name} not recorded on {recorded['host']['cpu']}")
    assert len(runs) >= 3, "the budgets are judged on the mean of 3 db_bench runs and their spread"
    real, spread = real_figures(runs)
    cfg = sim_config(regime, recorded["machine"], recorded["sync_latency_s"])
    gaps = KNOWN_GAPS[recorded["preset_name"]]
    sim = sim_figures(regime, lsmsim.run(lsmsim.load_config(cfg), progress=False))
    table = compare(regime, real, spread, sim, gaps)
    judge(table, regime.name, gaps, f"lsmsim/validation/regimes.py KNOWN_GAPS[{recorded['preset_name']!r}]")


def test_the_recorded_figures_are_what_db_bench_reported(recorded):
    """A mixed run's per-type ops/s add up to db_bench's ops/sec line, and a fill's W-Amp is the stats table's."""
    mixed = DbBenchRun.from_dict(recorded["runs"]["mixed-2t"][0])
    fig = real_once(recorded["runs"]["mixed-2t"][0])
    bench = next(iter(mixed.ops_per_sec))
    assert fig["ops_per_s_read"] + fig["ops_per_s_write"] == pytest.approx(mixed.ops_per_sec[bench], rel=0.01)
    fill = DbBenchRun.from_dict(recorded["runs"]["writers-2"][0])
    assert fill.w_amp == pytest.approx(fill.levels["Sum"]["W-Amp"], abs=0.051)  # the table prints one decimal
    sync = real_once(recorded["runs"]["wal-sync"][0])
    assert "ops_per_s_write" in sync and "w_amp" not in sync  # 20K synced writes fit in one memtable


def test_a_regime_runs_its_invocations_as_phases():
    """The fill before a mixed run is unmeasured and ends with a flush (db_bench's reopen); its Gets find keys as the
    one simulation's live keys say (the fill's and its own writes'); --sync maps to lsm.wal_sync and the recording's
    sync latency to the device."""
    mixed = next(r for r in REGIMES if r.name == "mixed-2t")
    cfg = sim_config(mixed, {"preset": "default", "cores": 2}, 70e-6)
    fill, run = cfg["workload"]["phases"]
    assert (fill["measure"], fill["flush"], run["measure"]) == (False, True, True)
    assert run["found"] == "live" and run["mix"].get("get", 0) + run["mix"].get("get_empty", 0) == pytest.approx(0.5)
    assert cfg["device"]["sync_latency"] == "70.000us"
    sync = sim_config(next(r for r in REGIMES if r.name == "wal-sync"))
    assert lsmsim.load_config(sync).lsm.wal_sync is True


def test_the_records_ran_the_regimes_as_written(recorded):
    """A regime whose db_bench flags changed since it was recorded must be recorded again."""
    for r in REGIMES:
        for run in recorded["runs"].get(r.name, []):
            assert run["args"] == list(r.invocations[-1]), f"{r.name}: re-record it (validation_regimes.py --record)"
