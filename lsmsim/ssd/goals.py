"""The accuracy goals of `lsmsim ssd replay` (issue 14) and the verdict on one compared row: drive-limited traces
only. Shared by the replay's tables (cli.py) and the write-order search (order.py)."""

from __future__ import annotations

import math

GOALS = {"iops": 0.10, "bw": 0.10, "p50": 0.10, "p99": 0.25, "mixed": 0.15}


def _err(a, b):
    return 100.0 * (a / b - 1.0) if b and not math.isnan(b) and not math.isnan(a) else float("nan")


def judge(r: dict) -> bool | None:
    """Whether a compared row meets the goals (None: host-limited, not judged). Mixed read/write
    jobs are held to 15% on IOPS and p50 in both directions, p99 to 25%."""
    if r["limit"] != "drive":
        return None
    mixed = 0.0 < r["read_fraction"] < 1.0
    ok = abs(r["iops_err"]) <= 100 * (GOALS["mixed"] if mixed else GOALS["iops"])
    ok &= (
        abs(r["p50_err"]) <= 100 * (GOALS["mixed"] if mixed else GOALS["p50"]) if not math.isnan(r["p50_err"]) else True
    )
    ok &= abs(r["p99_err"]) <= 100 * GOALS["p99"] if not math.isnan(r["p99_err"]) else True
    return bool(ok)


def errors(r: dict) -> dict:
    """Add a compared row's relative errors in % (iops_err, bw_err, p50_err, p99_err); returns the row."""
    r["iops_err"] = _err(r["iops_model"], r["iops_measured"])
    r["bw_err"] = r["iops_err"]  # same block size: bandwidth errs as IOPS does
    for p in ("p50", "p99"):
        r[f"{p}_err"] = _err(r[f"{p}_model"], r[f"{p}_measured"])
    return r
