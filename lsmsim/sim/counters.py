"""The totals of a run: operations, bytes, stall and CPU time. The kernel adds to them; the recorder
and the summary read them."""

from __future__ import annotations

from dataclasses import dataclass, field

READ_OPS = ("get", "get_empty", "short_scan", "long_scan")
OPS = ("write",) + READ_OPS


def _per_op() -> dict[str, float]:
    return {op: 0.0 for op in OPS}


@dataclass
class Counters:
    ops: dict[str, float] = field(default_factory=_per_op)  # operations executed, all phases
    measured_ops: dict[str, float] = field(default_factory=_per_op)  # in phases with measure: true
    measured_time: float = 0.0
    user_bytes: float = 0.0  # key + value bytes the workload wrote
    wal_bytes: float = 0.0
    wal_device_bytes: float = 0.0  # of them, the bytes that reached the drive (sim/wal.py)
    flush_bytes: float = 0.0
    compaction_read_bytes: float = 0.0
    compaction_write_bytes: float = 0.0
    stop_time: float = 0.0  # seconds writes were stopped (with writers present)
    slowdown_time: float = 0.0
    delay_time: float = 0.0  # seconds during which the policy delayed writes
    delay_total: float = 0.0  # write-seconds spent in those delays
    unconverged_steps: int = 0  # steps whose sharing solve ended before its fixed point (sharing.solve)
    peak_space: float = 0.0  # tree bytes + transient bytes (limits.transient_bytes), at its peak
    peak_obsolete: float = 0.0  # removed files running jobs still hold (sim/versions.py), at its peak
    obsolete_byte_seconds: float = 0.0  # and over time (its mean is less a matter of timing than its peak)
    obsolete_since: tuple[float, float] = (0.0, 0.0)  # (time, bytes held) at the last step's end
    peak_transient_amp: float = 0.0  # transient bytes / logical bytes then: its peak (Spooky Eq. 1)
    # the same peaks since the last timeseries sample (the recorder resets them): a sample between two steps
    # would miss a compaction's last output bytes, which are the peak (Spooky Fig. 7B's sawtooth)
    window_peak_physical: float = 0.0
    window_peak_space_amp: float = 0.0
    window_peak_transient_amp: float = 0.0
    cpu_busy: dict[str, float] = field(
        default_factory=lambda: {"flush": 0.0, "compaction": 0.0, "foreground": 0.0, "search": 0.0}
    )
    # data-block accesses of reads, per level: all, block-cache hits, page-cache hits (lsm/cache.py)
    blocks: dict[int, float] = field(default_factory=dict)
    block_cache_hits: dict[int, float] = field(default_factory=dict)
    page_cache_hits: dict[int, float] = field(default_factory=dict)
    read_pages: dict[str, float] = field(default_factory=_per_op)  # device pages each read op read (read amplification)

    def add_blocks(self, n_ops: float, cost, op: str) -> None:
        """Count the block accesses and device pages of `n_ops` operations `op` (their `lsm.costs.OpCost`)."""
        self.read_pages[op] += n_ops * cost.reads
        for counts, per_level in (
            (self.blocks, cost.level_blocks),
            (self.block_cache_hits, cost.level_block_hits),
            (self.page_cache_hits, cost.level_page_hits),
        ):
            for lvl, x in enumerate(per_level):
                if x > 0:
                    counts[lvl] = counts.get(lvl, 0.0) + n_ops * float(x)

    def hit_ratios(self, level: int | None = None) -> tuple[float, float]:
        """(block-cache hit ratio, page-cache hit ratio of block-cache misses), of one level or all."""
        levels = [level] if level is not None else list(self.blocks)
        blocks = sum(self.blocks.get(i, 0.0) for i in levels)
        bc = sum(self.block_cache_hits.get(i, 0.0) for i in levels)
        pc = sum(self.page_cache_hits.get(i, 0.0) for i in levels)
        return (bc / blocks if blocks else 0.0), (pc / (blocks - bc) if blocks - bc > 0 else 0.0)
