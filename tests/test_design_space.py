"""The compaction design space (Sarkar et al. PVLDB'21): the ten strategies of Table 2 as `composed` presets, what
each picks on small hand-built trees (as RocksDB's picker tests do), and each under a running workload with
deletes (no key lost, tombstones honoured)."""

from __future__ import annotations

import numpy as np
import pytest

import lsmsim
from lsmsim.config import LsmConfig
from lsmsim.errors import ConfigError
from lsmsim.loading import load_config
from lsmsim.policies import make_policy
from lsmsim.policies.design_space.primitives import PRESETS, validate
from lsmsim.policies.view import StaticView
from lsmsim.testing import TreeBuilder
from tests.conftest import small_config

SMALL_LEVELS = {"max_bytes_for_level_base": 1000, "size_ratio": 10}


def composed(**options):
    cfg = load_config({"policy": {"name": "composed", **options}, "workload": {"preset": "fillrandom"}})
    return make_policy(cfg.policy, LsmConfig())


def pick(p, tree, now=0.0):
    view = StaticView(tree, now=now)
    c = p.pick(view)
    assert p.needs_compaction(view) or c is None
    return c


def start_files(c):
    return [(f.min_key, f.max_key) for f in c.inputs if f.level == c.start_level]


def test_the_ten_strategies_of_table_2_are_presets_that_validate():
    assert list(PRESETS) == ["Full", "LO+1", "Cold", "Old", "TSD", "RR", "LO+2", "TSA", "Tier", "1-Lvl"]
    assert all(validate(e) == [] for e in PRESETS.values())


@pytest.mark.parametrize(
    "policy, where",
    [
        ({"trigger": ["level_saturation"], "layout": "leveling", "granularity": "file", "movement": []}, "movement"),
        ({"trigger": ["level_saturation"], "layout": "hybrid", "granularity": "file"}, "layout"),
        (
            {"trigger": ["sorted_runs"], "layout": "leveling", "granularity": "file", "movement": ["oldest"]},
            "trigger[0]",
        ),
        ({"trigger": ["level_saturation", "bogus"], "layout": "leveling", "granularity": "level"}, "trigger[1]"),
        ({"preset": "TSD", "layout": "tiering"}, "preset"),
        ({"preset": "TSA"}, "delete_persistence_threshold"),
        (
            {
                "trigger": ["tombstone_density", "level_saturation"],
                "layout": "leveling",
                "granularity": "file",
                "movement": ["oldest"],
            },
            "movement",
        ),
    ],
)
def test_an_ensemble_lsmsim_cannot_run_is_a_config_error_naming_its_field(policy, where):
    with pytest.raises(ConfigError) as e:
        composed(**policy)
    assert f"policy.{where}:" in str(e.value)


def _grandparent_tree():
    # two L1 files overlapping the same L2 bytes; L3 lies mostly under the first
    return (
        TreeBuilder()
        .levels(
            {
                3: [[(0, 99, 400), (100, 199, 10)]],
                2: [[(0, 99, 40), (100, 199, 40)]],
                1: [[(0, 99, 20), (100, 199, 20)]],
            }
        )
        .build()
    )


def test_lo1_and_lo2_rank_by_parent_and_grandparent_overlap():
    assert start_files(pick(composed(preset="LO+1", **SMALL_LEVELS), _grandparent_tree())) == [(0, 99)]
    assert start_files(pick(composed(preset="LO+2", **SMALL_LEVELS), _grandparent_tree())) == [(100, 199)]


def test_cold_takes_the_file_with_the_oldest_newest_entry_and_old_the_oldest_entry():
    # file A holds seqnos 1..500 (the oldest entry, but also a newer one than any of B's), B 200..249
    below = [(0, 9_999, 10), (10_000, 19_999, 10)]
    shape = {2: [below], 1: [[(0, 9_999, 500, 0.0, 1), (10_000, 19_999, 50, 0.0, 200)]]}
    old = pick(composed(preset="Old", **SMALL_LEVELS), TreeBuilder().levels(shape).build())
    cold = pick(composed(preset="Cold", **SMALL_LEVELS), TreeBuilder().levels(shape).build())
    assert start_files(old) == [(0, 9_999)] and start_files(cold) == [(10_000, 19_999)]


