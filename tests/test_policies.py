"""Policies on small hand-built LSM shapes, without running anything else (RocksDB's picker tests)."""

import numpy as np
import pytest

from lsmsim.config import LsmConfig
from lsmsim.loading import load_config
from lsmsim.policies import make_policy
from lsmsim.testing import StaticView, TreeBuilder


def policy(**options):
    cfg = load_config({"policy": options, "workload": {"preset": "fillrandom"}})
    return make_policy(cfg.policy, LsmConfig())


def tree_with(levels):
    """levels: {level: [[(lo, hi, n), ...] per run, youngest run first]}; older data gets lower seqnos."""
    return TreeBuilder().levels(levels).build()


def pick(p, tree):
    """`p.pick` through a static view; `needs_compaction` (pure) must say yes whenever `pick` finds work."""
    view = StaticView(tree)
    needs = p.needs_compaction(view)
    c = p.pick(view)
    assert needs or c is None, f"{p.name}: pick found {c} but needs_compaction said no"
    return c


def test_leveled_picks_min_overlapping_ratio_file():
    # L1 holds three files; the middle one overlaps the least data in L2
    t = tree_with(
        {
            2: [[(0, 99_500, 3000), (100_000, 199_000, 200), (199_500, 299_000, 3000)]],
            1: [[(0, 99_000, 1000), (100_000, 199_000, 1000), (200_000, 299_000, 1000)]],
        }
    )
    p = policy(name="leveled", max_bytes_for_level_base=100_000, max_bytes_for_level_multiplier=10)
    c = pick(p, t)
    assert c is not None and c.output_level == 2 and c.start_level == 1
    l1 = [f for f in c.inputs if f.level == 1]
    assert [(f.min_key, f.max_key) for f in l1] == [(100_000, 199_000)]
    assert {(f.min_key, f.max_key) for f in c.inputs if f.level == 2} == {(100_000, 199_000)}
    assert c.target_run is t.level(2).runs[0] and not c.trivial_move


def test_leveled_l0_takes_all_l0_files_and_overlapping_base_files():
    t = tree_with(
        {1: [[(0, 99, 100), (500, 599, 100)]], 0: [[(10, 50, 50)], [(20, 60, 50)], [(30, 70, 50)], [(40, 80, 50)]]}
    )
    p = policy(name="leveled", level0_file_num_compaction_trigger=4)
    c = pick(p, t)
    assert c.output_level == 1 and c.start_level == 0
    assert sum(1 for f in c.inputs if f.level == 0) == 4
    assert {(f.min_key, f.max_key) for f in c.inputs if f.level == 1} == {(0, 99)}
    # fewer L0 files than the trigger: nothing to do
    t2 = tree_with({0: [[(10, 50, 50)], [(20, 60, 50)]]})
    assert pick(p, t2) is None


def test_leveled_trivial_move_when_nothing_overlaps():
    t = tree_with({2: [[(1000, 2000, 100)]], 1: [[(0, 99, 2000)]]})
    p = policy(name="leveled", max_bytes_for_level_base=10_000)
    c = pick(p, t)
    assert c.trivial_move and c.output_level == 2


def test_leveled_skips_files_being_compacted():
    t = tree_with(
        {
            2: [[(0, 99_500, 3000), (100_000, 199_000, 200), (199_500, 299_000, 3000)]],
            1: [[(0, 99_000, 1000), (100_000, 199_000, 1000), (200_000, 299_000, 1000)]],
        }
    )
    p = policy(name="leveled", max_bytes_for_level_base=100_000)
    t.mark_compacting([t.level(2).runs[0].files[1]], True)
    c = pick(p, t)
    assert all(not f.being_compacted for f in c.inputs)
    assert (100_000, 199_000) not in {(f.min_key, f.max_key) for f in c.inputs}


def test_compacting_bytes_follow_marks_as_the_plain_sum_does():
    """`Tree.compacting_bytes` keeps each level's running inputs as they are marked and unmarked (O(1) a query);
    against the sum over the marked files at every step of random marks, repeats and unmarks of unmarked files."""
    t = tree_with({lvl: [[(k * 1000, k * 1000 + 900, 100 + 37 * k + lvl) for k in range(12)]] for lvl in (0, 1, 2, 3)})
    files = t.files()
    rng = np.random.default_rng(5)
    for _ in range(400):
        batch = list(rng.choice(len(files), size=int(rng.integers(1, 5)), replace=False))
        t.mark_compacting([files[i] for i in batch], bool(rng.integers(2)))
        for lvl in range(5):
            assert t.compacting_bytes(lvl) == sum(f.bytes for f in files if f.being_compacted and f.level == lvl)
    t.mark_compacting(files, False)
    assert all(t.compacting_bytes(lvl) == 0 for lvl in range(5)) and not t.compacting()


