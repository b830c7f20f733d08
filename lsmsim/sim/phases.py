"""The phase cursor: which workload phase runs, since when, and how far it has come."""

from __future__ import annotations

import math

from ..config import PhaseConfig
from ..tolerances import COUNT_EPS, TIME_EPS
from ..workloads.mixgraph import sine_rate


class PhaseCursor:
    """Steps through the resolved phases; `phase` is None before the first and after the last."""

    def __init__(self, phases: list[PhaseConfig], seed: int = 0):
        self.phases = phases
        self.seed = seed
        self.index = -1
        self.phase: PhaseConfig | None = None
        self.ops = 0.0  # operations done in the current phase
        self.start = 0.0  # when it began
        self.finished = False  # every phase has ended

    def advance(self, now: float) -> PhaseConfig | None:
        """Begin the next phase at `now` (None when there is none left)."""
        self.index += 1
        if self.index >= len(self.phases):
            self.phase = None
            self.finished = True
            return None
        self.phase = self.phases[self.index]
        self.ops = 0.0
        self.start = now
        return self.phase

    @property
    def measuring(self) -> bool:
        return self.phase is not None and self.phase.measure

    @property
    def name(self) -> str:
        p = self.phase
        return (p.name or f"phase {self.index + 1}") if p is not None else "(drain)"

    def ended(self, now: float) -> bool:
        """The current phase reached its operation count or its duration."""
        p = self.phase
        if p is None:
            return False
        return (p.operations is not None and self.ops >= p.operations - COUNT_EPS) or (
            p.duration is not None and now >= self.start + p.duration - TIME_EPS
        )

    def fraction(self, now: float) -> float:
        """How much of all phases is done, 0..1 (progress bars)."""
        n = len(self.phases)
        frac = min(self.index, n) / n
        p = self.phase
        if p is not None and p.operations:
            frac += min(1.0, self.ops / p.operations) / n
        elif p is not None and p.duration:
            frac += min(1.0, (now - self.start) / p.duration) / n
        return frac

    def rate_cap(self, now: float) -> float:
        """The closed-loop clients' operations per second allowed now (the phase's sine_rate; inf without)."""
        r = self.phase.sine_rate if self.phase is not None else None
        if r is None:
            return math.inf
        return sine_rate(now - self.start, r.a, r.b, r.c, r.d, r.interval, r.noise, (self.seed, self.index))

    def next_rate_change(self, now: float) -> float:
        """When the phase's sine_rate is next re-set (inf without one)."""
        r = self.phase.sine_rate if self.phase is not None else None
        if r is None:
            return math.inf
        return self.start + (math.floor((now - self.start) / r.interval + TIME_EPS) + 1) * r.interval
