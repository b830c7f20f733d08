"""The compaction design space's figures (PVLDB'21; lsmsim/figures/design_space.py) at quick scale (what CI runs):
every figure is drawn from its sweep, and the drawn data keep the paper's headline orderings."""

import pandas as pd

from tests.figure_checks import (  # noqa: F401 (the shared tests, run as this file's)
    test_every_figure_is_written,
    test_every_figures_sweep_loads_at_quick_scale,
    test_the_papers_numbers_beside_ours,
)

PAPER = "design-space"


def test_design_space_fig4_orderings_the_paper_reports(quick):
    """Fig. 4 at the quick scale, what agrees with the paper: whole-level strategies (Full, Tier) run far fewer
    compactions than the partial ones (b, O2), Full's largest compaction takes longest among the leveled ones (c),
    empty lookups cost Tier more than leveling (e, O4), read amplification grows with the share of empty lookups
    (f, O5: filters loaded for nothing), and range scans cost every leveled strategy alike, Tier more (g). (Data
    movement and mean compaction latency do not order as the paper's (a, O3): the closing notes of issue 17 say
    why.) The paper code's Full (Full-code) drains L2 into L3 again and again and moves more than Full as
    described (docs/paper-scale/README.md: 28.2x against 25.2x at this shape)."""
    df = pd.read_csv(quick[0] / "figures" / "design-space-fig4.csv").set_index("strategy")
    assert df.data_movement["Full-code"] > 1.08 * df.data_movement["Full"]
    assert df.paper_code_data_movement["Full-code"] == 33.1 and df.compactions["Full-code"] > df.compactions["Full"]
    partial = df.loc[["LO+1", "LO+2", "RR", "Cold", "Old"]]
    assert max(df.compactions["Full"], df.compactions["Tier"]) < 0.7 * partial.compactions.min()
    assert df.compaction_max_s["Full"] > 2 * partial.compaction_max_s.max()
    assert df["lookup_alpha_1.0_s"]["Tier"] > 1.03 * df["lookup_alpha_1.0_s"]["LO+1"]
    assert (df["lookup_alpha_0.0_s"] > df["lookup_alpha_1.0_s"]).all()
    amp = df[[f"read_amp_alpha_{a}" for a in ("0.0", "0.2", "0.4", "0.6", "0.8")]].to_numpy()
    assert (amp[:, 1:] > amp[:, :-1]).all() and (amp[:, 0] > 1.0).all()
    # (g) range scans cost the leveled strategies alike (same number of sorted runs), Tier more
    scans = df[[c for c in df.columns if c.startswith("scan_")]]
    leveled = scans.loc[["Full", "LO+1", "LO+2", "RR", "Cold", "Old"]]
    assert (
        scans.shape[1] == 3
        and (leveled.max() < 1.05 * leveled.min()).all()
        and (scans.loc["Tier"] > leveled.max()).all()
    )


def test_design_space_fig5_interleaved_lookups_are_faster(quick):
    """Fig. 5 at the quick scale: interleaving the lookups with the last inserts leaves the compactions as they were
    (a, c: mean compaction latency and write-amp within 2%, O6) and makes the lookups faster (e), empty ones by
    more than 15% (the tree is smaller; the paper: 69-81%), non-empty ones
    by a little (the paper: 26-63%). Not LO+2: its picks follow the grandparent overlap at the moment they are made,
    and with the low-priority writes its serial run took another path (write-amp 23.8 against 32.7 interleaved;
    issue 35 lists LO+2's data movement)."""
    df = pd.read_csv(quick[0] / "figures" / "design-space-fig5.csv")
    by = df.pivot_table(index=["strategy", "alpha"], columns="execution")
    assert len(by) == 16
    steady = by.drop(index="LO+2", level="strategy")
    for col in ("compaction_mean_s", "write_amp"):
        assert (abs(steady[col].interleaved / steady[col].serial - 1) < 0.02).all()
    gain = 1 - by.lookup_mean_s.interleaved / by.lookup_mean_s.serial
    assert (gain.xs(1.0, level="alpha") > 0.15).all() and (gain.xs(0.0, level="alpha") > 0).all()


def test_design_space_fig6_ingestion_is_agnostic_to_the_insert_distribution(quick):
    """Fig. 6 at the quick scale: PrefixZipf inserts move within 6% of the data uniform inserts move, for every
    strategy (the paper: "virtually identical"). Normal inserts at the paper's 34% standard deviation repeat 14% of
    their keys (the sampler clips the tails to the key space's ends), which the live data shows."""
    df = pd.read_csv(quick[0] / "figures" / "design-space-fig6.csv")
    dm = df.pivot_table(index="strategy", columns="inserts", values="data_movement")
    assert len(dm) == 8 and (abs(dm.prefix_zipf / dm.uniform - 1) < 0.06).all()
    live = df.groupby("inserts").live_entries.first()
    assert live["normal"] < 0.9 * live["uniform"] and live["prefix_zipf"] > 0.97 * live["uniform"]


