"""Decision fidelity (lsmsim/validation/fidelity.py, benchmarks/decision_fidelity.py): db_bench's reports parsed,
the option sets mapped onto lsmsim configs, the scores computed right on known tables, and the recorded runs of
this project's hosts scored against lsmsim (issue 34, 6)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import lsmsim
from lsmsim.formats.dbbench_args import dbbench_config
from lsmsim.validation.dbbench import parse_reports
from lsmsim.validation.fidelity import METRICS, OPTION_SETS, WORKLOADS, compare, dbbench_args, sim_config

ROOT = Path(__file__).resolve().parents[1]
HOSTS = ROOT / "benchmarks" / "validation" / "hosts"

READWHILEWRITING = (
    (
        "readwhilewriting :      10.608 micros/op 187762 ops/sec 2.018 seconds 378998 operations;   15.5 MB/s "
        "(140897 of 188999 found)\n"
    )
    + """

Microseconds per read:
Count: 378998 Average: 10.6348  StdDev: 149.07
Min: 1  Median: 4.4782  Max: 12028
Percentiles: P50: 4.48 P75: 6.63 P99: 13.94 P99.9: 3224.24 P99.99: 4341.38
------------------------------------------------------
[       0,       1 ]    35384   9.336%   9.336% ##
"""
)


def test_db_bench_reports_parse_with_their_histograms():
    ops, hists = parse_reports(READWHILEWRITING)
    assert ops == {"readwhilewriting": 187762.0}
    h = hists["readwhilewriting"]["read"]
    assert h["Count"] == 378998 and h["P99"] == 13.94 and h["P99.9"] == 3224.24 and h["Average"] == 10.6348
    assert parse_reports("fillrandom   :       4.087 micros/op 244546 ops/sec 4.089 seconds 1000000 operations;") == (
        {"fillrandom": 244546.0},
        {},
    )


def test_every_option_set_maps_onto_a_config():
    """Each option set's flags are ones lsmsim models, except those the note of the benchmark names."""
    assert len(OPTION_SETS) >= 24 and len(WORKLOADS) >= 3
    unmodelled = set()
    for name, _ in OPTION_SETS:
        for w in WORKLOADS:
            _, unsupported = dbbench_config(" ".join(dbbench_args(name, w)))
            unmodelled |= {flag for flag, _ in unsupported}
            cfg = lsmsim.load_config(sim_config(name, w))
            assert [p.measure for p in cfg.workload.phases][-1] is True
            assert sum(p.measure for p in cfg.workload.phases) == 1
    assert unmodelled == {"--min_write_buffer_number_to_merge"}
    heavy = lsmsim.load_config(sim_config("base", "read_heavy"))
    # the Gets find their keys as the one simulation's live keys say: the fill's, the mixed phase's and their own
    assert [p.found for p in heavy.workload.phases] == ["mix", "live", "live"]
    assert heavy.workload.phases[-1].queries.threads == 2


def _table(real: dict[str, list[float]], sim: dict[str, float]) -> tuple[dict, dict]:
    """A recorded file and lsmsim figures for one workload/metric (throughput), the others constant."""
    runs = {}
    sims = {}
    for name, xs in real.items():
        runs[name] = [{w: {m: (x if m == "throughput" else 1.0) for m in METRICS} for w in WORKLOADS} for x in xs]
        sims[name] = {w: {m: (sim[name] if m == "throughput" else 1.0) for m in METRICS} for w in WORKLOADS}
    return {"runs": runs}, sims


def test_the_attainable_rank_correlation():
    """The Spearman-Brown bound: repeats that agree perfectly allow 1, repeats that do not agree allow 0, and the mean
    of more repeats allows more; against a simulated noisy measurement, a noise-free predictor reaches about it."""
    import numpy as np
    from scipy.stats import spearmanr

    from lsmsim.validation.fidelity import attainable

    assert attainable(1.0, 3) == pytest.approx(1.0) and attainable(0.0, 3) == 0.0 and attainable(-0.2, 3) == 0.0
    assert attainable(0.3, 1) == pytest.approx(math.sqrt(0.3))
    assert attainable(0.3, 3) == pytest.approx(math.sqrt(0.9 / 1.6)) and attainable(0.3, 10) > attainable(0.3, 3)
    rng = np.random.default_rng(7)
    truth = rng.normal(size=2000)
    runs = truth[:, None] + rng.normal(scale=1.3, size=(2000, 3))  # one run against another: r = 1 / (1 + 1.69)
    one = float(spearmanr(runs[:, 0], runs[:, 1]).statistic)
    got = float(spearmanr(truth, runs.mean(axis=1)).statistic)
    assert got == pytest.approx(attainable(one, 3), abs=0.03)


