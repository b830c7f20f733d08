"""`SimView`: the kernel's implementation of the read-only `View` policies observe (policies/view.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .kernel import Simulation


class SimView:
    """What a policy may see of one `Simulation`; every member reads, none writes."""

    __slots__ = ("_sim",)

    def __init__(self, sim: Simulation):
        self._sim = sim

    @property
    def tree(self):
        return self._sim.tree

    @property
    def now(self) -> float:
        return self._sim.env.now

    @property
    def mix(self):
        return self._sim.mix

    @property
    def measuring(self) -> bool:
        return self._sim.cursor.measuring

    @property
    def lsm(self):
        return self._sim.cfg.lsm

    @property
    def cpu(self):
        return self._sim.cfg.machine.cpu

    @property
    def workload(self):
        return self._sim.cfg.workload

    @property
    def running(self):
        return tuple(j for j in self._sim.jobs if j.kind == "compaction")

    @property
    def compaction_threads(self) -> int:
        return self._sim.cfg.machine.threads.compaction

    @property
    def idle_compaction_threads(self) -> int:
        return self.compaction_threads - sum(j.threads for j in self._sim.jobs if j.kind == "compaction")

    @property
    def client_threads(self) -> int:
        return sum(g.base_threads for g in self._sim.groups if not g.open)

    @property
    def read_latency(self) -> float:
        return self._sim.read_latency

    def costs(self):
        return self._sim.costs(fresh=True)  # policies see the current tree's read costs in any phase

    def device_seconds(self, read_bytes: float, write_bytes: float, random_reads: float) -> float:
        return self._sim.device.seconds(read_bytes, write_bytes, random_reads)
