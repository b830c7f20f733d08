"""`lsmsim tune` (issue 36): the search finds options that beat a stall-prone config on its objective, within the
memory budget and RocksDB's own limits, deterministically; its OPTIONS file reads back as the options chosen;
the objective's arithmetic; the robustness shift; bad input."""

import json
import math

import pandas as pd
import pytest

from lsmsim.cli import main
from lsmsim.formats.options_file import read_options, to_config
from lsmsim.loading import load_config
from lsmsim.tuning import objective
from lsmsim.tuning.search import shifted
from lsmsim.tuning.space import MiB

STALLY = {  # tiny memtables and files, L0 trigger 1, slowdown at 2 L0 files: a fill that stalls
    "name": "tune-stall",
    "workload": {"preset": "fillrandom", "num": "300K", "key_size": "16B", "value_size": "100B"},
    "lsm": {
        "write_buffer_size": "800KB",
        "block_cache_size": "8MiB",
        "level0_slowdown_writes_trigger": 2,
        "level0_stop_writes_trigger": 3,
    },
    "policy": {
        "name": "leveled",
        "level0_file_num_compaction_trigger": 1,
        "target_file_size_base": "800KB",
        "max_bytes_for_level_base": "4MiB",
    },
}


@pytest.fixture(scope="module")
def stall_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("tune")
    path = root / "stally.yaml"
    path.write_text(json.dumps(STALLY))
    runs = []
    for name in ("a", "b"):
        out = root / name
        assert main(["tune", str(path), "--objective", "stall", "--trials", "8", "--seeds", "1", "-j", "1",
                     "-o", str(out), "-q"]) == 0  # fmt: skip
        runs.append(out)
    return path, runs


def test_tuning_for_stalls_removes_the_stalls_it_predicts(stall_run):
    _, (out, _) = stall_run
    s = json.loads((out / "tune.json").read_text())
    given, tuned = s["predicted"]["given"]["stall"]["mean"], s["predicted"]["tuned"]["stall"]["mean"]
    assert given > 0.05 and tuned < given / 2
    assert s["score"] < 0 and s["stall_trigger"]["given"]["first_slowdown"].startswith("2 L0")


def test_every_candidate_keeps_the_budget_and_rocksdbs_limits(stall_run):
    _, (out, _) = stall_run
    df = pd.read_csv(out / "trials.csv")
    budget = json.loads((out / "tune.json").read_text())["memory_budget_bytes"]
    assert budget == 800_000 * 2 + 8 * MiB  # the config's memtables + block cache
    assert (df.write_buffer_size * df.max_write_buffer_number <= budget).all()
    assert (df.max_write_buffer_number >= 2).all() and (df.write_buffer_size >= 1 * MiB).iloc[1:].all()
    assert (df.level0_slowdown_writes_trigger >= df.level0_file_num_compaction_trigger).all()
    assert (df.level0_stop_writes_trigger >= df.level0_slowdown_writes_trigger).all()


def test_the_search_is_deterministic(stall_run):
    _, (a, b) = stall_run
    pd.testing.assert_frame_equal(pd.read_csv(a / "trials.csv"), pd.read_csv(b / "trials.csv"))


def test_the_options_file_reads_back_as_the_choice(stall_run):
    _, (out, _) = stall_run
    chosen = json.loads((out / "tune.json").read_text())["options"]
    data, report = to_config(read_options(out / "OPTIONS"))
    assert not report.unsupported
    cfg = load_config({**data, "workload": STALLY["workload"]})
    assert cfg.lsm.write_buffer_size == chosen["write_buffer_size"]
    assert cfg.lsm.level0_stop_writes_trigger == chosen["level0_stop_writes_trigger"]
    assert cfg.policy.name == {"level": "leveled", "universal": "universal"}[chosen["compaction_style"]]
    assert cfg.policy.level0_file_num_compaction_trigger == chosen["level0_file_num_compaction_trigger"]


def test_score_is_a_weighted_log_ratio():
    base = {"throughput": 1000.0, "p99": 1e-4, "p999": 2e-4, "stall": 0.0, "wamp": 4.0}
    twice = {**base, "throughput": 2000.0, "p99": 2e-4}
    assert objective.score(twice, base, {"throughput": 1}) == pytest.approx(-math.log(2))
    assert objective.score(twice, base, {"throughput": 1, "p99": 0.5}) == pytest.approx(-0.5 * math.log(2))
    assert objective.score({**base, "stall": 0.001}, base, {"stall": 1}) == 0  # below 1 ms counts as 1 ms
    assert objective.parse("throughput:1,p99:0.5") == {"throughput": 1.0, "p99": 0.5}


