"""Matplotlib views of a run."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def plot_tree(ts: pd.DataFrame, path: str | Path | None = None, title: str = ""):
    """Two panels over simulated time: sorted runs per level, and GiB per level."""
    levels = sorted(int(c[6:]) for c in ts.columns if c.startswith("runs_L"))
    levels = [l for l in levels if ts[f"bytes_L{l}"].max() > 0] or levels[:1]
    fig, (a, b) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    top = max(ts[f"bytes_L{l}"].max() for l in levels)
    scale, unit = (2**30, "GiB") if top >= 2**30 else (2**20, "MiB")
    for l in levels:
        a.step(ts["time"], ts[f"runs_L{l}"], where="post", label=f"L{l}")
        b.plot(ts["time"], ts[f"bytes_L{l}"] / scale, label=f"L{l}")
    # phase boundaries
    changes = ts.index[ts["phase"].ne(ts["phase"].shift())][1:]
    for i in changes:
        for ax in (a, b):
            ax.axvline(ts.loc[i, "time"], color="grey", lw=0.8, ls=":")
        a.annotate(str(ts.loc[i, "phase"]), (ts.loc[i, "time"], 1), xycoords=("data", "axes fraction"),
                   fontsize="x-small", color="grey", va="top")
    a.set_ylabel("sorted runs")
    b.set_ylabel(unit)
    b.set_xlabel("simulated time (s)")
    a.legend(ncol=min(len(levels), 7), fontsize="small")
    a.set_title(f"tree over time {title}".strip())
    fig.tight_layout()
    if path is not None:
        from .result import atomic_write
        atomic_write(Path(path), lambda p: fig.savefig(p, dpi=110, format=Path(path).suffix.lstrip(".") or "png"))
        plt.close(fig)
    return fig
