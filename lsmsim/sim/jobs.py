"""Background jobs (flushes and compactions) as flows.

A job's work is fixed when it starts: the merge runs on the samples at once (numba), which gives
exact input and output bytes and entries; the job then progresses as a flow at the rate the sharing
solver gives it, and its outputs are installed when progress reaches 1. Inputs stay readable until
then, as in RocksDB (the version changes when the job commits).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..lsm.merge import merge_samples
from ..lsm.sstable import Samples, SSTFile
from ..lsm.tree import Tree
from ..policies.base import Compaction


@dataclass(eq=False)
class Job:
    id: int
    kind: str                   # "flush" or "compaction"
    io_class: str
    start: float
    cpu: float                  # CPU seconds for the whole job
    read_bytes: float
    write_bytes: float
    outputs: list[SSTFile]
    inputs: list[SSTFile] = field(default_factory=list)
    compaction: Compaction | None = None
    memtable: object = None
    entries_in: int = 0
    entries_out: int = 0
    progress: float = 0.0
    dev: float = 0.0            # device seconds for the whole job (set by the kernel)
    threads: int = 1            # parallel threads (subcompactions)
    flow: object = None         # its `sharing.Flow` in the current step
    rate: float = 0.0           # progress per second in the current step

    @property
    def done(self) -> bool:
        return self.progress >= 1.0 - 1e-12

    def file_writes(self, p0: float, p1: float, hint: int) -> list[tuple[int, float, int]]:
        """Bytes each output file receives as progress goes from p0 to p1 (files are written one
        after another, in key order): (file id, bytes, level hint) for the device."""
        out, start = [], 0.0
        lo, hi = p0 * self.write_bytes, p1 * self.write_bytes
        for f in self.outputs:
            end = start + f.bytes
            b = min(hi, end) - max(lo, start)
            if b > 0:
                out.append((f.id, b, hint))
            start = end
        return out


def merge_inputs(tree: Tree, c: Compaction) -> tuple[Samples, bool]:
    """k-way merge of a compaction's input files; returns the merged samples and whether deletions
    were dropped (the output is the bottommost data for its key range)."""
    files = c.inputs
    lo = min(f.min_key for f in files)
    hi = max(f.max_key for f in files)
    bottom = tree.is_bottommost(c.output_level, lo, hi, files)
    # one merge input per sorted run (its files in key order): fewer heap entries than one per file
    ids = {f.id for f in files}
    parts = []
    for run in tree.runs():
        mine = [f.samples for f in run.files if f.id in ids]
        if mine:
            parts.append(Samples.concat(mine) if len(mine) > 1 else mine[0])
    return Samples(*merge_samples(parts, bottom)), bottom