def test_scores_on_known_rankings():
    real = {"a": [100, 110], "b": [200, 190], "c": [300, 310], "d": [400, 390]}
    rec, sims = _table(real, {"a": 105, "b": 195, "c": 305, "d": 395})
    s = compare(rec, sims).scores().set_index(["workload", "metric"]).loc[("write", "throughput")]
    assert s["spearman"] == pytest.approx(1.0) and s["median_err"] == pytest.approx(0.0, abs=1e-9)
    assert s["db_bench_best"] == "d" and s["best_agrees"]
    rec, sims = _table(real, {"a": 400, "b": 300, "c": 200, "d": 100})
    s = compare(rec, sims).scores().set_index(["workload", "metric"]).loc[("write", "throughput")]
    assert s["spearman"] == pytest.approx(-1.0) and s["lsmsim_best"] == "a" and not s["best_agrees"]
    errs = sorted([abs(400 - 105) / 105, abs(300 - 195) / 195, abs(200 - 305) / 305, abs(100 - 395) / 395])
    assert s["median_err"] == pytest.approx((errs[1] + errs[2]) / 2)
    # lsmsim's pick is not db_bench's best, but within db_bench's spread of it
    real = {"a": [100, 100], "b": [380, 420], "c": [390, 410], "d": [300, 300]}
    rec, sims = _table(real, {"a": 100, "b": 420, "c": 400, "d": 300})
    s = compare(rec, sims).scores().set_index(["workload", "metric"]).loc[("write", "throughput")]
    assert s["db_bench_best"] in ("b", "c") and s["best_agrees"]
    # metrics without a ranking (no option set stalls): no Spearman, and no error either
    w = compare(rec, sims).scores().set_index(["workload", "metric"]).loc[("write", "stall_s")]
    assert math.isnan(w["spearman"]) and w["median_err"] == 0.0


def _recorded() -> list[Path]:
    return sorted(HOSTS.glob("*-fidelity.json"))


@pytest.mark.parametrize("path", _recorded(), ids=[p.stem for p in _recorded()])
def test_recorded_runs_are_complete(path):
    """Every recorded host has every option set's three workloads at least three times, with its CPU model."""
    data = json.loads(path.read_text())
    assert data["host"]["cpu"] and data["host"]["cores"] >= 1
    assert set(data["runs"]) == {name for name, _ in OPTION_SETS}
    for name, reps in data["runs"].items():
        assert len(reps) >= 3, name
        for rep in reps:
            assert set(rep) == set(WORKLOADS)
            for w in WORKLOADS:
                # W-Amp is undefined (NaN) when nothing flushed: 64 MiB buffers hold the whole 58 MB fill
                assert rep[w]["throughput"] > 0 and not rep[w]["w_amp"] < 1.0, (name, w)


