"""The ElasticLSM tree as ARCE's scoring sees it (ArceKV, PVLDB 19(5) 2026, Sec. 2 and 3.1).

``TreeState`` holds one entry per sorted run (size in bytes, level, timestamp range ``[ts_lo, ts_hi]``, key range
``[key_lo, key_hi]`` as floats, an id). Runs are stored in the *canonical order* (level ascending, then size
ascending, then older first); ``run_id`` maps them back to the caller's runs. Its timestamp order is checked on
construction (R8), and so is the level cap (R13). ``apply_compaction`` and ``add_flushes`` evolve a tree as
Eq. 8 does (the plain-Python simulation of Algorithm 1 uses them). R-numbers refer to docs/arce-readings.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MAX_LEVELS", "TreeState", "timestamp_order_ok", "compaction_keeps_order", "apply_compaction", "add_flushes"]

MAX_LEVELS = 7  # R13: "fewer than 8" levels


def _f64(x, n, default):
    if x is None:
        return np.full(n, default, dtype=np.float64)
    a = np.asarray(x, dtype=np.float64).reshape(-1)
    if a.size != n:
        raise ValueError(f"expected {n} values, got {a.size}")
    return a


def timestamp_order_ok(level, ts_lo, ts_hi) -> bool:
    """R8: for consecutive non-empty levels a < b (a shallower), max ts_hi(b) < min ts_lo(a); and ts_lo <= ts_hi.
    Runs of one level may overlap in time."""
    level = np.asarray(level)
    ts_lo = np.asarray(ts_lo, dtype=np.float64)
    ts_hi = np.asarray(ts_hi, dtype=np.float64)
    if np.any(ts_lo > ts_hi):
        return False
    newer_lo = None  # min ts_lo of the nearest shallower non-empty level
    for lv in range(int(level.max()) + 1 if level.size else 0):
        m = level == lv
        if not m.any():
            continue
        if newer_lo is not None and not ts_hi[m].max() < newer_lo:
            return False
        newer_lo = ts_lo[m].min()
    return True


@dataclass(frozen=True, eq=False)
class TreeState:
    """An ElasticLSM tree: per-run numpy arrays, stored in canonical order (level, size, ts_hi, ts_lo, input
    position). ``run_id`` (default: input position) identifies the caller's runs. Without timestamps, valid ones
    are made up (deeper levels older, one tick per run). Raises ValueError on an invalid tree (R8, R13)."""

    size: np.ndarray
    level: np.ndarray
    ts_lo: np.ndarray | None = None
    ts_hi: np.ndarray | None = None
    key_lo: np.ndarray | None = None
    key_hi: np.ndarray | None = None
    run_id: np.ndarray | None = None
    num_levels: int = MAX_LEVELS

    def __post_init__(self):
        set_ = object.__setattr__
        size = np.asarray(self.size, dtype=np.float64).reshape(-1)
        n = size.size
        level = np.asarray(self.level).reshape(-1)
        if level.size != n:
            raise ValueError(f"expected {n} levels, got {level.size}")
        if n and not np.all(level == np.round(level)):
            raise ValueError("levels must be integers")
        level = level.astype(np.int64)
        L = int(self.num_levels)
        if not 1 <= L <= MAX_LEVELS:
            raise ValueError(f"num_levels must be in 1..{MAX_LEVELS} (fewer than 8 levels, R13), got {L}")
        if n and (level.min() < 0 or level.max() >= L):
            raise ValueError(f"levels must be in 0..{L - 1}")
        if n and not (np.all(np.isfinite(size)) and size.min() > 0):
            raise ValueError("run sizes must be finite and > 0")
        if self.ts_lo is None and self.ts_hi is None:
            ts = np.empty(n, dtype=np.float64)
            tick = 0.0
            for lv in range(L - 1, -1, -1):
                for i in np.flatnonzero(level == lv):
                    ts[i] = tick
                    tick += 1.0
            ts_lo, ts_hi = ts, ts.copy()
        else:
            ts_lo = _f64(self.ts_lo if self.ts_lo is not None else self.ts_hi, n, 0.0)
            ts_hi = _f64(self.ts_hi if self.ts_hi is not None else self.ts_lo, n, 0.0)
        key_lo, key_hi = _f64(self.key_lo, n, 0.0), _f64(self.key_hi, n, 1.0)
        run_id = (
            np.arange(n, dtype=np.int64) if self.run_id is None else np.asarray(self.run_id, dtype=np.int64).reshape(-1)
        )
        if run_id.size != n:
            raise ValueError(f"expected {n} run ids, got {run_id.size}")
        if n and not timestamp_order_ok(level, ts_lo, ts_hi):
            raise ValueError(
                "runs violate the timestamp order (R8): a deeper level must hold strictly older "
                "data than every shallower level, and ts_lo <= ts_hi"
            )
        order = np.lexsort((np.arange(n), ts_lo, ts_hi, size, level))
        for name, arr in (
            ("size", size),
            ("level", level),
            ("ts_lo", ts_lo),
            ("ts_hi", ts_hi),
            ("key_lo", key_lo),
            ("key_hi", key_hi),
            ("run_id", run_id),
        ):
            a = np.ascontiguousarray(arr[order])
            a.setflags(write=False)
            set_(self, name, a)
        set_(self, "num_levels", L)
        counts = np.bincount(level[order], minlength=L).astype(np.int64)
        counts.setflags(write=False)
        set_(self, "_counts", counts)

    @property
    def total_runs(self) -> int:
        """s = |S|."""
        return int(self.size.size)

    @property
    def total_bytes(self) -> float:
        return float(self.size.sum())

    def level_counts(self) -> np.ndarray:
        """Runs per level, int64[num_levels] (read-only)."""
        return self._counts

    def level_starts(self) -> np.ndarray:
        """Index of each level's first run in the canonical order, int64[num_levels + 1]."""
        st = np.zeros(self.num_levels + 1, dtype=np.int64)
        np.cumsum(self.level_counts(), out=st[1:])
        return st

    def __repr__(self):
        return f"TreeState(runs={self.total_runs}, bytes={self.total_bytes:.4g}, levels={self.level_counts().tolist()})"