def test_level_targets_are_kept_per_tree_version_and_follow_every_install():
    """The leveled scores ask `_targets` at every pick: it answers from the last computation while the tree's version
    (bumped at every flush and install) is unchanged, and anew, equal to a fresh computation, once it moves."""
    t = tree_with({6: [[(0, 10_000_000, 8_000_000)]], 0: [[(1, 9, 10)]]})
    p = policy(
        name="leveled", level_compaction_dynamic_level_bytes=True, max_bytes_for_level_base=1_000_000, num_levels=7
    )
    first = p._targets(t)
    assert p._targets(t) is first and first == p._compute_targets(t)
    l0 = t.level(0).runs[0].files
    t.install(l0, t.build_files(l0[0].samples, 5, None, 0.0), 5, None)  # L0 -> a new run in L5
    assert p._targets(t) is not first and p._targets(t) == p._compute_targets(t)
    other = tree_with({6: [[(0, 10_000, 5000)]]})  # another tree at the same version number
    assert p._targets(other) == p._compute_targets(other) != first


def test_dynamic_level_bytes_base_level_and_targets():
    # only the last level (L6) has data: L0 compacts straight into it while it is small
    t = tree_with({6: [[(0, 10_000, 5000)]], 0: [[(1, 9, 10)]] * 1})
    p = policy(
        name="leveled", level_compaction_dynamic_level_bytes=True, max_bytes_for_level_base=1_000_000, num_levels=7
    )
    base, targets = p._targets(t)
    assert base == 6
    # a last level 1000x the base pushes the base level up by log10(1000) = 3 levels
    t = tree_with({6: [[(0, 10_000_000, 8_000_000)]]})
    base, targets = p._targets(t)
    assert base == 3
    assert targets[6] == pytest.approx(t.level(6).bytes, rel=0.01)


def test_leveled_pending_compaction_bytes():
    t = tree_with({2: [[(0, 999, 5000)]], 1: [[(0, 999, 3000)]]})
    p = policy(name="leveled", max_bytes_for_level_base=100_000)
    l1, l2 = t.level(1).bytes, t.level(2).bytes
    # RocksDB's estimate: excess of L1 times (fan-out to L2 + 1)
    assert p.pending_compaction_bytes(t) == pytest.approx((l1 - 100_000) * (l2 / l1 + 1))


def test_universal_size_amplification_triggers_full_compaction():
    t = tree_with({0: [[(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)]]})
    p = policy(name="universal", max_size_amplification_percent=200)
    c = pick(p, t)
    assert c.reason == "size amplification" and len(c.inputs) == 4
    assert c.output_level == 6  # includes the oldest run: the last of num_levels = 7


def test_universal_size_ratio_merges_similar_young_runs():
    t = tree_with({1: [[(0, 9999, 100_000)]], 0: [[(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)]]})
    p = policy(name="universal")
    c = pick(p, t)
    assert c.reason == "size ratio"
    assert len(c.inputs) == 4 and all(f.level == 0 for f in c.inputs)
    assert c.output_level == 0  # the next older run is in L1: the level above it is L0


def test_universal_puts_outputs_just_above_the_next_older_run():
    """RocksDB's output_level: the level above the next older run (an L0 file: L0; the oldest: the last)."""
    t = tree_with({6: [[(0, 9999, 100_000)]], 0: [[(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)]]})
    c = pick(policy(name="universal"), t)
    assert c.reason == "size ratio" and c.output_level == 5 and c.start_level == 0
    assert (
        pick(
            policy(name="universal", num_levels=3), tree_with({2: [[(0, 9999, 100_000)]], 0: [[(0, 99, 100)]] * 4})
        ).output_level
        == 1
    )


def test_tiering_merges_t_oldest_runs():
    t = tree_with({0: [[(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)]]})
    p = policy(name="tiering", size_ratio=3)
    c = pick(p, t)
    assert c.output_level == 1 and len(c.inputs) == 3
    p4 = policy(name="tiering", size_ratio=4)
    assert pick(p4, t) is None