# Goals missed on each recorded host (its preset's name), each with its cause found by experiment (docs/validation.md
# has the tables). The test expects exactly these: a goal reached must leave its host's list, and any other miss fails.
NOISE = (
    "db_bench's own repeats do not agree on this ranking well enough for the goal: the goal is above the attainable "
    "Spearman against their mean (fidelity.attainable), and lsmsim ranks at least as well as one repeat ranks "
    "another. The VM alternates between a fast and a slow state (the same fillrandom ran at 130K-231K ops/s), so "
    "three runs' mean still ranks mostly noise; more repeats, or a host that holds its speed, would tell"
)
# the Xeon host, calibrated 2026-11-28 08:03-08:07 (the block-cache miss at 08:50) and recorded 08:09-08:33
XEON: dict[tuple[str, str, str], str] = {
    ("write", "throughput", "spearman"): NOISE,
    ("write", "p99", "spearman"): NOISE,
    ("write", "p99", "median_err"): "15%: lsmsim's write P99 is the write's CPU spread (machine.cpu_spread), one "
    "lognormal for every set, so 21 of 32 sets tie at 12.9 us where db_bench's spread over 9-16 us",
    ("write", "stall_s", "spearman"): "0.79 against db_bench's own 0.84: one run each of buffer-1m, buffers-4x2 and "
    "no-wal stalled 0.09, 0.09 and 0.02 s in db_bench (a flush late once), which ranks them above the 25 sets that "
    "tie at 0 in both; lsmsim ties them at 0",
    ("write", "w_amp", "spearman"): "0.76 against db_bench's own 0.73: W-Amp at the end of a 500K fill depends on "
    "whether the last compaction finished (the same set measures 1.90 or 2.47 from run to run)",
    ("mixed", "throughput", "spearman"): NOISE,
    ("mixed", "p99", "spearman"): NOISE,
    ("mixed", "p99", "median_err"): "14%: lsmsim's read P99 ties at 20.6-20.9 us for 25 of 32 sets (the CPU "
    "spread, as for write) where db_bench's 21-35 us hold its readers' waits for a core behind the other thread and "
    "the compactions (scheduler slices, not modelled in fluid mode's tails)",
    ("mixed", "w_amp", "spearman"): "0.82 against db_bench's own 0.85: the window holds the jobs the invocation's "
    "process started, so one compaction more or less moves a set's W-Amp; and stall-prone's is 9.7 in lsmsim and "
    "13.1-15.2 in db_bench, where lsmsim's 50/50 throughput is +38% (169K against 122K ops/s; cause not found yet)",
    ("read_heavy", "throughput", "spearman"): NOISE,
    ("read_heavy", "throughput", "median_err"): "+12%: lsmsim's two readers beside the unthrottled writer read "
    "more than db_bench's in 27 of 32 sets (base 132K against 108K/s). Not the Get's walk of the memtable the writer "
    "inserts into, as on the EPYC host (regimes.py _READERS): measured on base at 11:15 (3 rounds, thread CPU), "
    "db_bench's readers spent 7.8-10.7 us per Get beside the writer and 6.9-7.9 in readrandom, lsmsim charges its "
    "readers 7.3-7.5 and 4.7. Not two readers slowing each other either: readrandom from 2 threads against 1 cost "
    "-6% to +28% per Get over 8 rounds. Cause not found",
    ("read_heavy", "p99", "spearman"): "0.56 against db_bench's own 0.48: as for mixed, lsmsim's read P99 ties for "
    "most sets (22.8 us for 14 of 32), and the rate-limited sets' readers wait in lsmsim where the writer stalls",
    ("read_heavy", "p99", "median_err"): "11%: the ties above, 12-25% under db_bench's for most sets",
    ("read_heavy", "w_amp", "spearman"): "0.88 against db_bench's own 0.88, as for write",
}
# the AMD EPYC host, recorded 2026-11-28 01:12-01:35 and calibrated at 02:36 (memtable_cache fitted: 4.76 MiB)
EPYC_DRIFT = (
    "the VM's speed between the recording and the calibration: the recording's base set ran 217K, 238K and 131K "
    "ops/s (write, mixed, read_heavy; the mean of 3) where two runs of it at 02:00 ran 245K, 305K and 167K, and six "
    "quiet ones on 2026-11-28 04:25-05:00 ran 225K, 241-291K and 138-161K; lsmsim on the committed calibration "
    "predicts 227K, 305K and 178K. Every set moves alike (the repeats go round the sets), so the ranking stands and "
    "the median error moves"
)
EPYC_CALIBRATIONS = (
    "and the calibration's own noise: an earlier calibration of this host the same hour (memtable_cache 13.45 MiB, "
    "reads 1.2x faster) ranked write, mixed and read_heavy throughput at 0.60, 0.64 and 0.59 where the committed one "
    "ranks 0.51, 0.54 and 0.46"
)
EPYC: dict[tuple[str, str, str], str] = {
    ("write", "throughput", "spearman"): "0.51 against db_bench's own 0.52 (attainable 0.87, below the goal): "
    "median error 4%, p90 8%, so the ranking is among sets within db_bench's spread of each other, "
    + EPYC_CALIBRATIONS,
    ("write", "p99", "spearman"): NOISE,
    ("write", "p99", "median_err"): "15%: lsmsim's write P99 is one lognormal of the write's CPU (machine.cpu_spread) "
    "for every set, so 21 of 32 sets tie, and " + EPYC_DRIFT,
    (
        "write",
        "w_amp",
        "spearman",
    ): "0.84 against db_bench's own 0.81: as on the Xeon host, a 500K fill's W-Amp depends "
    "on whether the last compaction finished (base measures 2.47, 1.90 and 1.90)",
    ("mixed", "throughput", "spearman"): "0.60 against db_bench's own 0.60 and the attainable 0.90 (0.54 while the "
    "Gets found the keys live at the phase's start): buffer-64m is 3rd of 32 in db_bench and 22nd in lsmsim, and "
    "16 KiB blocks 24th against 5th (lsmsim has fewer index entries help 50/50 reads). Not the memtable's misses "
    "charged to the Gets: db_bench readrandom on a full 64 MiB memtable "
    "(400K entries, no SST) ran 2.66-3.14 us per Get, where lsmsim charges its walk 2.7 us; causes not found yet, "
    + EPYC_CALIBRATIONS,
    ("mixed", "throughput", "median_err"): "+13% (+18% while the Gets found the keys live at the phase's start, 63%, "
    "where db_bench's find 79% over the window): " + EPYC_DRIFT,
    ("mixed", "p99", "spearman"): "0.10 against db_bench's own 0.34: lsmsim's read P99 is mostly the CPU spread "
    "(machine.cpu_spread, one lognormal for every set), so 12 of 32 sets tie at 13.5 us and the ranking is of ties, "
    "as for the Xeon host's write P99",
    ("mixed", "p99", "median_err"): "13%: " + EPYC_DRIFT + "; and the ties above",
    ("mixed", "w_amp", "spearman"): "0.89 against db_bench's own 0.84, as for write; the rate-limited sets' windows "
    "hold only flushes in lsmsim (W-Amp 1.00, db_bench 2.1): cause not found yet",
    ("read_heavy", "throughput", "spearman"): NOISE,
    ("read_heavy", "throughput", "median_err"): "+18%: " + EPYC_DRIFT + "; and regimes.py _READERS",
    ("read_heavy", "p99", "spearman"): NOISE,
    ("read_heavy", "p99", "median_err"): "13%: " + EPYC_DRIFT,
    ("read_heavy", "w_amp", "spearman"): "0.89 against db_bench's own 0.86: as for write, the window's W-Amp "
    "depends on whether a compaction finished in it (buffer-8m: 3.07 in lsmsim, 3.59 in db_bench; 3.63 in lsmsim "
    "before the block cache warmed within a step, an instant's difference in the reads' speed)",
}
# W-Amp rankings more than 0.05 below db_bench's own agreement between its repeats: (host, workload) -> why
WAMP_BELOW_SELF: dict[tuple[str, str], str] = {}
KNOWN_SHORTFALLS: dict[str, dict[tuple[str, str, str], str]] = {
    "intel-xeon-processor-2vcpu-24g": XEON,
    "amd-epyc-2vcpu-24g": EPYC,
}


