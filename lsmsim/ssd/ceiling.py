"""How many of a replay's directions any drive model could meet: the ceiling the recordings themselves set.

A model's prediction is a function of what it is told of a job (`timing.Job`: sizes, read share, queue depth, jobs,
sequential or not, the measured and ramp seconds). Recordings of the same job that fio measured far apart, repeats
on a drive whose state moved between runs (the PM981's three 4 KiB random-write runs at depth 32: 414, 536 and
632 MB/s) or series recorded on different set-ups the traces do not name (the 980 PRO's two series: 14.5K and 18.2K
IOPS at 4 KiB and depth 1), get one prediction, so no choice of parameters can meet the goals on all of them. For
each group of such directions the most any one prediction can meet is the most goal boxes (model/measured within
`goals.tolerances` on IOPS, p50 and p99) that share a point; their sum over the groups is the ceiling. A ceiling below
the issue's goal says which inputs the model would have to be told (the drive's state, the sector format, the
kernel) before a fit could reach it.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

from .goals import tolerances

_METRICS = ("iops", "p50", "p99")


def _box(r: dict) -> list[tuple[float, float]]:
    """The model values (IOPS, p50, p99) that meet `goals.judge` on row r: an interval per metric ((-inf, inf) where
    fio recorded none)."""
    tol = tolerances(r["read_fraction"])
    out = []
    for m in _METRICS:
        v = r[f"{m}_measured"]
        recorded = v is not None and not math.isnan(v) and v > 0
        out.append((v * (1 - tol[m]), v * (1 + tol[m])) if recorded else (-math.inf, math.inf))
    return out


def most_met(boxes: list[list[tuple[float, float]]]) -> int:
    """The most boxes (axis-parallel, closed) that share a point. A common point of the best set can be taken at the
    largest lower end in each axis, which is some box's lower end, so those corners are the only candidates."""
    if not boxes:
        return 0
    axes = [sorted({b[k][0] for b in boxes}) for k in range(len(boxes[0]))]
    best = 0
    for point in itertools.product(*axes):
        n = sum(all(lo <= x <= hi for x, (lo, hi) in zip(point, b)) for b in boxes)
        best = max(best, n)
    return best


def job_key(row: dict):
    """What the model sees of a row's job and direction, on its device (`row["device"]`, when rows of several are
    pooled). The measured and ramp seconds count only when the job writes (`timing._buffer_phases`: the share of the
    run the write buffer absorbs; a read-only job is one phase whatever its length), and then to the second (the
    repeats of one job differ by milliseconds, which move that share by a few parts in a million)."""
    job = row["model_job"]
    if job.read_fraction >= 1.0:
        job = dataclasses.replace(job, runtime=0.0, ramp=0.0)
    else:
        job = dataclasses.replace(job, runtime=float(round(job.runtime)))
    return row.get("device"), job, row["direction"]


def ceiling(rows: list[dict]) -> tuple[int, int, list[list[dict]]]:
    """(most directions one model could meet, directions judged, the groups of judged rows that disagree: more than
    one row, not all of them meetable at once). Host-limited rows are not judged, as in the replay's verdict."""
    groups: dict = {}
    for r in rows:
        if r["limit"] == "drive":
            groups.setdefault(job_key(r), []).append(r)
    total = met = 0
    disagree = []
    for g in groups.values():
        k = most_met([_box(r) for r in g])
        total += len(g)
        met += k
        if k < len(g):
            disagree.append(g)
    return met, total, disagree
