"""ARCE's count-window cost model and effectiveness score (ArceKV, PVLDB 19(5) 2026, Sections 3.1-3.3 and 4).

Everything here is plain numpy in, numbers out, so that a policy can call it on a snapshot of its tree.

Data
----
``TreeState``   the ElasticLSM tree: one entry per sorted run (size in bytes, level, timestamp range
                ``[ts_lo, ts_hi]``, key range ``[key_lo, key_hi]`` as floats, an id). Runs are stored in the
                *canonical order* (level ascending, then size ascending, then older first); ``run_id`` maps them
                back to the caller's runs.
``Workload``    ``(r, u, p)``: range lookups, updates and point lookups per count window (Sec. 3.2), ``u = F/E``.
``CostParams``  device and system constants: ``I_r``, ``I_w`` (time of one block read / write), ``F``
                (MemTable bytes), ``E`` (entry bytes), ``B`` (block bytes), ``alpha`` (Bloom-filter false
                positive rate), ``threads`` and ``phi`` (Amdahl, Sec. 4). No constant is baked in.
``ArceParams``  ``(M, c, k)``: long-term weight, write-stall threshold (runs) and stall rate.

Cost model (Sec. 3.2), for ``s`` sorted runs::

    P(s) = (alpha s + 1) I_r                            Eq. 1  point lookup
    R(s) = s I_r                                        Eq. 2  range lookup (seek part)
    U(s) = (F/B) I_w / u + k 1(s > c)                   Eq. 3  update (reading R2)
    f(s, t) = sum_{i<t} r R(s+i) + u U(s+i) + p P(s+i)  Eq. 4  foreground time of t windows
    t = min{t >= 1 : f(s, t) >= X/B (I_r + I_w)}        Eq. 5  windows a compaction of X bytes spans
    s' = s + t - y                                      Eq. 6/8 runs after it (y runs removed, t flushed)
    C = sum f(s_i, t_i) / sum t_i (r + u + p)           Eq. 7  average cost of a compaction sequence

Score (Sec. 3.3)::

    E_s(s, t) = I_r t (r + alpha p) + u k max(0, s + t - c)      Eq. 9   short-term penalty
    E_l(y)    = (r + alpha p) I_r y                              Eq. 10  long-term benefit
    E(s,t,y)  = M E_l(y) - E_s(s, t)                             Eq. 11  effectiveness

Candidates (Sec. 3.1) are the three patterns, pruned as the paper says: a level's runs are sorted by size and
added one at a time. In the canonical order every candidate is a contiguous range of runs ``[first, last]``
starting at the first run of a level, so a candidate is a row ``(pattern, first_run, last_run, target_level)``;
it merges ``last - first + 1`` runs, removes ``y = last - first`` runs and has ``X = sum(size[first:last+1])``.

Each numeric function has a numba kernel (``cache=True``) and a plain-Python reference that transcribes the
equations literally (``*_reference``: Eq. 4 and 5 summed window by window, every candidate built as an explicit
list of runs). The tests check that both agree.

Readings of the paper
---------------------
The text leaves these points open (or contradicts itself); each choice is ours. The public RocksDB-based
implementation (github.com/NTU-Siqiang-Group/ArceKV) differs from the paper in several places (I/O costs in
units of one block I/O, a fixed 1 % FPR, stalls from s >= c at a fixed 4 I/Os per update with a cliff at 4c,
only (M, c) searched with c stepped by 4, M < 100, a 1000-window budget, ...); we follow the paper.

R1  Units. ``r`` and ``p`` are *counts per window* (Sec. 3.2: "the number of range lookup and point lookup
    within a window"), ``u = F/E``. ``Workload.from_mix`` converts an operation mix: ``r = u range/update``,
    ``p = u point/update``; a mix without updates has no finite window and is rejected (pass ``update_floor``).
R2  Eq. 3's flush term. ``(F/B) I_w`` is the time to flush the whole MemTable, i.e. once per window; read per
    update it would make ``u U(s)`` charge the flush ``u`` times (15.7 s per window with the paper's F = 2 MiB,
    E = 1 KiB, I_w = 15 us, against the "over 200 ms" window of Sec. 4). We read ``U(s) = (F/B) I_w / u +
    k 1(s > c)``, so ``u U(s) = (F/B) I_w + u k 1(s > c)`` (also what the public code charges).
    ``CostParams(flush_cost_per_update=True)`` selects the literal per-update reading.
R3  ``k`` is a time per stalled update, in the unit of ``I_r``/``I_w`` (microseconds with the paper's
    I_r = 12, I_w = 15); the stall indicator is strict, ``1(s > c)`` ("when s exceeds c").
R4  ``alpha`` is the per-run false positive rate; ``alpha_from_bits_per_key`` uses the paper's
    ``exp(-BPK ln(2)^2)`` (0.0082 at 10 bits per key). The range-scan term ``lE/B I_r`` is omitted (Sec. 3.2).
R5  Window ``i`` of a compaction (``i = 0..t-1``) has ``s + i`` runs: one MemTable flush per window, the first
    at the end of window 0 (Eq. 4's ``s + i``).
R6  ``X`` is the total size of the compaction's input runs; it is read once and written once
    (``X/B (I_r + I_w)``) and the output run has size ``X`` (the model has no deduplication).
R7  A compaction's effect lands in the window after it completes (Sec. 3.2, Example 3.1): after ``t`` windows
    its ``y + 1`` input runs are replaced by the output run (``y = #inputs - 1``) and ``t`` flushed runs of ``F``
    bytes have been added at level 0 (Eq. 8, ``s + t - y``).
R8  Timestamp order. Section 3.1 is followed: a shallower level holds newer data; two levels' timestamp
    ranges are disjoint (deeper ``max ts_hi`` < shallower ``min ts_lo`` for consecutive non-empty levels); runs of
    one level may overlap in time. (Section 2's sentence "the smallest timestamp in the i-th level must be no
    smaller than the largest timestamp in the (i-1)-th level" has the inequality reversed.) There is no
    time-adjacency rule *inside* a level: the paper lets runs of a level overlap in time, so merging any subset
    of one level keeps the order. The constraint "merge only runs adjacent in time" therefore holds at level
    granularity: every candidate takes whole consecutive levels ``i..j`` (plus a subset of level ``j+1`` when
    placed there), which is what keeps the order; taking only part of level ``i`` down to ``i+1`` could break
    it and is never generated. ``compaction_keeps_order`` checks any merge against the rule; timestamps are
    floats (exact for integer sequence numbers below 2**53).
R9  Pattern 3 is read as ``j >= i + 1`` (``CostParams.p3_min_span = 1``), not the printed ``j > i + 1``: with
    the literal bound the merge "all of levels i and i+1 plus some of i+2 into i+2" is in no pattern, so a
    3-level tree could never be merged whole, the motivating action of Fig. 2 ("compact all runs across levels
    in a single operation"). ``p3_min_span = 2`` gives the literal reading.
R10 Patterns 2 and 3 start at a non-empty level ``i`` (with ``i`` empty they repeat a candidate of a deeper
    start). A merge of one run (``y = 0``, a move) is not a candidate: it has no benefit in the model
    (``E = -E_s <= 0``) and can never be selected (R12).
R11 Pruning order: runs of a level are sorted by size ascending; equal sizes put the older run first
    (``ts_hi``, then ``ts_lo``, then input position). Patterns 2 and 3 add the deeper level's runs in the same
    order, one at a time, from zero to all. Candidates are listed by start level ``i``, then last run, then
    target level (so pattern 1 before 2 before 3 for the same runs). The same runs can appear with several
    targets (all of level ``i`` stays at ``i``, moves to ``i+1``, or to ``j+1`` past empty levels); all are
    listed.
R12 Selection: the highest score wins if it is > 0; otherwise no compaction is started (its short-term penalty
    outweighs its M-scaled benefit). Ties go to the larger ``y``, then the smaller ``X``, then the earlier
    candidate (hence the shallowest target). In Algorithm 1 an iteration without a compaction lasts one window
    (``t = 1``, ``y = 0``): the tree gains one flushed run.
R13 Level cap: "fewer than 8" levels, i.e. at most ``MAX_LEVELS = 7`` (levels 0..6, RocksDB's default);
    ``TreeState.num_levels`` (<= 7) is the configured count and no candidate targets a level beyond it.
R14 Amdahl (Sec. 4): ``g = 1 / (1 - phi (1 - 1/eta))`` with ``eta = CostParams.threads`` foreground threads,
    ``t' = max(1, ceil(t/g))`` (rounded up so effects still land on window boundaries). ``t'`` replaces ``t``
    everywhere: in E_s, in ``f(s, t)`` of Algorithm 1 and in the state evolution (``t'`` flushes).
R15 Multiple background workers (Sec. 4): with ``idle_workers >= 2`` a compaction leaves a worker for new
    flushes, which "compact immediately and no penalty is applied": ``E_s = 0``. With exactly one idle worker
    Eq. 9 applies ("a delay penalty"). With none, or ``saturated=True`` (thread, memory or I/O saturation),
    ``CostParams.saturation_penalty`` (default ``inf``, i.e. nothing starts) is subtracted. Algorithm 1 simulates
    one worker (compactions in sequence), as Sec. 3.2 assumes.
R16 E_s's ``s`` is the run count ``|S|`` when the decision is made; ``t`` is the candidate's (adjusted) duration.
    Eq. 9's stall term is taken as printed, ``u k max(0, s + t - c)`` (not the window sum of Eq. 3's stall cost,
    ``u k #{i < t : s + i > c}``, which Eq. 4 uses).
R17 Domination (Lemma 3.3): ``A < B`` iff ``B`` reduces strictly more runs (``y_B > y_A``) in strictly fewer
    windows (``t_B < t_A``). Then ``E_B > E_A`` whenever ``(r + alpha p) I_r > 0``, ``M >= 0`` and E_s is Eq. 9;
    with the weak inequalities, or ``r = p = 0``, or ``idle_workers >= 2``, ``E_B >= E_A``.
R18 Algorithm 1, parameter grid and re-selection: see ``lsmsim.policies.arce.search``.
R21 One I_r for two kinds of reads. The paper profiles one I_r (12 us) and one I_w (15 us) and uses them both for
    a lookup's random block read (Eq. 1-2) and for a compaction's streaming I/O (Eq. 5: X/B (I_r + I_w)). On a
    modeled device the two differ by an order of magnitude (an 80 us random read against ~3 us to stream a block
    in and out), so one value would misjudge either the lookups or the compaction durations by that factor.
    ``CostParams.compaction_block`` sets Eq. 5's per-block time separately; left ``None`` it is I_r + I_w, the
    paper's model. The simulator's policy (``policy.py``) profiles all three from the modeled device.
"""
from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

