"""The policy interface (DESIGN.md "Policies"), after RocksDB's compaction_picker.h.

A policy reads the tree (never changes it) and returns actions; the kernel validates and runs them.
`pick` is RocksDB's NeedsCompaction + PickCompaction in one: it is asked whenever a compaction thread
is free, and returns the next `Compaction` or None. `write_rate_limit` is the policy's say on write
stalls (DESIGN.md's SetWriteStall action, as a query the kernel makes at every step).
"""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import ClassVar

from ..lsm.sstable import Run, SSTFile
from ..lsm.tree import Tree


@dataclass(eq=False)
class Compaction:
    """Merge `inputs` into `output_level`.

    With `target_run` the outputs join that existing run (which must not overlap them otherwise);
    without, they form a new run placed by age. `trivial_move` moves the single-run inputs without
    rewriting them (RocksDB's trivial move). `io_class` picks the device priority class.
    """
    inputs: list[SSTFile]
    output_level: int
    target_run: Run | None = None
    target_file_size: int | None = None
    trivial_move: bool = False
    reason: str = ""
    io_class: str = "compaction"
    start_level: int = 0
    threads: int = 1               # threads working on it in parallel (RocksDB subcompactions)
    output_run: Run | None = None  # set by the kernel when the outputs are installed
    tag: object = None             # the policy's own bookkeeping

    @property
    def input_bytes(self) -> int:
        return sum(f.bytes for f in self.inputs)


class Policy(abc.ABC):
    """Base of all compaction policies."""

    name: ClassVar[str]
    overlap_within_levels: ClassVar[bool] = False  # runs of a level may overlap in time (ElasticLSM)

    def __init__(self, options, lsm):
        self.options = options
        self.lsm = lsm
        self.flush_bytes_avg = 0.0  # running mean of flushed file bytes (policies size levels by it)
        self._flushes = 0
        self.now = 0.0              # simulated time, set by the kernel before every call
        self.mix = None             # the current phase's operation mix (MixConfig), set by the kernel

    def attach(self, sim) -> None:
        """Called once by the kernel: policies that profile the modeled system (ARCE) keep `sim`."""

    @abc.abstractmethod
    def pick(self, tree: Tree) -> Compaction | None:
        """The next compaction to run, or None."""

    def on_flush(self, tree: Tree, run: Run | None) -> None:
        """A flush installed `run` in L0."""
        if run is not None:
            self._flushes += 1
            self.flush_bytes_avg += (run.bytes - self.flush_bytes_avg) / self._flushes

    def on_compaction_done(self, tree: Tree, compaction: Compaction) -> None:
        """A compaction finished and its outputs are installed."""

    def stall_trigger_count(self, tree: Tree) -> int:
        """What RocksDB compares with level0_slowdown/stop_writes_trigger: L0 files for leveled,
        sorted runs for universal (VersionStorageInfo::l0_delay_trigger_count)."""
        return len(tree.level(0).runs)

    def compaction_trigger_count(self) -> int:
        """The stall-trigger count at which this policy starts compacting; the kernel raises
        level0_slowdown/stop_writes_trigger to at least this, as RocksDB's SanitizeOptions does
        (otherwise writes would stop before any compaction could begin)."""
        return 1

    def indexed_levels(self) -> frozenset:
        """Levels whose runs sit under a full key index (EcoTune's top level); none by default."""
        return frozenset()

    def extra_query_threads(self) -> int:
        """Compaction threads that serve queries now (EcoTune's idle MLC threads); 0 by default."""
        return 0

    def on_step(self, dt: float, ops: dict, jobs: list) -> None:
        """After each kernel step: `ops` are the operations done in it by type, `jobs` the running
        background jobs (policies that measure the workload use this; cheap, called often)."""

    def write_rate_limit(self, tree: Tree) -> float | None:
        """Bytes/s the policy lets writes run at (0 stops them), or None for no limit of its own.
        The kernel applies the least of this and RocksDB's write-controller triggers."""
        return None

    def write_delay(self, tree: Tree) -> float:
        """Seconds each write waits before it proceeds (ARCE's stall rate k while runs exceed c);
        0 by default. The kernel adds it to every write's latency and to writers' synchronous wait."""
        return 0.0

    def summary(self) -> dict:
        """Policy-specific figures for the run summary (keys get a `policy_` prefix)."""
        return {}

    def pending_compaction_bytes(self, tree: Tree) -> float:
        """Estimated bytes compaction still owes (soft/hard_pending_compaction_bytes_limit)."""
        return 0.0

    @staticmethod
    def free(files) -> bool:
        return not any(f.being_compacted for f in files)
