"""The run's physical limits: the device's logical capacity and the OS's limit on open files.

Spooky (Dayan et al., PVLDB'22) measures space as it is on the device: the tree's files plus the outputs of
flushes and compactions in flight, since a compaction's inputs stay until it ends (transient space-amp, §2,
Eq. 1), and, as in RocksDB, the inputs of finished compactions that running jobs' versions still hold
(versions.py). Its Full Merge runs and its X = L-1 run crashed when that outgrew the SSD (Fig. 14D, 15A), and its
X = L-4 run when the files outnumbered the OS's limit of 1024 open files (§4.2, Eq. 12; RocksDB with
`max_open_files = -1` keeps every table file open). lsmsim ends a run there, as those runs ended, with one
event row saying what the tree and the running jobs held at that moment, instead of raising an error.
"""

from __future__ import annotations

import json
import math

from ..errors import LsmsimError

DISK_FULL = "disk_full"
OPEN_FILES = "open_files_limit"


class LimitReached(LsmsimError):
    """The run reached the device's capacity or the open-file limit (`event` names which)."""

    def __init__(self, event: str, message: str):
        self.event = event
        super().__init__(message)


def in_flight_bytes(jobs) -> float:
    """Bytes flushes and compactions have written to outputs not yet installed (their inputs still count)."""
    return sum(j.progress * j.write_bytes for j in jobs if j.kind in ("flush", "compaction"))


def transient_bytes(jobs, obsolete=None) -> float:
    """Spooky Eq. 1's transient space: outputs in flight, and the removed files running jobs still hold
    (`versions.ObsoleteFiles`; None: none)."""
    return in_flight_bytes(jobs) + (obsolete.bytes if obsolete is not None else 0.0)


def in_flight_files(jobs) -> int:
    """Output files flushes and compactions have started (written one after another, in key order)."""
    n = 0
    for j in jobs:
        if j.kind in ("flush", "compaction") and j.outputs and j.progress > 0:
            n += min(len(j.outputs), math.ceil(j.progress * len(j.outputs) - 1e-12))
    return n


def open_files(tree, jobs, obsolete=None) -> int:
    """Files the engine holds open: every table file of the tree, the removed ones running jobs still hold, the
    outputs in flight and one write-ahead log per memtable (RocksDB with max_open_files = -1)."""
    held = obsolete.count if obsolete is not None else 0
    return (
        sum(len(r.files) for lvl in tree.levels for r in lvl.runs)
        + held
        + in_flight_files(jobs)
        + 1
        + len(tree.immutables)
    )


def check(tree, jobs, capacity: float, files_limit: int | None, obsolete=None) -> None:
    """Raise `LimitReached` when the tree plus its transient space exceed `capacity` bytes, or its open files
    exceed `files_limit` (None: no limit)."""
    physical = tree.bytes + transient_bytes(jobs, obsolete)
    if physical > capacity:
        raise LimitReached(
            DISK_FULL,
            f"disk full: the tree, its outputs in flight and the removed files running jobs hold need "
            f"{physical / 1e9:.3f} GB, more than the device's {capacity / 1e9:.3f} GB (device.capacity)",
        )
    if files_limit is not None:
        n = open_files(tree, jobs, obsolete)
        if n > files_limit:
            raise LimitReached(
                OPEN_FILES, f"too many open files: {n} > machine.open_files_limit = {files_limit} (tables and WALs)"
            )


def event_row(
    event: str, message: str, now: float, tree, jobs, capacity: float, files_limit: int | None, obsolete=None
) -> dict:
    """The row of the `events` table for a run that ended at a limit: when, why, the tree's levels and the jobs in
    flight (JSON columns, one object per level and per job)."""
    levels = [
        {"level": lvl.index, "runs": len(lvl.runs), "files": sum(len(r.files) for r in lvl.runs), "bytes": lvl.bytes}
        for lvl in tree.levels
    ]
    running = [
        {
            "kind": j.kind,
            "input_levels": sorted({f.level for f in j.inputs}),
            "input_files": len(j.inputs),
            "input_bytes": int(sum(f.bytes for f in j.inputs)),
            "output_level": j.compaction.output_level if j.compaction is not None else 0,
            "output_files": len(j.outputs),
            "output_bytes": float(j.write_bytes),
            "progress": float(j.progress),
        }
        for j in jobs
        if j.kind in ("flush", "compaction")
    ]
    return {
        "time": float(now),
        "event": event,
        "message": message,
        "physical_bytes": float(tree.bytes + transient_bytes(jobs, obsolete)),
        "obsolete_bytes": float(obsolete.bytes if obsolete is not None else 0.0),
        "capacity_bytes": float(capacity),
        "open_files": int(open_files(tree, jobs, obsolete)),
        "open_files_limit": -1 if files_limit is None else int(files_limit),
        "levels": json.dumps(levels),
        "running_jobs": json.dumps(running),
    }
