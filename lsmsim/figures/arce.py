"""ArceKV PVLDB'26 figures (Liu, Xie and Luo, Sec. 5): latency over time under Workloads I and II
(Fig. 8), the per-sub-workload throughput table (Fig. 9), throughput vs foreground threads (Fig. 10c),
the YCSB table (Table 3) and ARCE's internal parameters d and MaxIterTime (Fig. 11a, b).

Throughputs are normalized as the paper does ("normalized relative to the minimum value observed in
each workload"), over the eight systems of the paper (1-L, Lvl, Tier, LL, MSE, RKY, CAM, ARC; Fig. 10(c) has six:
the paper leaves Ruskey and CAMAL out of it). Where a sweep leaves a system out (YCSB's Table 3 has no CAM yet),
the paper's numbers are re-normalized to the minimum over the systems that ran (`paper_norm`; `paper_printed`
keeps the printed value)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from .registry import figure

#: Our policies, in the paper's row order (variant names of experiments/arce/policies.yaml).
ORDER = ["1-L", "Lvl", "Tier", "LL", "MSE", "RKY", "CAM", "ARC"]
PAPER_ROWS = ["1-L", "Lvl", "Tier", "LL", "MSE", "RKY", "CAM", "ARC"]  # the paper's "OURS" is ARC
COLORS = {
    # Okabe and Ito's colour-blind-safe palette (lsmsim.plots.OKABE_ITO), one colour per system
    "1-L": "#0072B2",
    "Lvl": "#E69F00",
    "Tier": "#009E73",
    "LL": "#CC79A7",
    "MSE": "#56B4E9",
    "RKY": "#F0E442",
    "CAM": "#000000",
    "ARC": "#D55E00",
}
WORKLOADS = {"arce-I": "Workload I", "arce-II": "Workload II"}
_PLAIN = FuncFormatter(lambda v, _: f"{v:g}")
_PLAIN_MINOR = FuncFormatter(lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "25" else "")

# Fig. 9's table as printed (throughput normalized to the minimum over all eight systems), rows in
# PAPER_ROWS order. Workload II's header prints J, E, B, F, J, C, but the text (Sec. 5, "Dynamic
# Workload Generation") says Workload II is J, E, B, F, D, C: the fifth column is D.
PAPER_FIG9 = {
    "arce-I": (
        ["A", "B", "D", "J", "C", "E", "AvgTput"],
        [
            [3.52, 2.29, 3.20, 1.14, 2.60, 1.04, 1.45],  # 1-L
            [3.07, 1.00, 2.78, 1.11, 2.21, 1.00, 1.19],  # Lvl
            [1.00, 4.21, 1.31, 1.16, 1.35, 2.50, 1.03],  # Tier
            [1.08, 3.65, 1.20, 1.47, 1.35, 1.33, 1.00],  # LL
            [2.76, 1.85, 1.68, 1.26, 1.57, 1.91, 1.40],  # MSE
            [1.82, 1.92, 1.00, 1.00, 1.00, 2.39, 1.07],  # RKY
            [4.65, 1.25, 3.07, 1.68, 2.23, 1.29, 1.57],  # CAM
            [6.04, 10.60, 1.96, 2.81, 3.08, 5.89, 2.92],  # OURS
        ],
    ),
    "arce-II": (
        ["J", "E", "B", "F", "D", "C", "AvgTput"],
        [  # printed: J, E, B, F, J, C
            [2.18, 1.18, 1.26, 1.45, 2.84, 1.24, 1.53],  # 1-L
            [1.74, 1.00, 1.00, 1.53, 3.19, 1.42, 1.51],  # Lvl
            [1.00, 1.72, 4.34, 1.00, 1.00, 1.00, 1.00],  # Tier
            [1.23, 1.18, 1.48, 1.37, 2.17, 1.20, 1.37],  # LL
            [1.99, 1.76, 4.10, 1.39, 1.73, 1.54, 1.53],  # MSE
            [1.45, 2.00, 3.00, 1.59, 1.58, 1.05, 1.42],  # RKY
            [2.30, 1.01, 1.54, 1.67, 2.99, 1.61, 1.72],  # CAM
            [2.74, 2.60, 10.62, 1.64, 2.79, 2.10, 2.17],  # OURS
        ],
    ),
}
# Table 3 as printed (normalized throughput), rows in PAPER_ROWS order.
PAPER_TABLE3 = (
    ["ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e", "ycsb-f"],
    [
        [1.44, 1.00, 1.94, 1.00, 3.89, 1.42],  # 1-L
        [1.00, 1.25, 1.53, 1.13, 2.79, 1.00],  # Lvl
        [2.77, 1.25, 1.04, 1.14, 1.00, 2.77],  # Tier
        [2.11, 1.29, 1.00, 1.24, 1.07, 2.17],  # LL
        [1.87, 1.84, 1.62, 1.57, 2.89, 1.89],  # MSE
        [2.42, 2.05, 1.55, 1.25, 1.45, 2.72],  # RKY
        [1.37, 2.03, 1.49, 1.60, 2.45, 1.37],  # CAM
        [4.18, 2.26, 2.34, 1.89, 5.47, 4.21],  # OURS
    ],
)


def paper_table(
    columns: list[str], rows: list[list[float]], key: str = "column", policies: list[str] | None = None
) -> pd.DataFrame:
    """A printed table as long rows (policy, <key>, paper_printed, paper_norm): the rows of `policies` (default
    all eight), each column re-normalized to its minimum over them."""
    df = pd.DataFrame(rows, index=PAPER_ROWS, columns=columns).loc[[p for p in ORDER if p in (policies or ORDER)]]
    norm = df / df.min()
    return (
        pd.concat({"paper_printed": df, "paper_norm": norm}, axis=1)
        .stack(future_stack=True)
        .rename_axis(["policy", key])
        .reset_index()
    )


def _normalize(df: pd.DataFrame, by: list[str], col: str = "ops_per_s") -> pd.Series:
    """`col` over its minimum within each group of `by` (the minimum becomes exactly 1.0)."""
    return df[col] / df.groupby(by)[col].transform("min")


def _ok(res) -> pd.DataFrame:
    t = res.table
    return t[t["status"] == "ok"] if "status" in t else t


def _sort(df: pd.DataFrame, orders: dict[str, list | None]) -> pd.DataFrame:
    """Sort by the columns of `orders`, each in its listed order (None: natural order)."""

    def key(s):
        order = orders[s.name]
        return s if order is None else s.map({v: i for i, v in enumerate(order)}).fillna(len(order))

    return df.sort_values(list(orders), key=key, kind="stable", ignore_index=True)


def _query_latency(t: pd.DataFrame) -> pd.Series:
    """Mean latency of the point and range lookups (weighted by their counts)."""
    num = den = 0
    for op in ("get", "long_scan", "short_scan", "get_empty"):
        col = f"latency_{op}_mean_s"
        if col in t and f"ops_{op}" in t:
            n = t[f"ops_{op}"].where(t[col].notna(), 0).fillna(0)
            num = num + n * t[col].fillna(0)
            den = den + n
    return num / den


def _heatmap(
    ax,
    df: pd.DataFrame,
    col: str,
    value: str,
    paper: str | None,
    columns: list[str],
    title: str,
    labels: dict[str, str] | None = None,
) -> None:
    """A policies x columns table, colored by our normalized value, each cell 'ours (paper)'."""
    pols = [p for p in ORDER if p in set(df.policy)]
    piv = df.pivot(index="policy", columns=col, values=value).reindex(index=pols, columns=columns)
    pp = df.pivot(index="policy", columns=col, values=paper).reindex(index=pols, columns=columns) if paper else None
    vals = piv.to_numpy(dtype=float)
    vmax = max(np.log(np.nanmax(vals)), 0.1)
    ax.imshow(np.log(vals), cmap="cividis", aspect="auto", vmin=0, vmax=vmax)  # colour-blind safe
    best = np.nanargmax(vals, axis=0)
    for i in range(vals.shape[0]):
        for j in range(vals.shape[1]):
            text = f"{vals[i, j]:.2f}x"
            far = False
            if pp is not None and np.isfinite(pp.iat[i, j]):
                text += f"\n({pp.iat[i, j]:.2f}x)"
                far = max(vals[i, j], pp.iat[i, j]) / min(vals[i, j], pp.iat[i, j]) > 2  # more than 2x apart
            dark = np.log(vals[i, j]) < 0.55 * vmax  # cividis is dark at the low end: white text there
            ax.text(j, i, ("! " if far else "") + text, ha="center", va="center", fontsize=7,
                    color="white" if dark else "black", fontweight="bold" if best[j] == i else "normal")  # fmt: skip
    if pp is not None:
        ax.set_xlabel("ours (paper), normalized to each column's slowest; ! marks cells over 2x from the paper",
                      fontsize=7)  # fmt: skip
    ax.set_xticks(range(len(columns)), [(labels or {}).get(c, c) for c in columns])
    ax.set_yticks(range(len(pols)), pols)
    ax.tick_params(length=0)
    ax.set_title(title, fontsize=9)


# ---------------------------------------------------------------- Fig. 8
def _latency_series(res) -> pd.DataFrame:
    frames = []
    for _, row in _ok(res).iterrows():
        ts = res.point(row.point_id)["timeseries"]
        t0 = ts.loc[ts.phase == "load", "time"].max() if (ts.phase == "load").any() else 0.0
        ts = ts[~ts.phase.isin(["load", "(drain)"])]
        frames.append(
            pd.DataFrame(
                {
                    "workload": row["workload.suite.name"],
                    "policy": row.variant,
                    "time_s": ts.time - t0,
                    "phase": ts.phase,
                    "latency_mean_s": ts.latency_mean_s,
                    "latency_p999_s": ts.latency_p999_s,
                    "sorted_runs": ts.sorted_runs,
                    "write_delay_s": ts.write_delay_s,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _boundaries(g: pd.DataFrame) -> list[tuple[float, str]]:
    """(time, phase) where each phase after the first starts: midway between the last sample of the
    previous phase and the first of this one."""
    ph = g.phase.to_numpy()
    t = g.time_s.to_numpy()
    return [((t[i - 1] + t[i]) / 2, ph[i]) for i in range(1, len(ph)) if ph[i] != ph[i - 1]]


@figure(
    "arce-fig8",
    "ArceKV Fig. 8: average and P99.9 latency over time, Workloads I and II",
    "arce/workloads.yaml",
    "PVLDB'26 §5.1, Fig. 8",
)
def fig8(res):
    df = _sort(_latency_series(res), {"workload": list(WORKLOADS), "policy": ORDER, "time_s": None})
    workloads = [w for w in WORKLOADS if w in set(df.workload)]
    fig = Figure(figsize=(6.5 * len(workloads), 7.2))
    axes = fig.subplots(2, len(workloads), squeeze=False)
    for j, w in enumerate(workloads):
        d = df[df.workload == w]
        # the CSV keeps every sample; the lines are rolling means over ~1/150 of the longest run (compaction
        # cycles of a few samples otherwise fill the panel)
        dt = float(d.time_s.diff().median())
        window = max(1, round(d.time_s.max() / 150 / dt)) if dt > 0 else 1
        for i, (stat, label) in enumerate(
            (("latency_mean_s", "average latency (ms)"), ("latency_p999_s", "P99.9 latency (ms)"))
        ):
            ax = axes[i][j]
            for pol in [p for p in ORDER if p in set(d.policy)]:
                g = d[d.policy == pol]
                y = g[stat].rolling(window, center=True, min_periods=1).mean() if window > 1 else g[stat]
                ax.plot(g.time_s, y * 1e3, lw=0.9, color=COLORS[pol], label=pol)
                for tb, _ in _boundaries(g):  # each policy reaches the next phase at its own time
                    ax.axvline(tb, color=COLORS[pol], ls=":", lw=0.8, alpha=0.6)
            # phase letters over ARC's phases (the other policies' boundaries are the dotted lines)
            ref = d[d.policy == ("ARC" if "ARC" in set(d.policy) else d.policy.iloc[0])]
            edges = [ref.time_s.min(), *[tb for tb, _ in _boundaries(ref)], ref.time_s.max()]
            names = [ref.phase.iloc[0], *[p for _, p in _boundaries(ref)]]
            for a, b, name in zip(edges, edges[1:], names):
                ax.text(
                    (a + b) / 2,
                    1.01,
                    name,
                    transform=ax.get_xaxis_transform(),
                    ha="center",
                    va="bottom",
                    fontsize=8,
                    color=COLORS.get("ARC", "k"),
                )
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(_PLAIN)
            ax.yaxis.set_minor_formatter(_PLAIN_MINOR)
            ax.set_ylabel(label)
            ax.set_xlabel(
                "time since the preload (simulated s)"
                + (f"; rolling mean over {window * dt:g} s" if window > 1 else "")
            )
            ax.set_title(f"{WORKLOADS[w]}: {label.split(' (')[0]}", fontsize=9, pad=14)
            ax.grid(alpha=0.3)
    axes[0][0].legend(
        fontsize=7, ncol=3, title="dotted: each policy's phase changes; letters: ARC's phases", title_fontsize=7
    )
    fig.tight_layout()
    return fig, df


# ---------------------------------------------------------------- Fig. 9 table
def fig9_table(res) -> pd.DataFrame:
    """One row per (workload, sub-workload, policy): our throughput, normalized to the minimum over
    the policies that ran, next to the paper's (re-normalized over the same ones)."""
    t = _ok(res)
    rows = []
    for w, (columns, _) in PAPER_FIG9.items():
        tw = t[t["workload.suite.name"] == w]
        if tw.empty:
            continue
        for _, r in tw.iterrows():
            for pos, col in enumerate(columns, 1):
                key = "throughput_ops_per_s" if col == "AvgTput" else f"phase_{col}_ops_per_s"
                rows.append(
                    {"workload": w, "position": pos, "sub_workload": col, "policy": r.variant, "ops_per_s": r[key]}
                )
    df = pd.DataFrame(rows)
    df["norm"] = _normalize(df, ["workload", "sub_workload"])
    ran = sorted(set(df.policy))
    paper = pd.concat([paper_table(c, p, "sub_workload", ran).assign(workload=w) for w, (c, p) in PAPER_FIG9.items()])
    df = df.merge(paper, on=["workload", "sub_workload", "policy"], how="left")
    return _sort(df, {"workload": list(WORKLOADS), "position": None, "policy": ORDER})


