"""A solved EcoTune schedule (Wang et al., SIGMOD 2025, Sec. 4.3 and Tables 4-8): the MLCs of one compaction
round and the main-level layout after every TMC, printed as the paper's Tables 5-8 print it.

A `Schedule` is what the DP (dp.py) returns and what the `ecotune` compaction policy (policy.py) follows; it is
a plan, not a compaction policy of lsmsim's `policies.base.Policy` kind. I11 (dp.py): one row per TMC at which
an MLC starts, "layout before -> layout after", plus the layout at TMC R; "n[1]" is n consecutive size-1 runs.
The layout after TMC t is the compaction picker's target: merges that start at t are applied although they may
still be running (as Table 4 shows "31" at TMC 4 while f8 is still being built).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Merge", "TMCStep", "Schedule", "format_layout"]


@dataclass(frozen=True)
class Merge:
    """One MLC: starts right after TMC `tmc` and merges the runs holding unit runs lo..hi (1-based, by creation)."""

    tmc: int
    lo: int
    hi: int
    inputs: tuple[int, ...] = ()  # sizes (unit runs) of the merged runs, oldest first

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1


@dataclass(frozen=True)
class TMCStep:
    """The main-level layout (run sizes in unit runs, oldest first) right after TMC `tmc` created its unit run
    (`before`) and after the MLC the schedule starts then (`after`, I11)."""

    tmc: int
    before: tuple[int, ...]
    after: tuple[int, ...]
    merge: Merge | None


def format_layout(sizes) -> str:
    """Run sizes as the paper prints them: '14 7 4[1]' (n[1] = n consecutive size-1 runs)."""
    out, ones = [], 0
    for s in sizes:
        if s == 1:
            ones += 1
            continue
        if ones:
            out.append(f"{ones}[1]")
            ones = 0
        out.append(str(s))
    if ones:
        out.append(f"{ones}[1]")
    return " ".join(out) if out else "-"


@dataclass(frozen=True)
class Schedule:
    """A main-level compaction schedule for one round: the MLCs and the layout after every TMC."""

    R: int
    merges: tuple[Merge, ...]
    steps: tuple[TMCStep, ...]
    T_ratio: float = 0.0  # T_c / T_w, for the MLC-duration column

    @classmethod
    def from_merges(cls, R: int, merges, T_c_over_T_w: float = 0.0) -> Schedule:
        """The schedule of the MLCs `merges` [(tmc, lo, hi)]; ValueError unless each merges whole adjacent runs."""
        runs: list[tuple[int, int]] = []
        by_tmc: dict[int, list[tuple[int, int, int]]] = {}
        for tmc, lo, hi in merges:
            if not 1 <= tmc <= R or not 1 <= lo < hi <= tmc:
                raise ValueError(f"bad MLC (tmc={tmc}, units {lo}..{hi}) for R={R}")
            by_tmc.setdefault(tmc, []).append((tmc, lo, hi))
        steps, done = [], []
        for t in range(1, R + 1):
            runs.append((t, t))
            before = tuple(h - l + 1 for l, h in runs)
            mg = None
            for _tmc, lo, hi in by_tmc.get(t, []):
                idx = [i for i, (l, h) in enumerate(runs) if lo <= l and h <= hi]
                if (
                    not idx
                    or runs[idx[0]][0] != lo
                    or runs[idx[-1]][1] != hi
                    or len(idx) < 2
                    or idx != list(range(idx[0], idx[-1] + 1))
                ):
                    raise ValueError(f"MLC at TMC {t} over units {lo}..{hi} does not merge whole runs")
                mg = Merge(t, lo, hi, tuple(runs[i][1] - runs[i][0] + 1 for i in idx))
                done.append(mg)
                runs[idx[0] : idx[-1] + 1] = [(lo, hi)]
            steps.append(TMCStep(t, before, tuple(h - l + 1 for l, h in runs), mg))
        return cls(R, tuple(done), tuple(steps), T_c_over_T_w)

    @property
    def layouts(self) -> list[tuple[int, ...]]:
        """Main-level layout after each TMC 1..R (after the MLC started then)."""
        return [s.after for s in self.steps]

    @property
    def n_merges(self) -> int:
        """Number of MLCs in the round (the global compaction not counted)."""
        return len(self.merges)

    @property
    def mlc_work(self) -> int:
        """Unit runs rewritten by MLCs in the round (the global compaction not counted)."""
        return sum(m.size for m in self.merges)

    @property
    def mean_runs(self) -> float:
        """Main-level runs after each TMC, averaged over the R TMCs (laziness: higher = lazier)."""
        return sum(len(s.after) for s in self.steps) / self.R

    def table(self, all_rows: bool = False) -> str:
        """The paper's Tables 5-8: '# TMC | Main Level Layout' (before -> after), rows where an MLC starts and the
        last TMC; `all_rows` prints every TMC."""
        rows = [("# TMC", "Main Level Layout", "MLC (units, time/T_w)" if self.T_ratio > 0 else "MLC (units)")]
        for s in self.steps:
            if s.merge is None and s.tmc != self.R and not all_rows:
                continue
            lay = (
                format_layout(s.before) if s.merge is None else f"{format_layout(s.before)} -> {format_layout(s.after)}"
            )
            mlc = (
                ""
                if s.merge is None
                else f"{s.merge.size} ({s.merge.size * self.T_ratio:.2f})"
                if self.T_ratio > 0
                else str(s.merge.size)
            )
            rows.append((str(s.tmc), lay, mlc))
        w = [max(len(r[i]) for r in rows) for i in range(3)]
        return "\n".join(f"{a:>{w[0]}}  {b:<{w[1]}}  {c}".rstrip() for a, b, c in rows)