__all__ = [
    "MAX_LEVELS", "INTRA", "ADJACENT", "MULTI", "PATTERN_NAMES", "alpha_from_bits_per_key",
    "CostParams", "Workload", "ArceParams", "TreeState", "Candidate", "Choice",
    "timestamp_order_ok", "compaction_keeps_order", "apply_compaction", "apply_candidate", "add_flushes",
    "point_lookup_cost", "range_lookup_cost", "update_cost", "window_cost", "foreground_cost",
    "compaction_io_cost", "compaction_windows", "amdahl_windows", "short_term_penalty", "long_term_benefit",
    "effectiveness", "next_run_count", "window_run_counts", "average_cost",
    "enumerate_candidates", "enumerate_candidates_reference", "count_candidates", "candidate_runs",
    "score_candidates", "score_candidates_reference", "candidate_table", "candidate_table_reference",
    "best_compaction", "best_compaction_reference", "best_compaction_frontier",
]

MAX_LEVELS = 7           # R13: "fewer than 8" levels
INTRA, ADJACENT, MULTI = 1, 2, 3
PATTERN_NAMES = {INTRA: "intra-level", ADJACENT: "adjacent-level", MULTI: "multi-level"}
_AMDAHL_EPS = 1e-9       # t/g within 1e-9 of an integer rounds down to it (R14)


def alpha_from_bits_per_key(bits_per_key: float) -> float:
    """Bloom filter false positive rate exp(-BPK ln(2)^2) (Sec. 2.1; R4)."""
    return math.exp(-float(bits_per_key) * math.log(2.0) ** 2)


# ---------------------------------------------------------------------------------------------------- inputs

