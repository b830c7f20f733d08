"""ARCE's count-window cost model (ArceKV, PVLDB 19(5) 2026, Sec. 3.2 and 4): its inputs and Eq. 1-8, literally.

Inputs
------
``Workload``    ``(r, u, p)``: range lookups, updates and point lookups per count window (Sec. 3.2), ``u = F/E``.
``CostParams``  device and system constants: ``I_r``, ``I_w`` (time of one block read / write), ``F``
                (MemTable bytes), ``E`` (entry bytes), ``B`` (block bytes), ``alpha`` (Bloom-filter false
                positive rate), ``threads`` and ``phi`` (Amdahl, Sec. 4). No constant is baked in.
``ArceParams``  ``(M, c, k)``: long-term weight (Eq. 11), write-stall threshold (runs) and stall rate (Eq. 3).

Cost model (Sec. 3.2), for ``s`` sorted runs::

    P(s) = (alpha s + 1) I_r                            Eq. 1  point lookup
    R(s) = s I_r                                        Eq. 2  range lookup (seek part)
    U(s) = (F/B) I_w / u + k 1(s > c)                   Eq. 3  update (reading R2)
    f(s, t) = sum_{i<t} r R(s+i) + u U(s+i) + p P(s+i)  Eq. 4  foreground time of t windows
    t = min{t >= 1 : f(s, t) >= X/B (I_r + I_w)}        Eq. 5  windows a compaction of X bytes spans
    s' = s + t - y                                      Eq. 6/8 runs after it (y runs removed, t flushed)
    C = sum f(s_i, t_i) / sum t_i (r + u + p)           Eq. 7  average cost of a compaction sequence

The functions here transcribe the equations window by window; the kernels (``_kernels._fg_cost_nb``,
``_raw_windows_nb``) use Eq. 4's closed form and the tests check both agree. R-numbers refer to
docs/arce-readings.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...tolerances import ROUND_EPS
from ._kernels import ModelConsts

__all__ = [
    "alpha_from_bits_per_key",
    "CostParams",
    "Workload",
    "ArceParams",
    "model_consts",
    "point_lookup_cost",
    "range_lookup_cost",
    "update_cost",
    "window_cost",
    "foreground_cost",
    "compaction_io_cost",
    "amdahl_windows",
    "compaction_windows",
    "next_run_count",
    "window_run_counts",
    "average_cost",
]

_AMDAHL_EPS = ROUND_EPS  # t/g within this of an integer rounds down to it (R14)


def alpha_from_bits_per_key(bits_per_key: float) -> float:
    """Bloom filter false positive rate exp(-BPK ln(2)^2) (Sec. 2.1; R4)."""
    return math.exp(-float(bits_per_key) * math.log(2.0) ** 2)


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
    es_read_weight  weight of Eq. 9's read term I_r t (r + alpha p) in the score (1: the paper; 0.5: ArceKV's
                    public code, R29)
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
    es_read_weight: float = 1.0

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
        if not (math.isfinite(self.es_read_weight) and self.es_read_weight > 0):
            raise ValueError(f"CostParams.es_read_weight must be finite and > 0, got {self.es_read_weight!r}")
        cb = self.compaction_block
        if cb is not None and not (math.isfinite(cb) and cb > 0):
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

    def flush_window_cost(self, workload: Workload) -> float:
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
    def from_mix(
        cls, range_frac: float, update_frac: float, point_frac: float, cost: CostParams, update_floor: float = 0.0
    ) -> Workload:
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


def model_consts(workload: Workload, cost: CostParams) -> ModelConsts:
    """The kernels' view of (workload, cost)."""
    # the kernels use I_w only in Eq. 5's I_r + I_w, so passing rw - I_r carries R21's compaction_block
    return ModelConsts(
        float(workload.r),
        float(workload.u),
        float(workload.p),
        float(cost.I_r),
        cost.rw - float(cost.I_r),
        float(cost.B),
        float(cost.alpha),
        float(cost.flush_window_cost(workload)),
        float(cost.g),
        float(cost.F),
        int(cost.p3_min_span),
        float(cost.es_read_weight),
    )


# ---------------------------------------------------------------------------- the cost model, literal (Sec. 3.2)


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


def compaction_windows(
    X: float, s: int, workload: Workload, cost: CostParams, c: int, k: float, amdahl: bool = True
) -> int:
    """Eq. 5: t = min{t in Z+ | f(s, t) >= X/B (I_r + I_w)}, summed window by window; then Amdahl (R14)."""
    q = compaction_io_cost(X, cost)
    t, f = 0, 0.0
    while True:
        f += window_cost(s + t, workload, cost, c, k)
        t += 1
        if f >= q:
            break
    return amdahl_windows(t, cost) if amdahl else t


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