def test_round_robin_walks_the_level_in_key_order_and_wraps():
    below = [(i * 100, i * 100 + 60, 25) for i in range(4)]
    tree = TreeBuilder().levels({2: [below], 1: [[(i * 100, i * 100 + 50, 30) for i in range(4)]]}).build()
    p = composed(preset="RR", **SMALL_LEVELS)
    firsts = [start_files(pick(p, tree))[0][0] for _ in range(5)]
    assert firsts == [0, 100, 200, 300, 0]


def test_tsd_compacts_a_tombstone_dense_file_before_any_level_fills():
    # L1 is far under its target; its second file is half tombstones
    shape = {
        2: [[(0, 99, 30), (100, 199, 30), (200, 299, 30)]],
        1: [[(0, 99, 20), (100, 199, 20, 0.5), (200, 299, 20, 0.25)]],
    }
    big = {"max_bytes_for_level_base": 10**9}
    assert pick(composed(preset="LO+1", **big), TreeBuilder().levels(shape).build()) is None
    tsd = composed(preset="TSD", **big)
    c = pick(tsd, TreeBuilder().levels(shape).build())
    assert c.reason.startswith("tombstone_density") and start_files(c) == [(100, 199)]
    assert c.output_level == 2 and tsd.summary()["tombstone_density_compactions"] == 1
    # a threshold above every file's share: nothing is marked
    assert pick(composed(preset="TSD", tombstone_density=0.6, **big), TreeBuilder().levels(shape).build()) is None


def test_tsa_compacts_a_file_once_its_oldest_tombstone_outlives_its_level_deadline():
    shape = {2: [[(0, 99, 30), (100, 199, 30)]], 1: [[(0, 99, 20), (100, 199, 20, 0.1)]]}
    p = composed(preset="TSA", delete_persistence_threshold=100.0, size_ratio=10, max_bytes_for_level_base=10**9)
    tree = TreeBuilder().levels(shape).build()
    tree.note_seq_time(1, 0.0)
    tree.note_seq_time(10_000, 1.0)  # every seqno of the tree was written by t = 1 s
    # three levels: d0 = 100 * 9 / 99, L1's deadline d0 + 10 d0 = 100 s
    assert p.inner.ttl_deadlines(tree)[1] == pytest.approx(100.0)
    assert pick(p, tree, now=90.0) is None
    c = pick(p, tree, now=102.0)
    assert c.reason.startswith("tombstone_ttl") and start_files(c) == [(100, 199)]


def test_file_staleness_compacts_the_oldest_file_past_its_ttl():
    shape = {2: [[(0, 99, 30), (100, 199, 30)]], 1: [[(0, 99, 20), (100, 199, 20)]]}
    p = composed(
        trigger=["level_saturation", "file_staleness"],
        layout="leveling",
        granularity="file",
        movement=["least_overlap_parent"],
        file_ttl=60.0,
        max_bytes_for_level_base=10**9,
    )
    tree = TreeBuilder().levels(shape).build()
    assert pick(p, tree, now=30.0) is None
    tree.files_at(1)[1].created = -10.0
    c = pick(p, tree, now=61.0)
    assert c.reason.startswith("file_staleness") and start_files(c) == [(100, 199)]


def test_full_merges_whole_levels_one_at_a_time_and_holds_writes_meanwhile():
    shape = {2: [[(0, 99, 50), (100, 199, 50), (500, 599, 50)]], 1: [[(0, 49, 40), (150, 299, 40)]]}
    tree = TreeBuilder().levels(shape).build()
    p = composed(preset="Full", **SMALL_LEVELS)
    c = pick(p, tree)
    assert c.start_level == 1 and c.output_level == 2 and len(c.inputs) == 5
    assert p.write_control.rate_limit(tree) is None
    tree.mark_compacting(c.inputs, True)
    assert p.write_control.rate_limit(tree) == 0.0 and pick(p, tree) is None