@dataclass(frozen=True)
class CostParams:
    """Device / system constants of the cost model (Sec. 3.2, 4). Times in any one unit (the paper: us).

    I_r, I_w   time to read / write one block (the paper profiles I_r = 12 us, I_w = 15 us)
    F          MemTable size in bytes (a window ends when F bytes of updates were flushed)
    E          entry size in bytes (u = F/E updates per window)
    B          block size in bytes
    alpha      Bloom filter false positive rate per run (R4)
    threads    eta, foreground threads (Amdahl, R14); phi its parallelisable fraction (0.5, Sec. 4)
    p3_min_span  smallest j - i of pattern 3 (1: our reading, 2: the printed j > i + 1; R9)
    flush_cost_per_update  literal per-update reading of Eq. 3's flush term (R2)
    saturation_penalty  subtracted from every score when no worker is idle / resources are saturated (R15)
    compaction_block  time a compaction spends per block of input (Eq. 5's I_r + I_w); None: I_r + I_w (R21)
    """
    I_r: float = 12.0
    I_w: float = 15.0
    F: float = 2.0 * 1024 * 1024
    E: float = 1024.0
    B: float = 4096.0
    alpha: float = alpha_from_bits_per_key(10)
    threads: int = 1
    phi: float = 0.5
    p3_min_span: int = 1
    flush_cost_per_update: bool = False
    saturation_penalty: float = math.inf
    compaction_block: float | None = None

    def __post_init__(self):
        for name in ("I_r", "I_w", "F", "E", "B"):
            v = float(getattr(self, name))
            if not (math.isfinite(v) and v > 0):
                raise ValueError(f"CostParams.{name} must be finite and > 0, got {getattr(self, name)!r}")
        if not (0.0 <= self.alpha <= 1.0):
            raise ValueError(f"CostParams.alpha must be in [0, 1], got {self.alpha!r}")
        if int(self.threads) < 1:
            raise ValueError(f"CostParams.threads must be >= 1, got {self.threads!r}")
        if not (0.0 <= self.phi <= 1.0):
            raise ValueError(f"CostParams.phi must be in [0, 1], got {self.phi!r}")
        if self.p3_min_span not in (1, 2):
            raise ValueError(f"CostParams.p3_min_span must be 1 or 2, got {self.p3_min_span!r}")
        if not self.saturation_penalty >= 0:
            raise ValueError("CostParams.saturation_penalty must be >= 0")
        if self.compaction_block is not None and not (math.isfinite(self.compaction_block) and self.compaction_block > 0):
            raise ValueError(f"CostParams.compaction_block must be finite and > 0, got {self.compaction_block!r}")

    @property
    def rw(self) -> float:
        """Compaction time per block of input: I_r + I_w (Eq. 5), or ``compaction_block`` (R21)."""
        return float(self.I_r + self.I_w) if self.compaction_block is None else float(self.compaction_block)

    @property
    def u(self) -> float:
        """Updates per window, F/E (Sec. 3.2)."""
        return self.F / self.E

    @property
    def g(self) -> float:
        """Amdahl speed-up 1 / (1 - phi (1 - 1/eta)) (Sec. 4)."""
        return 1.0 / (1.0 - self.phi * (1.0 - 1.0 / int(self.threads)))

    def flush_window_cost(self, workload: "Workload") -> float:
        """Flush I/O time charged per window: (F/B) I_w (R2), or u (F/B) I_w with the literal reading."""
        f = self.F / self.B * self.I_w
        return workload.u * f if self.flush_cost_per_update else f


@dataclass(frozen=True)
class Workload:
    """Workload of one count window (Sec. 3.2): r range lookups, u = F/E updates, p point lookups (R1)."""
    r: float
    u: float
    p: float

    def __post_init__(self):
        for name in ("r", "u", "p"):
            v = float(getattr(self, name))
            if not (math.isfinite(v) and v >= 0):
                raise ValueError(f"Workload.{name} must be finite and >= 0, got {getattr(self, name)!r}")
        if not self.u > 0:
            raise ValueError("Workload.u must be > 0: a count window is u updates")

    @classmethod
    def from_mix(cls, range_frac: float, update_frac: float, point_frac: float, cost: CostParams,
                 update_floor: float = 0.0) -> "Workload":
        """From an operation mix (fractions or counts in any common unit): u = F/E, r = u range/update,
        p = u point/update. ``update_floor`` replaces a smaller update share (R1)."""
        tot = float(range_frac) + float(update_frac) + float(point_frac)
        if not tot > 0:
            raise ValueError("the operation mix is empty")
        rf, uf, pf = range_frac / tot, max(update_frac / tot, update_floor), point_frac / tot
        if not uf > 0:
            raise ValueError("a mix without updates has no finite count window; pass update_floor > 0")
        u = cost.u
        return cls(r=u * rf / uf, u=u, p=u * pf / uf)

    @property
    def ops(self) -> float:
        """Operations per window, r + u + p (Eq. 7's denominator per window)."""
        return self.r + self.u + self.p


@dataclass(frozen=True)
class ArceParams:
    """(M, c, k): weight of the long-term benefit (Eq. 11), write-stall threshold in runs and stall rate (a time
    per stalled update, R3)."""
    M: float
    c: int
    k: float

    def __post_init__(self):
        if not (math.isfinite(self.M) and self.M >= 0):
            raise ValueError(f"M must be finite and >= 0, got {self.M!r}")
        if int(self.c) != self.c:
            raise ValueError(f"c must be an integer, got {self.c!r}")
        if not (math.isfinite(self.k) and self.k >= 0):
            raise ValueError(f"k must be finite and >= 0, got {self.k!r}")


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
        run_id = np.arange(n, dtype=np.int64) if self.run_id is None else \
            np.asarray(self.run_id, dtype=np.int64).reshape(-1)
        if run_id.size != n:
            raise ValueError(f"expected {n} run ids, got {run_id.size}")
        if n and not timestamp_order_ok(level, ts_lo, ts_hi):
            raise ValueError("runs violate the timestamp order (R8): a deeper level must hold strictly older "
                             "data than every shallower level, and ts_lo <= ts_hi")
        order = np.lexsort((np.arange(n), ts_lo, ts_hi, size, level))
        for name, arr in (("size", size), ("level", level), ("ts_lo", ts_lo), ("ts_hi", ts_hi),
                          ("key_lo", key_lo), ("key_hi", key_hi), ("run_id", run_id)):
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
    for i in runs:                      # sequential sum in canonical order (the kernels sum the same way)
        x += float(state.size[i])
    keep = np.ones(state.total_runs, dtype=bool)
    keep[runs] = False
    nid = int(state.run_id.max()) + 1 if new_id is None else int(new_id)
    return TreeState(size=np.append(state.size[keep], x), level=np.append(state.level[keep], target_level),
                     ts_lo=np.append(state.ts_lo[keep], state.ts_lo[runs].min()),
                     ts_hi=np.append(state.ts_hi[keep], state.ts_hi[runs].max()),
                     key_lo=np.append(state.key_lo[keep], state.key_lo[runs].min()),
                     key_hi=np.append(state.key_hi[keep], state.key_hi[runs].max()),
                     run_id=np.append(state.run_id[keep], nid), num_levels=state.num_levels)


def apply_candidate(state: TreeState, candidate) -> TreeState:
    """``apply_compaction`` for a row ``(pattern, first_run, last_run, target_level)`` or a ``Candidate``."""
    runs, target = _runs_target(candidate)
    return apply_compaction(state, runs, target)


