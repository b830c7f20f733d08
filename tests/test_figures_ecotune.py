"""EcoTune's figures and tables (SIGMOD'25; lsmsim/figures/ecotune.py) at quick scale (what CI runs):
every figure is drawn from its sweep, and the drawn data keep the paper's headline orderings."""

import pandas as pd
import pytest

from tests.figure_checks import (  # noqa: F401 (the shared tests, run as this file's)
    test_every_figure_is_written,
    test_every_figures_sweep_loads_at_quick_scale,
    test_the_papers_numbers_beside_ours,
)

PAPER = "ecotune"


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
    # Table 3's I/Os above the one every query reads: the printed 0.06 for Bush's Gets, beside ours
    t3 = pd.read_csv(quick[0] / "figures" / "ecotune-table3-paper.csv").set_index("quantity")
    assert t3.loc["I/Os over 1: Get Bush", "paper"] == pytest.approx(0.06)


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