def test_full_as_the_papers_code_marks_the_top_level_and_compacts_file_by_file():
    """kFullLevel (the paper's code): each scoring marks every file of the highest-scoring level, even below its
    target, and unmarks single-file levels; a pick sees the marks one scoring late and takes one marked file with
    its overlapping next-level files. Writes are not held."""
    # no level over its target (L1 744 of 1000 bytes, L2 6200 of 10000): RocksDB's picker and described Full idle
    shape = {3: [[(0, 999, 400)]], 2: [[(0, 999, 50)]], 1: [[(0, 99, 2), (200, 299, 2), (600, 699, 2)]]}
    tree = TreeBuilder().levels(shape).build()
    assert pick(composed(preset="Full", **SMALL_LEVELS).inner, tree) is None
    p = composed(preset="Full", full_as="code", **SMALL_LEVELS).inner
    assert p.scores(tree)[0][1] == 1 and p.write_control.rate_limit(tree) is None
    l1 = {f.id for f in tree.files_at(1)}
    p._mark_top_level(tree)
    assert p._marked_ids == l1 and pick(p, tree) is None  # marked, not yet listed
    p._mark_top_level(tree)
    c = pick(p, tree)
    assert c is not None and "kFullLevel" in c.reason and c.start_level == 1 and c.output_level == 2
    # one marked file, expanded to the L1 files that add no L2 overlap (SetupOtherInputs), and the L2 file
    assert {f.id for f in c.inputs if f.level == 1} <= l1 and len([f for f in c.inputs if f.level == 2]) == 1
    # a level with a single file is unmarked at each scoring
    lone = TreeBuilder().levels({3: [[(0, 999, 400)]], 2: [[(0, 999, 50)]], 1: [[(0, 99, 2)]]}).build()
    p2 = composed(preset="Full", full_as="code", **SMALL_LEVELS).inner
    p2._mark_top_level(lone)
    assert not p2._marked_ids


def test_leveling_holds_one_run_in_l0_and_1_leveling_tiers_it():
    shape = {1: [[(0, 999, 100)]], 0: [[(0, 999, 20)], [(0, 999, 20)]]}
    big = {"max_bytes_for_level_base": 10**9}
    assert pick(composed(preset="LO+1", **big), TreeBuilder().levels(shape).build()).start_level == 0
    assert pick(composed(preset="1-Lvl", **big), TreeBuilder().levels(shape).build()) is None


DELETES = [
    {"name": "fill", "operations": 60_000, "mix": {"insert": 1.0}},
    {"name": "churn", "operations": 80_000, "mix": {"update": 0.5, "delete": 0.3, "get": 0.2}},
]
LEVELS = {"max_bytes_for_level_base": "1MiB", "target_file_size_base": "256KiB", "size_ratio": 4}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_strategy_keeps_every_key_and_honours_tombstones(preset):
    """A fill, then updates and deletes of existing keys with point reads: the tree keeps the LSM invariants at
    every step (sim.check_invariants), and at the end holds exactly the keys the writes left live (the merge of
    every file against the bitmap of live keys, lsm/live.py)."""
    extra = {"delete_persistence_threshold": "0.5s"} if preset == "TSA" else {}
    levels = LEVELS if preset != "Tier" else {}
    res = lsmsim.run(small_config({"name": "composed", "preset": preset, **levels, **extra}, DELETES))
    s, ts = res.summary, res.timeseries
    assert s["completed"] and s["compactions"] > 0
    assert ts.logical_bytes.iloc[-1] == s["logical_bytes"] > 0
    if preset in ("TSD", "TSA"):
        trigger = "tombstone_density" if preset == "TSD" else "tombstone_ttl"
        assert s[f"policy_{trigger}_compactions"] > 0
    # only Full holds the writers while it merges (§4.1), which counts as a write stop
    assert (s["stall_stop_s"] > 0) == (preset == "Full")