def test_full_leveling_preemption_skips_full_levels():
    t = tree_with({2: [[(0, 99_999, 1000)]], 1: [[(0, 99_999, 2000)]], 0: [[(0, 99_999, 1000)]]})
    p = policy(name="full_leveling", size_ratio=3)
    p.flush_bytes_avg = t.level(0).bytes
    # L1 holds 2 flushes (its capacity (T-1)B), so L0 + L1 go to L2, which has room for them
    c = pick(p, t)
    assert c.output_level == 2
    assert {f.level for f in c.inputs} == {0, 1, 2}
    p_no = policy(name="full_leveling", size_ratio=3, preemption=False)
    p_no.flush_bytes_avg = p.flush_bytes_avg
    assert pick(p_no, t).output_level == 1


def test_unknown_policy_is_a_config_error():
    from lsmsim.errors import ConfigError

    with pytest.raises(ConfigError, match="policy"):
        load_config({"policy": {"name": "nope"}, "workload": {"preset": "fillrandom"}})


def test_universal_skips_runs_being_compacted():
    t = tree_with(
        {1: [[(0, 9999, 100_000)]], 0: [[(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)], [(0, 99, 100)]]}
    )
    p = policy(name="universal")
    t.mark_compacting([t.runs()[0].files[0]], True)
    c = pick(p, t)
    assert c is not None and c.reason == "size ratio"
    assert all(not f.being_compacted for f in c.inputs) and len(c.inputs) == 4


def test_leveled_intra_l0_when_l0_to_base_is_blocked():
    t = tree_with({1: [[(0, 10**6, 1000)]], 0: [[(0, 10**6, 100)]] * 7})
    p = policy(name="leveled", level0_file_num_compaction_trigger=4)
    t.mark_compacting([t.level(1).runs[0].files[0]], True)  # L1 -> L2 holds the base level
    c = pick(p, t)
    assert c is not None and c.reason == "intra-L0" and c.output_level == 0
    assert len(c.inputs) == 7 and all(f.level == 0 for f in c.inputs)
    t.mark_compacting([t.level(0).runs[0].files[0]], True)  # youngest L0 file busy: nothing contiguous
    assert pick(p, t) is None


def test_dynamic_scores_prefer_l0_when_it_outgrows_the_base_level():
    """RocksDB 7.8 with dynamic level bytes: L0 larger than the base level scores above it."""
    t = tree_with({6: [[(0, 10**7, 80_000)]], 5: [[(0, 10**7, 9_000)]], 0: [[(0, 10**7, 3_000)]] * 4})
    p = policy(
        name="leveled",
        level_compaction_dynamic_level_bytes=True,
        max_bytes_for_level_base=1_000_000,
        max_bytes_for_level_multiplier=10,
        level0_file_num_compaction_trigger=4,
    )
    scores = dict((lvl, sc) for sc, lvl in p.scores(t))
    assert scores[0] > 1.0 and scores[0] == max(scores.values())
    assert scores[0] >= 10.0  # scaled by kScoreScale


def test_moose_tiers_and_levels_per_level():
    p = policy(name="moose", size_ratios=[4, 4], runs_per_level=[3, 2, 1])
    t = tree_with({0: [[(0, 999, 100)]] * 2})
    assert pick(p, t) is None  # L0 holds up to 3 runs
    t = tree_with({0: [[(0, 999, 100)]] * 3})
    c = pick(p, t)
    assert c.output_level == 1 and len(c.inputs) == 3 and c.target_run is None  # tiered L1: a new run
    t = tree_with({2: [[(0, 9999, 1000)]], 1: [[(0, 999, 300)]] * 2})
    assert pick(p, t) is None  # L1 is below its capacity (C_1 = B K_0 T_0)
    p.flush_bytes_avg = t.runs_at(1)[0].bytes / 10  # B: L1's capacity is 12 B, it holds 20 B
    c = pick(p, t)
    assert c.output_level == 2 and {f.level for f in c.inputs} == {1, 2}  # leveled last level: merge in


def test_moose_spills_a_full_level_before_merging_into_it():
    """With L0 full and L1 full, L1 spills first: picking L0 first would merge every new flush into L1 while L1
    stayed busy, so under a steady flush stream L1 would never spill (it grew to 2.4 GB at the paper's scale)."""
    p = policy(name="moose", size_ratios=[10, 10], runs_per_level=[1, 1, 1])
    t = tree_with({2: [[(0, 9999, 5000)]], 1: [[(0, 9999, 3000)]], 0: [[(0, 9999, 100)]]})
    p.flush_bytes_avg = t.runs_at(0)[0].bytes  # B = one flush: C_1 = 10 B, and L1 holds 30 B
    c = pick(p, t)
    assert c.output_level == 2 and {f.level for f in c.inputs} == {1, 2}
    t = tree_with({2: [[(0, 9999, 5000)]], 1: [[(0, 9999, 500)]], 0: [[(0, 9999, 100)]]})  # L1 has room
    c = pick(p, t)
    assert c.output_level == 1 and {f.level for f in c.inputs} == {0, 1}


