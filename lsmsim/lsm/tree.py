"""Tree state: memtables, levels of sorted runs, and the LSM invariants.

A level holds runs ordered youngest first (RocksDB's L0 holds one run per flushed file; a leveled
Li>0 holds one run; tiered levels hold up to T). Policies read this state and return compactions;
only the kernel changes it, through `add_flushed` and `install`.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvariantError
from .cutting import BySize, Cut
from .memtable import Memtable
from .merge import newer_first_violations
from .sstable import Run, Samples, SSTFile


@dataclass(eq=False)
class Level:
    index: int
    runs: list[Run] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum(r.bytes for r in self.runs)

    @property
    def files(self) -> list[SSTFile]:
        return [f for r in self.runs for f in r.files]

    def __repr__(self) -> str:
        return f"L{self.index}({len(self.runs)} runs, {self.bytes}B)"


class Tree:
    """The LSM tree on key samples. Byte sizes are real; keys are a sample (`entries_per_sample`)."""

    def __init__(self, key_size: int, entry_overhead: int, entries_per_sample: int, memtable_entry_overhead: int = 0):
        self.key_size = key_size
        self.entry_overhead = entry_overhead
        self.eps = entries_per_sample
        self.memtable_entry_overhead = memtable_entry_overhead
        self.levels: list[Level] = [Level(0)]
        self.memtable = self._new_memtable()
        self.immutables: list[Memtable] = []
        self._next_file = 1
        self._next_run = 1
        self.version = 0  # bumped at every change so cost models can cache per version
        self._compacting: dict[int, SSTFile] = {}  # inputs of running compactions, by file id
        self._compacting_bytes: dict[int, int] = {}  # their bytes per level (an input keeps its level while it runs)
        # when each memtable took its first write: (seqno, time) points, to date an entry by its seqno (the age of a
        # file's oldest tombstone, Lethe's FADE); one point per memtable, interpolated between
        self._clock_seq: list[int] = [0]
        self._clock_time: list[float] = [0.0]

    # ------------------------------------------------------------------ construction helpers
    def _new_memtable(self) -> Memtable:
        self._memtables = getattr(self, "_memtables", 0) + 1
        mt = Memtable(self.key_size, self.memtable_entry_overhead, self.eps)
        mt.id = self._memtables
        return mt

    def sample_bytes(self, s: Samples) -> np.ndarray:
        """Real bytes each sample stands for."""
        return (s.vlens.astype(np.float64) + (self.key_size + self.entry_overhead)) * self.eps

    def level_bytes(self, i: int) -> int:
        """Bytes in level i (0 for a level that does not exist yet; does not create it)."""
        return self.levels[i].bytes if i < len(self.levels) else 0

    def runs_at(self, i: int) -> list[Run]:
        """Runs of level i, youngest first (empty for a level that does not exist yet)."""
        return self.levels[i].runs if i < len(self.levels) else []

    def files_at(self, i: int) -> list[SSTFile]:
        return [f for r in self.runs_at(i) for f in r.files]

    def level(self, i: int) -> Level:
        """Level i, created if needed (the kernel's accessor; policies use runs_at/level_bytes)."""
        while len(self.levels) <= i:
            self.levels.append(Level(len(self.levels)))
        return self.levels[i]

    def new_run(self, files: list[SSTFile] | None = None) -> Run:
        run = Run(self._next_run, sorted(files or [], key=lambda f: f.min_key))
        self._next_run += 1
        return run

    def build_files(
        self, s: Samples, level: int, target_file_size: int | None, now: float, cut: Cut | None = None
    ) -> list[SSTFile]:
        """Cut sorted samples into files: where `cut` says (`lsm/cutting.py`), else once a file
        reaches `target_file_size` bytes (RocksDB's size cut), else into one file."""
        if len(s) == 0:
            return []
        b = self.sample_bytes(s)
        if cut is None and target_file_size is not None:
            cut = BySize(target_file_size)
        starts = [0] if cut is None else [int(x) for x in cut.starts(s.keys, b)]
        cuts = starts + [len(s)]
        files = []
        for a, z in zip(cuts[:-1], cuts[1:]):
            part = s.slice(a, z)
            files.append(
                SSTFile(
                    id=self._next_file,
                    samples=part,
                    bytes=int(round(b[a:z].sum())),
                    entries=(z - a) * self.eps,
                    level=level,
                    created=now,
                    tombstones=int(part.tombs.sum()) * self.eps,
                )
            )
            self._next_file += 1
        return files

    def seq_time(self, seq: int) -> float:
        """When the write with sequence number `seq` happened (interpolated between memtables' first writes)."""
        i = bisect.bisect_right(self._clock_seq, seq) - 1
        if i + 1 >= len(self._clock_seq):
            return self._clock_time[-1]
        s0, s1 = self._clock_seq[i], self._clock_seq[i + 1]
        t0, t1 = self._clock_time[i], self._clock_time[i + 1]
        return t0 + (t1 - t0) * (seq - s0) / (s1 - s0)

    def seq_times(self, seqs: np.ndarray) -> np.ndarray:
        """`seq_time` of many seqnos at once (the same interpolation, numpy's)."""
        return np.interp(seqs.astype(np.float64), self._clock_seq, self._clock_time)

    # ------------------------------------------------------------------ changes (kernel only)
    def write(self, n: int, value_bytes: float, samples: Samples, seq: int, now: float) -> None:
        """`n` writes from seqno `seq` on, at `now`, into the active memtable (dating each memtable's first)."""
        if not self.memtable.entries:
            self.note_seq_time(seq, now)
        self.memtable.add(n, value_bytes, samples)

    def note_seq_time(self, seq: int, now: float) -> None:
        """The write `seq` happened at `now`."""
        if seq > self._clock_seq[-1]:
            self._clock_seq.append(seq)
            self._clock_time.append(now)

    def rotate_memtable(self) -> Memtable:
        """Make the active memtable immutable (it waits for a flush) and start a new one."""
        imm = self.memtable
        self.immutables.append(imm)
        self.memtable = self._new_memtable()
        return imm

    def add_flushed(self, imm: Memtable, files: list[SSTFile]) -> Run | None:
        """Install a flush's output as the youngest run of L0 and drop the memtable."""
        self.immutables.remove(imm)
        self.version += 1
        if not files:
            return None
        for f in files:
            f.installed = self.version
        run = self.new_run(files)
        self.level(0).runs.insert(0, run)
        return run

    def install(
        self,
        inputs: list[SSTFile],
        outputs: list[SSTFile],
        output_level: int,
        target_run: Run | None,
        keep: tuple[Run, ...] = (),
    ) -> Run | None:
        """Replace a compaction's inputs by its outputs.

        With `target_run`, outputs join that existing run (leveled merges into Li+1); otherwise they
        form a new run in `output_level`, placed by age (runs stay ordered youngest first).
        """
        # each input's run, found by binary search in its level (not by a pass over every file of the tree)
        where: dict[int, tuple[Run, list[int]]] = {}
        for f in inputs:
            for run in self.runs_at(f.level):
                if run.files and run.min_key <= f.min_key <= run.max_key:
                    try:
                        i = run.index_of(f)
                    except ValueError:
                        continue
                    where.setdefault(id(run), (run, []))[1].append(i)
                    break
            else:
                raise InvariantError(f"compaction input {f} is not in L{f.level}")
        for run, idx in where.values():
            if run is not target_run:
                run.splice(idx, [])
        for lvl in self.levels:
            if any(not r.files for r in lvl.runs):
                lvl.runs = [r for r in lvl.runs if r.files or r is target_run or any(r is k for k in keep)]
        self.version += 1
        for f in outputs:
            f.level = output_level
            if f.installed < 0:  # a trivial move keeps the version that first held the file
                f.installed = self.version
        lvl = self.level(output_level)
        if target_run is not None:
            if not any(target_run is r for r in lvl.runs):
                raise InvariantError(f"target run {target_run} left L{output_level} before its compaction finished")
            target_run.splice(where.get(id(target_run), (target_run, []))[1], outputs)
            if not target_run.files and not any(target_run is k for k in keep):
                lvl.runs.remove(target_run)
            return target_run
        if not outputs:
            return None
        run = self.new_run(outputs)
        lvl.runs.append(run)
        lvl.runs.sort(key=lambda r: -r.max_seq)
        return run

    def mark_compacting(self, files: list[SSTFile], busy: bool) -> None:
        """Flag a compaction's inputs as being compacted (it starts) or not (it ends)."""
        for f in files:
            f.being_compacted = busy
            if busy:
                if f.id not in self._compacting:
                    self._compacting[f.id] = f
                    self._compacting_bytes[f.level] = self._compacting_bytes.get(f.level, 0) + f.bytes
            elif (g := self._compacting.pop(f.id, None)) is not None:
                self._compacting_bytes[g.level] -= g.bytes

    # ------------------------------------------------------------------ read-only views
    def contains(self, f: SSTFile) -> bool:
        """Whether `f` is in a run of its level (binary search: O(runs x log files))."""
        return any(g is f for run in self.runs_at(f.level) for g in run.overlapping(f.min_key, f.max_key))

    def compacting(self) -> bool:
        """Whether any compaction is running (its inputs are marked)."""
        return bool(self._compacting)

    def compacting_bytes(self, level: int) -> int:
        """Bytes of level `level` that running compactions take as inputs (O(1): kept as they start and end; a
        picker's scores ask it for every level at every pick)."""
        return self._compacting_bytes.get(level, 0)

    def runs(self) -> list[Run]:
        """All runs from youngest to oldest (L0 first)."""
        return [r for lvl in self.levels for r in lvl.runs]

    def files(self) -> list[SSTFile]:
        return [f for lvl in self.levels for r in lvl.runs for f in r.files]

    @property
    def bytes(self) -> int:
        return sum(lvl.bytes for lvl in self.levels)

    def last_nonempty_level(self) -> int:
        for lvl in reversed(self.levels):
            if lvl.runs:
                return lvl.index
        return 0

    def is_bottommost(self, output_level: int, lo: int, hi: int, inputs: list[SSTFile]) -> bool:
        """True when no data older than the output exists for keys in [lo, hi]: tombstones can go."""
        ids = {f.id for f in inputs}
        for lvl in self.levels[output_level:]:
            for run in lvl.runs:
                for f in run.overlapping(lo, hi):
                    if f.id not in ids:
                        # a run in the output level that is younger than the inputs does not hold older data
                        if lvl.index == output_level and run.min_seq > max(i.max_seq for i in inputs):
                            continue
                        return False
        return True

    def describe(self) -> str:
        return (
            " | ".join(f"L{l.index}:{len(l.runs)}r/{l.bytes / 2**20:.1f}MiB" for l in self.levels if l.runs)
            or "(empty)"
        )

    # ------------------------------------------------------------------ invariants
    def check_invariants(self, overlap_within_levels: bool = False) -> None:
        """Raise InvariantError if a run overlaps itself, a file is listed twice, a file's level is
        wrong, or a key's newer version sits in an older run than an older version.

        With `overlap_within_levels` (ElasticLSM, ARCE §2-3.1) runs of one level may overlap in time:
        only a deeper level holding a newer version than a shallower one is an error."""
        seen: set[int] = set()
        for lvl in self.levels:
            for run in lvl.runs:
                if not run.files:
                    continue  # the target of a running compaction (kept until it installs)
                for a, b in zip(run.files, run.files[1:]):
                    if a.max_key >= b.min_key:
                        raise InvariantError(f"run {run.id} in L{lvl.index}: {a} overlaps {b}")
                for f in run.files:
                    if f.id in seen:
                        raise InvariantError(f"{f} is in two runs")
                    seen.add(f.id)
                    if f.level != lvl.index:
                        raise InvariantError(f"{f} sits in L{lvl.index}")
                    k = f.samples.keys
                    if len(k) > 1 and not np.all(k[1:] > k[:-1]):
                        raise InvariantError(f"{f}: samples not strictly sorted")
        runs = self.runs()
        if len(runs) > 1:
            parts = [r.samples() for r in runs]
            if overlap_within_levels:
                # one input per level, each key's versions newest first: the boundary pairs that the
                # check compares are then a level's oldest version against the next level's newest
                parts = []
                for lvl in self.levels:
                    if lvl.runs:
                        s = Samples.concat([r.samples() for r in lvl.runs])
                        order = np.lexsort((-s.seqs.astype(np.int64), s.keys))
                        parts.append(Samples(s.keys[order], s.seqs[order], s.vlens[order], s.tombs[order]))
            offsets = np.zeros(len(parts) + 1, np.int64)
            offsets[1:] = np.cumsum([len(p) for p in parts])
            keys = np.concatenate([p.keys for p in parts])
            seqs = np.concatenate([p.seqs for p in parts])
            bad = newer_first_violations(keys, seqs, offsets)
            if bad:
                raise InvariantError(f"{bad} keys have a newer version in an older run")

    def lookup(self, key: int) -> tuple[int, int, int] | None:
        """Newest sampled version of `key` as (seq, vlen, tomb) from memtables and runs (tests use this)."""
        for mt in [self.memtable] + self.immutables[::-1]:
            hit = mt.lookup(key)
            if hit is not None:
                return hit
        for run in self.runs():
            for f in run.overlapping(key, key):
                s = f.samples
                i = int(np.searchsorted(s.keys, np.uint64(key)))
                if i < len(s) and int(s.keys[i]) == key:
                    return int(s.seqs[i]), int(s.vlens[i]), int(s.tombs[i])
        return None
