"""Background jobs (flushes and compactions) as flows.

A job's work is fixed when it starts: the merge runs on the samples at once (numba), which gives
exact input and output bytes and entries; the job then progresses as a flow at the rate the sharing
solver gives it, and its outputs are installed when progress reaches 1. Inputs stay readable until
then, as in RocksDB (the version changes when the job commits).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InvariantError
from ..lsm.memtable import Memtable
from ..lsm.merge import merge_samples
from ..lsm.sstable import Samples, SSTFile
from ..lsm.tree import Tree
from ..policies.base import Compaction
from ..tolerances import PROGRESS_EPS
from .sharing import Flow


@dataclass(eq=False)
class Job:
    id: int
    kind: str  # "flush", "compaction" or "search" (a policy's CPU-only background work)
    io_class: str
    start: float
    cpu: float  # CPU seconds for the whole job
    read_bytes: float
    write_bytes: float
    outputs: list[SSTFile]
    inputs: list[SSTFile] = field(default_factory=list)
    compaction: Compaction | None = None
    memtable: Memtable | None = None
    entries_in: int = 0
    entries_out: int = 0
    dropped_tombstone_seqs: np.ndarray | None = None  # a bottommost compaction: the deletes it makes persistent
    progress: float = 0.0
    dev: float = 0.0  # device seconds for the whole job (set by the kernel)
    sync: float = 0.0  # seconds its thread waits in fsync at output-file closes (set by the kernel)
    threads: int = 1  # parallel threads (subcompactions)
    version: int = 0  # the tree version it started from, which it holds until it ends (sim/versions.py)
    flow: Flow | None = None  # its `sharing.Flow` in the current step
    rate: float = 0.0  # progress per second in the current step

    @property
    def done(self) -> bool:
        return self.progress >= 1.0 - PROGRESS_EPS

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
    # one merge input per sorted run (its files in key order): fewer heap entries than one per file.
    # Each input is found in its run by binary search, so the cost follows the inputs, not the tree's files.
    by_run: dict[int, list[tuple[int, SSTFile]]] = {}
    for f in files:
        for run in tree.runs_at(f.level):
            try:
                i = run.index_of(f)
            except ValueError:
                continue
            by_run.setdefault(id(run), []).append((i, f))
            break
    parts = []
    for run in tree.runs():  # youngest first, as the merge's tie order expects
        mine = [f.samples for _, f in sorted(by_run.get(id(run), ()), key=lambda t: t[0])]
        if mine:
            parts.append(Samples.concat(mine) if len(mine) > 1 else mine[0])
    return Samples(*merge_samples(parts, bottom)), bottom


def flush_work(tree: Tree, imm, cpu, now: float) -> dict:
    """A flush's work: the immutable memtable's samples as L0 files, and the CPU to write them
    (machine.cpu's flush costs, calibrated against db_bench)."""
    files = tree.build_files(imm.flush_samples(), 0, None, now)
    out_bytes = sum(f.bytes for f in files)
    return dict(
        kind="flush",
        io_class="flush",
        cpu=cpu.flush_per_job + imm.entries * cpu.flush_per_entry + out_bytes * cpu.flush_per_byte,
        read_bytes=0.0,
        write_bytes=out_bytes,
        outputs=files,
        memtable=imm,
        entries_in=imm.entries,
        entries_out=sum(f.entries for f in files),
    )


def compaction_work(tree: Tree, c: Compaction, cpu, now: float, block_size: int) -> dict:
    """A compaction's work, fixed when it starts: the merged outputs (exact bytes and entries), the
    CPU of the merge (machine.cpu's merge costs: per input entry and byte, and per data block read or
    written, so smaller blocks make slower compactions, as Sarkar et al. PVLDB'21 Fig. 8(q) found).
    Marks the inputs as being compacted."""
    tree.mark_compacting(c.inputs, True)
    merged, bottom = merge_inputs(tree, c)
    outputs = tree.build_files(merged, c.output_level, c.target_file_size, now, c.cut)
    tombs = [f.samples.seqs[f.samples.tombs != 0] for f in c.inputs if f.tombstones] if bottom else []
    if c.target_run is not None:
        gone = {f.id for f in c.inputs}
        for o in outputs:
            for f in c.target_run.overlapping(o.min_key, o.max_key):
                if f.id not in gone:
                    raise InvariantError(f"compaction output {o} overlaps {f} of its target run")
    bytes_in = sum(f.bytes for f in c.inputs)
    bytes_out = sum(f.bytes for f in outputs)
    entries_in = sum(f.entries for f in c.inputs)
    blocks = (bytes_in + bytes_out) / block_size
    return dict(
        kind="compaction",
        io_class=c.io_class,
        cpu=entries_in * cpu.merge_per_entry
        + bytes_in * cpu.merge_per_byte
        + blocks * cpu.merge_per_block
        + len(outputs) * cpu.merge_per_file,
        read_bytes=float(bytes_in),
        write_bytes=float(bytes_out),
        outputs=outputs,
        inputs=list(c.inputs),
        compaction=c,
        entries_in=entries_in,
        entries_out=sum(f.entries for f in outputs),
        dropped_tombstone_seqs=np.concatenate(tombs) if tombs else None,
    )


def validate_compaction(tree: Tree, c: Compaction, policy: str) -> None:
    """What the kernel checks of every compaction a policy returns."""
    if not c.inputs:
        raise InvariantError(f"policy {policy} returned a compaction without inputs")
    for f in c.inputs:
        if f.being_compacted:
            raise InvariantError(f"policy {policy} picked {f}, which is already being compacted")
        if not tree.contains(f):
            raise InvariantError(f"policy {policy} picked {f}, which is not in the tree")
    if c.target_run is not None and c.target_run not in tree.level(c.output_level).runs:
        raise InvariantError(f"target run {c.target_run} is not in L{c.output_level}")


def job_flow(j: Job, rank: int, machine) -> Flow:
    """Job `j`'s flow of the sharing solver this step (its unit of progress is the whole job); a job of n threads
    splits its work n ways, so n threads at full speed finish it n times faster."""
    j.flow = Flow(f"job{j.id}", rank, j.threads, j.cpu, j.dev, sync=j.sync, reserved=j.io_class in machine.reserved_for)
    return j.flow
