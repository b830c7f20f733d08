"""The four compaction primitives (Sarkar et al., PVLDB'21 §3.1, Fig. 3) and the ten strategies of its Table 2.

A compaction strategy is an ensemble: a trigger (when), a data layout (how data lies), a granularity (how much
moves at a time) and a data movement policy (which data). Triggers and movement policies are lists in priority
order (TSD: 1. tombstone density, 2. level saturation). `validate` names the field of an ensemble that is not a
strategy lsmsim can run, and why.

What runs (`policy.py`):
- layouts `leveling` (one run per level, also RocksDB's L0: every flush compacts into L1, the paper's §4.1
  "pure leveling"), `1-leveling` (L0 tiered, RocksDB's default) and `tiering` (RocksDB's
  universal compaction, the paper's Tier);
- granularity `file` (one file and RocksDB's clean expansion around it) or `level` (whole levels, Full) for the
  leveled layouts, `sorted_run` for tiering;
- triggers `level_saturation`, `tombstone_density`, `tombstone_ttl`, `file_staleness` (leveled layouts) and
  `sorted_runs`, `space_amp` (tiering);
- movement `least_overlap_parent`, `least_overlap_grandparent`, `coldest`, `oldest`, `round_robin`,
  `most_tombstones`, `expired_tombstone_ttl` (lsmsim's `movement.py` orders; the last two rank the files that
  the tombstone triggers marked).

Not built (a config error says so): the `l-leveling` and `hybrid` layouts, and granularity `files` beyond
RocksDB's expansion of one file.
"""

from __future__ import annotations

from dataclasses import dataclass

TRIGGERS = ("level_saturation", "sorted_runs", "file_staleness", "space_amp", "tombstone_density", "tombstone_ttl")
LAYOUTS = ("leveling", "1-leveling", "tiering", "l-leveling", "hybrid")
GRANULARITIES = ("level", "sorted_run", "file", "files")
MOVEMENTS = (
    "round_robin",
    "least_overlap_parent",
    "least_overlap_grandparent",
    "coldest",
    "oldest",
    "most_tombstones",
    "expired_tombstone_ttl",
)

# movement policy -> RocksDB's compaction_pri that ranks the files (policies/movement.py)
FILE_ORDER = {
    "least_overlap_parent": "min_overlapping_ratio",
    "least_overlap_grandparent": "min_overlapping_ratio_grandparent",
    "coldest": "oldest_largest_seq_first",
    "oldest": "oldest_smallest_seq_first",
    "round_robin": "round_robin",
}
# the trigger whose marked files a movement policy ranks
MARKED_BY = {"most_tombstones": "tombstone_density", "expired_tombstone_ttl": "tombstone_ttl"}
LEVELED_TRIGGERS = ("level_saturation", "tombstone_density", "tombstone_ttl", "file_staleness")


@dataclass(frozen=True)
class Ensemble:
    """One compaction strategy: triggers and movement policies in priority order."""

    trigger: tuple[str, ...]
    layout: str
    granularity: str
    movement: tuple[str, ...] = ()


# Table 2, in the paper's spelling of the names
PRESETS: dict[str, Ensemble] = {
    "Full": Ensemble(("level_saturation",), "leveling", "level"),
    "LO+1": Ensemble(("level_saturation",), "leveling", "file", ("least_overlap_parent",)),
    "Cold": Ensemble(("level_saturation",), "leveling", "file", ("coldest",)),
    "Old": Ensemble(("level_saturation",), "leveling", "file", ("oldest",)),
    "TSD": Ensemble(
        ("tombstone_density", "level_saturation"), "leveling", "file", ("most_tombstones", "least_overlap_parent")
    ),
    "RR": Ensemble(("level_saturation",), "leveling", "file", ("round_robin",)),
    "LO+2": Ensemble(("level_saturation",), "leveling", "file", ("least_overlap_grandparent",)),
    "TSA": Ensemble(
        ("tombstone_ttl", "level_saturation"), "leveling", "file", ("expired_tombstone_ttl", "least_overlap_parent")
    ),
    "Tier": Ensemble(("sorted_runs", "space_amp"), "tiering", "sorted_run"),
    "1-Lvl": Ensemble(("sorted_runs", "level_saturation"), "1-leveling", "file", ("least_overlap_parent",)),
}