@figure(
    "arce-fig9",
    "ArceKV Fig. 9 (table): normalized throughput per sub-workload, ours (paper)",
    "arce/workloads.yaml",
    "PVLDB'26 §5.1, Fig. 9 (left)",
)
def fig9(res):
    df = fig9_table(res)
    workloads = [w for w in WORKLOADS if w in set(df.workload)]
    fig = Figure(figsize=(6.5 * len(workloads), 4.2))
    axes = fig.subplots(1, len(workloads), squeeze=False)[0]
    for ax, w in zip(axes, workloads):
        d = df[df.workload == w]
        _heatmap(
            ax,
            d,
            "sub_workload",
            "norm",
            "paper_norm",
            PAPER_FIG9[w][0],
            f"{WORKLOADS[w]}: lsmsim (paper re-normalized over the systems shown); bold: lsmsim's best",
        )
    fig.tight_layout()
    return fig, df


# ---------------------------------------------------------------- Fig. 10(c)
@figure(
    "arce-fig10c",
    "ArceKV Fig. 10(c): normalized throughput vs foreground threads, Workload III",
    "arce/threads.yaml",
    "PVLDB'26 §5.1, Fig. 10(c)",
)
def fig10c(res):
    t = _ok(res)
    df = pd.DataFrame(
        {
            "threads": t["workload.suite.threads"].astype(int),
            "policy": t["variant"],
            "ops_per_s": t["throughput_ops_per_s"],
            "stall_delay_s": t["stall_delay_s"],
            "stall_stop_s": t["stall_stop_s"],
            "sorted_runs": t["sorted_runs"],
        }
    )
    df["norm"] = _normalize(df, ["threads"])
    df = _sort(df, {"threads": None, "policy": ORDER})
    threads = sorted(df.threads.unique())
    pols = [p for p in ORDER if p in set(df.policy)]
    fig = Figure(figsize=(12, 3.8))
    axes = fig.subplots(1, 2)
    width = 0.8 / len(pols)
    x = np.arange(len(threads))
    for k, pol in enumerate(pols):
        g = df[df.policy == pol].set_index("threads").reindex(threads)
        axes[0].bar(x + (k - (len(pols) - 1) / 2) * width, g.norm, width, color=COLORS[pol], label=pol)
        axes[1].plot(threads, g.ops_per_s / 1e3, marker="o", color=COLORS[pol], label=pol)
    axes[0].set_xticks(x, [str(n) for n in threads])
    axes[0].set_xlabel("foreground threads")
    axes[0].set_ylabel("throughput / minimum at that thread count")
    axes[0].axhline(1, color="k", lw=0.6)
    axes[1].set_xscale("log", base=2)
    axes[1].set_xticks(threads, [str(n) for n in threads])
    axes[1].set_xlabel("foreground threads")
    axes[1].set_ylabel("throughput (Kops/s)")
    for ax in axes:
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize=7, ncol=3)
    fig.tight_layout()
    return fig, df


