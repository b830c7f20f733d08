"""The figure registry at quick scale (what CI runs): every registered figure is drawn from its
sweep, and the drawn data keep the papers' headline orderings."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from lsmsim.errors import LsmsimError
from lsmsim.figures import all_figures, make_figures
from lsmsim.figures.paper_values import PAPER_VALUES, PLOTS_ONLY, caption


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    root = tmp_path_factory.mktemp("figures")
    # ARCE's figures are drawn (and checked) by test_figures_arce.py
    only = [f for f in all_figures() if not f.startswith("arce-")]
    written = make_figures(
        out=root / "figures",
        results=root / "results",
        scale="quick",
        jobs=2,
        progress=False,
        log=lambda *a: None,
        only=only,
    )
    return root, written


def test_every_registered_figure_is_written(quick):
    root, written = quick
    figs = {k: v for k, v in all_figures().items() if not k.startswith("arce-")}
    assert len(figs) >= 6
    for fid in figs:
        for ext in ("png", "pdf", "csv"):
            f = root / "figures" / f"{fid}.{ext}"
            assert f.stat().st_size > 500, f
    papers = [f for f in figs if f in PAPER_VALUES]
    assert len(written) == 3 * len(figs) + len(papers)


def test_every_figure_is_audited_for_the_papers_numbers():
    """Issue 37: each registered figure puts the paper's printed numbers beside ours, or says why it has none."""
    figs = set(all_figures())
    assert set(PAPER_VALUES) <= figs and set(PLOTS_ONLY) <= figs
    assert not set(PAPER_VALUES) & set(PLOTS_ONLY)
    assert figs == set(PAPER_VALUES) | set(PLOTS_ONLY), figs - set(PAPER_VALUES) - set(PLOTS_ONLY)


def test_the_papers_numbers_beside_ours(quick):
    """<id>-paper.csv: one row per printed number, ours computed from the figure's own data, the ratio and the
    2x mark consistent with them, and the caption under the figure naming every far one."""
    root, _ = quick
    for fid in [f for f in PAPER_VALUES if not f.startswith("arce-")]:
        t = pd.read_csv(root / "figures" / f"{fid}-paper.csv")
        assert t.ours.notna().any(), fid
        fin = t[np.isfinite(t.ratio)]
        assert ((fin.ratio - fin.ours / fin.paper).abs() < 1e-9).all(), fid
        bound = fin.bound.astype(object).where(fin.bound.notna(), "")  # an all-NaN column is float
        met = ((bound == "over") & (fin.ratio >= 1)) | ((bound == "under") & (fin.ratio <= 1))
        assert (fin.far == (~met & (np.maximum(fin.ratio, 1 / fin.ratio) > 2))).all(), fid
        text = caption(fid, t)
        assert text and ("!" in text) == bool(t.far.any()), fid
    # Table 3's I/Os above the one every query reads: the printed 0.06 for Bush's Gets against ours
    t3 = pd.read_csv(root / "figures" / "ecotune-table3-paper.csv").set_index("quantity")
    assert t3.loc["I/Os over 1: Get Bush", "paper"] == pytest.approx(0.06)


def test_ecotune_beats_the_baselines_on_optane(quick):
    """Fig. 8's claim at the quick scale: EcoTune has the highest query throughput averaged over r at
    each core count, and the highest at every point with many long scans (r = 0.9). At r = 0.1 on 10
    cores Moose comes within a few percent of it at this small scale (1M keys), and since the CPU costs
    were calibrated for 1 KB values it edges ahead there by 1.4%."""
    df = pd.read_csv(quick[0] / "figures" / "ecotune-fig8.csv")
    mean = df.groupby(["cores", "policy"]).queries_per_s.mean().reset_index()
    best = mean.loc[mean.groupby("cores").queries_per_s.idxmax()]
    assert (best.policy == "EcoTune").all(), mean
    scans = df[df.r == df.r.max()]
    assert (scans.loc[scans.groupby("cores").queries_per_s.idxmax()].policy == "EcoTune").all(), scans
    # more long scans, fewer queries per second, for every policy
    for _, g in df.groupby(["policy", "cores"]):
        g = g.sort_values("r")
        assert g.queries_per_s.iloc[0] > g.queries_per_s.iloc[-1]