def add_flushes(state: TreeState, count: int, size: float) -> TreeState:
    """The tree after ``count`` MemTable flushes of ``size`` bytes: new level-0 runs, each newer than all data."""
    count = int(count)
    if count <= 0:
        return state
    t0 = float(state.ts_hi.max()) + 1.0 if state.total_runs else 0.0
    ts = t0 + np.arange(count, dtype=np.float64)
    nid = (int(state.run_id.max()) + 1 if state.total_runs else 0) + np.arange(count, dtype=np.int64)
    return TreeState(size=np.append(state.size, np.full(count, float(size))),
                     level=np.append(state.level, np.zeros(count, dtype=np.int64)),
                     ts_lo=np.append(state.ts_lo, ts), ts_hi=np.append(state.ts_hi, ts),
                     key_lo=np.append(state.key_lo, np.zeros(count)), key_hi=np.append(state.key_hi, np.ones(count)),
                     run_id=np.append(state.run_id, nid), num_levels=state.num_levels)


# ----------------------------------------------------------------------------- the cost model, literal (Sec. 3.2)

def point_lookup_cost(s: int, cost: CostParams) -> float:
    """Eq. 1: P(s) = (alpha s + 1) I_r."""
    return (cost.alpha * s + 1) * cost.I_r


def range_lookup_cost(s: int, cost: CostParams) -> float:
    """Eq. 2: R(s) = s I_r."""
    return s * cost.I_r


def update_cost(s: int, workload: Workload, cost: CostParams, c: int, k: float) -> float:
    """Eq. 3 per update: U(s) = (F/B) I_w / u + k 1(s > c) (R2; literal reading: (F/B) I_w + k 1(s > c))."""
    flush = cost.F / cost.B * cost.I_w
    if not cost.flush_cost_per_update:
        flush = flush / workload.u
    return flush + k * (1 if s > c else 0)


def window_cost(s: int, workload: Workload, cost: CostParams, c: int, k: float) -> float:
    """Foreground I/O time of one window with s runs: r R(s) + u U(s) + p P(s) (a term of Eq. 4)."""
    w = workload
    return w.r * range_lookup_cost(s, cost) + w.u * update_cost(s, w, cost, c, k) + w.p * point_lookup_cost(s, cost)


def foreground_cost(s: int, t: int, workload: Workload, cost: CostParams, c: int, k: float) -> float:
    """Eq. 4: f(s, t) = sum_{i=0}^{t-1} r R(s+i) + u U(s+i) + p P(s+i) (R5)."""
    f = 0.0
    for i in range(int(t)):
        f += window_cost(s + i, workload, cost, c, k)
    return f


def compaction_io_cost(X: float, cost: CostParams) -> float:
    """I/O time of a compaction of X bytes: X/B (I_r + I_w) (Eq. 5's right-hand side, R6; R21)."""
    return X / cost.B * cost.rw


def amdahl_windows(t: int, cost: CostParams) -> int:
    """R14: t' = max(1, ceil(t/g)), g = 1 / (1 - phi (1 - 1/eta))."""
    return max(1, int(math.ceil(t / cost.g - _AMDAHL_EPS)))


def compaction_windows(X: float, s: int, workload: Workload, cost: CostParams, c: int, k: float,
                       amdahl: bool = True) -> int:
    """Eq. 5: t = min{t in Z+ | f(s, t) >= X/B (I_r + I_w)}, summed window by window; then Amdahl (R14)."""
    q = compaction_io_cost(X, cost)
    t, f = 0, 0.0
    while True:
        f += window_cost(s + t, workload, cost, c, k)
        t += 1
        if f >= q:
            break
    return amdahl_windows(t, cost) if amdahl else t


def short_term_penalty(s: int, t: int, workload: Workload, cost: CostParams, c: int, k: float,
                       idle_workers: int = 1) -> float:
    """Eq. 9: E_s(s, t) = I_r t (r + alpha p) + u k max(0, s + t - c); 0 with >= 2 idle workers (R15)."""
    if idle_workers >= 2:
        return 0.0
    w = workload
    return cost.I_r * t * (w.r + cost.alpha * w.p) + w.u * k * max(0, s + t - c)


def long_term_benefit(y: int, workload: Workload, cost: CostParams) -> float:
    """Eq. 10: E_l(y) = (r + alpha p) I_r y."""
    return (workload.r + cost.alpha * workload.p) * cost.I_r * y


def effectiveness(s: int, t: int, y: int, workload: Workload, cost: CostParams, params: ArceParams,
                  idle_workers: int = 1, saturated: bool = False) -> float:
    """Eq. 11: E(s, t, y) = M E_l(y) - E_s(s, t), minus the saturation penalty without an idle worker (R15)."""
    e = params.M * long_term_benefit(y, workload, cost) - short_term_penalty(
        s, t, workload, cost, int(params.c), params.k, idle_workers)
    if saturated or idle_workers <= 0:
        e = e - cost.saturation_penalty
    return e


def next_run_count(s: int, t: int, y: int) -> int:
    """Eq. 8: s_{i+1} = s_i + t_i - y_i."""
    return s + t - y


def window_run_counts(s: int, t: int, y: int) -> list[int]:
    """Eq. 6 over one compaction: the run count of windows 0..t (window t: the compaction has taken effect)."""
    return [s + i for i in range(t)] + [s + t - y]


def average_cost(s0: int, ts, ys, workload: Workload, cost: CostParams, c: int, k: float) -> float:
    """Eq. 7 for a sequence of compactions with durations ``ts`` and run reductions ``ys`` starting from s0
    runs, the run count evolving by Eq. 8."""
    s, num, den = int(s0), 0.0, 0.0
    for t, y in zip(ts, ys):
        num += foreground_cost(s, t, workload, cost, c, k)
        den += t * (workload.r + workload.u + workload.p)
        s = next_run_count(s, t, y)
    return num / den


# ------------------------------------------------------------------------------------------------ numba kernels

@njit(cache=True)
def _fg_cost_nb(s, t, a, b, uk, c):
    """Eq. 4 in closed form: sum_{i<t} a + b (s+i) + uk 1(s+i > c), with a = p I_r + flush, b = (r + alpha p) I_r
    and uk = u k."""
    t0 = c + 1 - s
    if t0 < 0:
        t0 = 0
    ns = t - t0
    if ns < 0:
        ns = 0
    return a * t + b * (s * t + 0.5 * t * (t - 1)) + uk * ns