def test_design_space_fig7_skewed_lookups(quick):
    """Fig. 7 at the quick scale: Zipfian lookups are faster and read fewer pages than normal ones for every
    strategy and alpha (the block cache holds the popular blocks, (a, b) against (c, d)), and under normal
    lookups Tier is the slowest strategy (c)."""
    df = pd.read_csv(quick[0] / "figures" / "design-space-fig7.csv")
    lat = df.pivot_table(index=["strategy", "alpha"], columns="lookups", values="lookup_mean_s")
    amp = df.pivot_table(index=["strategy", "alpha"], columns="lookups", values="read_amp")
    assert len(lat) == 8 * 5 and (lat.zipf < 0.7 * lat.normal).all() and (amp.zipf < amp.normal).all()
    normal = df[(df.lookups == "normal") & (df.alpha == 0.0)].set_index("strategy").lookup_mean_s
    assert normal.idxmax() == "Tier"


def test_design_space_fig8_delete_driven_strategies_purge_more(quick):
    """Fig. 8(e) at 10% deletes: TSD and TSA leave fewer tombstones than LO+1, which leaves far fewer than Tier (the
    paper: TSD 5% below LO+1 and 16% below Tier; its TSA 7-10% below TSD, not so here), and TSA33 persists every
    delete within its threshold (10.3 s at this scale) plus one compaction's time. The paper code's Full (Full-code)
    leaves fewer than LO+1, as the paper's Full does (Full as described swings from none to twice LO+1's with the
    phase of its whole-level merges: docs/paper-scale/README.md)."""
    df = pd.read_csv(quick[0] / "figures" / "design-space-fig8.csv")
    at = df[df.delete_share == 0.1].set_index("strategy")
    left = at.tombstones_remaining
    assert max(left["TSD"], left["TSA33"]) < left["LO+1"] < 0.5 * left["Tier"]
    assert left["Full-code"] < 0.9 * left["LO+1"]
    assert at.delete_persistence_max_s["TSA33"] < 10.3 * 1.2


def test_design_space_fig8_updates(quick):
    """Fig. 8(a-d) at the quick scale (O8): as updates replace inserts, Tier's mean compaction latency drops more than
    Full's, which drops more than that of the partial strategies LO+1, Cold and 1-Lvl (the paper: Tier's most, less so
    Full's and LO+2's, the rest largely unchanged; here LO+2's drops most, from its outsized data movement without
    updates), write amplification and lookup latency fall for every strategy, and the live data shrinks to the
    inserts' share."""
    df = pd.read_csv(quick[0] / "figures" / "design-space-fig8-updates.csv")
    lo, hi = (df[df.update_ratio == r].set_index("strategy") for r in (0, 4))
    drop = 1 - hi.compaction_mean_s / lo.compaction_mean_s
    assert len(lo) == len(hi) == 8 and drop["Tier"] > drop["Full"] > drop[["LO+1", "Cold", "1-Lvl"]].max()
    assert (hi.write_amp < lo.write_amp).all() and (hi.lookup_mean_s < lo.lookup_mean_s).all()
    assert (hi.live_entries / lo.live_entries).between(0.19, 0.21).all()


def test_design_space_fig8_tuning(quick):
    """Fig. 8(h-r) at the quick scale, what agrees with the paper: Tier's mean compaction latency grows more with the
    data size than Full's and the partial strategies' (h, O10; LO+2's, from its outsized data movement, as much);
    every strategy's grows with the buffer size and Tier's is the lowest at the largest buffer (m, O12); larger
    pages read fewer device pages per lookup (r: smaller indexes, fewer filter pages)."""
    df = pd.read_csv(quick[0] / "figures" / "design-space-fig8-tuning.csv")

    def ends(axis, col):
        d = df[df.axis == axis]
        lo, hi = d[d.x == d.x.min()].set_index("strategy")[col], d[d.x == d.x.max()].set_index("strategy")[col]
        assert len(lo) == len(hi) == 8
        return lo, hi

    lo, hi = ends("data", "compaction_mean_s")
    growth = hi / lo
    assert growth["Tier"] > growth[["Full", "LO+1", "RR", "Cold", "Old", "1-Lvl"]].max()
    lo, hi = ends("buffer", "compaction_mean_s")
    assert (hi > 1.2 * lo).all() and hi.idxmin() == "Tier"
    lo, hi = ends("page", "pages_per_lookup")
    assert (hi < 0.8 * lo).all()