def validate(e: Ensemble) -> list[tuple[str, str]]:
    """(field, message) for every part of `e` that is not a strategy lsmsim runs; empty when it runs."""
    errs = _names(e)
    if errs:
        return errs
    if not e.trigger:
        return [("trigger", "needs at least one trigger")]
    if e.layout in ("l-leveling", "hybrid"):
        return [("layout", f"{e.layout!r} is not built yet; built: leveling, 1-leveling, tiering")]
    return _tiering(e) if e.layout == "tiering" else _leveled(e)


def _names(e: Ensemble) -> list[tuple[str, str]]:
    errs: list[tuple[str, str]] = []
    for field, values, allowed in (("trigger", e.trigger, TRIGGERS), ("movement", e.movement, MOVEMENTS)):
        for i, v in enumerate(values):
            if v not in allowed:
                errs.append((f"{field}.{i}", f"{v!r} is not a {field}; one of {', '.join(allowed)}"))
        if len(set(values)) < len(values):
            errs.append((field, "lists a value twice"))
    if e.layout not in LAYOUTS:
        errs.append(("layout", f"{e.layout!r} is not a layout; one of {', '.join(LAYOUTS)}"))
    if e.granularity not in GRANULARITIES:
        errs.append(("granularity", f"{e.granularity!r} is not a granularity; one of {', '.join(GRANULARITIES)}"))
    return errs


def _tiering(e: Ensemble) -> list[tuple[str, str]]:
    errs = []
    if e.granularity != "sorted_run":
        errs.append(("granularity", "tiering compacts sorted runs (granularity: sorted_run)"))
    if set(e.trigger) != {"sorted_runs", "space_amp"}:
        errs.append(("trigger", "tiering runs as RocksDB's universal compaction: [sorted_runs, space_amp]"))
    if e.movement:
        errs.append(("movement", "tiering merges whole sorted runs: no movement policy (leave it empty)"))
    return errs


def _leveled(e: Ensemble) -> list[tuple[str, str]]:
    errs = []
    allowed = LEVELED_TRIGGERS + (("sorted_runs",) if e.layout == "1-leveling" else ())
    for i, t in enumerate(e.trigger):
        if t not in allowed:
            errs.append((f"trigger.{i}", f"{t!r} does not apply to {e.layout}; one of {', '.join(allowed)}"))
    if "level_saturation" not in e.trigger:
        errs.append(("trigger", f"{e.layout} needs level_saturation among its triggers"))
    if e.layout == "1-leveling" and "sorted_runs" not in e.trigger:
        errs.append(("trigger", "1-leveling tiers L0: it needs sorted_runs among its triggers"))
    if e.granularity == "files":
        errs.append(("granularity", "'files' is not built yet: 'file' takes one file and RocksDB's expansion"))
    elif e.granularity not in ("file", "level"):
        errs.append(("granularity", f"{e.layout} compacts files or whole levels (file | level)"))
    if e.granularity == "level":
        if e.movement:
            errs.append(("movement", "whole-level compactions move every file: no movement policy"))
        if set(e.trigger) - {"level_saturation", "sorted_runs"}:
            errs.append(("trigger", "whole-level compactions take only level_saturation"))
        return errs
    orders = [m for m in e.movement if m in FILE_ORDER]
    if len(orders) != 1:
        names = ", ".join(FILE_ORDER)
        errs.append(("movement", f"needs exactly one file order among {names}"))
    for m, trig in MARKED_BY.items():
        if (m in e.movement) != (trig in e.trigger):
            errs.append(("movement", f"{m} ranks the files the {trig} trigger marks: give both or neither"))
    return errs