@njit(cache=True)
def _ceil_root_nb(qa, qb, qc):
    """About the smallest integer t >= 1 with qa t^2 + qb t >= qc (qa >= 0, qc > 0); callers correct it."""
    den = qb + math.sqrt(qb * qb + 4.0 * qa * qc)
    if not den > 0.0:
        return 1
    x = 2.0 * qc / den
    if x > 1e15:
        x = 1e15
    t = np.int64(math.ceil(x))
    return t if t > 1 else 1


@njit(cache=True)
def _raw_windows_nb(q, s, a, b, uk, c):
    """Eq. 5: min t >= 1 with f(s, t) >= q, from the roots of the two quadratic pieces of f, corrected."""
    A = a + b * s
    qa = 0.5 * b
    t = _ceil_root_nb(qa, A - qa, q)
    t0 = c + 1 - s
    if t0 < 0:
        t0 = 0
    if t > t0:
        t2 = _ceil_root_nb(qa, A - qa + uk, q + uk * t0)
        t = t2 if t2 > t0 + 1 else t0 + 1
    while t > 1 and _fg_cost_nb(s, t - 1, a, b, uk, c) >= q:
        t -= 1
    while _fg_cost_nb(s, t, a, b, uk, c) < q:
        t += 1
    return t


@njit(cache=True)
def _windows_nb(q, s, a, b, uk, c, g):
    """Eq. 5 then Amdahl (R14)."""
    t = _raw_windows_nb(q, s, a, b, uk, c)
    if g == 1.0:
        return t
    tt = np.int64(math.ceil(t / g - 1e-9))
    return tt if tt > 1 else 1


@njit(cache=True)
def _effect_nb(s, t, y, M, c, k, r, u, p, Ir, alpha, idle_workers, sat_pen):
    """Eq. 9-11 with the reference's operation order (bit-identical results)."""
    el = (r + alpha * p) * Ir * y
    if idle_workers >= 2:
        es = 0.0
    else:
        m = s + t - c
        if m < 0:
            m = 0
        es = Ir * t * (r + alpha * p) + u * k * m
    e = M * el - es
    if idle_workers <= 0:
        e = e - sat_pen
    return e


@njit(cache=True)
def _enumerate_nb(counts, span, out, fill):
    """Candidate rows (pattern, first, last, target) in the canonical order (R9-R11); returns their number.
    With fill False only counts (``out`` unused)."""
    L = counts.size
    st = np.zeros(L + 1, dtype=np.int64)
    for i in range(L):
        st[i + 1] = st[i] + counts[i]
    nc = 0
    for i in range(L):
        ni = counts[i]
        if ni == 0:
            continue
        a = st[i]
        for m in range(2, ni + 1):                    # pattern 1: smallest runs, one more at a time
            if fill:
                out[nc, 0] = 1
                out[nc, 1] = a
                out[nc, 2] = a + m - 1
                out[nc, 3] = i
            nc += 1
        if i + 1 < L:                                 # pattern 2: all of level i + 0..all of level i+1
            for m in range(0, counts[i + 1] + 1):
                b = st[i + 1] - 1 + m
                if b > a:
                    if fill:
                        out[nc, 0] = 2
                        out[nc, 1] = a
                        out[nc, 2] = b
                        out[nc, 3] = i + 1
                    nc += 1
        j0 = i + span
        if j0 < i + 1:
            j0 = i + 1
        for j in range(j0, L - 1):                    # pattern 3: all of levels i..j + 0..all of level j+1
            for m in range(0, counts[j + 1] + 1):
                b = st[j + 1] - 1 + m
                if b > a:
                    if fill:
                        out[nc, 0] = 3
                        out[nc, 1] = a
                        out[nc, 2] = b
                        out[nc, 3] = j + 1
                    nc += 1
    return nc


@njit(cache=True)
def _score_nb(sizes, cands, s, M, c, k, r, u, p, Ir, Iw, B, alpha, flush_w, g, idle_workers, sat_pen,
              X, Y, T, E):
    """X, y, t (Eq. 5 + R14) and E (Eq. 11) of every candidate row."""
    a = p * Ir + flush_w
    b = r * Ir + p * alpha * Ir
    uk = u * k
    rw = Ir + Iw
    for j in range(cands.shape[0]):
        first = cands[j, 1]
        last = cands[j, 2]
        x = 0.0
        for i in range(first, last + 1):
            x += sizes[i]
        y = last - first
        t = _windows_nb(x / B * rw, s, a, b, uk, c, g)
        X[j] = x
        Y[j] = y
        T[j] = t
        E[j] = _effect_nb(s, t, y, M, c, k, r, u, p, Ir, alpha, idle_workers, sat_pen)


@njit(cache=True)
def _best_index_nb(X, Y, E):
    """R12: the candidate with the highest E > 0 (ties: larger y, smaller X, earlier); -1 if none."""
    best = -1
    for j in range(E.size):
        e = E[j]
        if not e > 0.0:
            continue
        if best < 0:
            best = j
            continue
        eb = E[best]
        if e > eb or (e == eb and (Y[j] > Y[best] or (Y[j] == Y[best] and X[j] < X[best]))):
            best = j
    return best


