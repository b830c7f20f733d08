"""Static trees (`lsm.initial_tree`, `policy: static`) and the read path EcoTune §4.1 measures on them: Gets of
last-level keys, Seeks and short scans through a range filter (Fig. 3, Table 3)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import lsmsim
from lsmsim.errors import ConfigError
from lsmsim.sim.kernel import Simulation

FIG3 = Path(__file__).resolve().parents[1] / "experiments" / "ecotune" / "fig3.yaml"
F = 1e-3  # a round false-positive rate, so the closed forms below are well above rounding
SHAPE_1L = [  # size ratio 10 as in experiments/ecotune/fig3.yaml: L0 5 x F, L1 5 x 10F, L2 5 x 100F, L3 the rest
    {"runs": 5, "run_share": 0.0002},
    {"runs": 5, "run_share": 0.002},
    {"runs": 5, "run_share": 0.02},
    {"runs": 1},
]


def shape_config(levels=SHAPE_1L, keys="uniform", num=200_000, phases=None, **lsm) -> dict:
    """A static tree of `levels` read by one thread: Gets of last-level keys, Seeks, short and long scans."""
    q = {"mode": "closed", "threads": 1}
    return {
        "name": "shape",
        "seed": 5,
        "machine": {"cores": 2},
        "device": {"preset": "optane-p5800x-800gb", "capacity": "16GB"},
        "lsm": {
            "block_cache_size": "4KiB",  # cold: every block access reads the device, as in the closed forms
            "use_direct_reads": True,
            "range_filter_fpr": F,
            "range_filter_point_fpr": F / 2,
            "initial_tree": {"levels": levels, "keys": keys},
            **lsm,
        },
        "policy": {"name": "static"},
        "workload": {
            "num": num,
            "key_size": 8,
            "value_size": 256,
            "phases": phases
            or [
                {"name": "get", "duration": "0.2s", "mix": {"get": 1}, "get_from": "last_level", "queries": q},
                {"name": "seek", "duration": "0.2s", "mix": {"short_scan": 1}, "short_scan_length": 1, "queries": q},
                {"name": "short", "duration": "0.2s", "mix": {"short_scan": 1}, "short_scan_length": 1.5, "queries": q},
                {"name": "long", "duration": "0.2s", "mix": {"long_scan": 1}, "scan_length": 100, "queries": q},
            ],
        },
        "sim": {"check_invariants": True, "sample_interval": "0.1s"},
    }


def test_initial_tree_has_the_shape_and_each_key_once():
    sim = Simulation(lsmsim.load_config(shape_config()))
    t = sim.tree
    assert [len(t.runs_at(i)) for i in range(4)] == [5, 5, 5, 1]
    entries = [[r.entries for r in t.runs_at(i)] for i in range(4)]
    assert entries[0] == [40] * 5 and entries[1] == [400] * 5 and entries[2] == [4000] * 5
    assert sum(map(sum, entries)) == 200_000  # the last level took the rest of the key space
    keys = np.concatenate([f.samples.keys for f in t.files()])
    assert np.unique(keys).size == keys.size == 200_000  # every key in one run
    # deeper levels and later-listed runs are older: sequence numbers fall from the youngest run down
    newest = [int(r.files[0].samples.seqs.max()) for r in t.runs()]
    assert newest == sorted(newest, reverse=True)
    assert sim.seq > max(newest)
    assert sim.live.count == 200_000
    t.check_invariants()


def test_static_policy_keeps_the_tree_through_read_only_phases():
    sim = Simulation(lsmsim.load_config(shape_config()))
    before = [r.id for r in sim.tree.runs()]
    res = sim.run()
    assert [r.id for r in sim.tree.runs()] == before
    assert res.summary["compactions"] == 0 and res.summary["sorted_runs"] == 16


def _io(res, phase):
    """I/Os per query of a phase, from a Result or its summary."""
    s = res if isinstance(res, dict) else res.summary
    return s[f"phase_{phase}_pages_per_query"]


def test_table3_ios_follow_the_closed_forms():
    """Get of a last-level key: 1 + the point FPR of every run above it; Seek: the run holding the next key, plus
    the range filter's false positives on the others (EcoTune §4.1, the I/O terms of Table 3)."""
    sim = Simulation(lsmsim.load_config(shape_config()))
    share = np.array([r.entries for r in sim.tree.runs()], float) / 200_000
    res = sim.run()
    n = share.size
    assert _io(res, "get") == pytest.approx(1 + (n - 1) * F / 2, abs=2e-4)
    assert _io(res, "seek") == pytest.approx(float((share + (1 - share) * F).sum()), abs=2e-4)
    # a closed range of 1.5 keys on average reaches a second run now and then (1 - (1 - p)^K per run)
    k = 1.5
    short = (1 - (1 - share) ** k) + (1 - share) ** k * F + np.maximum(0, k * share - 1) / (4096 // 270)
    assert _io(res, "short") == pytest.approx(float(short.sum()), rel=0.01)
    assert _io(res, "short") > _io(res, "seek") + 0.05


def test_last_level_gets_pass_more_filters_than_gets_of_any_key():
    any_key = shape_config()
    any_key["workload"]["phases"][0].pop("get_from")
    a = lsmsim.run(any_key).summary
    last = lsmsim.run(shape_config()).summary
    assert _io(last, "get") > _io(a, "get")


def test_merging_large_runs_helps_long_scans_more_than_merging_small_ones():
    """Table 3's and Fig. 3's argument: 1L -> 2L (merge the large tiered runs) cuts a long scan's I/Os far more
    than 2L -> 3L (merge the small ones)."""
    two_l = [SHAPE_1L[0], SHAPE_1L[1], {"runs": 1, "run_share": 0.1}, {"runs": 1}]
    three_l = [SHAPE_1L[0], {"runs": 1, "run_share": 0.01}, {"runs": 1, "run_share": 0.1}, {"runs": 1}]
    io = [_io(lsmsim.run(shape_config(s)).summary, "long") for s in (SHAPE_1L, two_l, three_l)]
    assert io[0] - io[1] > 3 * (io[1] - io[2]) > 0


def test_many_small_runs_cost_cpu_not_io():
    """LSM-bush: the same bytes in many small runs barely move a Get's I/Os but probe a filter per run."""
    bush = [{"runs": 55, "run_share": 0.0002}, {"runs": 0}, SHAPE_1L[2], {"runs": 1}]
    r1, rb = (lsmsim.run(shape_config(s)).summary for s in (SHAPE_1L, bush))
    assert _io(rb, "get") - _io(r1, "get") < 0.05
    assert rb["phase_get_ops_per_s"] < 0.95 * r1["phase_get_ops_per_s"]


def test_io_per_query_does_not_depend_on_the_stand_in_keys():
    """The uniform stand-in for SOSD books: the same shape over clustered keys (a normal density over twice the
    key space) gives the same I/Os per query, since costs see a run's share of the entries, not where keys lie."""
    half = [{"runs": lv["runs"], "run_share": lv["run_share"] / 2} if "run_share" in lv else lv for lv in SHAPE_1L]
    half[-1] = {"runs": 1, "run_share": 0.5 - sum(lv["runs"] * lv["run_share"] for lv in half[:-1])}
    uniform = lsmsim.run(shape_config()).summary
    clustered = lsmsim.run(shape_config(half, keys="normal", num=400_000)).summary
    for phase in ("get", "seek", "short", "long"):
        assert _io(clustered, phase) == pytest.approx(_io(uniform, phase), rel=0.003), phase


@pytest.mark.parametrize(
    "levels, where",
    [
        ([{"runs": 2}, {"runs": 1}], "levels[1].run_size"),
        ([{"runs": 3, "run_share": 0.5}, {"runs": 1}], "more than the key space"),
        ([{"runs": 1, "run_share": 0.1, "run_size": "1MiB"}, {"runs": 1}], "run_size or run_share"),
    ],
)
def test_bad_shapes_name_their_yaml_path(levels, where):
    with pytest.raises(ConfigError, match=r"initial_tree|run_share") as e:
        lsmsim.load_config(shape_config(levels))
    assert where in str(e.value)


def test_cli_rejects_a_bad_shape_without_a_traceback(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(shape_config([{"runs": 2}, {"runs": 1}])))
    r = subprocess.run([sys.executable, "-m", "lsmsim.cli", "run", str(p)], capture_output=True, text=True)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "initial_tree" in r.stderr


def test_fig3_yaml_shapes_are_valid_and_differ_only_in_runs():
    """Every shape of experiments/ecotune/fig3.yaml holds the same bytes per level; only the run counts differ."""
    spec = yaml.safe_load(FIG3.read_text())
    per_level = {}
    for name, v in spec["sweep"]["variants"].items():
        levels = v["lsm.initial_tree.levels"]
        per_level[name] = [lv["runs"] * lv.get("run_share", 0) for lv in levels[:-1]]
    sums = {k: sum(v) for k, v in per_level.items()}
    assert max(sums.values()) == pytest.approx(min(sums.values()), rel=1e-3)
    for shape in ("1L", "2L", "3L"):
        assert per_level[shape] == pytest.approx(per_level["1L"], rel=1e-3)


@pytest.mark.parametrize("num, eps", [(1000, 1), (100_000, 4), (12_345, 16), (5, 256), (300_000, 2)])
def test_sampled_keys_of_the_key_space_match_the_sampling_rule(num, eps):
    """The numba scan that lists a static tree's sampled keys keeps exactly the keys `sampled` keeps."""
    from lsmsim.workloads.generator import sampled, sampled_below

    keys = np.arange(num, dtype=np.uint64)
    assert np.array_equal(sampled_below(num, eps), keys[sampled(keys, eps)])