@pytest.mark.parametrize(
    "preset, native",
    [
        (
            "1-Lvl",
            {
                "name": "leveled",
                "max_bytes_for_level_base": "1MiB",
                "target_file_size_base": "256KiB",
                "max_bytes_for_level_multiplier": 4,
            },
        ),
        ("Tier", {"name": "universal"}),
    ],
)
def test_1lvl_is_rocksdb_leveled_and_tier_is_universal(preset, native):
    levels = LEVELS if preset != "Tier" else {}
    a = lsmsim.run(small_config({"name": "composed", "preset": preset, **levels}, DELETES)).summary
    b = lsmsim.run(small_config(native, DELETES)).summary
    for k in ("write_amp", "compactions", "trivial_moves", "space_amp", "throughput_ops_per_s"):
        assert a[k] == b[k], k


def test_delete_metrics_order_lo1_tsd_and_tsa_as_the_paper_does():
    """§4.2's metrics on the churn workload: data movement is compaction bytes read + written per byte ingested;
    TSD leaves far fewer tombstones than LO+1 (Fig. 8e) at a higher data movement (O9), and TSA bounds the delete
    persistence latency near its threshold where LO+1 lets it run to twice that."""
    runs = {}
    for preset, extra in (("LO+1", {}), ("TSD", {}), ("TSA", {"delete_persistence_threshold": "0.5s"})):
        runs[preset] = lsmsim.run(small_config({"name": "composed", "preset": preset, **LEVELS, **extra}, DELETES))
    lo1, tsd, tsa = (runs[k].summary for k in ("LO+1", "TSD", "TSA"))
    moved = lo1["compaction_read_bytes"] + lo1["compaction_write_bytes"]
    assert lo1["data_movement"] == pytest.approx(moved / lo1["user_bytes"])
    assert tsd["tombstones_remaining"] < 0.5 * lo1["tombstones_remaining"]
    assert tsd["data_movement"] > 1.1 * lo1["data_movement"]
    assert tsa["delete_persistence_max_s"] < 0.6 < 1.0 < lo1["delete_persistence_max_s"]
    for s in (lo1, tsd, tsa):
        assert 0 < s["delete_persistence_p50_s"] <= s["delete_persistence_max_s"] <= s["sim_time_s"]
        assert s["deletes_persisted"] > 0 and s["compaction_latency_p50_s"] <= s["compaction_latency_max_s"]
    rows = runs["LO+1"].compactions
    assert (rows[rows.kind == "compaction"].cpu_s > 0).all()


def test_range_lookup_selectivity_sets_the_scan_length_from_the_key_space():
    """§4.3.1's range-lookup selectivity: a share of the key space, turned into entries per long scan; ten
    times the selectivity makes scans at least five times slower."""
    cfg = load_config(
        {
            "workload": {
                "num": "10M",
                "phases": [{"operations": 10, "mix": {"long_scan": 1.0}, "scan_selectivity": 0.001}],
            }
        }
    )
    assert cfg.workload.phases[0].scan_length == 10_000
    fill = {"operations": 60_000, "mix": {"insert": 1.0}}
    scans = [
        {"name": f"s{sel}", "operations": 2000, "mix": {"long_scan": 1.0}, "scan_selectivity": sel}
        for sel in (0.01, 0.1)
    ]
    s = lsmsim.run(small_config(phases=[fill, *scans])).summary
    assert s["phase_s0.01_ops_per_s"] > 5 * s["phase_s0.1_ops_per_s"] > 0