def test_table2_write_latency_as_the_paper_measured_it(quick):
    """EcoTune's Table 2 on the paper's machine (experiments/ecotune/base.yaml: one client thread, 2 reserved
    cores, cpu_speed fitted to the Optane cells' mean): every Optane cell's mean and P99 near the paper's, and
    the premise the table supports: neither the policy nor the cores for compactions move the writes (no
    stalls, the same rate). The paper's NVMe cells are 0.5 us slower than its Optane ones; lsmsim's are not
    (its WAL goes to the page cache and the write waits for no device), a gap the closing note of issue 35 names."""
    df = pd.read_csv(quick[0] / "figures" / "ecotune-table2.csv")
    assert len(df) == 18 and set(df.device) == {"optane", "nvme"} and set(df.cores) == {4, 8, 16}
    opt = df[df.device == "optane"]
    assert opt.mean_us.mean() == pytest.approx(opt.paper_mean_us.mean(), rel=0.03)
    assert ((opt.mean_us / opt.paper_mean_us - 1).abs() < 0.08).all(), opt
    assert ((opt.p99_us / opt.paper_p99_us - 1).abs() < 0.15).all(), opt
    assert (df.write_stall_s == 0).all() and (df.write_mb_per_s > 88).all(), df
    for _, g in df.groupby(["device", "policy"]):
        assert g.mean_us.max() / g.mean_us.min() < 1.02 and g.write_mb_per_s.max() / g.write_mb_per_s.min() < 1.02


@pytest.mark.parametrize("sweep", ["fig7", "fig8", "fig9", "fig9-threads", "fig10", "table9"])
@pytest.mark.parametrize("scale", ["quick", None, "paper"])
def test_ecotune_leveling_holds_the_data_in_four_levels_at_every_scale(sweep, scale):
    """Leveling, "T = 10 with four levels" (§5.1): level 3's target, 100 x max_bytes_for_level_base, holds the
    data at every scale (the base scales with the keys: experiments/ecotune/policies.yaml)."""
    from lsmsim.figures.registry import experiments_dir
    from lsmsim.sweeps import load_sweep

    sw = load_sweep(experiments_dir() / "ecotune" / f"{sweep}.yaml", scale)
    leveled = [p.config for p in sw.points if p.config.policy.name == "leveled"]
    assert leveled
    for c in leveled:
        assert (c.policy.num_levels, c.policy.max_bytes_for_level_multiplier) == (4, 10)
        data = c.workload.num * (c.workload.key_size + c.workload.value_size)
        assert 1.2 < 100 * c.policy.max_bytes_for_level_base / data < 2.0, (sweep, scale, data)


def test_ecotune_policy_files_differ_only_in_levelings_base():
    import yaml

    from lsmsim.figures.registry import experiments_dir

    d = experiments_dir() / "ecotune"
    files = [yaml.safe_load((d / f"policies{s}.yaml").read_text()) for s in ("", "-quick", "-paper")]
    for f in files:
        f["Leveling"]["policy"].pop("max_bytes_for_level_base")
    assert files[0] == files[1] == files[2] and list(files[0]) == ["EcoTune", "Leveling", "Lazy leveling", "Moose"]


def test_table9_carries_the_paper_numbers(quick):
    df = pd.read_csv(quick[0] / "figures" / "ecotune-table9.csv")
    assert set(df.device) == {"optane", "nvme"} and len(df) == 8
    row = df[(df.policy == "EcoTune") & (df.device == "optane")].iloc[0]
    assert row.paper_kops == pytest.approx(174.80)
    assert (df.kops > 0).all()