@njit(cache=True)
def _choose_nb(sizes, cnt, span, M, c, k, r, u, p, Ir, Iw, B, alpha, flush_w, g, bx, ba, bi, fy):
    """Best compaction of a tree given as per-level sorted sizes (canonical order), scoring only the (X, y)
    Pareto frontier. Returns (first, y, start level, X, t, E); y = 0 when nothing has E > 0.

    Exactness: t is non-decreasing in X (f(s, .) fixed), so a candidate with X' <= X and y' >= y has E' >= E
    (Lemma 3.3); under R12's tie rule it also wins ties unless it has the same (X, y), where the earlier
    candidate is kept. Every candidate starts at the first run of a level, so for each y the smallest X over the
    start levels is all that matters. The frontier is scanned from the largest y down (ties keep the larger y);
    the scan stops when even t = 1 could not beat the best score (or be > 0), and skips a point whose duration,
    bounded below by q / (cost of the costliest window it could span), already rules it out. Scratch arrays bx,
    ba, bi, fy need >= sizes.size entries."""
    L = cnt.size
    n = 0
    for i in range(L):
        n += cnt[i]
    elc = (r + alpha * p) * Ir
    if n < 2 or not elc > 0.0:
        return -1, 0, -1, 0.0, 0, 0.0
    s = n
    # upper bound of E at y with t >= 1: M elc y - elc - u k max(0, s + 1 - c); nothing can be > 0 if it fails
    # at y = n - 1 (1e-9 relative slack: far above rounding, so no candidate the full scan takes is skipped)
    st1 = s + 1 - c
    if st1 < 0:
        st1 = 0
    pen1 = elc + u * k * st1
    hi = M * elc * (n - 1)
    if hi - pen1 <= -1e-9 * (hi + pen1):
        return -1, 0, -1, 0.0, 0, 0.0
    for y in range(n):
        bx[y] = np.inf
    st_i = 0
    for i in range(L):
        ni = cnt[i]
        if ni == 0:
            continue
        a = st_i
        e_i = a + ni - 1
        # allowed last runs: P1 and P2 up to the end of level i+1 (if it exists), P3 from the end of level
        # i + span to the end of the tree (if level i + span + 1 exists)
        if i + 1 < L:
            hi1 = e_i + cnt[i + 1]
        else:
            hi1 = e_i
        jmin = i + span
        if jmin < i + 1:
            jmin = i + 1
        lo2 = n  # no P3 range
        if jmin <= L - 2:
            lo2 = a - 1
            for l in range(i, jmin + 1):
                lo2 += cnt[l]
        x = sizes[a]
        for bb in range(a + 1, n):
            x += sizes[bb]
            if bb > hi1:
                if lo2 >= n:
                    break
                if bb < lo2:
                    continue
            y = bb - a
            if x < bx[y]:
                bx[y] = x
                ba[y] = a
                bi[y] = i
        st_i += ni
    a_ = p * Ir + flush_w
    b_ = r * Ir + p * alpha * Ir
    uk = u * k
    rw = Ir + Iw
    # the Pareto frontier, largest y first: fy[0] > fy[1] > ... with bx[fy[j]] strictly decreasing
    m = 0
    runmin = np.inf
    for y in range(n - 1, 0, -1):
        x = bx[y]
        if x < runmin:
            runmin = x
            fy[m] = y
            m += 1
    # scan it from the largest y down; every later point has a smaller y and t >= 1, and t <= t_prev
    best_e = 0.0
    best_y = 0
    best_t = 0
    t_prev = -1                     # raw duration of the previous (larger) frontier point
    for j in range(m):
        y = fy[j]
        x = bx[y]
        hi = M * elc * y
        if hi - pen1 < best_e - 1e-9 * (hi + pen1 + best_e):
            break                   # no smaller y can beat best_e (or be > 0); 1e-9: rounding slack
        q = x / B * rw
        if t_prev > 0:
            # cheap lower bound of t: t <= t_prev, so each of its windows costs <= W and t >= q / W
            W = a_ + b_ * (s + t_prev - 1) + uk
            tl = np.int64(q / W)
            if tl > 1:
                if g != 1.0:
                    tl = np.int64(math.ceil(tl / g - 1e-9))
                mm = s + tl - c
                if mm < 0:
                    mm = 0
                pen = elc * tl + uk * mm
                if hi - pen < best_e - 1e-9 * (hi + pen + best_e):
                    continue        # cannot beat best_e (or be > 0)
        traw = _raw_windows_nb(q, s, a_, b_, uk, c)
        t_prev = traw
        t = traw
        if g != 1.0:
            t = np.int64(math.ceil(traw / g - 1e-9))
            if t < 1:
                t = 1
        e = _effect_nb(s, t, y, M, c, k, r, u, p, Ir, alpha, 1, 0.0)
        if e > best_e:
            best_e = e
            best_y = y
            best_t = t
    if best_y == 0:
        return -1, 0, -1, 0.0, 0, 0.0
    return ba[best_y], best_y, bi[best_y], bx[best_y], best_t, best_e


# ------------------------------------------------------------------------------------------------- candidates

Candidate = namedtuple("Candidate", "pattern runs target")
Candidate.__doc__ = "A compaction: its pattern (1-3), input runs (canonical indices, ascending) and target level."


def count_candidates(state: TreeState, p3_min_span: int = 1) -> int:
    """Number of candidates ``enumerate_candidates`` lists."""
    return int(_enumerate_nb(state.level_counts(), int(p3_min_span), np.empty((0, 4), dtype=np.int64), False))


def enumerate_candidates(state: TreeState, p3_min_span: int = 1) -> np.ndarray:
    """All pruned candidates as int64 rows (pattern, first_run, last_run, target_level) (numba; R9-R11).
    Run indices are canonical (``state.run_id[first:last+1]`` are the caller's runs)."""
    counts = state.level_counts()
    nc = _enumerate_nb(counts, int(p3_min_span), np.empty((0, 4), dtype=np.int64), False)
    out = np.empty((nc, 4), dtype=np.int64)
    _enumerate_nb(counts, int(p3_min_span), out, True)
    return out


def enumerate_candidates_reference(state: TreeState, p3_min_span: int = 1) -> list[Candidate]:
    """The three patterns of Sec. 3.1 with the paper's pruning, literally: each level's runs sorted by size
    (R11), then built up one run at a time. Plain Python."""
    L = state.num_levels
    by_level = [[] for _ in range(L)]
    for i in range(state.total_runs):
        by_level[int(state.level[i])].append(i)
    for runs in by_level:
        runs.sort(key=lambda i: (float(state.size[i]), float(state.ts_hi[i]), float(state.ts_lo[i]), i))
    out = []
    for i in range(L):
        top = by_level[i]
        if not top:
            continue
        # Pattern 1 (intra-level): > 1 runs of level i, result at level i
        for m in range(2, len(top) + 1):
            out.append(Candidate(INTRA, tuple(top[:m]), i))
        # Pattern 2 (adjacent-level): all runs of level i with zero or more runs of level i+1, result at i+1
        if i + 1 < L:
            nxt = by_level[i + 1]
            for m in range(0, len(nxt) + 1):
                runs = top + nxt[:m]
                if len(runs) > 1:
                    out.append(Candidate(ADJACENT, tuple(runs), i + 1))
        # Pattern 3 (multi-level): all runs of levels i..j with zero or more of level j+1, result at j+1
        for j in range(i + max(1, int(p3_min_span)), L - 1):
            whole = [x for lv in range(i, j + 1) for x in by_level[lv]]
            nxt = by_level[j + 1]
            for m in range(0, len(nxt) + 1):
                runs = whole + nxt[:m]
                if len(runs) > 1:
                    out.append(Candidate(MULTI, tuple(runs), j + 1))
    return out


def candidate_runs(candidates) -> list[Candidate]:
    """Rows (pattern, first, last, target) as ``Candidate`` tuples with explicit run lists."""
    return [Candidate(int(c[0]), tuple(range(int(c[1]), int(c[2]) + 1)), int(c[3])) for c in np.asarray(candidates)]


def _runs_target(candidate):
    if isinstance(candidate, Candidate):
        return list(candidate.runs), int(candidate.target)
    c = np.asarray(candidate).reshape(-1)
    return list(range(int(c[1]), int(c[2]) + 1)), int(c[3])


