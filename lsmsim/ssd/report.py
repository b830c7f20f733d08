"""The replay's tables: measured vs model per trace direction (`comparison`) and the goals met (`summary`)."""

from __future__ import annotations

import math
from pathlib import Path

from .goals import errors, judge


def table(rows: list[dict], cols: list[tuple[str, str, str]]) -> str:
    """Rows as an aligned text table; cols are (key, header, format)."""
    head = [h for _, h, _ in cols]
    body = [
        [
            ("-" if r.get(k) is None or (isinstance(r.get(k), float) and math.isnan(r[k])) else format(r[k], f))
            for k, _, f in cols
        ]
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    line = lambda cells: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    return "\n".join([line(head)] + [line(b) for b in body])


def comparison(rows: list[dict]) -> str:
    for r in rows:
        r["bw_mb_m"], r["bw_mb_s"] = r["bw_measured"] / 1e6, r["bw_model"] / 1e6
        errors(r)
        for p in ("p50", "p99"):
            r[f"{p}_m"], r[f"{p}_s"] = r[f"{p}_measured"] * 1e6, r[f"{p}_model"] * 1e6
        ok = judge(r)
        r["ok"] = r["limit"] if ok is None else ("ok" if ok else "MISS")  # not judged: "host" or "state"
        r["short"] = _short(r["job"])
    return table(
        rows,
        [
            ("short", "trace", "s"),
            ("direction", "dir", "s"),
            ("bs", "bs", ".0f"),
            ("qd", "qd", "d"),
            ("read_fraction", "rd%", ".0%"),
            ("bw_mb_m", "MB/s fio", ".1f"),
            ("bw_mb_s", "MB/s model", ".1f"),
            ("iops_err", "IOPS err%", "+.1f"),
            ("p50_m", "p50us fio", ".1f"),
            ("p50_s", "p50us model", ".1f"),
            ("p50_err", "err%", "+.1f"),
            ("p99_m", "p99us fio", ".1f"),
            ("p99_s", "p99us model", ".1f"),
            ("p99_err", "err%", "+.1f"),
            ("ok", "goal", "s"),
        ],
    )


def summary(rows: list[dict]) -> str:
    judged = [r for r in rows if r["ok"] in ("ok", "MISS")]
    ok = sum(r["ok"] == "ok" for r in judged)
    changed = sum(r["ok"] == "state" for r in rows)
    state = f", {changed} from runs that changed state (not judged)" if changed else ""

    def within(key, bound, sel):
        v = [abs(r[key]) <= bound * 100 for r in sel if not math.isnan(r[key])]
        return f"{sum(v)}/{len(v)}"

    pure = [r for r in judged if r["read_fraction"] in (0.0, 1.0)]
    mixed = [r for r in judged if 0.0 < r["read_fraction"] < 1.0]
    return (
        f"{len(rows)} trace directions, {len(rows) - len(judged) - changed} host-limited (not judged){state}, "
        f"{ok}/{len(judged)} meet "
        f"every goal; IOPS/bw within 10%: {within('iops_err', 0.10, pure)}, p50 within 10%: "
        f"{within('p50_err', 0.10, pure)}, p99 within 25%: {within('p99_err', 0.25, judged)}, mixed within 15%: "
        f"IOPS {within('iops_err', 0.15, mixed)}, p50 {within('p50_err', 0.15, mixed)}"
    )


def _short(name: str) -> str:
    """'job (path)' -> the file's last two path parts."""
    if "(" in name:
        path = name[name.index("(") + 1 : name.rindex(")")]
        return "/".join(Path(path).parts[-2:])
    return name
