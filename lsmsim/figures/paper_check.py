"""The paper's own numbers beside ours: the records, the comparison and the caption under a figure (issue 37).

The numbers themselves, figure by figure, are in paper_values.py. Here: a `Text` is one number the paper prints and
how to compute ours from the figure's DataFrame; a `Rows` is a printed table the DataFrame already carries beside
ours. `compare` gives one row per number (ours, the paper's, ours/paper, and `far` where the two are more than 2x
apart); the runner writes it as <id>-paper.csv, and `caption` puts it under the figure, '!' marking the far ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

FAR = 2.0  # ours and the paper's more than this factor apart get a '!'


@dataclass(frozen=True)
class Text:
    """One number printed in the paper's text or a caption, and how to read ours off the figure's DataFrame."""

    quantity: str
    paper: float
    ours: Callable[[pd.DataFrame], float]
    source: str  # section and a short quote
    bound: str = ""  # "over" or "under": the paper gives a bound ("exceed fifty"), met by any value beyond it


@dataclass(frozen=True)
class Rows:
    """A printed table the figure's DataFrame already carries: column `ours` beside column `paper`, per row."""

    ours: str
    paper: str
    keys: tuple[str, ...]
    source: str
    what: str = ""  # the quantity, in words, put before the row's keys
    skip: tuple[str, object] | None = None  # (column, value): rows that compare nothing (a policy against itself)
    minus: float = 0.0  # compare what lies above this floor (I/Os per query above the one a query always reads)

    def expand(self, df: pd.DataFrame) -> list[Text]:
        out = []
        for _, r in df.iterrows():
            if self.skip and r[self.skip[0]] == self.skip[1]:
                continue
            p = r.get(self.paper)
            if p is None or not isinstance(p, (int, float)) or not math.isfinite(p):
                continue
            label = " ".join(str(r[k]) for k in self.keys)
            ours = float(r[self.ours]) - self.minus
            out.append(Text(f"{self.what} {label}".strip(), float(p) - self.minus, lambda _, v=ours: v, self.source))
        return out


def at(df: pd.DataFrame, col: str, **where) -> float:
    """`col` of the one row (or the mean of the rows) matching `where`; NaN when none does."""
    m = pd.Series(True, index=df.index)
    for k, v in where.items():
        m &= df[k] == v
    return float(df.loc[m, col].mean()) if m.any() else math.nan


def last(df: pd.DataFrame, col: str, time: str = "time_s", **where) -> float:
    """`col` at the latest `time` among the rows matching `where` (a time series' end)."""
    m = pd.Series(True, index=df.index)
    for k, v in where.items():
        m &= df[k] == v
    g = df[m]
    return float(g.loc[g[time].idxmax(), col]) if len(g) else math.nan


def ratio(a: float, b: float) -> float:
    """a / b, infinite when only b is 0 (a GC overhead of none), NaN when both are."""
    if b:
        return a / b
    return math.copysign(math.inf, a) if a else math.nan


def near(df: pd.DataFrame, col: str, target: float) -> pd.DataFrame:
    """The rows at the value of `col` nearest `target` (a scale may not run the paper's exact point)."""
    v = df[col].iloc[(df[col] - target).abs().argsort().iloc[0]] if len(df) else target
    return df[df[col] == v]


def compare(entries: list[Text | Rows], df: pd.DataFrame) -> pd.DataFrame:
    """Each paper number of `entries` beside ours from `df`: quantity, ours, paper, ratio (ours/paper), far, source."""
    rows = []
    for entry in entries:
        for t in entry.expand(df) if isinstance(entry, Rows) else [entry]:
            ours = float(t.ours(df))
            r = ratio(ours, t.paper)
            rows.append({"quantity": t.quantity, "ours": ours, "paper": t.paper, "bound": t.bound, "ratio": r,
                         "far": far(r, t.bound), "source": t.source})  # fmt: skip
    return pd.DataFrame(rows, columns=["quantity", "ours", "paper", "bound", "ratio", "far", "source"])


def far(r: float, bound: str = "") -> bool:
    """Whether ours/paper = `r` is more than FAR apart (a bound the paper gives is met by any value beyond it)."""
    if math.isnan(r) or (bound == "over" and r >= 1) or (bound == "under" and r <= 1):
        return False
    return r <= 0 or max(r, 1 / r) > FAR


def _paper(r) -> str:
    return {"over": ">", "under": "<"}.get(getattr(r, "bound", "") or "", "") + f"{r.paper:.3g}"


def caption(fid: str, table: pd.DataFrame, why: str = "", listed: int = 6) -> str:
    """The line(s) under a figure: the paper's numbers beside ours ('!' where over 2x apart), or why there are none."""
    if table.empty:
        return f"paper: {why}" if why else ""
    apart = table[table.far]
    if len(table) <= listed:
        parts = [f"{'! ' if r.far else ''}{r.quantity}: {r.ours:.3g} ({_paper(r)})" for r in table.itertuples()]
        return "ours (paper): " + "; ".join(parts) + (f" (!: over {FAR:g}x apart)" if len(apart) else "")
    med = float(table.ratio.median())
    head = f"{len(table)} numbers from the paper beside ours ({fid}-paper.csv): median ours/paper {med:.2f}, "
    if apart.empty:
        return head + f"none over {FAR:g}x apart"
    shown = "; ".join(f"{r.quantity}: {r.ours:.3g} ({_paper(r)})" for r in apart.head(listed).itertuples())
    more = f" and {len(apart) - listed} more" if len(apart) > listed else ""
    return head + f"! {len(apart)} over {FAR:g}x apart: {shown}{more}"