@pytest.mark.parametrize("path", _recorded(), ids=[p.stem for p in _recorded()])
def test_lsmsim_ranks_the_recorded_option_sets(path):
    """lsmsim on the recorded host's machine preset against its recorded db_bench runs: Spearman's rho and the median
    relative error per workload and metric, judged against the issue's goals (`fidelity.GOALS`), with the known
    shortfalls above."""
    from lsmsim.preset_files import host_preset
    from lsmsim.validation.fidelity import GOALS, missed, sim_metrics

    recorded = json.loads(path.read_text())
    machine = host_preset(recorded["host"])
    assert machine is not None, f"no machine preset calibrated on {recorded['host']['cpu']}"
    known = KNOWN_SHORTFALLS[path.name.removesuffix("-fidelity.json")]
    sims = {name: sim_metrics(name, machine, recorded.get("costs")) for name in recorded["runs"]}
    scores = compare(recorded, sims).scores()
    assert len(scores) == len(WORKLOADS) * len(METRICS)
    got = missed(scores)
    unknown = {k: v for k, v in got.items() if k not in known}
    assert not unknown, f"goals missed that no known shortfall explains: {unknown}\n{scores.to_string()}"
    reached = [k for k in known if k not in got]
    assert not reached, (
        f"goals reached now, remove from KNOWN_SHORTFALLS[{path.name.removesuffix('-fidelity.json')!r}]: {reached}"
    )
    # what NOISE claims holds: the goal is out of reach of any model on this recording, and lsmsim ranks at least as
    # well as one db_bench repeat ranks another
    for key in (k for k, why in known.items() if why is NOISE):
        r = scores.set_index(["workload", "metric"]).loc[key[:2]]
        assert r["attainable"] < GOALS[key[1]] and r["spearman"] >= r["db_bench_self"], (key, r.to_dict())
    # lsmsim ranks W-Amp at least as well as db_bench ranks itself between its own repeats, but where known not to
    host = path.name.removesuffix("-fidelity.json")
    w = scores[scores["metric"] == "w_amp"].set_index("workload")
    below = w["spearman"] < w["db_bench_self"] - 0.05
    assert set(w.index[below]) == {wl for h, wl in WAMP_BELOW_SELF if h == host}, w.to_string()


@pytest.mark.parametrize("path", _recorded(), ids=[p.stem for p in _recorded()])
def test_a_recording_is_judged_on_the_calibration_beside_it(path):
    """A recording that keeps the calibration measured just before it is judged on the costs fitted from that
    calibration (regimes.recorded_costs, without db_bench), which then match the host's preset of that day."""
    from lsmsim.validation.regimes import recorded_costs

    recorded = json.loads(path.read_text())
    if "calibration" not in recorded:
        pytest.skip(f"{path.name} keeps no calibration: judged on the host's preset")
    assert recorded["costs"] == json.loads(json.dumps(recorded_costs(recorded["calibration"])))
    assert recorded["calibration"]["host"]["cpu"] == recorded["host"]["cpu"]
    assert recorded["calibration"]["host"]["date"] == recorded["host"]["date"]
