"""The accuracy goals of `lsmsim ssd replay` (issue 14) and the verdict on one compared row: drive-limited traces
only. Shared by the replay's tables (cli.py) and the write-order search (order.py)."""

from __future__ import annotations

import math

GOALS = {"iops": 0.10, "bw": 0.10, "p50": 0.10, "p99": 0.25, "mixed": 0.15}


def _err(a, b):
    return 100.0 * (a / b - 1.0) if b and not math.isnan(b) and not math.isnan(a) else float("nan")


def tolerances(read_fraction: float) -> dict:
    """The relative misses allowed on IOPS, p50 and p99 of a job's direction: mixed read/write jobs are held to 15% on
    IOPS and p50 in both directions, pure ones to 10%; p99 to 25%."""
    mixed = 0.0 < read_fraction < 1.0
    return {"iops": GOALS["mixed" if mixed else "iops"], "p50": GOALS["mixed" if mixed else "p50"], "p99": GOALS["p99"]}


def judge(r: dict) -> bool | None:
    """Whether a compared row meets the goals (`tolerances`; None: host-limited, not judged)."""
    if r["limit"] != "drive":
        return None
    tol = tolerances(r["read_fraction"])
    ok = abs(r["iops_err"]) <= 100 * tol["iops"]  # a NaN here fails: IOPS are always measured
    return bool(ok and all(math.isnan(r[f"{m}_err"]) or abs(r[f"{m}_err"]) <= 100 * tol[m] for m in ("p50", "p99")))


def errors(r: dict) -> dict:
    """Add a compared row's relative errors in % (iops_err, bw_err, p50_err, p99_err); returns the row."""
    r["iops_err"] = _err(r["iops_model"], r["iops_measured"])
    r["bw_err"] = r["iops_err"]  # same block size: bandwidth errs as IOPS does
    for p in ("p50", "p99"):
        r[f"{p}_err"] = _err(r[f"{p}_model"], r[f"{p}_measured"])
    return r