def compaction_keeps_order(state: TreeState, runs, target_level: int) -> bool:
    """Whether merging ``runs`` (canonical indices) into one run at ``target_level`` keeps the timestamp order
    (R8) and moves no data upwards (Sec. 3.1: compactions proceed downward)."""
    runs = np.unique(np.asarray(runs, dtype=np.int64))
    if runs.size == 0 or not 0 <= target_level < state.num_levels:
        return False
    if state.level[runs].max() > target_level:
        return False
    keep = np.ones(state.total_runs, dtype=bool)
    keep[runs] = False
    level = np.append(state.level[keep], target_level)
    lo = np.append(state.ts_lo[keep], state.ts_lo[runs].min())
    hi = np.append(state.ts_hi[keep], state.ts_hi[runs].max())
    return timestamp_order_ok(level, lo, hi)


def apply_compaction(state: TreeState, runs, target_level: int, new_id: int | None = None) -> TreeState:
    """The tree after merging ``runs`` (canonical indices) into one run at ``target_level`` (R6: its size is the
    sum of the inputs, its timestamp and key ranges their union). Raises ValueError if the result breaks R8."""
    runs = sorted(set(int(i) for i in runs))
    if not compaction_keeps_order(state, runs, target_level):
        raise ValueError(f"merging runs {runs} into level {target_level} breaks the timestamp order")
    x = 0.0
    for i in runs:  # sequential sum in canonical order (the kernels sum the same way)
        x += float(state.size[i])
    keep = np.ones(state.total_runs, dtype=bool)
    keep[runs] = False
    nid = int(state.run_id.max()) + 1 if new_id is None else int(new_id)
    return TreeState(
        size=np.append(state.size[keep], x),
        level=np.append(state.level[keep], target_level),
        ts_lo=np.append(state.ts_lo[keep], state.ts_lo[runs].min()),
        ts_hi=np.append(state.ts_hi[keep], state.ts_hi[runs].max()),
        key_lo=np.append(state.key_lo[keep], state.key_lo[runs].min()),
        key_hi=np.append(state.key_hi[keep], state.key_hi[runs].max()),
        run_id=np.append(state.run_id[keep], nid),
        num_levels=state.num_levels,
    )


def add_flushes(state: TreeState, count: int, size: float) -> TreeState:
    """The tree after ``count`` MemTable flushes of ``size`` bytes: new level-0 runs, each newer than all data."""
    count = int(count)
    if count <= 0:
        return state
    t0 = float(state.ts_hi.max()) + 1.0 if state.total_runs else 0.0
    ts = t0 + np.arange(count, dtype=np.float64)
    nid = (int(state.run_id.max()) + 1 if state.total_runs else 0) + np.arange(count, dtype=np.int64)
    return TreeState(
        size=np.append(state.size, np.full(count, float(size))),
        level=np.append(state.level, np.zeros(count, dtype=np.int64)),
        ts_lo=np.append(state.ts_lo, ts),
        ts_hi=np.append(state.ts_hi, ts),
        key_lo=np.append(state.key_lo, np.zeros(count)),
        key_hi=np.append(state.key_hi, np.ones(count)),
        run_id=np.append(state.run_id, nid),
        num_levels=state.num_levels,
    )