def test_fig3_orderings(quick):
    """EcoTune Fig. 3 (§4.1) at the quick scale: Bush is the slowest shape for every query type on both devices
    (its many small runs cost filter probes), 1L -> 2L speeds long scans up far more than 2L -> 3L, and Optane
    serves every query faster than the NVMe drive."""
    df = pd.read_csv(quick[0] / "figures" / "ecotune-fig3.csv")
    assert len(df) == 2 * 4 * 4
    k = df.set_index(["device", "query", "shape"]).kops
    for (dev, q), g in df.groupby(["device", "query"]):
        assert g.set_index("shape").kops.idxmin() == "Bush", (dev, q)
    for dev in ("nvme", "optane"):
        gain_large = k[dev, "Long scan", "2L"] / k[dev, "Long scan", "1L"]
        gain_small = k[dev, "Long scan", "3L"] / k[dev, "Long scan", "2L"]
        assert gain_large > 1.15 and gain_large - 1 > 3 * (gain_small - 1), (dev, gain_large, gain_small)
    assert (k["optane"] > k["nvme"]).all()


def test_table3_beside_the_paper(quick):
    """Table 3: every shape reads about one block per Get, Seek and short scan, and more runs mean more I/Os."""
    df = pd.read_csv(quick[0] / "figures" / "ecotune-table3.csv")
    assert len(df) == 12 and df.paper_ios_per_query.notna().all()
    assert df.ios_per_query.between(1.0, 1.2).all(), df
    for q, g in df.groupby("query"):
        g = g.set_index("shape")
        assert g.ios_per_query["Bush"] > g.ios_per_query["1L"] >= g.ios_per_query["3L"], q
    implied = df[df["query"] == "Get"].set_index("shape").paper_implied_fpr
    assert implied["1L"] == pytest.approx((1.009 - 1) / 15, rel=0.01)  # 16 runs: 15 filters above the last level


def test_tables5_8_solved_layouts(quick):
    """Tables 5-8: each table's layouts from lsmsim's last round and from the paper; ours are valid schedules of
    R = 29 TMCs solved with positive measured T_w and T_c, and the paper's rows are its printed MLCs."""
    from lsmsim.policies.ecotune import PAPER_TABLES

    df = pd.read_csv(quick[0] / "figures" / "ecotune-tables5-8.csv")
    assert set(df.table) == {5, 6, 7, 8}
    for table, g in df.groupby("table"):
        paper = g[g.source == "paper"]
        assert list(paper[paper.mlc_units > 0].tmc) == [m[0] for m in PAPER_TABLES[table]["merges"]]
        ours = g[g.source == "lsmsim"]
        assert (ours.T_w_s > 0).all() and (ours.T_c_s > 0).all()
        last = ours[ours.tmc == 29]
        assert len(last) == 1 and sum(map(int, last.layout_after.iloc[0].split())) == 29


def test_spooky_partial_merge_has_more_gc(quick):
    """Fig. 7A / 13C-D: partial merge's GC write-amp multiplies its total; full merge and Spooky write large files in
    key order and see almost none, so Spooky's total is lower. Fig. 7B / 13A: full merge peaks near twice Spooky's
    physical size on the same data."""
    df = pd.read_csv(quick[0] / "figures" / "spooky-gc.csv")
    last = df.groupby("policy").tail(1).set_index("policy")
    partial, full, spooky = (last.loc[[p for p in last.index if p.startswith(k)][0]] for k in ("partial", "full", "sp"))
    assert partial.gc_write_amp > 1.3 > 1.1 > max(full.gc_write_amp, spooky.gc_write_amp)
    assert partial.total_write_amp == pytest.approx(partial.compaction_write_amp * partial.gc_write_amp, rel=0.02)
    assert spooky.total_write_amp < partial.total_write_amp
    peak = df.groupby("policy").physical_gb.max()
    assert peak[spooky.name] < 0.6 * peak[full.name]