# ---------------------------------------------------------------- Table 3
@figure(
    "arce-table3",
    "ArceKV Table 3: normalized throughput under YCSB A-F, ours (paper)",
    "arce/ycsb.yaml",
    "PVLDB'26 §5.1, Table 3",
)
def table3(res):
    t = _ok(res)
    df = pd.DataFrame(
        {"workload": t["workload.suite.name"], "policy": t["variant"], "ops_per_s": t["throughput_ops_per_s"]}
    )
    df["norm"] = _normalize(df, ["workload"])
    paper = paper_table(*PAPER_TABLE3, key="workload", policies=sorted(set(df.policy)))
    df = df.merge(paper, on=["workload", "policy"], how="left")
    cols = [c for c in PAPER_TABLE3[0] if c in set(df.workload)]
    df = _sort(df, {"workload": cols, "policy": ORDER})
    fig = Figure(figsize=(7.5, 4.2))
    _heatmap(
        fig.subplots(),
        df,
        "workload",
        "norm",
        "paper_norm",
        cols,
        "lsmsim (paper re-normalized over the systems shown); bold: lsmsim's best",
        {c: c.upper() for c in cols},
    )
    fig.tight_layout()
    return fig, df


# ---------------------------------------------------------------- Fig. 11(a, b)
@figure(
    "arce-fig11",
    "ArceKV Fig. 11(a, b): background cost and query latency vs d and MaxIterTime",
    "arce/params.yaml",
    "PVLDB'26 §5.2, Fig. 11(a, b)",
)
def fig11(res):
    t = _ok(res)
    df = pd.DataFrame(
        {
            "d": t["policy.reselect_d"].astype(float),
            "max_iter": t["policy.max_iter"].astype(int),
            "policy_search_iterations": t["policy_search_iterations"],
            "policy_reselections": t["policy_reselections"],
            "query_latency_mean_s": _query_latency(t),
            "ops_per_s": t["throughput_ops_per_s"],
        }
    )
    d0, it0 = 0.1, 400  # the other parameter's value in each panel (the paper's defaults)
    parts = [
        df[df.max_iter == it0].assign(panel="a", parameter="d", value=lambda x: x.d),
        df[np.isclose(df.d, d0)].assign(panel="b", parameter="MaxIterTime", value=lambda x: x.max_iter),
    ]
    out = pd.concat(parts, ignore_index=True).sort_values(["panel", "value"], ignore_index=True)
    fig = Figure(figsize=(11, 3.8))
    axes = fig.subplots(1, 2)
    for ax, (panel, g) in zip(axes, out.groupby("panel")):
        name = g.parameter.iloc[0]
        x = np.arange(len(g))
        ax.bar(x, g.policy_search_iterations / 1e3, 0.6, color="tab:gray", label="simulated iterations")
        for xi, n in zip(x, g.policy_reselections):
            ax.annotate(
                f"{int(n)}", (xi, 0), xytext=(0, 2), textcoords="offset points", ha="center", fontsize=7, color="white"
            )
        ax.set_xticks(x, [f"{v:g}" for v in g.value])
        ax.set_xlabel(f"{name}" + (f" (MaxIterTime = {it0})" if name == "d" else f" (d = {d0:g})"))
        ax.set_ylabel("background cost: FindBestParams\niterations (thousands; runs in bars)")
        ax.set_title(f"({panel}) {'recomputing threshold d' if name == 'd' else 'simulation MaxIterTime'}", fontsize=9)
        ax2 = ax.twinx()
        ax2.plot(x, g.query_latency_mean_s * 1e6, marker="o", color="tab:red", label="mean query latency")
        ax2.set_ylabel("mean query latency (us)", color="tab:red")
        ax2.set_ylim(0, max(g.query_latency_mean_s.max() * 1e6 * 1.15, 1e-9))
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    return fig, out
