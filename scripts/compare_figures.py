"""What moved between two runs of the registered figures: each figure's CSV in BEFORE and AFTER (as
`lsmsim figures --out DIR` writes them), compared row by row.

    python scripts/compare_figures.py BEFORE_DIR AFTER_DIR [--markdown OUT.md] [--top 3]

Rows pair by position when both CSVs have the same shape (a figure's rows follow its sweep), else on their text
columns; numeric columns equal in both label the rows, the others are metrics. Per figure it prints each metric's
median and largest relative change, and the largest moves with their row. A figure only in one folder is listed
as such.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def compare(before: pd.DataFrame, after: pd.DataFrame, top: int = 3) -> tuple[pd.DataFrame, list[str]]:
    """(per-metric table: median and max relative change, rows compared; the `top` largest moves as text).

    Rows pair by position when both tables have the same shape (a figure's rows come in its sweep's order),
    else on their text columns. Numeric columns equal in both label the rows (parameters); the rest are metrics."""
    common = [c for c in before.columns if c in after.columns]
    text = [c for c in common if not (_numeric(before[c]) and _numeric(after[c]))]
    if before.shape == after.shape:
        m = before[common].add_suffix("_b").join(after[common].add_suffix("_a"))
        for c in text:
            m[c] = m[f"{c}_b"]
    else:
        b = before.assign(_n=before.groupby(text, dropna=False).cumcount()) if text else before
        a = after.assign(_n=after.groupby(text, dropna=False).cumcount()) if text else after
        m = b.merge(a, on=[*text, "_n"] if text else None, suffixes=("_b", "_a"), how="inner")
    same = [c for c in common if c not in text and m[f"{c}_b"].equals(m[f"{c}_a"])]
    labels = text + same
    rows, moves = [], []
    for c in common:
        if c in labels:
            continue
        x, y = m[f"{c}_b"].to_numpy(float), m[f"{c}_a"].to_numpy(float)
        with np.errstate(all="ignore"):
            rel = np.where(np.isnan(x) & np.isnan(y), 0.0, (y - x) / np.abs(x))
        rel = np.where((x == 0) & (y == 0), 0.0, rel)
        ok = np.isfinite(rel)
        if not ok.any():
            continue
        absrel = np.abs(rel[ok])
        rows.append({"metric": c, "median_change": float(np.median(absrel)), "max_change": float(absrel.max())})
        for i in np.flatnonzero(ok):
            label = ", ".join(f"{k}={m[k if k in text else f'{k}_b'].iloc[i]}" for k in labels) or f"row {i}"
            moves.append((abs(rel[i]), f"{c} [{label}]: {x[i]:.4g} -> {y[i]:.4g} ({rel[i]:+.1%})"))
    table = pd.DataFrame(rows, columns=["metric", "median_change", "max_change"])
    moves.sort(key=lambda t: -t[0])
    return table.assign(rows=len(m)), [t for _, t in moves[:top]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--markdown", type=Path, help="also write the comparison as Markdown")
    ap.add_argument("--top", type=int, default=3, help="largest moves listed per figure")
    a = ap.parse_args()
    for d in (a.before, a.after):
        if not d.is_dir():
            print(f"error: {d}: not a folder of figure CSVs", file=sys.stderr)
            return 2
    names = sorted({p.name for p in a.before.glob("*.csv")} | {p.name for p in a.after.glob("*.csv")})
    md = []
    for name in names:
        fb, fa = a.before / name, a.after / name
        if not (fb.exists() and fa.exists()):
            line = f"{name[:-4]}: only in {'before' if fb.exists() else 'after'}"
            print(line)
            md.append(f"- **{name[:-4]}**: only {'before' if fb.exists() else 'after'}")
            continue
        before, after = pd.read_csv(fb), pd.read_csv(fa)
        table, moves = compare(before, after, a.top)
        if table.empty:  # every numeric column equal (all labels), or none shared
            same = before.equals(after)
            line = "unchanged (every value equal)" if same else "no metric in common"
            print(f"{name[:-4]}: {line}")
            md.append(f"- **{name[:-4]}**: {line}")
            continue
        rows = int(table["rows"].iloc[0])
        print(f"{name[:-4]} ({rows} rows)")
        print(table.drop(columns="rows").to_string(index=False, float_format=lambda v: f"{v:.1%}"))
        for t in moves:
            print(f"  {t}")
        worst = table.sort_values("median_change", ascending=False).head(3)
        cols = ", ".join(f"{r.metric} {r.median_change:.1%} (max {r.max_change:.1%})" for r in worst.itertuples())
        md.append(f"- **{name[:-4]}** ({rows} rows): median change by metric: {cols}.")
        md.extend(f"  - {t}" for t in moves)
    if a.markdown:
        a.markdown.write_text("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