def test_moose_fills_the_active_run_of_a_tiered_level():
    """Fluid LSM (Dostoevsky; ArceKV Table 1): a spill merges into the level's youngest run while that run
    is below C_i / K_i, and starts a new run once it is full."""
    p = policy(name="moose", size_ratios=[4, 4], runs_per_level=[3, 2, 1])
    t = tree_with({1: [[(0, 999, 100)]], 0: [[(0, 999, 100)]] * 3})
    p.flush_bytes_avg = t.runs_at(0)[0].bytes  # B = one flush; C_1 = 12 B in runs of 6 B
    c = pick(p, t)
    assert c.output_level == 1 and {f.level for f in c.inputs} == {0, 1}  # the 1 B active run absorbs it
    t = tree_with({1: [[(0, 999, 700)]], 0: [[(0, 999, 100)]] * 3})  # the active run is 7 B: full
    c = pick(p, t)
    assert c.output_level == 1 and {f.level for f in c.inputs} == {0}


def test_moose_as_arce_configures_it_keeps_k_runs_per_level():
    """ArceKV §5's Moose (size ratios 40, 40, 41, 6 runs per level) after a random fill: no level above the
    last holds more than 6 runs, and level 1's runs grow to about C_1 / K_1 = 40 flushes, not one spill."""
    from lsmsim.api import run

    res = run(
        {
            "lsm": {"write_buffer_size": "64KiB"},
            "policy": {"name": "moose", "size_ratios": [40, 40, 41], "runs_per_level": [6, 6, 6, 6]},
            "workload": {"num": 60_000, "value_size": 100, "preset": "fillrandom"},
        }
    )
    s = res.summary
    assert all(s.get(f"runs_L{i}", 0) <= 6 for i in range(3))
    flush = res.compactions.query("kind == 'flush'").write_bytes.mean()
    assert s["bytes_L1"] / max(s["runs_L1"], 1) > 12 * flush


# ---------------------------------------------------------------- RocksDB 7.8 moves and cuts (issue 13)
def test_leveled_l0_move_into_an_empty_base_level_takes_the_oldest_file_alone():
    """fillseq: L0 files are disjoint, L1 is empty. RocksDB picks the L0 file with the smallest key
    (all overlap ratios are 0, ties go to the smaller key; SortFileByOverlappingRatio), which is the
    oldest, and cannot extend the move past it (TryExtendNonL0TrivialMove looks at older files)."""
    t = tree_with({0: [[(300, 399, 50)], [(200, 299, 50)], [(100, 199, 50)], [(0, 99, 50)]]})
    p = policy(name="leveled", level0_file_num_compaction_trigger=4)
    c = pick(p, t)
    assert c.trivial_move and c.output_level == 1
    assert [(f.min_key, f.max_key) for f in c.inputs] == [(0, 99)]


def test_leveled_l0_move_onto_a_non_empty_base_level_takes_every_disjoint_file():
    """TryPickL0TrivialMove: from the oldest L0 file towards newer ones, while the union stays
    disjoint from itself and from L1 (no limit of 4 files)."""
    l0 = [[(600, 699, 50)], [(500, 599, 50)], [(400, 499, 50)], [(300, 399, 50)], [(200, 299, 50)]]
    t = tree_with({1: [[(0, 99, 50)]], 0: l0})
    p = policy(name="leveled", level0_file_num_compaction_trigger=4)
    c = pick(p, t)
    assert c.trivial_move and len(c.inputs) == 5 and c.target_run is t.level(1).runs[0]
    # the oldest file overlaps L1: no L0 move, a merge of the overlapping L0 files and L1
    t = tree_with({1: [[(0, 99, 50)]], 0: [[(300, 399, 50)], [(200, 299, 50)], [(100, 199, 50)], [(50, 149, 50)]]})
    c = pick(p, t)
    assert not c.trivial_move


