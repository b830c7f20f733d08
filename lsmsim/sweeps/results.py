"""A sweep's results for exploration: the combined table plus access to each point's DataFrames."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..atomic import atomic_write
from .store import Store

_META = ("point_id", "status", "error", "runtime_s")


def seed_means(table: pd.DataFrame, params: list[str], level: float = 0.95, metrics: list[str] | None = None):
    """`table`'s finished rows grouped by `params` other than `seed`: each numeric metric's mean over the seeds and
    `<metric>_ci`, the half-width of its `level` confidence interval, t_{(1+level)/2, n-1} s / sqrt(n)."""
    from scipy.stats import t as student

    df = table[table["status"] == "ok"] if "status" in table else table
    keys = [p for p in params if p != "seed" and p in df]
    skip = {*keys, "seed", *_META}
    cols = metrics or [c for c in df.columns if c not in skip and pd.api.types.is_numeric_dtype(df[c])]
    if not len(df):
        return pd.DataFrame(columns=[*keys, "seeds", *cols])
    g = df.groupby(keys, sort=False, dropna=False) if keys else df.groupby(lambda _: 0)
    n = g.size().rename("seeds")
    mean, sd = g[cols].mean(), g[cols].std(ddof=1)
    half = sd.mul(student.ppf((1 + level) / 2, (n - 1).clip(lower=1)), axis=0).div(n**0.5, axis=0)
    half[n < 2] = float("nan")
    out = pd.concat([n, mean, half.add_suffix("_ci")], axis=1).reset_index()
    return out[[*keys, "seeds", *[c for m in cols for c in (m, f"{m}_ci")]]]


class SweepResults:
    """`table`: one row per point (its parameters, status and summary). `params` names the columns
    that vary; `point(id)` loads one point's timeseries, compactions, latency and summary."""

    def __init__(self, root: str | Path, table: pd.DataFrame | None = None, params: list[str] | None = None):
        self.store = Store(root)
        self.table = self.store.table() if table is None else table
        if params is None:
            import json

            params = []
            for d in sorted(self.store.points.glob("*/point.json")) if self.store.points.is_dir() else []:
                params += [k for k in json.loads(d.read_text())["params"] if k not in params]
        self.params = params
        self.ran = self.skipped = None  # set by lsmsim.sweep: points run now and found finished
        if table is None and len(self.table):
            keys = [c for c in self.params if c in self.table] + ["point_id"]
            self.table = self.table.sort_values(keys, kind="stable", ignore_index=True)

    @property
    def root(self) -> Path:
        return self.store.root

    def __len__(self) -> int:
        return len(self.table)

    @property
    def failed(self) -> pd.DataFrame:
        return self.table[self.table["status"] == "failed"] if len(self.table) else self.table

    def point(self, point_id: str) -> dict[str, pd.DataFrame]:
        return self.store.load_point(point_id)

    def view(self, metrics: list[str] | None = None) -> pd.DataFrame:
        """Parameters and a few headline metrics (or `metrics`) per point."""
        metrics = metrics or [
            m for m in ("throughput_ops_per_s", "write_amp", "space_amp", "latency_query_p99_s") if m in self.table
        ]
        return self.table[[c for c in [*self.params, "status", *metrics] if c in self.table]]

    def means(self, level: float = 0.95) -> pd.DataFrame:
        """One row per point of the sweep less its seed: `seeds` (the replicates that finished), and for every
        numeric summary metric its mean over them and `<metric>_ci`, the half-width of its `level` confidence
        interval (Student's t on the replicates; NaN with one). `lsmsim sweep` writes it as results_mean.parquet."""
        return seed_means(self.table, self.params, level)

    def plot(self, x: str, y: str, hue: str | None = "variant", ax=None, path: str | Path | None = None):
        """y against x, one line per value of `hue`: the mean over seeds, with error bars of its 95% confidence
        interval where a point has several seeds. Returns the Figure."""
        from matplotlib.figure import Figure

        df = self.table[self.table["status"] == "ok"] if "status" in self.table else self.table
        for col in (x, y):
            if col not in df:
                raise KeyError(f"no column {col!r}; parameters: {self.params}; metrics: see .table.columns")
        if ax is None:
            ax = Figure(figsize=(6, 4)).subplots()
        fig = ax.figure
        # parameters given with units ("4MiB", "16MiB") plot at their values, not sorted as strings
        values = {v: _as_number(v) for v in df[x].unique()}
        numeric = all(n is not None for n in values.values())
        groups = df.groupby(hue, sort=False) if hue and hue in df else [(None, df)]
        for label, g in groups:
            m = seed_means(g, [x], 0.95, [y]) if "seed" in g else g.groupby(x, sort=True)[y].mean().reset_index()
            m = m.assign(_x=m[x].map(values)).sort_values("_x") if numeric else m.sort_values(x)
            err = m[f"{y}_ci"] if f"{y}_ci" in m and m[f"{y}_ci"].notna().any() else None
            ax.errorbar(m["_x"] if numeric else m[x], m[y], yerr=err, marker="o", capsize=3, label=label)
        if numeric and any(isinstance(v, str) for v in values):
            ticks = sorted(values, key=values.get)
            lo, hi = values[ticks[0]], values[ticks[-1]]
            if lo > 0 and hi / lo >= 16:  # sizes spanning orders of magnitude: a log axis
                ax.set_xscale("log")
            ax.set_xticks([values[t] for t in ticks], [str(t) for t in ticks])
            ax.minorticks_off()
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        if hue and hue in df:
            ax.legend(title=hue)
        ax.grid(alpha=0.3)
        if path is not None:
            atomic_write(Path(path), lambda p: fig.savefig(p, format=Path(path).suffix.lstrip(".") or "png", dpi=110))
        return fig

    def __repr__(self) -> str:
        n_failed = len(self.failed)
        return f"SweepResults({self.root}: {len(self)} points, {n_failed} failed)\n{self.view().to_string(max_rows=20)}"

    def _repr_html_(self) -> str:
        n_failed = len(self.failed)
        head = f"<p><b>{self.root}</b>: {len(self)} points, {n_failed} failed</p>"
        return head + self.view().to_html(index=False, max_rows=50)


def _as_number(v) -> float | None:
    """A parameter's value as a number: numbers as they are, strings with a unit (4MiB, 100K, 10ms, 20MB/s)
    parsed; None when it is neither."""
    from .. import units

    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, str):
        for parse in (units.parse_size, units.parse_count, units.parse_duration, units.parse_bandwidth):
            try:
                return float(parse(v))
            except (ValueError, TypeError):
                continue
    return None
