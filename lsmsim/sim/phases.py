"""The phase cursor: which workload phase runs, since when, and how far it has come."""

from __future__ import annotations

import math

from ..config import PhaseConfig
from ..tolerances import COUNT_EPS, TIME_EPS
from ..workloads.mixgraph import sine_rate

FOUND_STEP = 0.005  # `found: live` re-splits a phase's Gets when the live share moved this far (half a point)


def live_share(live, num: int) -> float:
    """The share of the key space's `num` keys that `live` (LiveKeys) holds: a uniform key's chance to be found."""
    return min(1.0, live.count * live.eps / num)


def found_share(live, num: int, phase) -> float:
    """A Get's chance to find its key under `found: live`: the live share of the keys its `found_reach` reaches."""
    return phase.found_reach * live_share(live, num)


def beyond_share(phase) -> float:
    """The share of a phase's empty Gets whose keys lie outside the key space's num keys, past every key written
    before it (`found_reach` < 1): (1 - reach) of all its Gets, none of them found."""
    g, empty = phase.mix.get + phase.mix.get_empty, phase.mix.get_empty
    return min(1.0, (1.0 - phase.found_reach) * g / empty) if empty > 0 else 0.0


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

    def follow_live(self, live, num: int, groups) -> bool:
        """`found: live` in a phase that writes: a Get of a uniform key finds it as often as the keys are live *now*,
        and the phase's own writes make more of them live (db_bench's readrandomwriterandom after a 500K fillrandom
        found 79% of its keys over 5 s that started at 63%: its reads of uniform `rand % num`, db_bench.cc
        ReadRandomWriteRandom). Re-split the phase's and the `groups`' Gets when the share of `live` (LiveKeys) keys
        moved by FOUND_STEP; True when it did (costs and op-mode clients read the new split)."""
        p = self.phase
        if p is None or p.found != "live" or not p.mix.writes() or (gets := p.mix.get + p.mix.get_empty) <= 0:
            return False
        share = found_share(live, num, p)
        if abs(share - p.mix.get / gets) < FOUND_STEP:
            return False
        self.phase = p.found_in(share)
        for g in groups:
            reads = g.shares.get("get", 0.0) + g.shares.get("get_empty", 0.0)
            if reads > 0:
                g.shares.update(get=reads * share, get_empty=reads * (1.0 - share))
                g.shares_version += 1
        return True

    def live_writes(self, live, num: int) -> float:
        """Uniform writes until `follow_live` re-splits (each finds a key not yet live with the chance 1 - share):
        the fluid's next step, so the split lags the keys by less than FOUND_STEP. inf when not following."""
        p = self.phase
        if p is None or p.found != "live" or not (p.mix.get + p.mix.get_empty) or not p.mix.writes():
            return math.inf
        share = live_share(live, num)
        gets = p.mix.get / (p.mix.get + p.mix.get_empty) / p.found_reach  # the live share the split stands for
        # at least one sample's writes: the live count moves by whole samples, and a shorter step would move nothing
        return max(float(live.eps), (gets + FOUND_STEP / p.found_reach - share) * num / max(1.0 - share, 1e-9))

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
