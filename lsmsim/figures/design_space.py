"""Sarkar et al. PVLDB'21 (the compaction design space), §5: the strategies of Table 2 side by side."""

from __future__ import annotations

import re

import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure

from .. import units
from ..plots import OKABE_ITO
from .registry import figure


def _color(i: int):
    """The strategies' lines: Okabe and Ito's colour-blind-safe palette, then tab10's."""
    return OKABE_ITO[i] if i < len(OKABE_ITO) else colormaps["tab10"](i - len(OKABE_ITO))


def _strategy_lines(axes, df: pd.DataFrame, x: str, panels, xlabel: str, **axis_kw) -> None:
    """On each axis, one line per strategy of `df` (in its order): column `x` against a panel's (column, scale,
    label). Up to eleven strategies, in tab20's colours."""
    for a, (col, scale, label) in zip(axes, panels):
        for i, (name, g) in enumerate(df.groupby("strategy", sort=False)):
            a.plot(g[x], g[col] * scale, marker="os^Dv"[i % 5], color=_color(i), label=name)
        a.set(xlabel=xlabel, ylabel=label, **axis_kw)
        a.grid(alpha=0.3)


def _line_figure(df: pd.DataFrame, x: str, panels, xlabel: str) -> Figure:
    """One row of panels, a line per strategy on each (`_strategy_lines`), the legend on the first."""
    fig = Figure(figsize=(15, 3.8))
    ax = fig.subplots(1, len(panels))
    _strategy_lines(ax, df, x, panels, xlabel)
    ax[0].legend(fontsize=6)
    fig.tight_layout()
    return fig


# Fig. 4(a): Full moves 63x the data ingested (32x read, 31x written), Tier 23x; partial leveling 34-56% less than Full
PAPER_DATA_MOVEMENT = {"Full": 63.0, "Tier": 23.0}
# the paper's own code (BU-DiSC/LSM-Compaction-Analysis, built and run at the paper's setting, 10M entries): its
# kFullLevel Full (lsmsim's `full_as: code`, variant Full-code) moves 33.1x, its LO+1 36.7x (docs/paper-scale/README.md)
PAPER_CODE_DATA_MOVEMENT = {"Full-code": 33.1, "LO+1": 36.7}


@figure(
    "design-space-fig4",
    "Design space Fig. 4(a-h): data movement, compactions, compaction and write latency, lookups by alpha, scans",
    "design-space/fig4.yaml",
    "PVLDB'21 §5.1, Fig. 4",
)
def loading_and_lookups(res):
    rows = []
    for _, r in res.table.iterrows():
        s = res.point(r.point_id)["summary"]
        ub = s["user_bytes"]
        row = {
            "strategy": r.variant,
            "data_movement": s["data_movement"],
            "movement_read": s["compaction_read_bytes"] / ub,
            "movement_write": s["compaction_write_bytes"] / ub,
            "paper_data_movement": PAPER_DATA_MOVEMENT.get(r.variant, float("nan")),
            "paper_code_data_movement": PAPER_CODE_DATA_MOVEMENT.get(r.variant, float("nan")),
            "compactions": s["compactions"],
            "trivial_moves": s["trivial_moves"],
            **{f"compaction_{k}_s": s[f"compaction_latency_{k}_s"] for k in ("mean", "p50", "p90", "p99", "max")},
            "write_p99_s": s["latency_write_p99_s"],
            "write_p999_s": s["latency_write_p999_s"],
            "sorted_runs": s["sorted_runs"],
        }
        for key, value in s.items():  # one scan thread: (g) mean scan latency = 1 / the phase's throughput
            m = re.fullmatch(r"phase_scan-([0-9.]+)_ops_per_s", key)
            if m and value > 0:
                row[f"scan_{m.group(1)}_s"] = 1.0 / value
        for key, value in s.items():  # per alpha phase: (e) mean and (h) P90 lookup latency, (f) read amplification
            m = re.fullmatch(r"phase_alpha-([0-9.]+)_(lookup_mean_s|lookup_p90_s|read_amp)", key)
            if m:
                name = {"lookup_mean_s": "lookup", "lookup_p90_s": "lookup_p90", "read_amp": "read_amp"}[m.group(2)]
                row[f"{name}_alpha_{m.group(1)}" + ("" if name == "read_amp" else "_s")] = value
        rows.append(row)
    df = pd.DataFrame(rows)
    fig = Figure(figsize=(17, 7))
    ax = fig.subplots(2, 4).ravel()
    x = range(len(df))
    ax[0].bar(x, df.movement_read, label="read")
    ax[0].bar(x, df.movement_write, bottom=df.movement_read, label="written")
    ax[0].scatter(x, df.paper_data_movement, marker="x", color="k", zorder=3, label="paper")
    ax[0].scatter(x, df.paper_code_data_movement, marker="+", color="r", zorder=3, label="paper's code, 10M")
    ax[0].set_ylabel("(a) data movement / data ingested")
    ax[0].legend(fontsize=7)
    ax[1].bar(x, df.compactions)
    ax[1].set_ylabel("(b) compactions")
    for k, stat in enumerate(("mean", "p50", "p90", "p99", "max")):
        ax[2].scatter(x, df[f"compaction_{stat}_s"] * 1e3, marker="o^sDv"[k], label=stat.upper())
    ax[2].set(ylabel="(c) compaction latency (ms)", yscale="log")
    ax[2].legend(fontsize=7)
    ax[3].bar(x, df.write_p999_s * 1e3)
    ax[3].set_ylabel("(d) P99.9 write latency (ms)")
    for a, prefix, scale, label in (
        (ax[4], "lookup_alpha_", 1e6, "(e) mean lookup latency (us)"),
        (ax[5], "read_amp_alpha_", 1.0, "(f) read amplification (pages / found key)"),
        (ax[6], "lookup_p90_alpha_", 1e6, "(h) P90 lookup latency (us)"),
    ):
        cols = sorted(c for c in df.columns if c.startswith(prefix))
        for _, r in df.iterrows():
            a.plot(
                [float(c[len(prefix) :].removesuffix("_s")) for c in cols],
                [r[c] * scale for c in cols],
                label=r.strategy,
            )
        a.set(xlabel="alpha (share of empty lookups)", ylabel=label)
    ax[4].legend(fontsize=6)
    scans = sorted((c for c in df.columns if c.startswith("scan_")), key=lambda c: float(c[5:-2]))
    for _, r in df.iterrows():
        ax[7].plot([float(c[5:-2]) for c in scans], [r[c] * 1e3 for c in scans], marker="o", label=r.strategy)
    ax[7].set(
        xlabel="range-scan selectivity (share of the keys)", ylabel="(g) mean range-scan latency (ms)", xscale="log"
    )
    for a in ax[:4]:
        a.set_xticks(list(x), df.strategy, rotation=45, fontsize=7)
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    return fig, df


