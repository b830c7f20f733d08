"""RocksDB's write stalls: slowdown and stop conditions and the delayed write rate.

After `ColumnFamilyData::RecalculateWriteStallConditions` and `SetupDelay` (RocksDB 7.8,
db/column_family.cc) and `WriteController` (db/write_controller.cc). The figures it compares come from
the policy's `WriteControl` (policies/write_control.py): the stall-trigger count, the pending compaction
bytes, and the policy's own rate limit and per-write delay (ARCE's k).
"""

from __future__ import annotations

from ..lsm.tree import Tree
from ..policies.write_control import WriteControl

MIN_DELAYED_RATE = 16 * 1024.0  # bytes/s: WriteController never delays below this
LOW_PRI_RATE = 1024 * 1024.0  # bytes/s of batches: WriteController's low_pri_rate_limiter (db/write_controller.h)
# how often the credits a limited write waits for come; a write that finds none sleeps until the next refill: the
# delayed write rate's every millisecond, never less than one (write_controller.cc GetDelay: "Minimum delay of refill
# interval"), the low-priority limiter's every 100 ms (NewGenericRateLimiter's refill_period_us)
DELAY_REFILL, LOW_PRI_REFILL = 1e-3, 0.1


class WriteController:
    """The write stall state of one run: `state` is "none", "slowdown" or "stop"."""

    def __init__(self, lsm, control: WriteControl):
        self.lsm = lsm
        self.control = control
        # RocksDB's SanitizeOptions: slowdown >= the compaction trigger, stop >= slowdown
        self.slowdown_trigger = max(lsm.level0_slowdown_writes_trigger, control.compaction_trigger)
        self.stop_trigger = max(lsm.level0_stop_writes_trigger, self.slowdown_trigger)
        # 0 turns a pending-bytes limit off; a soft limit of 0 takes the hard one (SanitizeOptions)
        self.hard_pending = lsm.hard_pending_compaction_bytes_limit or float("inf")
        self.soft_pending = lsm.soft_pending_compaction_bytes_limit or lsm.hard_pending_compaction_bytes_limit
        # L0 runs at which RocksDB speeds compactions up: 1/4 of the way from the trigger to the slowdown, at most
        # twice the trigger (column_family.cc GetL0ThresholdSpeedupCompaction)
        t = control.compaction_trigger
        self.speedup_trigger = min(2 * t, t + (self.slowdown_trigger - t) // 4)
        self.delayed_rate = lsm.delayed_write_rate  # the current delayed write rate
        self.state = "none"
        self.write_delay = 0.0  # the policy's delay per write now (ARCE's k while runs > c)
        self._version, self._delayed, self._stopped, self._prev_pending = -1, False, False, 0.0
        self._pending_cache = (-1, 0.0)
        self.cause = ""  # why the state is what it is (RocksDB's WriteStallCause, in words)
        self.first: dict[str, tuple[float, str]] = {}  # "slowdown" / "stop" -> (when it first began, why)
        self.refill = 0.0  # seconds between the credits of the limit that binds now (0: none binds)

    def pending_bytes(self, tree: Tree) -> float:
        """The policy's estimate of the compaction debt, once per tree version."""
        v, b = self._pending_cache
        if v != tree.version:
            b = self.control.pending_bytes(tree)
            self._pending_cache = (tree.version, b)
        return b

    def memtable_full(self, tree: Tree) -> bool:
        return tree.memtable.bytes >= self.lsm.write_buffer_size

    def update(self, tree: Tree, writing: bool, now: float | None = None) -> None:
        """Re-evaluate the stall state (no stall while no phase writes) and the delayed rate; note when each kind
        of stall first began (at `now`) and why."""
        self.state = self._condition(tree) if writing else "none"
        if self.state != "none" and self.state not in self.first and now is not None:
            self.first[self.state] = (now, self.cause)
        self._setup_delay(tree)

    def _condition(self, tree: Tree) -> str:
        lsm = self.lsm
        trig = self.control.stall_count(tree)
        pending = self.pending_bytes(tree)
        mwbn = lsm.max_write_buffer_number
        if self.memtable_full(tree) and len(tree.immutables) >= mwbn - 1:
            return self._because("stop", f"memtables: {mwbn} full (max_write_buffer_number)")
        if trig >= self.stop_trigger:
            return self._because("stop", f"{trig} L0 runs >= level0_stop_writes_trigger {self.stop_trigger}")
        if pending >= self.hard_pending:
            return self._because("stop", f"pending compaction {pending:.3g} B >= hard_pending_compaction_bytes_limit")
        if self.control.rate_limit(tree) == 0:  # the policy holds writes (the design space's Full): a stop
            return self._because("stop", "the policy holds writes")
        unflushed = len(tree.immutables) + 1
        if mwbn > 3 and unflushed >= mwbn - 1:  # RocksDB delays writes one memtable before the limit
            return self._because("slowdown", f"memtables: {unflushed} of max_write_buffer_number {mwbn} unflushed")
        if trig >= self.slowdown_trigger:
            return self._because(
                "slowdown", f"{trig} L0 runs >= level0_slowdown_writes_trigger {self.slowdown_trigger}"
            )
        if 0 < self.soft_pending <= pending:
            return self._because(
                "slowdown", f"pending compaction {pending:.3g} B >= soft_pending_compaction_bytes_limit"
            )
        return self._because("none", "")

    def _because(self, state: str, cause: str) -> str:
        self.cause = cause
        return state

    def _setup_delay(self, tree: Tree) -> None:
        """RocksDB 7.8's delayed write rate (column_family.cc SetupDelay), re-evaluated whenever
        the tree changes (RecalculateWriteStallConditions runs at every new version): while
        delayed it falls to 0.8x if the compaction debt did not shrink, to 0.6x near or at the
        stop trigger, and rises 1/0.8x if the debt shrank; leaving the delay condition multiplies
        it by 1.4; it never exceeds lsm.delayed_write_rate nor drops below 16KiB/s."""
        v = tree.version
        if v == self._version:
            return
        self._version = v
        max_rate, min_rate = self.lsm.delayed_write_rate, MIN_DELAYED_RATE
        pending = self.pending_bytes(tree)
        near_stop = self.control.stall_count(tree) >= self.stop_trigger - 2
        if self.state == "slowdown":
            if self._delayed:  # entering the delay keeps the current rate; while delayed it adapts
                if near_stop or self._stopped:
                    self.delayed_rate = max(min_rate, self.delayed_rate * 0.6)
                elif 0 < self._prev_pending <= pending:
                    self.delayed_rate = max(min_rate, self.delayed_rate * 0.8)
                elif self._prev_pending > pending:
                    self.delayed_rate = min(max_rate, self.delayed_rate / 0.8)
            self._delayed = True
        elif self.state == "none" and self._delayed:
            self.delayed_rate = min(max_rate, self.delayed_rate * 1.4)
            self._delayed = False
        self._stopped = self.state == "stop"
        self._prev_pending = pending

    def needs_speedup(self, tree: Tree) -> bool:
        """RocksDB's WriteController::NeedSpeedupCompaction: writes stopped or delayed, or a compaction pressure
        token (L0 runs at the speed-up trigger, or pending bytes at a quarter of the soft limit: always when that
        limit is 0; column_family.cc RecalculateWriteStallConditions)."""
        if self.state != "none" or self.control.stall_count(tree) >= self.speedup_trigger:
            return True
        return self.pending_bytes(tree) >= self.soft_pending / 4

    def limit(self, tree: Tree, user_share: float = 1.0) -> float | None:
        """Bytes/s writes may run at: 0 when stopped, delayed_write_rate when slowed (RocksDB's
        WriteController), the policy's own limit, or with lsm.write_low_pri the low-priority limiter's 1 MiB/s of
        batches while compactions need speeding up (db_impl_write.cc ThrottleLowPriWritesIfNeeded), of which
        `user_share` are the user's bytes; None for no limit. `refill` tells how often the binding limit's credits
        come."""
        own = self.control.rate_limit(tree)
        limits = [own] if own is not None else []
        if self.state == "stop":
            limits.append(0.0)
        elif self.state == "slowdown":
            limits.append(self.delayed_rate)
        self.refill = DELAY_REFILL
        if self.lsm.write_low_pri and self.needs_speedup(tree):
            low = LOW_PRI_RATE * user_share
            if not limits or low < min(limits):
                self.refill = LOW_PRI_REFILL
            limits.append(low)
        if not limits:
            self.refill = 0.0
        return min(limits) if limits else None
