"""A sweep's results for exploration: the combined table plus access to each point's DataFrames."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..atomic import atomic_write
from .store import Store

_META = ("point_id", "status", "error", "runtime_s")


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

    def plot(self, x: str, y: str, hue: str | None = "variant", ax=None, path: str | Path | None = None):
        """y against x, one line per value of `hue` (mean over seeds). Returns the Figure."""
        from matplotlib.figure import Figure

        df = self.table[self.table["status"] == "ok"] if "status" in self.table else self.table
        for col in (x, y):
            if col not in df:
                raise KeyError(f"no column {col!r}; parameters: {self.params}; metrics: see .table.columns")
        if ax is None:
            ax = Figure(figsize=(6, 4)).subplots()
        fig = ax.figure
        groups = df.groupby(hue, sort=False) if hue and hue in df else [(None, df)]
        for label, g in groups:
            m = g.groupby(x, sort=True)[y].mean()
            ax.plot(m.index, m.values, marker="o", label=label)
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
