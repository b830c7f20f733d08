"""Matplotlib views of a run, one function per view (`Result.plot(kind)` picks one).

Figures are built with `matplotlib.figure.Figure`, not pyplot: they work without a display, are
not kept alive by pyplot's figure registry, and still show inline in Jupyter when returned.
Every function takes `ax` to draw into an existing Axes instead, and writes a file when given `path`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from .atomic import atomic_write

#: Okabe and Ito's colour-blind-safe palette (black last): every lsmsim plot and figure cycles through it
OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"]


def palette():
    """A matplotlib rc_context that draws lines and bars in OKABE_ITO's colours, then tab10's."""
    from cycler import cycler
    from matplotlib import colormaps, rc_context

    tab10 = [colormaps["tab10"](i) for i in range(10)]
    return rc_context({"axes.prop_cycle": cycler(color=OKABE_ITO + tab10)})


OPS = ("write", "get", "get_empty", "short_scan", "long_scan")


def _axes(ax, n: int = 1, figsize=(8, 4)):
    """(figure, list of n Axes): new ones, or those given (one Axes or a sequence)."""
    if ax is None:
        with palette():  # axes take their colour cycle when they are made
            fig = Figure(figsize=figsize)
            axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0].tolist()
        return fig, axes
    axes = list(ax) if isinstance(ax, (list, tuple)) else [ax]
    return axes[0].figure, axes


def _finish(fig, path, own: bool) -> Figure:
    """Lay out a figure we created and write it to `path` (format from the suffix, png by default)."""
    if own:
        fig.tight_layout()
    if path is not None:
        fmt = Path(path).suffix.lstrip(".") or "png"
        atomic_write(Path(path), lambda p: fig.savefig(p, dpi=110, format=fmt))
    return fig


def _phases(ts: pd.DataFrame, axes, label: bool = True) -> None:
    """Dotted lines at phase boundaries, the new phase's name at the top of the first Axes."""
    if "phase" not in ts or ts.empty:
        return
    for i in ts.index[ts["phase"].ne(ts["phase"].shift())][1:]:
        for ax in axes:
            ax.axvline(ts.loc[i, "time"], color="grey", lw=0.8, ls=":")
        if label:
            axes[0].annotate(
                str(ts.loc[i, "phase"]),
                (ts.loc[i, "time"], 1),
                xycoords=("data", "axes fraction"),
                fontsize="x-small",
                color="grey",
                va="top",
            )


def plot_tree(ts: pd.DataFrame, path: str | Path | None = None, title: str = "", ax=None) -> Figure:
    """Two panels over simulated time: sorted runs per level, and bytes per level. `ax`: two Axes
    (runs, bytes), or one Axes for the sorted-runs panel only."""
    levels = sorted(int(c[6:]) for c in ts.columns if c.startswith("runs_L"))
    levels = [l for l in levels if ts[f"bytes_L{l}"].max() > 0] or levels[:1]
    fig, axes = _axes(ax, 2, figsize=(8, 6))
    a, b = axes[0], (axes[1] if len(axes) > 1 else None)
    for l in levels:
        a.step(ts["time"], ts[f"runs_L{l}"], where="post", label=f"L{l}")
    a.set_ylabel("sorted runs")
    if b is not None:
        top = max(ts[f"bytes_L{l}"].max() for l in levels)
        scale, unit = (2**30, "GiB") if top >= 2**30 else (2**20, "MiB")
        for l in levels:
            b.plot(ts["time"], ts[f"bytes_L{l}"] / scale, label=f"L{l}")
        b.set_ylabel(unit)
    axes[-1].set_xlabel("simulated time (s)")
    _phases(ts, axes[:2])
    a.legend(ncol=min(len(levels), 7), fontsize="small")
    a.set_title(f"sorted runs and bytes per level over time{' - ' + title if title else ''}")
    return _finish(fig, path, ax is None)


def plot_throughput(ts: pd.DataFrame, path: str | Path | None = None, title: str = "", ax=None) -> Figure:
    """Operations per second of each operation type over simulated time (types that never ran are
    left out); each sample is the rate over the interval that ends at it, hence steps."""
    fig, (a,) = _axes(ax)
    cols = [f"{op}_ops_per_s" for op in OPS if f"{op}_ops_per_s" in ts]
    shown = [c for c in cols if ts[c].max() > 0] or cols[:1]
    top = max((ts[c].max() for c in shown), default=0)
    scale, unit = (1e6, "M ops/s") if top >= 1e6 else (1e3, "K ops/s") if top >= 1e3 else (1, "ops/s")
    for c in shown:
        a.step(ts["time"], ts[c] / scale, where="pre", label=c.removesuffix("_ops_per_s"))
    _phases(ts, [a])
    a.set_ylabel(unit)
    a.set_xlabel("simulated time (s)")
    a.set_ylim(bottom=0)
    a.legend(fontsize="small")
    a.set_title(f"throughput by operation {title}".strip())
    return _finish(fig, path, ax is None)


def plot_write_amp(summary: dict, path: str | Path | None = None, title: str = "", ax=None) -> Figure:
    """Bars: write-amp of flushes and of compactions, their sum (bytes written / user bytes) and,
    with an SSD model, the FTL's GC write-amp and the device total (write_amp x gc_write_amp)."""
    fig, (a,) = _axes(ax, figsize=(6, 4))
    bars = [
        ("flush", summary.get("write_amp_flush", 0.0), "C0"),
        ("compaction", summary.get("write_amp_compaction", 0.0), "C1"),
        ("LSM total", summary.get("write_amp", 0.0), "C2"),
    ]
    if "gc_write_amp" in summary:
        bars.append(("GC (flash / host)", summary["gc_write_amp"], "C3"))
    if "total_write_amp" in summary:
        bars.append(("device total", summary["total_write_amp"], "C4"))
    labels, values, colors = zip(*bars)
    drawn = a.bar(labels, values, color=colors)
    a.bar_label(drawn, fmt="%.2f", fontsize="small")
    a.axhline(1, color="grey", lw=0.8, ls=":")
    a.set_ylabel("write amplification (x)")
    a.set_title(f"write amplification {title}".strip())
    a.tick_params(axis="x", labelsize="small")
    return _finish(fig, path, ax is None)