# --------------------------------------------------------------------------------------------------- scoring

def _scalars(workload: Workload, cost: CostParams):
    # the kernels use I_w only in Eq. 5's I_r + I_w, so passing rw - I_r carries R21's compaction_block
    return (float(workload.r), float(workload.u), float(workload.p), float(cost.I_r), cost.rw - float(cost.I_r),
            float(cost.B), float(cost.alpha), float(cost.flush_window_cost(workload)), float(cost.g))


def _idle(idle_workers: int, saturated: bool) -> int:
    return 0 if saturated else int(idle_workers)


def candidate_table(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams,
                    candidates=None, idle_workers: int = 1, saturated: bool = False) -> dict:
    """Every candidate with its X (bytes), y (runs removed), t (windows, Eq. 5 + R14) and score E (Eq. 11), as
    a dict of arrays (numba). ``candidates`` defaults to ``enumerate_candidates(state, cost.p3_min_span)``."""
    cands, X, Y, T, E, _ = _table(state, workload, cost, params, candidates, idle_workers, saturated)
    return {"candidates": cands, "X": X, "y": Y, "t": T, "score": E}


def _table(state, workload, cost, params, candidates, idle_workers, saturated):
    r, u, p, Ir, Iw, B, alpha, flush_w, g = _scalars(workload, cost)
    if candidates is None:
        cands = _EMPTY_CANDS
        enum = True
    else:
        cands = np.ascontiguousarray(np.asarray(candidates, dtype=np.int64).reshape(-1, 4))
        enum = False
    return _table_nb(state._counts, state.size, int(cost.p3_min_span), enum, cands, float(params.M), int(params.c),
                     float(params.k), r, u, p, Ir, Iw, B, alpha, flush_w, g, _idle(idle_workers, saturated),
                     float(cost.saturation_penalty))


_EMPTY_CANDS = np.empty((0, 4), dtype=np.int64)


@njit(cache=True)
def _table_nb(counts, sizes, span, enum, cands, M, c, k, r, u, p, Ir, Iw, B, alpha, flush_w, g, idle_workers,
              sat_pen):
    """One call: enumerate (if ``enum``), score, pick (R12). Returns (cands, X, y, t, E, best index or -1)."""
    if enum:
        nc = _enumerate_nb(counts, span, cands, False)
        cands = np.empty((nc, 4), dtype=np.int64)
        _enumerate_nb(counts, span, cands, True)
    nc = cands.shape[0]
    X = np.empty(nc)
    Y = np.empty(nc, dtype=np.int64)
    T = np.empty(nc, dtype=np.int64)
    E = np.empty(nc)
    _score_nb(sizes, cands, sizes.size, M, c, k, r, u, p, Ir, Iw, B, alpha, flush_w, g, idle_workers, sat_pen,
              X, Y, T, E)
    return cands, X, Y, T, E, _best_index_nb(X, Y, E)


def score_candidates(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams,
                     candidates=None, idle_workers: int = 1, saturated: bool = False) -> np.ndarray:
    """Effectiveness score (Eq. 11) of every candidate (numba). See ``candidate_table``."""
    return candidate_table(state, workload, cost, params, candidates, idle_workers, saturated)["score"]


def candidate_table_reference(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams,
                              candidates=None, idle_workers: int = 1, saturated: bool = False) -> list[dict]:
    """Plain-Python ``candidate_table``: for each candidate X = sum of its runs, y = #runs - 1, t by Eq. 5
    (window by window) with R14's Amdahl rounding, E by Eq. 9-11."""
    if candidates is None:
        candidates = enumerate_candidates_reference(state, cost.p3_min_span)
    elif isinstance(candidates, np.ndarray):
        candidates = candidate_runs(candidates)
    s, c, k = state.total_runs, int(params.c), float(params.k)
    rows = []
    for cand in candidates:
        runs, target = _runs_target(cand)
        x = 0.0
        for i in runs:
            x += float(state.size[i])
        y = len(runs) - 1
        t = compaction_windows(x, s, workload, cost, c, k)
        e = effectiveness(s, t, y, workload, cost, params, idle_workers, saturated)
        rows.append({"candidate": cand, "X": x, "y": y, "t": t, "score": e})
    return rows


def score_candidates_reference(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams,
                               candidates=None, idle_workers: int = 1, saturated: bool = False) -> list[float]:
    """Plain-Python ``score_candidates``."""
    return [row["score"] for row in candidate_table_reference(state, workload, cost, params, candidates,
                                                              idle_workers, saturated)]


@dataclass(frozen=True)
class Choice:
    """A selected compaction: candidate row fields, its input runs (canonical indices and the caller's ids),
    X (bytes), y (runs removed), t (windows) and score; ``index`` is its position in the candidate list."""
    pattern: int
    first_run: int
    last_run: int
    target_level: int
    run_ids: tuple
    X: float
    y: int
    t: int
    score: float
    index: int

    @property
    def runs(self) -> tuple:
        return tuple(range(self.first_run, self.last_run + 1))


def best_compaction(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams,
                    idle_workers: int = 1, saturated: bool = False) -> Choice | None:
    """The compaction ARCE starts now (numba): the highest-scoring candidate if its score is > 0, else None (R12)."""
    cands, X, Y, T, E, j = _table(state, workload, cost, params, None, idle_workers, saturated)
    if j < 0:
        return None
    first, last = int(cands[j, 1]), int(cands[j, 2])
    return Choice(int(cands[j, 0]), first, last, int(cands[j, 3]), tuple(state.run_id[first:last + 1].tolist()),
                  float(X[j]), int(Y[j]), int(T[j]), float(E[j]), int(j))


def best_compaction_reference(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams,
                              idle_workers: int = 1, saturated: bool = False) -> Choice | None:
    """Plain-Python ``best_compaction`` over the literal candidate list (R12's rule as a sort key)."""
    rows = candidate_table_reference(state, workload, cost, params, None, idle_workers, saturated)
    best = None
    for j, row in enumerate(rows):
        if not row["score"] > 0:
            continue
        key = (row["score"], row["y"], -row["X"], -j)
        if best is None or key > best[0]:
            best = (key, j, row)
    if best is None:
        return None
    _, j, row = best
    cand = row["candidate"]
    runs = list(cand.runs)
    return Choice(cand.pattern, runs[0], runs[-1], cand.target,
                  tuple(int(state.run_id[i]) for i in runs), row["X"], row["y"], row["t"], row["score"], j)


