"""The `ruskey` compaction policy: RusKey's FLSM-tree tuned online by reinforcement learning (Mo, Chen, Luo and
Shan, "Learning to Optimize LSM-trees: Towards A Reinforcement Learning based Key-Value Store for Dynamic
Workloads", SIGMOD'24), as ArceKV (PVLDB'26) ran it as a baseline. Readings R1-R6: docs/ruskey-readings.md.

The FLSM-tree (ArceKV Table 1, "Ruskey" row; R1): the paper's level j holds up to T^j F bytes (F a flush, T = 10
fixed, ArceKV §5 "Baselines") in at most K_j sorted runs. Its level 1 is RocksDB's L0, whose files are its runs
(Table 1's write stall, "#files in L0 > K_1", counts them), so lsmsim's level i is the paper's level i + 1:
- L0: a flush adds a run; while L0 holds more than K_1 runs, its youngest runs merge into one L0 run (with K_1 = 1
  each flush merges into the level's run: leveling; with K_1 = T none do: tiering). Table 1's write stall, "#files
  in L0 > K_1", is read as this trigger, with RocksDB's slowdown and stop triggers behind it, as lsmsim's Moose reads
  its row's (R1); `stall_at_k1` stops writes there instead.
- level i >= 1: data entering it merges into its youngest ("active") run while that run is below T^(i+1) F / K,
  and starts a new run otherwise (Dostoevsky's fluid LSM, on which FLSM builds).
- A level whose bytes reach its capacity merges all its runs into the next ("fullness of a level"), the deepest
  full level first.

Transitions (R2): a new K takes effect at the next compaction into a level (the active run's target), never by an
immediate reorganisation: "adjusts the active sorted runs during compactions at this level" (ArceKV §1), the
*moderate* strategy between greedy and lazy (ArceKV Fig. 2). At L0, which RusKey "defers" (ArceKV §2.3), a lower
K_1 applies once L0 next spills; a higher one at once.

Tuning (R3-R5): the operations are cut into missions of `mission_operations`; after each, a DDPG agent
(`ddpg.py`) sees the mission's mix of point lookups, range lookups and writes and level 1's K, is rewarded with the
negative log of the mission's mean latency, and moves K_1 by -1, 0 or +1. With the uniform Bloom filters lsmsim
models, the learned K_1 is copied to every level (RusKey §5.2.1, policy propagation). Missions count the
measured phases only, as ARCE's statistics do (R26 of docs/arce-readings.md).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from ...fields import Bytes, Count
from ...lsm.tree import Tree
from ...tolerances import COUNT_EPS
from ..base import Compaction, Policy, PolicyOptions
from ..registry import register
from ..view import View
from ..write_control import WriteControl, no_limit
from .ddpg import DDPG, DDPGSettings

if TYPE_CHECKING:
    from ...config import Config

MAX_LEVELS = 32


class RusKeyOptions(PolicyOptions):
    """RusKey (SIGMOD'24): the FLSM-tree with size ratio T and per-level run limits K_i, K_1 learned online by
    DDPG from each mission's latency and copied to every level."""

    name: Literal["ruskey"]
    size_ratio: int = Field(10, ge=2, description="T, fixed (ArceKV §5: 'Ruskey fixes the size ratio at T = 10').")
    initial_runs: int = Field(1, ge=1, description="K of every level before the first decision (RocksDB's leveling).")
    mission_operations: Count = Field(
        50_000, ge=1, description="Operations per mission: one decision each (R4; scale it with the workload)."
    )
    learn: bool = Field(True, description="Tune K online; false keeps initial_runs (a static FLSM-tree).")
    target_file_size: Bytes | None = Field(None, gt=0)
    seed: int | None = Field(None, ge=0, description="The learner's seed; default the config's seed.")
    stall_at_k1: bool = Field(
        False,
        description="Stop writes while L0 holds more than K_1 files (Table 1 read literally); default: that is "
        "L0's compaction trigger and RocksDB's level0 slowdown/stop triggers stall writes, as for the other baselines.",
    )

    def complete(self, cfg: Config) -> None:
        if self.seed is None:
            self.seed = cfg.seed


def mission_state(point: float, scan: float, write: float, k: int, T: int) -> np.ndarray:
    """The agent's state (R3): the mission's operation mix and level 1's K, each in [0, 1]."""
    total = max(point + scan + write, 1e-12)
    return np.array([point / total, scan / total, write / total, (k - 1) / (T - 1)])


def k_step(a: float) -> int:
    """The agent's continuous action in [-1, 1] as RusKey's step of K (R3): -1, 0 or +1, a third of the range each."""
    return 1 if a > 1 / 3 else -1 if a < -1 / 3 else 0


@register
class RusKey(Policy):
    name = "ruskey"
    Options = RusKeyOptions

    def __init__(self, options, lsm):
        super().__init__(options, lsm)
        o = options
        self.k = np.full(MAX_LEVELS, min(o.initial_runs, o.size_ratio), dtype=np.int64)  # K of lsmsim's level i
        self.k_l0 = int(self.k[0])  # the K_1 L0 keeps to (and stalls at) until it next spills
        stall = self._stall if o.stall_at_k1 else no_limit
        self.write_control = WriteControl(compaction_trigger=1, rate_limit=stall)
        self.agent = DDPG(4, seed=o.seed or 0, settings=DDPGSettings()) if o.learn else None
        self._mission = np.zeros(4)  # point, scan, write operations and seconds of the open mission
        self._last: tuple[np.ndarray, float] | None = None  # the state and action of the decision in force
        self.missions = 0
        self.k_changes = 0
        self._k_seconds = self._seconds = 0.0  # K_1 x measured seconds, and the measured seconds

    # ------------------------------------------------------------------ the FLSM-tree (R1, R2)
    def capacity(self, level: int) -> float:
        """T^(level + 1) F: lsmsim's level i is the paper's level i + 1."""
        F = self.flush_bytes_avg or self.lsm.write_buffer_size
        return F * float(self.options.size_ratio) ** (level + 1)

    def _full(self, tree: Tree, i: int) -> bool:
        return tree.level_bytes(i) >= self.capacity(i) * 1.0001

    def _stall(self, tree: Tree) -> float | None:
        """With `stall_at_k1`: writes stop while L0 holds more than K_1 files (ArceKV Table 1 read literally)."""
        return 0.0 if len(tree.runs_at(0)) > self.k_l0 else None

    def _l0_excess(self, tree: Tree) -> list:
        """L0's youngest runs to merge into one while L0 holds more than K_1 runs (none if any is busy)."""
        runs = tree.runs_at(0)
        n = len(runs) - self.k_l0 + 1
        young = runs[:n] if n >= 2 else []
        return young if all(self.free(r.files) for r in young) else []

    def needs_compaction(self, view: View) -> bool:
        tree = view.tree
        return bool(self._l0_excess(tree)) or any(self._full(tree, i) for i in range(len(tree.levels)))

    def _active(self, tree: Tree, level: int) -> list:
        """The run that data entering `level` merges into: its youngest while below T^(i+1) F / K (else none)."""
        runs = tree.runs_at(level)
        if runs and runs[0].bytes < self.capacity(level) / self.k[level] and self.free(runs[0].files):
            return [runs[0]]
        return []

    def pick(self, view: View) -> Compaction | None:
        tree = view.tree
        for i in reversed(range(len(tree.levels))):  # the deepest full level first (cf. moose.py)
            runs = tree.runs_at(i)
            if not runs or not self._full(tree, i) or not all(self.free(r.files) for r in runs):
                continue
            if i == 0:
                self.k_l0 = int(self.k[0])  # L0 empties: a lower K_1 takes effect from here
            absorb = self._active(tree, i + 1)
            return self._merge([f for r in runs + absorb for f in r.files], i, i + 1, f"L{i} full ({len(runs)} runs)")
        young = self._l0_excess(tree)
        if young:
            return self._merge([f for r in young for f in r.files], 0, 0, f"L0 holds {len(tree.runs_at(0))} runs")
        return None

    def _merge(self, inputs: list, level: int, output: int, reason: str) -> Compaction:
        return Compaction(
            inputs=inputs,
            output_level=output,
            target_file_size=self.options.target_file_size,
            start_level=level,
            reason=reason,
            io_class="compaction_l0" if level == 0 else "compaction",
        )

    # ------------------------------------------------------------------ missions and decisions (R3-R5)
    def on_step(self, view: View, dt: float, ops: dict[str, float]) -> None:
        if not view.measuring or dt <= 0:
            return
        point = ops.get("get", 0.0) + ops.get("get_empty", 0.0)
        scan = ops.get("short_scan", 0.0) + ops.get("long_scan", 0.0)
        step = np.array([point, scan, ops.get("write", 0.0), dt])
        self._k_seconds += self.k[0] * dt
        self._seconds += dt
        every = self.options.mission_operations
        while True:  # a fluid step may close several missions: its mix is constant within it
            n, need = step[:3].sum(), every - self._mission[:3].sum()
            if n < need - COUNT_EPS:  # (float dust of the steps' counts does not leave the last mission open)
                self._mission += step
                return
            share = min(1.0, need / n)
            self._mission += step * share
            step *= 1 - share
            self._decide(view)

    def _decide(self, view: View) -> None:
        """Close the mission: reward the decision in force, then move K_1 by the agent's step."""
        point, scan, write, seconds = self._mission
        self._mission = np.zeros(4)
        self.missions += 1
        if self.agent is None:
            return
        T = self.options.size_ratio
        ops = point + scan + write
        latency = max(seconds * max(1, view.client_threads) / ops, 1e-12)  # closed loop: threads x time / ops
        state = mission_state(point, scan, write, int(self.k[0]), T)
        if self._last is not None:
            s, a = self._last
            self.agent.observe(s, a, -math.log(latency / 1e-6), state)
        a = self.agent.act(state)
        k = int(min(T, max(1, self.k[0] + k_step(a))))
        if k != self.k[0]:
            self.k_changes += 1
            self.k[:] = k  # policy propagation: uniform Bloom filters, every level takes level 1's K (§5.2.1)
            self.k_l0 = max(self.k_l0, k)  # a higher K_1 at once; a lower one once L0 spills (R2)
        self._last = (state, a)

    def summary(self) -> dict:
        out = {"k_final": int(self.k[0]), "missions": self.missions, "k_changes": self.k_changes}
        if self._seconds > 0:
            out["k_mean"] = self._k_seconds / self._seconds  # K_1 over the measured time
        if self.agent is not None:
            out["trained"] = self.agent.trained
        return out
