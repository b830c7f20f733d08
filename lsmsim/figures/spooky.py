"""Spooky PVLDB'22 Figs. 7 and 13(A-D), scaled down: compaction, GC and total write-amp over time (total =
compaction x GC, Spooky Eq. 2) and the physical size (its peak in each sample interval, as Fig. 7B's sawtooth)
for RocksDB-style partial merge, full-level merge and Spooky at ~85% device utilisation."""

from __future__ import annotations

import math
import re

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from .registry import figure


@figure(
    "spooky-gc",
    "Spooky Figs. 7 and 13(A-D): write-amp and physical size over time, partial vs full merge vs Spooky",
    "spooky/gc.yaml",
    "PVLDB'22 §3 Fig. 7, §6 Fig. 13(A-D)",
)
def gc_over_time(res):
    frames = []
    for _, row in res.table.iterrows():
        ts = res.point(row.point_id)["timeseries"]
        frames.append(
            pd.DataFrame(
                {
                    "policy": row.variant,
                    "time_s": ts["time"],
                    "phase": ts["phase"],
                    "compaction_write_amp": ts["write_amp"],
                    "gc_write_amp": ts["gc_write_amp"],
                    "total_write_amp": ts["total_write_amp"],
                    "physical_gb": ts["physical_bytes_peak"] / 1e9,
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    fig = Figure(figsize=(4 * len(frames), 6.4))
    grid = fig.subplots(2, len(frames), sharey="row", squeeze=False)
    axes = grid[0]
    for ax, size_ax, (label, g) in zip(axes, grid[1], df.groupby("policy", sort=False)):
        size_ax.plot(g.time_s, g.physical_gb, color="tab:gray")
        size_ax.set_xlabel("simulated time (s)")
        size_ax.grid(alpha=0.3)
        ax.plot(g.time_s, g.compaction_write_amp, label="compaction write-amp")
        ax.plot(g.time_s, g.gc_write_amp, label="GC write-amp")
        ax.plot(g.time_s, g.total_write_amp, label="total (Eq. 2)")
        ax.set_title(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("write-amp (cumulative)")
    grid[1][0].set_ylabel("physical size, peak (GB)")
    axes[0].legend()
    fig.tight_layout()
    return fig, df


# ---------------------------------------------------------------------------------------------- Figs. 6 and 9
GRANULARITIES = ["Full Merge", "Spooky X=L-2", "Partial Merge"]


def model_write_amp(granularity: str, T: float, L: int) -> float:
    """Spooky's write-amp models, + 1 for the flush to rLevel 0 (§5): Eq. 4 (Full Merge), Eq. 5 (Partial Merge),
    Eq. 10 with X < L (Spooky)."""
    if granularity.startswith("Full"):
        return 1 + (T - 1) / 2 * L
    if granularity.startswith("Partial"):
        return 1 + (T + 1) / 2 * L
    return 1 + (T - 1) / 2 * L + 1


def model_space_amp(granularity: str, T: float, L: int, X: int | None = None) -> float:
    """Eq. 7 (Full Merge), Eq. 6 (Partial Merge), Eq. 11 (Spooky; Eq. 9 at X = L-1)."""
    if granularity.startswith("Full"):
        return 2 + 1 / (T - 1)
    if granularity.startswith("Partial"):
        return 1 + 1 / (T - 1)
    x = L - 1 if X is None else X
    return 1 + T ** -(L - x) + 1 / (T - 1)


def _wa_table(res) -> pd.DataFrame:
    """One row per point: granularity, T, N/B (flushes), levels L, measured write-amp (stored-bytes units, the
    flush's 1 included) and the model's."""
    t = res.table
    files = [c for c in t.columns if c.startswith("files_L") and c != "files_L0"]
    rows = []
    for _, r in t.iterrows():
        gran = next(g for g in GRANULARITIES if str(r.variant).startswith(g))
        m = re.search(r"T=(\d+(?:\.\d+)?)", str(r.variant))
        T = float(m.group(1)) if m else 5.0  # variants without T= are policies-wa.yaml's, at T = 5
        L = int(r.policy_levels) if pd.notna(r.get("policy_levels")) else int((r[files] > 0).sum())
        rows.append(
            {
                "granularity": gran,
                "T": T,
                "N_over_B": int(r.flushes),
                "levels": L,
                "write_amp": r.write_amp / r.write_amp_flush,
                "model_write_amp": model_write_amp(gran, T, L),
                "space_amp_peak": r.space_amp_peak,
            }
        )
    return pd.DataFrame(rows).sort_values(["granularity", "T", "N_over_B"], ignore_index=True)


def _wa_plot(df: pd.DataFrame, x: str, xlabel: str):
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for i, g in enumerate(GRANULARITIES):
        d = df[df.granularity == g]
        ax.plot(d[x], d.write_amp, marker="o", color=f"C{i}", label=f"{g} (measured)")
        ax.plot(d[x], d.model_write_amp, ls="--", color=f"C{i}", label=f"{g} (model)")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("compaction write-amp (+1 flush)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig, df


@figure(
    "spooky-fig6a",
    "Spooky Fig. 6(A): write-amp vs data size N/B, Full vs Partial Merge vs Spooky, with Eqs. 4, 5, 10",
    "spooky/fig6a.yaml",
    "PVLDB'22 §3, Fig. 6(A)",
)
def wa_vs_data_size(res):
    fig, df = _wa_plot(_wa_table(res), "N_over_B", "N/B (buffer flushes)")
    ax = fig.axes[0]
    ax.set_xscale("log")
    # plain numbers (60, 200, 3,500), not 6x10^1: the log axis's default minor labels
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if f"{v:.0e}"[0] in "25" else ""))
    return fig, df


@figure(
    "spooky-fig6b",
    "Spooky Fig. 6(B): write-amp vs size ratio T, Full vs Partial Merge vs Spooky, with Eqs. 4, 5, 10",
    "spooky/fig6b.yaml",
    "PVLDB'22 §3, Fig. 6(B)",
)
def wa_vs_size_ratio(res):
    return _wa_plot(_wa_table(res), "T", "size ratio T")


@figure(
    "spooky-fig9",
    "Spooky Fig. 9: the models (Eqs. 4-9) at N = 1 TB, B = 64 MB, with fig6b's write-amp measurements",
    "spooky/fig6b.yaml",
    "PVLDB'22 §4.1, Fig. 9",
)
def models(res):
    measured = _wa_table(res)
    Ts = [2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16]
    n_over_b = 2**40 / 2**26
    rows = []
    for T in Ts:
        L = max(1, math.ceil(math.log(n_over_b) / math.log(T)))
        for g in ("Full Merge", "2L-Spooky", "Partial Merge"):
            rows.append(
                {
                    "granularity": g,
                    "T": T,
                    "levels": L,
                    "model_write_amp": model_write_amp(g, T, L) - 1,  # the paper's models leave out the flush
                    "model_utilization": 1 / model_space_amp(g, T, L),
                }
            )
    df = pd.DataFrame(rows)
    fig = Figure(figsize=(10, 3.8))
    wa_ax, util_ax = fig.subplots(1, 2)
    for i, g in enumerate(("Full Merge", "2L-Spooky", "Partial Merge")):
        d = df[df.granularity == g]
        wa_ax.plot(
            d["T"], d.model_write_amp, color=f"C{i}", label=f"{g} (Eq. {'4' if i == 0 else '8' if i == 1 else '5'})"
        )
        util_ax.plot(
            d["T"], d.model_utilization, color=f"C{i}", label=f"{g} (Eq. {'7' if i == 0 else '9' if i == 1 else '6'})"
        )
    # fig6b's runs beside (A) only: their N/B is the sweep's, not 16K, and unique inserts leave no obsolete
    # versions, so their space-amp says nothing of the worst-case durable term in (B)
    n = int(measured.N_over_B.median())
    for i, g in enumerate(GRANULARITIES):
        m = measured[measured.granularity == g]
        wa_ax.scatter(m["T"], m.write_amp - 1, color=f"C{i}", marker="x", label=f"{g}, measured at N/B = {n}")
    wa_ax.set(xlabel="size ratio T", ylabel="compaction write-amp", title="(A) write-amp, N = 1 TB, B = 64 MB")
    util_ax.set(xlabel="size ratio T", ylabel="storage utilization (1 / space-amp)", title="(B) utilization")
    for ax in (wa_ax, util_ax):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    fig.tight_layout()
    return fig, pd.concat([df.assign(source="model"), measured.assign(source="measured")], ignore_index=True)


def _limits_over_time(res, param: str, name: str):
    """Physical size and open files over time, one line per value of `param` (column `name`), with the device
    capacity and the open-file limit the runs that hit one recorded in their `events` row."""
    frames = []
    for _, row in res.table.iterrows():
        p = res.point(row.point_id)
        ts, events = p["timeseries"], p["events"]
        frames.append(
            pd.DataFrame(
                {
                    name: row[param],
                    "ended_by": row.ended_by,
                    "time_s": ts["time"],
                    "physical_mb": ts["physical_bytes_peak"] / 1e6,
                    "logical_mb": ts["logical_bytes"] / 1e6,
                    "open_files": ts["open_files"],
                    "capacity_mb": float(events.capacity_bytes.iloc[0]) / 1e6 if len(events) else float("nan"),
                    "open_files_limit": int(events.open_files_limit.iloc[0]) if len(events) else -1,
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    fig = Figure(figsize=(10, 3.8))
    size_ax, files_ax = fig.subplots(1, 2)
    for value, g in df.groupby(name, sort=False):
        end = g.ended_by.iloc[0]
        label = f"{name} = {value}" + ("" if end == "phases" else f" (ended: {end})")
        size_ax.plot(g.time_s, g.physical_mb, label=label)
        files_ax.plot(g.time_s, g.open_files, label=label)
    cap, lim = df.capacity_mb.dropna(), df.open_files_limit[df.open_files_limit > 0]
    if len(cap):
        size_ax.axhline(cap.iloc[0], color="k", ls=":", label="device capacity")
    if len(lim):
        files_ax.axhline(lim.iloc[0], color="k", ls=":", label="open-file limit")
    size_ax.set(xlabel="simulated time (s)", ylabel="physical size, peak (MB)")
    files_ax.set(xlabel="simulated time (s)", ylabel="open files", yscale="log")
    for ax in (size_ax, files_ax):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig, df


@figure(
    "spooky-fig14d",
    "Spooky Fig. 14(D): tuning X, physical size and open files over time (X = L-1 runs out of space, L-4 of files)",
    "spooky/fig14d.yaml",
    "PVLDB'22 §6, Fig. 14(D)",
)
def tuning_x(res):
    return _limits_over_time(res, "policy.X", "X")


@figure(
    "spooky-fig15",
    "Spooky Fig. 15(A): Partial Merge with large files, physical size over time against the device",
    "spooky/fig15.yaml",
    "PVLDB'22 §6, Fig. 15(A)",
)
def large_files(res):
    return _limits_over_time(res, "policy.target_file_size_base", "file size")


@figure(
    "spooky-fig1",
    "Spooky Fig. 1: total write-amp (compaction x GC) vs storage utilization, T = 10",
    "spooky/fig1.yaml",
    "PVLDB'22 §1/§3, Fig. 1",
)
def wa_vs_utilization(res):
    t = res.table
    df = pd.DataFrame(
        {
            "granularity": t["variant"],
            "utilization": t["utilization"],
            "ended_by": t["ended_by"],
            "compaction_write_amp": t["write_amp"],
            "gc_write_amp": t["gc_write_amp"],
            "total_write_amp": t["total_write_amp"],
        }
    ).sort_values(["granularity", "utilization"], ignore_index=True)
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for i, (g, d) in enumerate(df.groupby("granularity", sort=False)):
        done = d[d.ended_by == "phases"]
        ax.plot(done.utilization, done.total_write_amp, marker="o", color=f"C{i}", label=g)
        full = d[d.ended_by != "phases"]
        ax.scatter(full.utilization, full.total_write_amp, marker="x", color=f"C{i}", label=f"{g}: ran out of space")
    ax.set(xlabel="storage utilization (logical data / device capacity)", ylabel="total write-amp (Eq. 2)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig, df


# ---------------------------------------------------------------------------------------------- Fig. 13
def _over_time_and_table(res):
    """Per point: the time series of Fig. 13 A-D / G-H and the row of its tables E-F (throughput over the phases
    after the fill, with the one query thread; p99.9 latency per operation)."""
    series, table = [], []
    for _, row in res.table.iterrows():
        p = res.point(row.point_id)
        ts, lat = p["timeseries"], p["latency"].set_index("op")
        series.append(
            pd.DataFrame(
                {
                    "granularity": row.variant,
                    "time_s": ts["time"],
                    "phase": ts["phase"],
                    "physical_gb": ts["physical_bytes_peak"] / 1e9,
                    "compaction_write_amp": ts["write_amp"],
                    "gc_write_amp": ts["gc_write_amp"],
                    "total_write_amp": ts["total_write_amp"],
                }
            )
        )
        after = ts[ts.phase != "fill"]
        table.append(
            {
                "granularity": row.variant,
                "logical_gb": float(ts.logical_bytes.iloc[-1]) / 1e9,
                **{f"{op}_ops_per_s": float(after[f"{op}_ops_per_s"].mean()) for op in ("write", "get", "short_scan")},
                **{
                    f"{op}_p999_ms": float(lat.p999_s.get(op, float("nan"))) * 1e3
                    for op in ("write", "get", "short_scan")
                },
                "compaction_write_amp": row.write_amp,
                "gc_write_amp": row.gc_write_amp,
                "total_write_amp": row.total_write_amp,
                "ended_by": row.ended_by,
            }
        )
    return pd.concat(series, ignore_index=True), pd.DataFrame(table)


def _lines_by_granularity(axes, df, columns):
    for ax, (col, label) in zip(axes, columns):
        for g, d in df.groupby("granularity", sort=False):
            ax.plot(d.time_s, d[col], label=g)
        ax.set(xlabel="simulated time (s)", ylabel=label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)


def _over_time(res, panels: list[tuple[str, str]], width: float):
    """Fig. 13's layout: one panel per (series column, label), a line per granularity; (figure, series, table)."""
    series, table = _over_time_and_table(res)
    fig = Figure(figsize=(width, 3.6))
    _lines_by_granularity(fig.subplots(1, len(panels)), series, panels)
    fig.tight_layout()
    return fig, series, table


@figure(
    "spooky-fig13",
    "Spooky Fig. 13(A-F): uniform updates, physical size, compaction/GC/total write-amp over time, throughput",
    "spooky/fig13.yaml",
    "PVLDB'22 §6, Fig. 13(A-F)",
)
def uniform_updates(res):
    fig, series, table = _over_time(
        res,
        [
            ("physical_gb", "(A) physical size, peak (GB)"),
            ("compaction_write_amp", "(B) compaction write-amp"),
            ("gc_write_amp", "(C) GC write-amp"),
            ("total_write_amp", "(D) total write-amp"),
        ],
        16,
    )
    return fig, table.merge(
        series.groupby("granularity").physical_gb.max().rename("physical_gb_peak"), on="granularity"
    )


@figure(
    "spooky-fig13gh",
    "Spooky Fig. 13(G-H): Zipfian updates with a moving hot set, compaction and total write-amp over time",
    "spooky/fig13-zipf.yaml",
    "PVLDB'22 §6, Fig. 13(E bottom, G, H)",
)
def zipfian_updates(res):
    panels = [("compaction_write_amp", "(G) compaction write-amp"), ("total_write_amp", "(H) total write-amp")]
    fig, _, table = _over_time(res, panels, 9)
    return fig, table


@figure(
    "spooky-fig15b",
    "Spooky Fig. 15(B): Partial Merge with 2 GB files against 64 MB files and Spooky, write-amp over time",
    "spooky/fig15b.yaml",
    "PVLDB'22 §6, Fig. 15(B) (beside Fig. 13(B-D))",
)
def large_files_gc(res):
    panels = [
        ("compaction_write_amp", "compaction write-amp"),
        ("gc_write_amp", "GC write-amp"),
        ("total_write_amp", "total write-amp (Eq. 2)"),
    ]
    fig, series, table = _over_time(res, panels, 13)
    series = series.drop(columns="physical_gb")
    return fig, series.merge(table[["granularity", "logical_gb", "ended_by"]], on="granularity")


@figure(
    "spooky-fig14",
    "Spooky Fig. 14(A-C): leveling, lazy leveling and tiering, Full Merge vs Spooky",
    "spooky/fig14.yaml",
    "PVLDB'22 §6, Fig. 14(A-C)",
)
def merge_policies(res):
    rows = []
    for _, row in res.table.iterrows():
        ts = res.point(row.point_id)["timeseries"]
        after = ts[ts.phase != "fill"]
        layout, granularity = (part.strip() for part in str(row.variant).split(","))
        rows.append(
            {
                "layout": layout,
                "granularity": granularity,
                "space_amp_peak": after.space_amp_peak.max(),
                "space_amp_transient_peak": after.space_amp_transient_peak.max(),
                "space_amp_durable_max": after.space_amp_durable.max(),
                "write_amp": row.write_amp,
                "write_ops_per_s": after.write_ops_per_s.mean(),
                "get_ops_per_s": after.get_ops_per_s.mean(),
                "short_scan_ops_per_s": after.short_scan_ops_per_s.mean(),
            }
        )
    df = pd.DataFrame(rows).sort_values(["layout", "granularity"], ignore_index=True)
    fig = Figure(figsize=(14, 3.8))
    axes = fig.subplots(1, 3)
    layouts = sorted(df.layout.unique())
    for k, (col, label) in enumerate(
        [
            ("space_amp_peak", "(A) peak space-amp"),
            ("write_amp", "(B) compaction write-amp"),
            ("get_ops_per_s", "(C) point reads/s beside the writer"),
        ]
    ):
        ax = axes[k]
        for i, g in enumerate(("Full Merge", "Spooky")):
            d = df[df.granularity == g].set_index("layout").reindex(layouts)
            ax.bar([j + 0.4 * i for j in range(len(layouts))], d[col], width=0.4, label=g)
        ax.set_xticks([j + 0.2 for j in range(len(layouts))], layouts)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend()
    fig.tight_layout()
    return fig, df