def test_spooky_fig6_orderings_and_models(quick):
    """Fig. 6: Full Merge writes less than Partial Merge as data grows (A) and at small T (B), its write-amp falls
    with T while Partial Merge's has a floor; Spooky sits between (Eq. 10's +1). Eq. 4 within 15% here."""
    a = pd.read_csv(quick[0] / "figures" / "spooky-fig6a.csv")
    big = a[a.N_over_B == a.N_over_B.max()].set_index("granularity").write_amp
    assert big["Full Merge"] < big["Spooky X=L-2"] < big["Partial Merge"]
    b = pd.read_csv(quick[0] / "figures" / "spooky-fig6b.csv")
    full = b[b.granularity == "Full Merge"].set_index("T")
    partial = b[b.granularity == "Partial Merge"].set_index("T").write_amp
    assert full.write_amp[2] < 0.6 * partial[2] and full.write_amp[2] < full.write_amp[10]
    assert partial.max() - partial.min() < full.write_amp.max() - full.write_amp.min()
    assert ((full.write_amp / full.model_write_amp - 1).abs() < 0.15).all()


def test_spooky_fig14d_x_sweep_hits_both_limits(quick):
    """Fig. 14(D): X = L-1 runs out of space, X = L-4 out of file descriptors; L-2 and L-3 finish, and L-3 needs
    less room than L-2 (space falls with X at a diminishing rate)."""
    df = pd.read_csv(quick[0] / "figures" / "spooky-fig14d.csv")
    by_x = df.groupby("X").agg(end=("ended_by", "first"), peak=("physical_mb", "max"), files=("open_files", "max"))
    assert list(by_x.end) == ["disk_full", "phases", "phases", "open_files_limit"]
    assert by_x.peak["L-3"] < by_x.peak["L-2"] and by_x.files["L-3"] < 1024 < by_x.files["L-4"]


def test_spooky_fig15_larger_files_run_out_of_space(quick):
    """Fig. 15(A): with the paper's two largest file-to-data ratios Partial Merge outgrows the room ext4 leaves
    (fig15.yaml), as its 10 GB and 5 GB runs crashed; 64 MB files finish, and 2 GB-like files peak higher (their
    merges, and the finished merges' inputs that running ones hold, take more at once). With the paper's RocksDB
    cutting files at the target size (before 7.8), the 2 GB-like run finishes at the default scale (216.8 of
    220 MB, as the paper's) but not at this scale's N/B of 1,000 (88.2 of 88 MB): that point is not asserted."""
    df = pd.read_csv(quick[0] / "figures" / "spooky-fig15.csv")
    by_size = df.groupby("file size", sort=False).agg(end=("ended_by", "first"), peak=("physical_mb", "max"))
    assert by_size.end[["1MB", "500KB", "64KiB"]].to_dict() == {
        "1MB": "disk_full",
        "500KB": "disk_full",
        "64KiB": "phases",
    }
    assert by_size.peak["200KB"] > 1.02 * by_size.peak["64KiB"]


def test_spooky_fig15b_large_files_still_pay_for_gc(quick):
    """Fig. 15(B): with 2 GB-like files (16 buffers, 2 erase units at the quick scale) Partial Merge's GC write-amp
    is lower than with 64 MB-like ones but still well above Spooky's, and so is its total write-amp (Eq. 2)."""
    t = pd.read_csv(quick[0] / "figures" / "spooky-fig15b.csv").groupby("granularity").last()  # the run's end
    names = ("Partial Merge, 64 MB files", "Partial Merge, 2 GB files", "Spooky X=L-2")
    small, large, spooky = (t.loc[k] for k in names)
    assert (t.ended_by == "phases").all()
    assert spooky.gc_write_amp < 1.02 < 1.1 < large.gc_write_amp < small.gc_write_amp
    assert spooky.total_write_amp < 0.9 * large.total_write_amp


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