def test_the_write_share_shifts_with_reads_taking_the_rest():
    cfg = load_config(
        {
            "workload": {
                "num": "10K",
                "phases": [{"name": "m", "operations": "10K", "mix": {"update": 0.5, "get": 0.3, "long_scan": 0.2}}],
            }
        }
    )
    mix = shifted(cfg, 1.2)["workload"]["phases"][0]["mix"]
    assert [mix["update"], mix["get"], mix["long_scan"]] == pytest.approx([0.6, 0.24, 0.16])
    assert shifted(load_config({"workload": {"preset": "fillrandom", "num": "10K"}}), 0.8) is None


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--objective", "speed"], "unknown metric 'speed'"),
        (["--objective", "p99:-1"], "must be positive"),
        (["--trials", "0"], "--trials"),
        (["--set", "policy={name: tiering}"], "leveled and universal"),
    ],
)
def test_bad_input_is_one_line(stall_run, capsys, extra, message):
    path, _ = stall_run
    assert main(["tune", str(path), "-o", "/nonexistent/x", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_mixed_workload_in_two_workers_reports_ranges_and_robustness(tmp_path):
    cfg = {
        **STALLY,
        "workload": {
            "num": "100K",
            "key_size": "16B",
            "value_size": "100B",
            "preload": True,
            "phases": [{"name": "mixed", "operations": "300K", "mix": {"update": 0.99, "get": 0.01}}],
        },
    }
    path = tmp_path / "mixed.yaml"
    path.write_text(json.dumps(cfg))
    args = ["tune", str(path), "--objective", "stall:1,throughput:0.2", "--trials", "4", "--seeds", "2", "-j", "2"]
    assert main([*args, "-o", str(tmp_path / "out"), "-q"]) == 0
    s = json.loads((tmp_path / "out" / "tune.json").read_text())
    for who in ("given", "tuned"):
        lo, hi = s["predicted"][who]["throughput"]["range"]
        seeds = s["predicted"][who]["throughput"]["seed_range"]
        assert lo <= seeds[0] <= s["predicted"][who]["throughput"]["mean"] <= seeds[1] <= hi
    assert s["predicted"]["given"]["stall"]["mean"] > 0.1 and s["best_trial"] >= 0  # the stalls are beaten
    # a mix of metrics is searched for its Pareto front; the choice is on it
    assert s["best_trial"] in s["pareto_front"]
    df = pd.read_csv(tmp_path / "out" / "trials.csv").set_index("trial")
    for n in s["pareto_front"]:  # no other candidate is at least as good on both metrics and better on one
        a = df.loc[n]
        assert not any(
            (o.stall <= a.stall and o.throughput >= a.throughput) and (o.stall < a.stall or o.throughput > a.throughput)
            for i, o in df[df.index >= 0].iterrows() if i != n
        )  # fmt: skip
    # the choice, re-run with the write share moved both ways beside the config as given
    assert [r["write_share_x"] for r in s["robustness"]] == [0.8, 1.2]
    assert all(r["throughput_tuned"] > 0 and r["throughput_given"] > 0 for r in s["robustness"])


def test_throughput_counts_what_db_bench_reports():
    """readwhilewriting: db_bench's ops/sec are its readers' (the BGWriter is background load), so tune's throughput
    is the query clients' alone there; a readrandomwriterandom's clients read and write, and all of them count."""
    from lsmsim.formats.dbbench_args import dbbench_config
    from lsmsim.loading import load_config

    def cfg(line):
        return load_config(dbbench_config(line + " --num=20000 --duration=1")[0])

    assert objective.queries_only(cfg("--benchmarks=fillrandom,readwhilewriting --threads=2"))
    assert not objective.queries_only(cfg("--benchmarks=fillrandom,readrandomwriterandom --readwritepercent=50"))
    assert not objective.queries_only(cfg("--benchmarks=fillrandom"))
    s = {"throughput_ops_per_s": 300.0, "throughput_write_ops_per_s": 200.0, "throughput_get_ops_per_s": 90.0,
         "throughput_get_empty_ops_per_s": 10.0, "stall_stop_s": 0.0, "stall_slowdown_s": 0.0}  # fmt: skip
    assert objective.metrics(s, queries=True)["throughput"] == 100.0
    assert objective.metrics(s)["throughput"] == 300.0


def test_throughput_is_the_phase_db_bench_reports_after_its_fill():
    """A `fillrandom,X` line: db_bench prints X's ops/sec apart from the fill's, and tune scores X's (the last
    measured phase), not the two phases' together; a single phase is the run's."""
    from lsmsim.formats.dbbench_args import dbbench_config
    from lsmsim.loading import load_config
    from lsmsim.sim import simulate

    line = "--benchmarks=fillrandom,readrandomwriterandom --readwritepercent=50 --num=20000 --duration=1"
    cfg = load_config(dbbench_config(line)[0])
    assert objective.scored_phase(cfg) == "readrandomwriterandom"
    s = simulate(cfg).summary
    m = objective.metrics(s, objective.queries_only(cfg), objective.scored_phase(cfg))
    assert m["throughput"] == s["phase_readrandomwriterandom_ops_per_s"] > 0
    assert m["throughput"] != s["throughput_ops_per_s"]  # the fill's writes ran at another rate
    reads = objective.metrics(s, True, "readrandomwriterandom")["throughput"]
    assert reads == pytest.approx(
        sum(s.get(f"phase_readrandomwriterandom_{k}_ops_per_s", 0) for k in ("get", "get_empty"))
    )
    assert objective.scored_phase(load_config(dbbench_config("--benchmarks=fillrandom --num=20000")[0])) is None
    # and tune says so
    from lsmsim.tuning.search import tune

    t = tune(cfg, {"throughput": 1.0}, trials=2, seeds=1, timeout=120)
    assert t.throughput_phase == "readrandomwriterandom"
    assert t.baseline.mean("throughput") == pytest.approx(m["throughput"], rel=0.05)