@figure(
    "design-space-fig8",
    "Design space Fig. 8(e-g): deletes of existing keys, tombstones left, space-amp, data movement by delete share",
    "design-space/fig8-deletes.yaml",
    "PVLDB'21 §5.2.4, Fig. 8(e-g)",
)
def deletes(res):
    t = res.table
    df = pd.DataFrame(
        {
            "strategy": t["variant"],
            "delete_share": t["workload.phases.0.mix.delete"],
            "tombstones_remaining": t["tombstones_remaining"],
            "space_amp": t["space_amp_durable"],
            "data_movement": t["data_movement"],
            "deletes_persisted": t["deletes_persisted"],
            "delete_persistence_p50_s": t["delete_persistence_p50_s"],
            "delete_persistence_max_s": t["delete_persistence_max_s"],
        }
    ).sort_values(["strategy", "delete_share"], ignore_index=True)
    panels = (
        ("tombstones_remaining", 1.0, "(e) tombstones left"),
        ("space_amp", 1.0, "(f) space-amp (obsolete / live)"),
        ("data_movement", 1.0, "(g) data movement"),
        ("delete_persistence_max_s", 1.0, "delete persistence, max (s)"),
    )
    return _line_figure(df, "delete_share", panels, "share of deletes"), df


@figure(
    "design-space-fig5",
    "Design space Fig. 5: serial against interleaved inserts and lookups, compactions, writes and lookups",
    "design-space/fig5-mixed.yaml",
    "PVLDB'21 §5.1.3, Fig. 5",
)
def mixed_workloads(res):
    rows = []
    for _, r in res.table.iterrows():
        s = res.point(r.point_id)["summary"]
        rows.append(
            {
                "strategy": r.variant,
                "execution": r.execution,
                "alpha": r.alpha,
                "compaction_mean_s": s["compaction_latency_mean_s"],
                "write_mean_s": s["latency_write_mean_s"],
                "write_amp": s["write_amp"],
                "write_p999_s": s["latency_write_p999_s"],
                "lookup_mean_s": s["phase_lookups_lookup_mean_s"],
            }
        )
    df = pd.DataFrame(rows)
    fig = Figure(figsize=(17, 3.8))
    ax = fig.subplots(1, 5)
    strategies = list(dict.fromkeys(df.strategy))
    x = range(len(strategies))
    panels = (
        ("compaction_mean_s", 1e3, "(a) mean compaction latency (ms)"),
        ("write_mean_s", 1e6, "(b) mean write latency (us)"),
        ("write_amp", 1.0, "(c) write amplification"),
        ("write_p999_s", 1e3, "(d) P99.9 write latency (ms)"),
    )
    for a, (col, scale, label) in zip(ax, panels):
        for k, mode in enumerate(("serial", "interleaved")):
            g = df[(df.execution == mode) & (df.alpha == 0.0)].set_index("strategy").reindex(strategies)
            a.bar([i + 0.4 * k - 0.2 for i in x], g[col] * scale, width=0.4, label=mode)
        a.set_ylabel(label)
    for k, (mode, alpha) in enumerate((("serial", 0.0), ("interleaved", 0.0), ("serial", 1.0), ("interleaved", 1.0))):
        g = df[(df.execution == mode) & (df.alpha == alpha)].set_index("strategy").reindex(strategies)
        ax[4].bar([i + 0.2 * k - 0.3 for i in x], g.lookup_mean_s * 1e6, width=0.2, label=f"{mode}, alpha {alpha:g}")
    ax[4].set_ylabel("(e) mean lookup latency (us)")
    ax[0].legend(fontsize=7)
    ax[4].legend(fontsize=6)
    for a in ax:
        a.set_xticks(list(x), strategies, rotation=45, fontsize=7)
        a.grid(alpha=0.3)
    fig.tight_layout()
    return fig, df


