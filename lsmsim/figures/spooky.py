"""Spooky PVLDB'22 Fig. 7(A), scaled down: compaction, GC and total write-amp over time for
RocksDB-style partial merge and full-level merge at ~85% device utilisation (total = compaction x
GC, Spooky Eq. 2)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from .registry import figure


@figure(
    "spooky-gc",
    "Spooky Fig. 7(A): write-amp over time, partial vs full merge",
    "spooky/gc.yaml",
    "PVLDB'22 §3, Fig. 7(A)",
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
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    fig = Figure(figsize=(11, 3.8))
    axes = fig.subplots(1, len(frames), sharey=True, squeeze=False)[0]
    for ax, (label, g) in zip(axes, df.groupby("policy", sort=False)):
        ax.plot(g.time_s, g.compaction_write_amp, label="compaction write-amp")
        ax.plot(g.time_s, g.gc_write_amp, label="GC write-amp")
        ax.plot(g.time_s, g.total_write_amp, label="total (Eq. 2)")
        ax.set_title(label)
        ax.set_xlabel("simulated time (s)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("write-amp (cumulative)")
    axes[0].legend()
    fig.tight_layout()
    return fig, df
