"""The order a drive serves random writes in, searched on fio traces (issue 39).

fio's random writes at queue depth do not wait in submission order. On the WD ZNS conventional namespace (4 KiB
random writes, depths 2-64) fio's p50 is 0.54-0.71 of the mean and its p95 2.4-3.4x, at the same 56K IOPS as
sequential writes whose p50 is 0.92-0.99 of the mean; on the PM981 (4 KiB random writes at depth 32) p95, p99 and
p99.9 are 3.1, 4.6 and 7.1x the mean, the exponential's 3.0, 4.6 and 6.9x. A queue served in submission order
gives every request about the mean. Two mechanisms of `drive_sim` give the spread, each searched here:

- `write_window`: random writes waiting in the controller (for its command stage, or for room in the write buffer)
  are taken in no fixed order, one of the `write_window` oldest at random (random order of service: a request
  overtaken k times waits k services, geometric in k, the exponential's discrete twin; Kingman 1962). Beyond the
  window the order holds, so the spread fades at depths well past it (WD ZNS: p50 back at the mean from depth 128).
- `map_update_time` and `map_update_backlog`: part of a random write's command interval is mapping-table work the
  controller defers (a DFTL-style cached mapping table: Gupta et al., ASPLOS'09): done while it idles, so a lone
  write never sees it (WD ZNS's depth-1 p95 is 1.11x its mean), or all at once when the deferred work would pass
  the backlog, so that at depth most writes pass quickly and the few behind the catch-up wait (WD ZNS's depth-2 p50
  sits at the lone write's 19us while its mean is 32us). The command rate, and so the throughput, is unchanged.

The search scores every candidate on the traces by the replay's goals (`goals.judge`: IOPS, p50, p99) and breaks
ties by the log errors' squares, p99's at half weight as in the fit (`calibrate.P99_WEIGHT`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

from .calibrate import P99_WEIGHT, compare
from .fio import FioJobResult
from .goals import errors, judge
from .timing import KIB4, DriveModel

WINDOWS = (1, 2, 4, 8, 16, 32, 64, 128)
MAP_SHARES = (0.0, 0.15, 0.3, 0.45, 0.6)  # map_update_time as a share of the 4 KiB write's command interval
BACKLOGS = (100e-6, 200e-6, 400e-6)
SEARCH_IOS = 20000  # requests simulated per job and candidate


def candidates(model: DriveModel) -> list[dict]:
    """Every combination searched: windows x (no deferred work, or each share x each backlog)."""
    interval = model.command_interval(KIB4)
    out = []
    for w, share in itertools.product(WINDOWS, MAP_SHARES):
        backlogs = BACKLOGS if share > 0 else (model.map_update_backlog,)
        for b in backlogs:
            out.append({"write_window": w, "map_update_time": share * interval, "map_update_backlog": b})
    return out


def score(rows: list[dict]) -> tuple[int, float]:
    """(directions meeting every goal, the squared log errors) of compared rows; host-limited ones are not judged."""
    met, cost = 0, 0.0
    for r in rows:
        ok = judge(errors(r))
        if ok is None:
            continue
        met += bool(ok)
        for key, weight in (("iops", 1.0), ("p50", 1.0), ("p99", P99_WEIGHT)):
            e = r[f"{key}_err"]
            if not math.isnan(e):
                cost += weight * math.log1p(e / 100.0) ** 2
    return met, cost


def search(model: DriveModel, results: list[FioJobResult], n_ios: int = SEARCH_IOS, progress=None):
    """The candidate meeting the most goals on `results` (ties: the least cost) as (model, [(candidate, met,
    cost)]). Only random writes use these parameters: without any among the results the model is returned as is."""
    if not any(r.spec.rw in ("randwrite", "randrw") for r in results):
        return model, []
    return best_of(model, candidates(model), results, n_ios, progress)


def best_of(model: DriveModel, cands: list[dict], results: list[FioJobResult], n_ios: int, progress=None):
    """Each candidate (fields of the model) scored on `results`: the one meeting the most goals (ties: the least
    cost) as (model, [(candidate, met, cost)]); `progress(k, n, candidate, met, cost)` after each."""
    table = []
    for k, c in enumerate(cands):
        met, cost = score(compare(replace(model, **c), results, n_ios=n_ios))
        table.append((c, met, cost))
        if progress:
            progress(k + 1, len(cands), c, met, cost)
    best = max(table, key=lambda t: (t[1], -t[2]))
    return replace(model, **best[0]), table
