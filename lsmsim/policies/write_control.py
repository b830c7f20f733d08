"""A policy's say on write stalls, as one object the kernel's write controller consults.

RocksDB decides stalls in `ColumnFamilyData::RecalculateWriteStallConditions` (column_family.cc) from
three figures: the L0 file count (`VersionStorageInfo::l0_delay_trigger_count`, which universal
compaction makes the sorted-run count), the estimated pending compaction bytes
(`EstimatedCompactionNeededBytes`), and the memtables. `WriteControl` supplies the first two for a
policy, plus what a policy may add of its own: a rate limit (bytes/s) and a delay per write (ARCE's
k while the tree holds more than c runs, ArceKV §3.1). The default is RocksDB's: L0 runs, no debt
estimate, no limit of its own. The state machine itself (slowdown, stop, the delayed write rate) is
the kernel's (`lsmsim.sim.write_controller`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..lsm.tree import Tree


def l0_runs(tree: Tree) -> int:
    """RocksDB's l0_delay_trigger_count for leveled compaction: L0 files (one run each here)."""
    return len(tree.level(0).runs)


def no_debt(tree: Tree) -> float:
    return 0.0


def no_limit(tree: Tree) -> float | None:
    return None


def no_delay(tree: Tree) -> float:
    return 0.0


@dataclass(frozen=True)
class WriteControl:
    """What the write controller asks a policy.

    compaction_trigger: the stall-trigger count at which the policy starts compacting; the kernel raises
        level0_slowdown/stop_writes_trigger to at least this, as RocksDB's SanitizeOptions does
        (otherwise writes would stop before any compaction could begin).
    stall_count(tree): what RocksDB compares with level0_slowdown/stop_writes_trigger.
    pending_bytes(tree): bytes compaction still owes (soft/hard_pending_compaction_bytes_limit).
    rate_limit(tree): bytes/s the policy lets writes run at (0 stops them), None for no limit of its own;
        the kernel applies the least of this and RocksDB's triggers.
    delay(tree): seconds each write waits before it proceeds; the kernel adds it to every write's
        latency and to the writers' synchronous wait.
    """

    compaction_trigger: int = 1
    stall_count: Callable[[Tree], int] = l0_runs
    pending_bytes: Callable[[Tree], float] = no_debt
    rate_limit: Callable[[Tree], float | None] = no_limit
    delay: Callable[[Tree], float] = no_delay
