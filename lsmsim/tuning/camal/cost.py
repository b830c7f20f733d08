"""CAMAL's complexity-based cost model (Yu, Luo, Yu and Cong, "CAMAL: Optimizing LSM-trees via Active Learning",
SIGMOD'25, Sec. 3): the terms whose learned weights predict an operation's latency, and the structure a tuning
(size ratio T, compaction policy, Bloom bits per key h, buffer share rho of the memory left after the filters)
stands for.

The terms are the classic I/O complexities CAMAL builds on (Monkey, Dayan et al. SIGMOD'17, and Dostoevsky,
SIGMOD'18, as CAMAL's Sec. 3 restates them), one list per compaction policy, each multiplied by the share of its
operation type in the workload (z0 zero-result lookups, z1 existing-key lookups, q range lookups, w writes):

- levels L = ceil(log_T(N E / B * (T - 1) / T)) (Monkey Eq. 1), at least 1; sorted runs R = L under leveling
  and L (T - 1) under tiering (each level holds up to T - 1 runs before it spills);
- a Bloom filter of h bits per key answers a probe for an absent key wrongly with p = e^(-h ln(2)^2);
- the block cache C holds C / (N E) of uniformly read data, so a block read misses with m = 1 - min(1, C / (N E))
  (CAMAL learns the cache's effect from its samples; for the uniform keys of its workloads and ArceKV's this is
  the share it converges to: our reading);
- zero-result lookup: R p m false-positive block reads and R filter probes (CPU);
- existing-key lookup: one block read m, (R - 1) p m false positives (taken as R p m), R probes;
- range lookup: one seek read per run R m, R positionings (CPU) and the scan's pages m;
- write: L T / 2 rewrites per entry under leveling, L under tiering (the merges' I/O and CPU that delay the
  foreground through stalls and contention), plus the write path itself.

Every list starts with the operation's constant cost (its CPU outside these counts). A term is a feature of
CAMAL's regression: the learned weight is its cost in seconds; the weights are non-negative.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

POLICIES = ("leveling", "tiering")
LN2_SQ = math.log(2) ** 2


@dataclass(frozen=True)
class Mix:
    """A workload's composition (CAMAL's z0, z1, q, w), normalised to sum to 1."""

    z0: float
    z1: float
    q: float
    w: float

    def __post_init__(self):
        s = self.z0 + self.z1 + self.q + self.w
        if s <= 0 or min(self.z0, self.z1, self.q, self.w) < 0:
            raise ValueError(f"a mix needs non-negative shares with a positive sum, got {self}")
        for f in ("z0", "z1", "q", "w"):
            object.__setattr__(self, f, getattr(self, f) / s)

    def as_tuple(self) -> tuple[float, float, float, float]:
        return (self.z0, self.z1, self.q, self.w)


@dataclass(frozen=True)
class Tuning:
    """One point of CAMAL's space: compaction policy, size ratio T, Bloom bits per key h, and rho, the share of the
    memory left after the filters that goes to the write buffer (the rest is block cache)."""

    policy: str
    T: int
    h: float
    rho: float


@dataclass(frozen=True)
class Store:
    """What the tuning is for: N entries of E bytes, M bytes of memory for buffer + filters + cache, scans of
    `scan_length` entries over blocks of `block_size` bytes."""

    N: float
    E: float
    M: float
    scan_length: float = 16
    block_size: float = 4096

    def split(self, t: Tuning) -> tuple[float, float, float]:
        """(buffer, filter, cache) bytes of a tuning; the filters take h N / 8 bytes first."""
        filt = t.h * self.N / 8
        free = self.M - filt
        if free <= 0:
            raise ValueError(f"{t.h} bits per key need {filt:.0f} B, more than the memory M = {self.M:.0f} B")
        return t.rho * free, filt, (1 - t.rho) * free


def levels(N: float, E: float, B: float, T: float) -> int:
    """Monkey's level count L = ceil(log_T(N E / B * (T - 1) / T)), at least 1."""
    x = N * E / B * (T - 1) / T
    return max(1, math.ceil(math.log(x) / math.log(T) - 1e-9)) if x > 1 else 1


def bloom_fpr(h: float) -> float:
    """False-positive rate of a Bloom filter with h bits per key and the optimal number of hash functions."""
    return math.exp(-h * LN2_SQ)


def feasible(t: Tuning, s: Store, min_buffer: float) -> bool:
    """Whether the tuning leaves at least `min_buffer` bytes of write buffer."""
    return t.h * s.N / 8 < s.M and s.split(t)[0] >= min_buffer


def features(t: Tuning, mix: Mix, s: Store) -> np.ndarray:
    """The cost terms of `t.policy`'s model for one operation of `mix` (module docstring)."""
    B, _, C = s.split(t)
    L = levels(s.N, s.E, B, t.T)
    R = L if t.policy == "leveling" else L * (t.T - 1)
    p, m = bloom_fpr(t.h), 1 - min(1.0, C / (s.N * s.E))
    pages = max(1.0, s.scan_length * s.E / s.block_size)
    z0, z1, q, w = mix.as_tuple()
    rewrites = L * t.T / 2 if t.policy == "leveling" else L
    return np.array(
        [
            z0,
            z0 * R * p * m,
            z0 * R,
            z1,
            z1 * m,
            z1 * R * p * m,
            z1 * R,
            q,
            q * R * m,
            q * R,
            q * pages * m,
            w,
            w * rewrites,
        ]
    )


#: Weights (seconds) before any sample: the complexity analysis alone, a block read costing 100 us and a probe or a
#: positioning 1 us, a rewrite of an entry 2 us (CAMAL initialises from the cost model: Sec. 4, our constants).
PRIOR = np.array([1e-6, 1e-4, 1e-6, 1e-6, 1e-4, 1e-4, 1e-6, 1e-6, 1e-4, 1e-6, 1e-4, 5e-6, 2e-6])
