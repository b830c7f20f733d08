"""What a policy may observe of the running simulation: a typed, read-only view.

The kernel passes a `View` to every call of the policy interface (`needs_compaction`, `pick`, the
callbacks), as RocksDB hands its pickers a `VersionStorageInfo` snapshot: a policy never reaches into
the kernel and the kernel never sets fields on a policy. `lsmsim.sim.view.SimView` implements it;
`StaticView` is a view of a tree with no simulation behind it (policy tests, the RocksDB policy driver).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..config import CpuCostConfig, LsmConfig, MixConfig, WorkloadConfig
    from ..lsm.costs import CostTable
    from ..lsm.sstable import SSTFile
    from ..lsm.tree import Tree
    from .base import Compaction


class RunningCompaction(Protocol):
    """A compaction job the kernel is running: its inputs and the bytes it will write."""

    @property
    def id(self) -> int: ...
    @property
    def compaction(self) -> Compaction: ...
    @property
    def inputs(self) -> list[SSTFile]: ...
    @property
    def write_bytes(self) -> float: ...
    @property
    def threads(self) -> int: ...


class View(Protocol):
    """The simulation as a policy sees it."""

    @property
    def tree(self) -> Tree:
        """The LSM-tree (files, sorted runs, levels); policies read it, the kernel changes it."""
        ...

    @property
    def now(self) -> float:
        """Simulated seconds."""
        ...

    @property
    def mix(self) -> MixConfig | None:
        """The operation mix of the current phase (the last phase's once all ended; None before the first)."""
        ...

    @property
    def measuring(self) -> bool:
        """True while a phase with `measure: true` runs (workload statistics count only those)."""
        ...

    @property
    def lsm(self) -> LsmConfig: ...

    @property
    def cpu(self) -> CpuCostConfig:
        """The machine's CPU cost of RocksDB's work (machine.cpu)."""
        ...

    @property
    def workload(self) -> WorkloadConfig: ...

    @property
    def running(self) -> Sequence[RunningCompaction]:
        """Compactions in progress (flushes are not listed)."""
        ...

    @property
    def compaction_threads(self) -> int:
        """machine.threads.compaction: RocksDB's max_background_compactions."""
        ...

    @property
    def idle_compaction_threads(self) -> int: ...

    @property
    def client_threads(self) -> int:
        """Closed-loop foreground threads of the current phase, as configured."""
        ...

    @property
    def read_latency(self) -> float:
        """Seconds a random block read takes on the device at its current load."""
        ...

    def costs(self) -> CostTable:
        """Per-operation CPU and I/O costs on the current tree (lsm/costs.py)."""
        ...

    def device_seconds(self, read_bytes: float, write_bytes: float, random_reads: float) -> float:
        """Device seconds of this much I/O on an otherwise idle device."""
        ...


@dataclass
class StaticView:
    """A `View` of a fixed tree: nothing runs and time stands still unless the holder moves it."""

    tree: Tree
    now: float = 0.0
    mix: Any = None
    measuring: bool = False
    lsm: Any = None
    cpu: Any = None
    workload: Any = None
    running: tuple = ()
    compaction_threads: int = 1
    client_threads: int = 1
    read_latency: float = 100e-6
    cost_table: Any = None

    @property
    def idle_compaction_threads(self) -> int:
        return self.compaction_threads - sum(j.threads for j in self.running)

    def costs(self) -> CostTable:
        if self.cost_table is None:
            raise NotImplementedError("StaticView: give cost_table= to policies that read costs")
        return self.cost_table

    def device_seconds(self, read_bytes: float, write_bytes: float, random_reads: float) -> float:
        raise NotImplementedError("StaticView has no device")
