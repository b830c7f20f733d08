"""Spooky's level structure: the number of levels L, the largest level's capacity C_L, the dividing level X,
and dynamic capacity adaptation (Dayan et al., PVLDB'22 §2 "DCA", Eq. 3; Algorithm 1 lines 2, 12-19 and
Algorithm 2 lines 3-4, 10-11, 18-25).

Readings of the printed listings (the prose is followed where they differ):
- Lines 2 (Alg. 1) and 3-4 (Alg. 2) print "smallest q with C_q < sum_{i<=q} N_i"; the prose says the level that
  "wouldn't reach capacity if we merged all data at smaller levels into it", so q is the smallest level with
  sum_{i=0}^{q} N_i <= C_q (`preemptive_target`), and X when no level qualifies (Alg. 2 has no fallback for the
  full-merge range; X is where data goes next in any case). Alg. 1 prints S_i for N_i.
- Lines 18-19 / 24-25 print the loop condition `L >= 1`; it is `i >= 1`: C_i = N_L / T^(L-i) for 1 <= i < L.
- Level 0 of the formalization is the buffer; here it is RocksDB's rLevel 0 (the flushed files, §5), whose bytes
  are N_0 in the sums.
- DCA needs N_L > 0. When the largest level is empty (a new tree, L = 1, or every entry deleted) the smaller
  levels take C_L / T^(L-i), the capacities DCA would give the smallest N_L the tree keeps (evolution removes a
  level below C_L / T).
- The tree starts with L = 1 and C_1 = T x the write buffer (a first level of T flushes; the paper does not say
  how its tree starts); X = "L-k" is then clamped to [1, L], so a small tree runs Full Merge until it has more
  than k levels (X = L is Full Merge, §4.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_X_FORM = re.compile(r"^L(?:-(\d+))?$")


def parse_x(spec: int | str) -> tuple[Literal["abs", "rel"], int]:
    """`X` as written in the YAML: a level (int >= 1) or "L" / "L-k" (k >= 0), as ("abs", level) or ("rel", k)."""
    if isinstance(spec, bool):
        raise ValueError(f"X must be a level >= 1 or 'L-k', got {spec!r}")
    if isinstance(spec, int):
        if spec < 1:
            raise ValueError(f"X must be a level >= 1 or 'L-k', got {spec}")
        return "abs", spec
    m = _X_FORM.match(str(spec).replace(" ", ""))
    if m is None:
        raise ValueError(f"X must be a level >= 1 or 'L-k' (e.g. 'L-2'), got {spec!r}")
    return "rel", int(m.group(1) or 0)


@dataclass
class Shape:
    """L, C_L and the rules that move them; capacities of the other levels follow from N_L (DCA)."""

    T: float
    L: int
    C_L: float

    def x(self, spec: tuple[str, int]) -> int:
        """The dividing level for this L (clamped to [1, L]; X = L is Full Merge)."""
        kind, v = spec
        x = v if kind == "abs" else self.L - v
        return min(max(x, 1), self.L)

    def capacity(self, i: int, n_l: float) -> float:
        """C_i: C_L for the largest level, N_L / T^(L-i) below it (DCA, Alg. 1 lines 18-19)."""
        if i >= self.L:
            return self.C_L * self.T ** (i - self.L)
        base = n_l if n_l > 0 else self.C_L / self.T
        return base / self.T ** (self.L - i)

    def preemptive_target(self, n: list[float], start: int, first: int, last: int, n_l: float) -> int:
        """Smallest q in [first, last] with sum_{i=start}^{q} N_i <= C_q, else `last` (Alg. 2 lines 3-4 with
        start = 0, first = 1, last = X; lines 10-11 with start = X, first = X + 1, last = L). `n[i]` is N_i."""
        total = sum(n[start:first])
        for q in range(first, last + 1):
            total += n[q] if q < len(n) else 0.0
            if total <= self.capacity(q, n_l):
                return q
        return last

    def evolution(self, n_l: float) -> int:
        """+1 to add a level (N_L >= C_L), -1 to remove one (N_L < C_L / T, L > 1), else 0 (Alg. 1 lines 12-17)."""
        if n_l >= self.C_L:
            return 1
        if self.L > 1 and n_l < self.C_L / self.T:
            return -1
        return 0

    def grow(self) -> None:
        """A new largest level with capacity C_(L+1) = C_L * T (Alg. 1 line 13)."""
        self.C_L *= self.T
        self.L += 1

    def shrink(self) -> None:
        """Level L goes; level L-1 becomes the largest with capacity C_L / T (Alg. 1 line 16)."""
        self.C_L /= self.T
        self.L -= 1
