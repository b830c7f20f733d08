"""Per-operation cost model: CPU seconds, device block reads and synchronous I/Os per operation.

Costs follow from the tree state (docs/design.md "The tree"):
- point get (existing key) = memtable probe + a filter probe per run it passes + for each run before
  the one holding the key, FPR x (index search + block read), then one block read where it is found;
  the key's newest version is in run j with probability (entries in j / all entries);
- point get (empty key) = a filter probe per run + FPR x (index search + block read) per run;
- range scan (Seek + K Next) = a seek per run (index search + one block read) + the blocks that the
  K keys occupy in each run: K * p_j / entries-per-block, with p_j the run's share of the data
  (EcoTune SIGMOD'25 §4.1, whose 1 - (1 - p_j)^K is the probability a run holds any of the K keys);
- write = memtable insert + WAL append (WAL bytes are a sequential device write).
Block reads are discounted by the block-cache hit ratio (`cache.py`), per file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import cache
from .filters import bloom_fpr


@dataclass(frozen=True)
class OpCost:
    cpu: float  # CPU seconds per operation
    reads: float  # device block reads (random, block_size each) per operation
    sync_reads: float  # of which are waited for one after another (RocksDB reads synchronously)
    run_blocks: np.ndarray | None = None  # block accesses per run (cache warm-up accounting)


@dataclass(frozen=True)
class CostTable:
    get: OpCost
    get_empty: OpCost
    short_scan: OpCost
    long_scan: OpCost
    write: OpCost
    hit_ratio: float
    runs: int

    def of(self, op: str) -> OpCost:
        return getattr(self, op)


def run_stats(tree):
    """Per run (youngest first): bytes, entries and files."""
    return [(r.bytes, r.entries, r.files) for r in tree.runs()]


def build_costs(
    tree, lsm, cpu, hot_fraction, scan_length: int, short_scan_length: int, indexed_levels: frozenset = frozenset()
) -> CostTable:
    """Evaluate every operation's cost on the current tree (called when the tree changes).

    Runs of `indexed_levels` sit under a full key index (EcoTune's top level, §4.2): one index probe
    answers for all of them, without false positives, and a scan visits only those holding its keys."""
    stats = run_stats(tree)
    n = len(stats)
    indexed = np.array([lvl.index in indexed_levels for lvl in tree.levels for _ in lvl.runs], bool)
    run_bytes = np.array([s[0] for s in stats], float)
    run_entries = np.array([s[1] for s in stats], float)
    data = run_bytes.sum()
    h = cache.steady_hit_ratio(lsm.block_cache_size, data, hot_fraction)
    miss = np.ones(n)
    for run in tree.runs():  # credit the block reads served since the last rebuild
        if run.pending_block_reads > 0:
            total = run.bytes
            for f in run.files:
                f.block_reads += run.pending_block_reads * f.bytes / total
            run.pending_block_reads = 0.0
    for j, (b, _, files) in enumerate(stats):
        if b > 0 and h > 0:
            warm = (
                sum(
                    f.bytes * cache.warmth(f.block_reads, f.bytes, lsm.block_cache_size, data, lsm.block_size)
                    for f in files
                )
                / b
            )
            miss[j] = 1.0 - h * warm
    fpr = bloom_fpr(lsm.bloom_bits_per_key)
    entry_bytes = run_bytes / np.maximum(run_entries, 1)
    epb = np.maximum(1.0, lsm.block_size / np.maximum(entry_bytes, 1.0))  # entries per block
    share = run_entries / run_entries.sum() if n and run_entries.sum() > 0 else np.zeros(n)

    wcpu = cpu.memtable_insert + (cpu.wal_append if lsm.wal else 0.0)
    write = OpCost(wcpu, 0.0, 0.0, np.zeros(n))

    fprs = np.where(indexed, 0.0, fpr)  # a full index has no false positives
    n_probed = int((~indexed).sum()) + (1 if indexed.any() else 0)  # filter probes, or one index probe

    # empty get: every run's filter, false positives read a block
    fp_blocks = fprs.copy()
    ge = OpCost(
        cpu.get_base + n_probed * cpu.filter_probe + float(fprs.sum()) * (cpu.index_search + cpu.block_decode),
        float((fp_blocks * miss).sum()),
        float((fp_blocks * miss).sum()),
        fp_blocks,
    )

    # existing get: found in run j with probability share_j, runs before it are false positives
    before = np.cumsum(np.concatenate([[0.0], share[:-1]])) if n else np.zeros(0)
    passed = 1.0 - before  # probability the get reaches run j
    blocks = share + (passed - share).clip(0) * fprs  # the hit + false positives of runs passed
    probes = float(passed[~indexed].sum()) + (1.0 if indexed.any() else 0.0)
    g = OpCost(
        cpu.get_base + probes * cpu.filter_probe + blocks.sum() * (cpu.index_search + cpu.block_decode),
        float((blocks * miss).sum()),
        float((blocks * miss).sum()),
        blocks,
    )

    def scan(k: int) -> OpCost:
        # a seek reads one block per run it visits; then the K keys spread over the runs by their
        # share p_j of the data. Without a range filter every run is visited; with one, only runs
        # holding one of the K keys, probability 1 - (1 - p_j)^K (EcoTune §4.1), plus false positives.
        touch = 1.0 - (1.0 - share) ** k
        if lsm.range_filter_fpr is None:
            visit = np.where(indexed, touch, 1.0)
            probe = (1.0 if indexed.any() else 0.0) * cpu.filter_probe
        else:
            visit = np.where(indexed, touch, touch + (1.0 - touch) * lsm.range_filter_fpr)
            probe = n_probed * cpu.filter_probe
        b = visit + np.maximum(0.0, k * share - 1.0) / epb if n else np.zeros(0)
        cpu_s = (
            cpu.get_base
            + probe
            + float(visit.sum()) * (cpu.index_search + cpu.block_decode)
            + k * cpu.next_entry * max(1.0, np.log2(max(n, 1)) + 1)
        )
        cpu_s += float(np.maximum(0.0, b - visit).sum()) * cpu.block_decode
        r = float((b * miss).sum())
        return OpCost(cpu_s, r, r, b)

    return CostTable(
        get=g,
        get_empty=ge,
        short_scan=scan(short_scan_length),
        long_scan=scan(scan_length),
        write=write,
        hit_ratio=h,
        runs=n,
    )