@figure(
    "design-space-fig6",
    "Design space Fig. 6: uniform, PrefixZipf and normal inserts, data movement, compactions, lookups",
    "design-space/fig6-ingestion.yaml",
    "PVLDB'21 §5.2.1, Fig. 6",
)
def ingestion_distributions(res):
    t = res.table
    df = pd.DataFrame(
        {
            "strategy": t["variant"],
            "inserts": t["insert_keys"],
            "data_movement": t["data_movement"],
            "compaction_mean_s": t["compaction_latency_mean_s"],
            "live_entries": t["live_entries"],
            **{f"lookup_alpha_{a}_s": t[f"phase_alpha-{a}_lookup_mean_s"] for a in ("0.0", "0.4", "0.8")},
            **{f"read_amp_alpha_{a}": t[f"phase_alpha-{a}_read_amp"] for a in ("0.0", "0.4", "0.8")},
        }
    )
    strategies = list(dict.fromkeys(df.strategy))
    dists = list(dict.fromkeys(df.inserts))
    fig = Figure(figsize=(15, 3.8))
    ax = fig.subplots(1, 4)
    panels = (
        ("data_movement", 1.0, "(a) data movement / data ingested"),
        ("compaction_mean_s", 1e3, "(b) mean compaction latency (ms)"),
        ("lookup_alpha_0.8_s", 1e6, "(c) mean lookup latency, alpha 0.8 (us)"),
        ("read_amp_alpha_0.8", 1.0, "(d) read amplification, alpha 0.8"),
    )
    width = 0.8 / len(dists)
    for a, (col, scale, label) in zip(ax, panels):
        for k, dist in enumerate(dists):
            g = df[df.inserts == dist].set_index("strategy").reindex(strategies)
            a.bar(
                [i + width * (k - (len(dists) - 1) / 2) for i in range(len(strategies))],
                g[col] * scale,
                width,
                label=dist,
            )
        a.set_ylabel(label)
        a.set_xticks(range(len(strategies)), strategies, rotation=45, fontsize=7)
        a.grid(alpha=0.3)
    ax[0].legend(fontsize=7)
    fig.tight_layout()
    return fig, df


PAPER_FIG7 = (
    "paper (no numbers in its text): Zipfian lookups are fast for every strategy (the block cache holds the popular "
    "blocks, low read amp.); with normal lookups LO+1 and LO+2 are fastest and Tier clearly slowest"
)


@figure(
    "design-space-fig7",
    "Design space Fig. 7: Zipfian and normal point lookups on uniform data, latency and read amplification by alpha",
    "design-space/fig7-lookups.yaml",
    "PVLDB'21 §5.2.2, Fig. 7",
)
def lookup_distributions(res):
    rows = []
    for _, r in res.table.iterrows():
        s = res.point(r.point_id)["summary"]
        for key, value in s.items():
            m = re.fullmatch(r"phase_(zipf|normal)-([0-9.]+)_(lookup_mean_s|read_amp)", key)
            if m:
                rows.append(
                    {"strategy": r.variant, "lookups": m.group(1), "alpha": float(m.group(2)), m.group(3): value}
                )
    df = pd.DataFrame(rows).groupby(["strategy", "lookups", "alpha"], sort=False).first().reset_index()
    fig = Figure(figsize=(15, 3.8))
    ax = fig.subplots(1, 4)
    panels = (
        ("zipf", "lookup_mean_s", 1e6, "(a) Zipfian: mean lookup (us)"),
        ("zipf", "read_amp", 1.0, "(b) Zipfian: read amp."),
        ("normal", "lookup_mean_s", 1e6, "(c) normal: mean lookup (us)"),
        ("normal", "read_amp", 1.0, "(d) normal: read amp."),
    )
    for a, (dist, *panel) in zip(ax, panels):
        _strategy_lines([a], df[df.lookups == dist], "alpha", [panel], "alpha (share of empty lookups)")
    ax[0].legend(fontsize=6)
    # the paper gives Fig. 7 as plots only, no numbers in its text: its findings (§5.2.2), beside ours
    fig.text(0.5, 0.005, PAPER_FIG7, ha="center", va="bottom", fontsize=7, style="italic")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig, df