def test_spooky_fig1_utilization_limits(quick):
    """Fig. 1: Full Merge cannot store data at 50% utilization; Spooky runs at 80% without GC overhead; Partial
    Merge's GC write-amp climbs with utilization."""
    df = pd.read_csv(quick[0] / "figures" / "spooky-fig1.csv").set_index(["granularity", "utilization"])
    assert (df.loc["Full Merge"].ended_by[df.loc["Full Merge"].index >= 0.5] == "disk_full").all()
    assert df.loc[("Spooky X=L-2", 0.8)].ended_by == "phases" and df.loc[("Spooky X=L-2", 0.8)].gc_write_amp < 1.05
    partial = df.loc["Partial Merge"].gc_write_amp
    assert partial[0.65] > partial[0.3] + 0.1


def test_spooky_fig13_spooky_against_partial_merge(quick):
    """Fig. 13: on the same data Spooky needs no more room than Partial Merge (A), its GC overhead is a fraction of
    Partial Merge's (C) and so is its total write-amp (D); reads beside the writer run faster (E). Full Merge
    holds less data (369/644). Zipfian updates (G-H, E bottom): reads still faster than Partial Merge's."""
    t = pd.read_csv(quick[0] / "figures" / "spooky-fig13.csv").set_index("granularity")
    spooky, partial, full = t.loc["Spooky X=L-2"], t.loc["Partial Merge"], t.loc["Full Merge"]
    assert spooky.physical_gb_peak <= 1.05 * partial.physical_gb_peak and full.logical_gb < 0.6 * spooky.logical_gb
    assert spooky.gc_write_amp - 1 < 0.5 * (partial.gc_write_amp - 1)
    assert spooky.total_write_amp < partial.total_write_amp and spooky.get_ops_per_s > 1.3 * partial.get_ops_per_s
    z = pd.read_csv(quick[0] / "figures" / "spooky-fig13gh.csv").set_index("granularity")
    assert z.loc["Spooky X=L-2"].get_ops_per_s > z.loc["Partial Merge"].get_ops_per_s


def test_spooky_fig14_every_merge_policy(quick):
    """Fig. 14(A-C): for leveling, lazy leveling and tiering, Spooky cuts Full Merge's transient space-amp to a
    fraction without a large change in write-amp."""
    df = pd.read_csv(quick[0] / "figures" / "spooky-fig14.csv").set_index(["layout", "granularity"])
    for layout in ("leveling", "lazy leveling", "tiering"):
        full, spooky = df.loc[(layout, "Full Merge")], df.loc[(layout, "Spooky")]
        assert spooky.space_amp_transient_peak < 0.2 * full.space_amp_transient_peak
        assert abs(spooky.write_amp / full.write_amp - 1) < 0.25


def test_figures_are_resumed_not_rerun(quick):
    root, _ = quick
    points = sorted((root / "results" / "spooky-gc-quick" / "points").glob("*/summary.json"))
    before = [p.stat().st_mtime_ns for p in points]
    make_figures(
        only=["spooky-gc"],
        out=root / "again",
        results=root / "results",
        scale="quick",
        jobs=1,
        progress=False,
        log=lambda *a: None,
    )
    assert (root / "again" / "spooky-gc.png").stat().st_size > 500
    assert len(points) == 3 and [p.stat().st_mtime_ns for p in points] == before


def test_unknown_figure_and_list():
    with pytest.raises(LsmsimError, match="available: .*ecotune-fig7"):
        make_figures(only=["nope"], progress=False)
    r = subprocess.run([sys.executable, "-m", "lsmsim.cli", "figures", "--list"], capture_output=True, text=True)
    assert r.returncode == 0 and "ecotune-fig9" in r.stdout and "spooky-gc" in r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "lsmsim.cli", "figures", "--only", "nope"], capture_output=True, text=True
    )
    assert r.returncode == 2 and "unknown figure nope" in r.stderr and "Traceback" not in r.stderr
