"""The policy interface (docs/design.md "Policies"), after RocksDB's compaction_picker.h.

RocksDB's `CompactionPicker` has two pure virtuals over an LSM snapshot: `NeedsCompaction(vstorage)`
and `PickCompaction(...) -> Compaction*` (which may still return nullptr). A lsmsim policy is the same:
`needs_compaction(view)` (pure: it changes nothing) and `pick(view) -> Compaction | None`, asked
whenever a compaction thread is free and `needs_compaction` says yes. Four callbacks tell it what
happened (`on_flush`, `on_compaction_done`, `on_compaction_cancelled`, `on_step`), `write_control` is its say
on write stalls (RocksDB's triggers by default), and `summary()` reports. `view` is a read-only `View` of the
simulation (policies/view.py). A policy reads the tree, never changes it; the kernel validates and
runs what it returns.

A new policy is one module in this package: an options class (`PolicyOptions` with a
`name: Literal["..."]`) and a `Policy` subclass with `Options` set and `@register`.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..fields import Section
from ..lsm.cutting import Cut
from ..lsm.sstable import Run, SSTFile
from .view import View
from .write_control import WriteControl

if TYPE_CHECKING:
    from ..config import Config


@dataclass(eq=False)
class Compaction:
    """Merge `inputs` into `output_level`.

    With `target_run` the outputs join that existing run (which must not overlap them otherwise);
    without, they form a new run placed by age. `trivial_move` moves the single-run inputs without
    rewriting them (RocksDB's trivial move). `io_class` picks the device priority class. `cut`
    places the output-file boundaries (`lsm/cutting.py`); without it files are cut at
    `target_file_size`.
    """

    inputs: list[SSTFile]
    output_level: int
    target_run: Run | None = None
    target_file_size: int | None = None
    cut: Cut | None = None
    trivial_move: bool = False
    reason: str = ""
    io_class: str = "compaction"
    start_level: int = 0
    threads: int = 1  # threads working on it in parallel (RocksDB subcompactions)
    output_run: Run | None = None  # set by the kernel when the outputs are installed
    tag: object = None  # the policy's own bookkeeping

    @property
    def input_bytes(self) -> int:
        return sum(f.bytes for f in self.inputs)


class PolicyOptions(Section):
    """Base of every policy's options (the YAML `policy:` section); subclasses add `name: Literal[...]`."""

    name: str

    def complete(self, cfg: Config) -> None:
        """Fill defaults that depend on other sections of `cfg` (called once the config is valid)."""


class Policy(abc.ABC):
    """Base of all compaction policies."""

    name: ClassVar[str]
    Options: ClassVar[type[PolicyOptions]]
    overlap_within_levels: ClassVar[bool] = False  # runs of a level may overlap in time (ElasticLSM)
    # RocksDB's own picker: its scheduler runs one compaction at a time until compactions need speeding up
    # (db_impl_compaction_flush.cc DBImpl::GetBGJobLimits; sim/background.py `compaction_slots`)
    rocksdb_scheduler: ClassVar[bool] = False

    def __init__(self, options: Any, lsm: Any):
        self.options = options
        self.lsm = lsm
        self.flush_bytes_avg = 0.0  # running mean of flushed file bytes (policies size levels by it)
        self._flushes = 0
        self.write_control = WriteControl()

    # ---------------------------------------------------------------- picking (compaction_picker.h)
    @abc.abstractmethod
    def needs_compaction(self, view: View) -> bool:
        """Whether `pick` may have work (RocksDB's NeedsCompaction): cheap, and changes nothing."""

    @abc.abstractmethod
    def pick(self, view: View) -> Compaction | None:
        """The next compaction to run, or None (RocksDB's PickCompaction)."""

    def next_compaction(self, view: View) -> Compaction | None:
        """`pick` when `needs_compaction`, else None: what the background threads ask. A policy whose two share
        their work overrides it to do that work once."""
        return self.pick(view) if self.needs_compaction(view) else None

    # ---------------------------------------------------------------- callbacks
    def on_flush(self, view: View, run: Run | None) -> None:
        """A flush installed `run` in L0."""
        if run is not None:
            self._flushes += 1
            self.flush_bytes_avg += (run.bytes - self.flush_bytes_avg) / self._flushes

    def on_compaction_done(self, view: View, compaction: Compaction) -> None:
        """A compaction finished and its outputs are installed (`compaction.output_run`)."""

    def on_compaction_cancelled(self, view: View, compaction: Compaction) -> None:
        """A compaction that `pick` returned was cancelled before it finished (a phase's `flush`: the process ends and
        RocksDB's shutdown cancels the compactions that run); its inputs stay in the tree, free to be picked again.
        A policy that keeps state for the compactions it runs undoes what `pick` set for it."""

    def on_step(self, view: View, dt: float, ops: dict[str, float]) -> None:
        """After each kernel step of `dt` seconds: `ops` are the operations done in it by type (policies that
        measure the workload use this; cheap, called often)."""

    # ---------------------------------------------------------------- what the read path borrows
    def indexed_levels(self) -> frozenset:
        """Levels whose runs sit under a full key index (EcoTune's top level); none by default."""
        return frozenset()

    def search_work(self, view: View) -> tuple[float, int] | None:
        """CPU seconds and threads of background work the policy wants run now, outside the compaction threads
        (ARCE's FindBestParams); the kernel runs it as a CPU-only job and calls `on_search_done` when it ends."""
        return None

    def on_search_done(self, view: View) -> None:
        """The work `search_work` asked for has finished."""

    def extra_query_threads(self) -> int:
        """Compaction threads that serve queries now (EcoTune's idle MLC threads); 0 by default."""
        return 0

    # ---------------------------------------------------------------- reporting
    def summary(self) -> dict:
        """Policy-specific figures for the run summary (keys get a `policy_` prefix)."""
        return {}

    @staticmethod
    def free(files) -> bool:
        return not any(f.being_compacted for f in files)
