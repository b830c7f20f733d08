"""Spooky PVLDB'22 Figs. 7 and 13(A-D), scaled down: compaction, GC and total write-amp over time (total =
compaction x GC, Spooky Eq. 2) and the physical size (its peak in each sample interval, as Fig. 7B's sawtooth)
for RocksDB-style partial merge, full-level merge and Spooky at ~85% device utilisation."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

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