def test_leveled_moves_up_to_four_files_down_when_nothing_overlaps():
    """TryExtendNonL0TrivialMove: at most kMaxMultiTrivialMove = 4 files, starting at the first file in
    overlap-ratio order (ties: smallest key) and taking the next ones in key order."""
    t = tree_with({2: [[(10**6, 2 * 10**6, 100)]], 1: [[(i * 100, i * 100 + 99, 500) for i in range(6)]]})
    p = policy(name="leveled", max_bytes_for_level_base=10_000)
    c = pick(p, t)
    assert c.trivial_move and c.output_level == 2
    assert [f.min_key for f in c.inputs] == [0, 100, 200, 300]


def test_leveled_overlap_ratio_is_an_integer_and_ties_go_to_the_smaller_key():
    """file_to_order = overlapping bytes * 1024 / file bytes, in integers: 512.26 and 512.0 tie, and
    the smaller key wins (a float comparison would take the second file)."""
    t = tree_with(
        {
            2: [[(0, 99_999, 2001), (100_000, 199_999, 2000)]],
            1: [[(0, 99_999, 4000), (100_000, 199_999, 4000)]],
        }
    )
    p = policy(name="leveled", max_bytes_for_level_base=1000)
    c = pick(p, t)
    assert [f.min_key for f in c.inputs if f.level == 1] == [0]


def test_leveled_base_level_waits_while_l0_to_base_is_blocked():
    """SetupInitialFiles: when L0 -> base finds nothing, the base level is skipped so that L0 does not
    starve: here L1 has a free file it could push to L2, but L0 scores higher and is blocked."""
    t = tree_with(
        {
            2: [[(0, 10**6, 100)]],
            1: [[(0, 499_999, 450), (500_000, 999_999, 450)]],
            0: [[(0, 400_000, 100)]] * 5,
        }
    )
    p = policy(name="leveled", level0_file_num_compaction_trigger=4, max_bytes_for_level_base=100_000)
    scores = p.scores(t)
    assert scores[0][1] == 0 and scores[1][1] == 1 and scores[1][0] > 1.0
    t.mark_compacting([t.level(1).runs[0].files[0]], True)  # blocks L0 -> L1
    assert pick(p, t) is None  # no intra-L0 (5 files < trigger + 2), and L1 waits for L0


def test_leveled_cuts_outputs_at_next_level_boundaries():
    """L0 -> L1 outputs carry RocksDB's dynamic cut with the L2 files as grandparents; with
    level_compaction_dynamic_file_size off the cut is by size only."""
    l2 = [(i * 1000, i * 1000 + 900, 100) for i in range(10)]
    t = tree_with({2: [l2], 1: [[(0, 9999, 1000)]], 0: [[(0, 9999, 500)]] * 4})
    p = policy(name="leveled", level0_file_num_compaction_trigger=4)
    c = pick(p, t)
    assert c.cut is not None and c.cut.dynamic_file_size
    assert [f.min_key for f in c.cut.grandparents] == [i * 1000 for i in range(10)]
    p = policy(name="leveled", level0_file_num_compaction_trigger=4, level_compaction_dynamic_file_size=False)
    assert not pick(p, t).cut.dynamic_file_size


@pytest.mark.parametrize("seed", range(5))
def test_overlap_order_in_numpy_matches_the_per_file_order(seed):
    """Leveled's kMinOverlappingRatio order from the runs' key arrays equals the per-file reference (`_by_overlap`,
    a binary search per file) on random levels, busy files skipped; `overlap_bytes` equals `overlapping`."""
    from lsmsim.policies.leveled import Leveled

    rng = np.random.default_rng(seed)

    def files(n, span):
        cuts = np.sort(rng.choice(np.arange(1, span), 2 * n, replace=False))
        return [(int(a), int(b), int(rng.integers(1, 40))) for a, b in zip(cuts[::2], cuts[1::2])]

    t = TreeBuilder().run(1, *files(60, 10**6)).run(2, *files(200, 10**6)).build()
    src, dst = t.runs_at(1)[0], t.runs_at(2)[0]
    t.mark_compacting([src.files[i] for i in rng.choice(len(src.files), 5, replace=False)], True)
    assert list(Leveled._overlap_order(src, dst)) == Leveled._by_overlap(src.files, dst)
    mins, maxs, _ = src.key_arrays()
    want = [sum(b.bytes for b in dst.overlapping(f.min_key, f.max_key)) for f in src.files]
    assert dst.overlap_bytes(mins, maxs).tolist() == want
    assert all(src.index_of(f) == i for i, f in enumerate(src.files))
