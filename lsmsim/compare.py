"""Runs side by side: the headline figures of several summaries, each beside its ratio to the first run
(`lsmsim compare`, and the table `lsmsim sweep` ends with)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from .errors import ConfigError
from .sim.counters import OPS

#: The figures compared: (summary key, label, scale, format); per-operation rows only where a run has them.
HEADLINE = [
    ("throughput_ops_per_s", "ops/s", 1, "{:,.0f}"),
    *[(f"throughput_{op}_ops_per_s", f"{op} ops/s", 1, "{:,.0f}") for op in OPS],
    *[(f"latency_{op}_p99_s", f"{op} p99 us", 1e6, "{:.1f}") for op in OPS],
    ("stall_stop_s", "stop s", 1, "{:.2f}"),
    ("stall_slowdown_s", "slowdown s", 1, "{:.2f}"),
    ("write_amp", "write-amp", 1, "{:.2f}"),
    ("space_amp", "space-amp", 1, "{:.2f}"),
    ("flushes", "flushes", 1, "{:,.0f}"),
    ("compactions", "compactions", 1, "{:,.0f}"),
]


SWEEP_FIGURES = [
    ("throughput_ops_per_s", "ops/s"),
    ("write_amp", "write-amp"),
    ("space_amp", "space-amp"),
    ("stall_stop_s", "stop s"),
    ("stall_slowdown_s", "slowdown s"),
]


def read_summary(run: str | Path) -> dict:
    """A run folder's summary.json (`lsmsim run -o DIR`), or the file itself."""
    p = Path(run)
    f = p / "summary.json" if p.is_dir() else p
    try:
        data = json.loads(f.read_text())
    except OSError as e:
        raise ConfigError(
            str(run), [("(file)", f"no summary: {e.strerror} (give a folder of `lsmsim run -o`)")]
        ) from None
    except json.JSONDecodeError as e:
        raise ConfigError(str(f), [("(file)", f"not a summary.json: {e.msg}")]) from None
    if not isinstance(data, dict) or "throughput_ops_per_s" not in data:
        raise ConfigError(str(f), [("(file)", "not the summary.json of an lsmsim run")])
    return {k: math.nan if v is None else v for k, v in data.items()}


def rows(summaries: dict[str, dict]) -> list[tuple[str, list[str]]]:
    """(label, cells) per figure any run has: each run's value, and from the second run on its ratio to the
    first (x1.23)."""
    out = []
    first = next(iter(summaries.values()))
    for key, label, scale, fmt in HEADLINE:
        vals = [s.get(key) for s in summaries.values()]
        if all(v is None or (isinstance(v, float) and math.isnan(v)) or v == 0 for v in vals) and key != "stall_stop_s":
            continue
        cells = []
        for i, v in enumerate(vals):
            if v is None or (isinstance(v, float) and math.isnan(v)):
                cells.append("-")
                continue
            text = fmt.format(v * scale)
            base = first.get(key)
            if i > 0 and isinstance(base, (int, float)) and base and not math.isnan(base):
                text += f" (x{v / base:.2f})"
            cells.append(text)
        out.append((label, cells))
    return out


def render(summaries: dict[str, dict]) -> str:
    """The comparison as a fixed-width text table (runs as columns)."""
    names = list(summaries)
    body = rows(summaries)
    w0 = max([len("figure")] + [len(lbl) for lbl, _ in body])
    widths = [max([len(n)] + [len(c[i]) for _, c in body]) for i, n in enumerate(names)]
    lines = [f"{'figure':<{w0}}  " + "  ".join(f"{n:>{w}}" for n, w in zip(names, widths, strict=True))]
    for lbl, cells in body:
        lines.append(f"{lbl:<{w0}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True)))
    return "\n".join(lines)


def sweep_table(table, params: list[str], limit: int = 40) -> str:
    """A sweep's finished points, a row each: their parameters, the headline figures, and the throughput's
    ratio to the first point's (`lsmsim sweep` prints it when it ends)."""
    ok = table[table["status"] == "ok"] if "status" in table else table
    if ok.empty:
        return "(no finished point)"
    cols = [c for c in params if c in ok]
    out = ok[cols].copy()
    for key, label in SWEEP_FIGURES:
        if key in ok:
            out[label] = ok[key]
    if "ops/s" in out:
        first = out["ops/s"].iloc[0]
        out["x first"] = out["ops/s"] / first if first else math.nan
    more = f"\n... and {len(out) - limit} more points (results.parquet has them all)" if len(out) > limit else ""
    shown = out.head(limit)
    fmt = {"ops/s": "{:,.0f}".format, "x first": "{:.2f}".format}
    return shown.to_string(index=False, formatters=fmt, float_format=lambda v: f"{v:.3g}") + more