def best_compaction_frontier(state: TreeState, workload: Workload, cost: CostParams, params: ArceParams):
    """(first_run, y, X, t, score) of the frontier chooser used by FindBestParams (single worker, R15), or None.
    Same choice as ``best_compaction`` up to which of several targets the runs go to."""
    n = state.total_runs
    m = max(n, 1)
    bx = np.empty(m)
    ba, bi, fy = (np.empty(m, dtype=np.int64) for _ in range(3))
    r, u, p, Ir, Iw, B, alpha, flush_w, g = _scalars(workload, cost)
    a, y, _, x, t, e = _choose_nb(state.size, state.level_counts(), int(cost.p3_min_span), float(params.M),
                                  int(params.c), float(params.k), r, u, p, Ir, Iw, B, alpha, flush_w, g, bx, ba, bi,
                                  fy)
    if y == 0:
        return None
    return int(a), int(y), float(x), int(t), float(e)


# ------------------------------------------------------------------------ FindBestParams kernels (see search.py)
# They are here, not in search.py, because numba's cache does not notice edits of the kernels they call in
# another file.

@njit(cache=True)
def _target_nb(cnt, i, last, span):
    """Shallowest target level of the candidate starting at level i's first run and ending at run ``last`` (R11)."""
    L = cnt.size
    e = -1
    for l in range(i + 1):
        e += cnt[l]
    if last <= e:
        return i                      # pattern 1
    e += cnt[i + 1]
    if last <= e:
        return i + 1                  # pattern 2
    j = i + 1
    while j < i + span:
        j += 1
        e += cnt[j]
    # now e is the end of level j = max(i + 1, i + span); pattern 3 with levels i..j, then deeper
    while True:
        e += cnt[j + 1]
        if last <= e:
            return j + 1
        j += 1


@njit(cache=True)
def _simulate_nb(sizes0, cnt0, span, M, c, k, r, u, p, Ir, Iw, B, alpha, flush_w, F, g, max_iter):
    """Lines 4-11 of Algorithm 1 for one (M, c, k); returns (totalCost, totalOps)."""
    L = cnt0.size
    n = sizes0.size
    cap = 2 * n + 64
    sizes = np.empty(cap)
    sizes[:n] = sizes0
    cnt = cnt0.copy()
    bx = np.empty(cap)
    ba = np.empty(cap, dtype=np.int64)
    bi = np.empty(cap, dtype=np.int64)
    fy = np.empty(cap, dtype=np.int64)
    a_ = p * Ir + flush_w
    b_ = r * Ir + p * alpha * Ir
    uk = u * k
    ops_w = r + u + p
    total_cost = 0.0
    total_ops = 0.0
    for _ in range(max_iter):
        s = n
        first, y, i0, x, t, e = _choose_nb(sizes[:n], cnt, span, M, c, k, r, u, p, Ir, Iw, B, alpha, flush_w, g,
                                           bx, ba, bi, fy)
        if y == 0:
            t = 1                                      # no compaction: one window passes (R12)
        total_cost += _fg_cost_nb(s, t, a_, b_, uk, c)
        total_ops += t * ops_w
        need = n + t + 1
        if need > cap:
            cap = 2 * need + 64
            ns = np.empty(cap)
            ns[:n] = sizes[:n]
            sizes = ns
            bx = np.empty(cap)
            ba = np.empty(cap, dtype=np.int64)
            bi = np.empty(cap, dtype=np.int64)
            fy = np.empty(cap, dtype=np.int64)
        if y > 0:
            last = first + y
            tgt = _target_nb(cnt, i0, last, span)
            pos = 0
            for l in range(L):                         # remove runs first..last
                lo = pos
                hi = pos + cnt[l] - 1
                pos += cnt[l]
                if hi >= first and lo <= last:
                    ov = (hi if hi < last else last) - (lo if lo > first else first) + 1
                    cnt[l] -= ov
            for q in range(last + 1, n):
                sizes[q - y - 1] = sizes[q]
            n -= y + 1
            start = 0                                  # install the merged run at its sorted place in tgt
            for l in range(tgt):
                start += cnt[l]
            pos = start + cnt[tgt]
            while pos > start and sizes[pos - 1] > x:
                pos -= 1
            for q in range(n - 1, pos - 1, -1):
                sizes[q + 1] = sizes[q]
            sizes[pos] = x
            cnt[tgt] += 1
            n += 1
        pos = cnt[0]                                   # t flushes of F bytes into level 0 (Eq. 8)
        while pos > 0 and sizes[pos - 1] > F:
            pos -= 1
        for q in range(n - 1, pos - 1, -1):
            sizes[q + t] = sizes[q]
        for q in range(pos, pos + t):
            sizes[q] = F
        cnt[0] += t
        n += t
    return total_cost, total_ops


@njit(parallel=True, cache=True)
def _grid_parallel_nb(sizes0, cnt0, span, Ms, cs, ks, order, r, u, p, Ir, Iw, B, alpha, flush_w, F, g, max_iter,
                      out):
    for q in prange(order.size):
        j = order[q]
        tc, to = _simulate_nb(sizes0, cnt0, span, Ms[j], cs[j], ks[j], r, u, p, Ir, Iw, B, alpha, flush_w, F, g,
                              max_iter)
        out[j] = tc / to


@njit(cache=True)
def _grid_serial_nb(sizes0, cnt0, span, Ms, cs, ks, order, r, u, p, Ir, Iw, B, alpha, flush_w, F, g, max_iter,
                    out):
    for q in range(order.size):
        j = order[q]
        tc, to = _simulate_nb(sizes0, cnt0, span, Ms[j], cs[j], ks[j], r, u, p, Ir, Iw, B, alpha, flush_w, F, g,
                              max_iter)
        out[j] = tc / to


@njit(cache=True)
def _m_caps_nb(sizes, cnt, span, cs, ks, y_max, m_step, m_limit, r, u, p, Ir, Iw, B, alpha, flush_w, g, caps):
    """R19: for each (c, k), the smallest multiple of m_step (<= m_limit) whose choice has y = y_max."""
    n = sizes.size
    bx = np.empty(n + 1)
    ba = np.empty(n + 1, dtype=np.int64)
    bi = np.empty(n + 1, dtype=np.int64)
    fy = np.empty(n + 1, dtype=np.int64)
    elc = (r + alpha * p) * Ir
    for j in range(cs.size):
        if y_max <= 0 or not elc > 0.0:
            caps[j] = m_step
            continue
        caps[j] = m_limit
        M = m_step
        while M <= m_limit:
            res = _choose_nb(sizes, cnt, span, float(M), cs[j], ks[j], r, u, p, Ir, Iw, B, alpha, flush_w, g,
                             bx, ba, bi, fy)
            if res[1] == y_max:
                caps[j] = M
                break
            M += m_step