@figure(
    "design-space-fig8-updates",
    "Design space Fig. 8(a-d): the update-to-insert ratio, compaction latency, write-amp, lookups",
    "design-space/fig8-updates.yaml",
    "PVLDB'21 §5.2.3, Fig. 8(a-d)",
)
def updates(res):
    t = res.table
    df = pd.DataFrame(
        {
            "strategy": t["variant"],
            "update_ratio": t["update_ratio"],
            "compaction_mean_s": t["compaction_latency_mean_s"],
            "write_amp": t["write_amp"],
            "compaction_p99_s": t["compaction_latency_p99_s"],
            "lookup_mean_s": t["phase_ingest_lookup_mean_s"],
            "data_movement": t["data_movement"],
            "live_entries": t["live_entries"],
        }
    ).sort_values(["strategy", "update_ratio"], ignore_index=True)
    panels = (
        ("compaction_mean_s", 1e3, "(a) mean compaction latency (ms)"),
        ("write_amp", 1.0, "(b) write amplification"),
        ("compaction_p99_s", 1e3, "(c) P99 compaction latency (ms)"),
        ("lookup_mean_s", 1e6, "(d) mean lookup latency (us)"),
    )
    return _line_figure(df, "update_ratio", panels, "update-to-insert ratio"), df


# Fig. 8(h-r): per knob, its panels (summary column, scale, label); the base point joins every knob's line
TUNING = {
    "data": (
        "data size (entries)",
        [
            ("compaction_mean_s", 1e3, "(h) mean compaction (ms)"),
            ("write_amp", 1.0, "(i) write-amp"),
            ("compaction_p99_s", 1e3, "(j) P99 compaction (ms)"),
        ],
    ),
    "entry": (
        "entry size (B)",
        [("compaction_mean_s", 1e3, "(k) mean compaction (ms)"), ("write_amp", 1.0, "(l) write-amp")],
    ),
    "buffer": (
        "buffer size (B)",
        [
            ("compaction_mean_s", 1e3, "(m) mean compaction (ms)"),
            ("compaction_p99_s", 1e3, "(n) P99 compaction (ms)"),
            ("write_amp", 1.0, "(o) write-amp"),
            ("lookup_mean_s", 1e6, "(p) mean lookup (us)"),
        ],
    ),
    "page": (
        "page size (B)",
        [
            ("compaction_mean_s", 1e3, "(q) mean compaction (ms)"),
            ("pages_per_lookup", 1.0, "(r) device pages per lookup"),
        ],
    ),
}


@figure(
    "design-space-fig8-tuning",
    "Design space Fig. 8(h-r): data size, entry size, buffer size and page size against each strategy",
    "design-space/fig8-tuning.yaml",
    "PVLDB'21 §5.2.5-5.3, Fig. 8(h-r)",
)
def tuning(res):
    t = res.table
    df = pd.DataFrame(
        {
            "strategy": t["variant"],
            "axis": t["axis"],
            "x": t["x"].astype(float),
            "compaction_mean_s": t["compaction_latency_mean_s"],
            "compaction_p99_s": t["compaction_latency_p99_s"],
            "write_amp": t["write_amp"],
            "lookup_mean_s": t["phase_lookups_lookup_mean_s"],
            "pages_per_lookup": t["phase_lookups_pages_per_lookup"],
        }
    )
    base = t[t["axis"] == "base"].iloc[0]
    base_x = {
        "data": float(base["workload.num"]),
        "entry": float(base["workload.value_size"]) + 4.0,  # the 4 B keys of every point
        "buffer": float(units.parse_size(base["lsm.write_buffer_size"])),
        "page": float(units.parse_size(base["lsm.block_size"])),
    }
    parts = [df[df.axis != "base"]]
    for axis, x in base_x.items():
        parts.append(df[df.axis == "base"].assign(axis=axis, x=x))
    df = pd.concat(parts, ignore_index=True).sort_values(["axis", "strategy", "x"], ignore_index=True)
    fig = Figure(figsize=(17, 13))
    grid = fig.subplots(4, 4)
    for row, (axis, (xlabel, panels)) in zip(grid, TUNING.items()):
        _strategy_lines(row, df[df.axis == axis], "x", panels, xlabel, xscale="log")
        for a in row[len(panels) :]:
            a.set_visible(False)
    grid[0][0].legend(fontsize=6)
    fig.tight_layout()
    return fig, df
