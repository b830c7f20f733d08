"""Sarkar et al. PVLDB'21 (the compaction design space), §5: the strategies of Table 2 side by side."""

from __future__ import annotations

import re

import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure

from .registry import figure

# Fig. 4(a): Full moves 63x the data ingested (32x read, 31x written), Tier 23x; partial leveling 34-56% less than Full
PAPER_DATA_MOVEMENT = {"Full": 63.0, "Tier": 23.0}


@figure(
    "design-space-fig4",
    "Design space Fig. 4(a-f, h): data movement, compactions, compaction and write latency, lookups by alpha",
    "design-space/fig4.yaml",
    "PVLDB'21 §5.1, Fig. 4(a-f, h)",
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
            "compactions": s["compactions"],
            "trivial_moves": s["trivial_moves"],
            **{f"compaction_{k}_s": s[f"compaction_latency_{k}_s"] for k in ("mean", "p50", "p90", "p99", "max")},
            "write_p99_s": s["latency_write_p99_s"],
            "write_p999_s": s["latency_write_p999_s"],
            "sorted_runs": s["sorted_runs"],
        }
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
    ax[7].set_visible(False)  # (g), range scans by selectivity, is not drawn
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
    fig = Figure(figsize=(15, 3.8))
    ax = fig.subplots(1, 4)
    for col, a, label in zip(
        ("tombstones_remaining", "space_amp", "data_movement", "delete_persistence_max_s"),
        ax,
        ("(e) tombstones left", "(f) space-amp (obsolete / live)", "(g) data movement", "delete persistence, max (s)"),
    ):
        for i, (name, g) in enumerate(df.groupby("strategy", sort=False)):  # eleven strategies: tab20's colours
            a.plot(g.delete_share, g[col], marker="os^Dv"[i % 5], color=colormaps["tab20"](i), label=name)
        a.set(xlabel="share of deletes", ylabel=label)
        a.grid(alpha=0.3)
    ax[0].legend(fontsize=6)
    fig.tight_layout()
    return fig, df