def test_updates_of_existing_keys_rewrite_inserted_keys():
    """keys.updates: existing (§5.2.3's update-to-insert ratio): an update rewrites a key the shuffled order has
    inserted, so 40,000 writes at a ratio of 1 leave 20,000 live keys (each update is a second version), where
    updates drawn as writes leave 40,000; the data moved per byte ingested drops with the updates merged away."""
    from lsmsim.config import PhaseConfig
    from lsmsim.workloads.generator import WriteStream

    phase = PhaseConfig(
        operations=10_000, mix={"insert": 1.0, "update": 1.0}, keys={"distribution": "shuffled", "updates": "existing"}
    )
    ws = WriteStream(phase, 100_000, 100, 1, np.random.default_rng(5))
    inserted, cursor, rewrites = set(), 0, 0
    for _ in range(10):
        s, _, fresh = ws.draw(1000, 1, cursor)
        for key in s.keys.tolist():
            rewrites += key in inserted
            inserted.add(key)
        cursor += fresh
    assert cursor == len(inserted) and abs(rewrites - 5000) < 300  # half the writes, all on inserted keys

    def run(updates):
        keys = {"distribution": "shuffled", "updates": updates}
        return lsmsim.run(
            small_config(phases=[{"operations": 40_000, "mix": {"insert": 1.0, "update": 1.0}, "keys": keys}])
        ).summary

    existing, drawn = run("existing"), run("drawn")
    assert existing["live_entries"] == pytest.approx(20_000, rel=0.02) and drawn["live_entries"] == 40_000
    assert existing["data_movement"] < drawn["data_movement"]
    with pytest.raises(ConfigError, match="updates"):
        load_config(
            {"workload": {"phases": [{"operations": 10, "mix": {"update": 1.0}, "keys": {"updates": "existing"}}]}}
        )


def test_deletes_of_existing_keys_hit_keys_already_inserted():
    """keys.deletes: existing (§5.2.4, deletes on existing keys interleaved with inserts): every delete names a key
    the shuffled order inserted earlier, and the inserts still take each key once; the kernel counts only inserts
    as the order's cursor."""
    from lsmsim.config import PhaseConfig
    from lsmsim.workloads.generator import WriteStream

    phase = PhaseConfig(
        operations=50_000,
        mix={"insert": 0.7, "delete": 0.3},
        keys={"distribution": "shuffled", "deletes": "existing"},
    )
    ws = WriteStream(phase, 100_000, 100, 1, np.random.default_rng(3))
    inserted, cursor, orphans = set(), 0, 0
    for _ in range(50):
        s, _, fresh = ws.draw(1000, 1, cursor)
        for key, tomb in zip(s.keys.tolist(), s.tombs.tolist()):
            if not tomb:
                assert key not in inserted  # each key inserted once
                inserted.add(key)
            elif key not in inserted:
                orphans += 1  # only a delete before the first insert
                assert not inserted
        assert fresh == 1000 - int(s.tombs.sum())  # what the kernel advances the order's cursor by
        cursor += fresh
    assert orphans <= 3
    with pytest.raises(ConfigError, match="deletes"):
        load_config(
            {"workload": {"phases": [{"operations": 10, "mix": {"delete": 1.0}, "keys": {"deletes": "existing"}}]}}
        )
    s = lsmsim.run(
        small_config(
            phases=[
                {
                    "operations": 60_000,
                    "mix": {"insert": 0.8, "delete": 0.2},
                    "keys": {"distribution": "shuffled", "deletes": "existing"},
                }
            ]
        )
    ).summary
    assert s["live_entries"] < 0.8 * 60_000 - 0.7 * 0.2 * 60_000


def test_compensated_sizes_order_alike_in_numpy_and_per_file():
    """kMinOverlappingRatio divides by the compensated size (ComputeCompensatedSizes: deletions beyond half a file's
    entries count as values twice over): the numpy order over a run equals the per-file reference, and a
    tombstone-heavy file moves ahead of a plain one with the same overlap."""
    from lsmsim.policies import movement
    from lsmsim.policies.leveled import Leveled

    files = [(i * 100, i * 100 + 80, 40, 0.7 if i % 3 == 0 else 0.0) for i in range(12)]
    t = TreeBuilder().run(1, *files).run(2, *[(i * 100, i * 100 + 90, 40) for i in range(12)]).build()
    src, dst = t.runs_at(1)[0], t.runs_at(2)[0]
    avg = movement.average_value_size(t.runs())
    assert src.tombstones > 0 and avg > 0
    assert list(Leveled._overlap_order(src, dst, avg)) == Leveled._by_overlap(src.files, dst, avg)
    heavy = [f for f in src.files if 2 * f.tombstones >= f.entries]
    assert heavy and movement.compensated_size(heavy[0], avg) > heavy[0].bytes
    assert list(Leveled._overlap_order(src, dst, avg))[0] in heavy
