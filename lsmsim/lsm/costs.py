"""Per-operation cost model: CPU seconds, device block reads and synchronous I/Os per operation.

Costs follow from the tree state (docs/design.md "The tree"):
- point get (existing key) = memtable probe + a filter probe per run it passes + for each run before
  the one holding the key, FPR x (index search + block read), then one block read where it is found;
  the key's newest version is in run j with probability (entries in j / all entries), or, for a phase's
  `get_from: last_level`, in the last level (EcoTune §4.1: Get I/O = 1 + the FPRs of every run above);
- point get (empty key) = a filter probe per run + FPR x (index search + block read) per run;
- range scan (Seek + K Next) = a seek per run (index search + one block read) + the blocks that the
  K keys occupy in each run: K * p_j / entries-per-block, with p_j the run's share of the data
  (EcoTune SIGMOD'25 §4.1, whose 1 - (1 - p_j)^K is the probability a run holds any of the K keys);
- write = memtable insert + WAL append (WAL bytes are a sequential device write).
Block accesses hit RocksDB's block cache, else the OS page cache, else read the device (`cache.py`,
per file as it warms); a block-cache miss costs `block_read` CPU (the read call and the cache's insert) and
`block_read_per_byte` per byte of the block (its copy and checksum), wherever it is served.

Filter and index blocks are pinned in memory unless `lsm.cache_index_and_filter_blocks`: then each
file's full filter (bits_per_key x entries / 8 bytes) and index (one entry per data block: the
separator key + INDEX_ENTRY_OVERHEAD) are block-cache entries of their own, loaded whole when the
file is opened (RocksDB `BlockBasedTable::PrefetchIndexAndFilterBlocks`, table/block_based/
block_based_table_reader.cc: a new file starts with them cached) and evicted like data blocks. A get
reads the filter of every file it probes and the index of every file whose filter passes; a seek
reads one index per run. They compete with data blocks in one LRU (Che's approximation over all
three kinds of block); RocksDB's high-priority pool, which keeps them ahead of data blocks, is not
modelled: their per-block access rate is ~100x a data block's at 10 bits/key, so LRU keeps them
first anyway. A miss is one synchronous I/O of the whole block (filter or index), counted as its
size in pages of `block_size` for the device's bandwidth and for read amplification (Sarkar et al.
PVLDB'21 §5.1.2, O5: "filter and index blocks are 5x and 1x the size of a data block").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import cache
from .filters import rocksdb_bloom_fpr

# index entry bytes beyond the separator key: entry header varints (3), block handle (~5: offset and size
# varints, format_version >= 4 delta-encodes the offset) and the restart offset (4: index_block_restart_interval 1)
# (RocksDB table/block_based/index_builder.cc ShortenedIndexBuilder::AddIndexEntry, table/block_based/block_builder.cc)
INDEX_ENTRY_OVERHEAD = 12
# manual_wal_flush's WAL CPU as a share of wal_append when no preset measured it: db_bench 7.8.3 fillrandom with and
# without --manual_wal_flush and --disable_wal, interleaved, on this project's Xeon host: median of 14 rounds (0.35
# with 64 MiB memtables, 0.40 with 512 MiB; the rounds ran 0.03-0.96 on a noisy VM)
BUFFERED_WAL_SHARE = 0.4


@dataclass(frozen=True)
class OpCost:
    cpu: float  # CPU seconds per operation
    reads: float  # device block reads (random, block_size each) per operation: the pages it reads
    sync_reads: float  # the I/Os it waits for one after another (RocksDB reads synchronously; a filter is one)
    run_blocks: np.ndarray | None = None  # data-block accesses per run (cache warm-up accounting)
    level_blocks: np.ndarray | None = None  # data-block accesses per level
    level_block_hits: np.ndarray | None = None  # of which the block cache serves, per level
    level_page_hits: np.ndarray | None = None  # of the block cache's misses, those the page cache serves
    extra_pages: float = 0.0  # pages its synchronous reads transfer beyond one per I/O (multi-page filter loads)


@dataclass(frozen=True)
class CostTable:
    get: OpCost
    get_empty: OpCost
    short_scan: OpCost
    long_scan: OpCost
    write: OpCost
    hit_ratio: float  # steady-state block-cache hit ratio
    runs: int
    page_hit_ratio: float = 0.0  # steady-state page-cache hit ratio of block-cache misses
    # per run: how fast its hit ratio still rises per data-block read into it while its files warm (0 once warm);
    # the kernel rebuilds the costs once the warm-up has moved the served share by WARM_STEP (sim/foreground.py
    # warming_rate)
    warming: np.ndarray | None = None
    long_scan_seek: OpCost | None = None  # a long scan's seek alone (length 0): the part its length does not scale
    client: float = 0.0  # of every operation's CPU, the client's own (`build_costs`' client): not RocksDB's work

    def of(self, op: str) -> OpCost:
        return getattr(self, op)

    @property
    def engine_write(self) -> float:
        """A write's CPU in RocksDB, without the client's."""
        return self.write.cpu - self.client


def run_stats(tree):
    """Per run (youngest first): bytes, entries and files."""
    return [(r.bytes, r.entries, r.files) for r in tree.runs()]


def page_cache_bytes(memory: float | None, lsm) -> float:
    """The OS page cache: what `memory` leaves after the block cache and the memtables (0 without
    a memory size, and for reads that bypass it: use_direct_reads)."""
    if memory is None or lsm.use_direct_reads:
        return 0.0
    return max(0.0, float(memory) - lsm.block_cache_size - lsm.write_buffer_size * lsm.max_write_buffer_number)


def wal_cpu(cpu, lsm) -> float:
    """A write's WAL CPU: log::Writer::AddRecord and, unless lsm.manual_wal_flush, the write() that hands the record
    to the OS (db/log_writer.cc: `if (!manual_flush_) dest_->Flush()`); with it the records wait in
    WritableFileWriter's buffer (1 MiB) and the call is paid once per buffer: cpu.wal_append_buffered."""
    if not lsm.wal:
        return 0.0
    synced = cpu.wal_sync_cpu if lsm.wal_sync else 0.0  # the write's cold-cache time after its group's sync
    if not lsm.manual_wal_flush:
        return cpu.wal_append + synced
    buffered = cpu.wal_append_buffered if cpu.wal_append_buffered is not None else BUFFERED_WAL_SHARE * cpu.wal_append
    return buffered + synced


def memtable_walks(cpu, buffer_bytes: float, memtable_entries: float):
    """The CPU of one skiplist walk in a memtable of n entries (full: `memtable_entries` in `buffer_bytes`), as a
    function of n; n = None is the active memtable over its life (n uniform in [0, N]). About log2(n) node visits
    (memtable/inlineskiplist.h, FindGreaterOrEqual and FindSpliceForLevel), each `cpu.memtable_search`, and the
    share of them beyond the cache, max(0, 1 - memtable_cache / bytes), `cpu.memtable_miss` more."""
    per_entry = buffer_bytes / memtable_entries if memtable_entries > 0 else 0.0
    cache = cpu.memtable_cache
    miss = cpu.memtable_miss if cache is not None and per_entry > 0 else 0.0

    def missed(n):  # the share of a walk's visits beyond the cache, n entries (an array or a number)
        return np.maximum(0.0, 1.0 - cache / (np.maximum(n, 1.0) * per_entry))

    def walk(n: float | None) -> float:
        if n is not None:
            levels = math.log2(n) if n > 1 else 0.0
            return levels * (cpu.memtable_search + miss * float(missed(n))) if miss else cpu.memtable_search * levels
        full = math.log2(memtable_entries) if memtable_entries > 1 else 0.0
        base = cpu.memtable_search * max(0.0, full - 1.0 / math.log(2.0))
        if not miss:
            return base
        # E over n uniform in [0, N]: E[log2 n] = log2 N - 1 / ln 2 in closed form (above); the miss term by midpoints
        grid = (np.arange(64) + 0.5) / 64 * memtable_entries
        return base + miss * float((np.log2(np.maximum(grid, 1.0)) * missed(grid)).mean())

    return walk


def build_costs(
    tree,
    lsm,
    cpu,
    hot_fraction,
    scan_length: int,
    short_scan_length: float,
    indexed_levels: frozenset = frozenset(),
    page_cache: float = 0.0,
    sequential_writes: bool = False,
    mix: dict[str, float] | None = None,
    get_last_level: bool = False,
    memtable_entries: float = 0.0,
    active_entries: float | None = None,
    beyond: float = 0.0,
    client: float = 0.0,
) -> CostTable:
    """Evaluate every operation's cost on the current tree (called when the tree changes).

    `hot_fraction` is the key distribution's (or its `cache.Caches`); `page_cache` the OS page
    cache's bytes (`page_cache_bytes`); `sequential_writes` when the phase inserts keys in order;
    `mix` the phase's share of each read operation, which decides how the caches split between
    runs (default: point gets). Runs of `indexed_levels` sit under a full key index (EcoTune's top
    level, §4.2): one index probe answers for all of them, without false positives, and a scan
    visits only those holding its keys. `memtable_entries`: the entries a full memtable holds, `active_entries`
    the active memtable's now when the phase does not write (None: it fills as the phase writes); they price the
    skiplist walks of `cpu.memtable_search`. `beyond`: the share of the empty gets whose keys lie past every run's
    largest key (db_bench mixgraph's negative keys, `found_reach`): RocksDB skips each run on its fence without a
    filter or a block (db/version_set.cc, FilePicker::GetNextFile: a key above a file's largest), so they walk the
    memtables only. `client`: the client's own CPU per operation (cpu.mixgraph_key under `key_draw: mixgraph`), on
    every operation."""
    caches = hot_fraction if isinstance(hot_fraction, cache.Caches) else cache.Caches(hot_fraction)
    stats = run_stats(tree)
    n = len(stats)
    run_level = np.array([lvl.index for lvl in tree.levels for _ in lvl.runs], np.int64)
    levels = int(run_level.max()) + 1 if n else 0
    indexed = np.array([lvl in indexed_levels for lvl in run_level], bool)
    run_bytes = np.array([s[0] for s in stats], float)
    run_entries = np.array([s[1] for s in stats], float)

    # ---- what each operation does, before the caches: (CPU seconds, block accesses per run)
    # a point filter per run: RocksDB's cache-local Bloom filter, or the range filter when it answers gets (SNARF)
    point = lsm.range_filter_point_fpr
    fpr = point if point is not None else rocksdb_bloom_fpr(lsm.bloom_bits_per_key)
    entry_bytes = run_bytes / np.maximum(run_entries, 1)
    epb = np.maximum(1.0, lsm.block_size / np.maximum(entry_bytes, 1.0))  # entries per block
    share = run_entries / run_entries.sum() if n and run_entries.sum() > 0 else np.zeros(n)
    fprs = np.where(indexed, 0.0, fpr)  # a full index has no false positives
    n_probed = int((~indexed).sum()) + (1 if indexed.any() else 0)  # filter probes, or one index probe
    work: dict[str, tuple[float, np.ndarray]] = {}
    meta: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # per op and run: (filter loads, index loads)
    # the memtables come first: MemTable::Get and MemTable::Add walk the InlineSkipList down from its top level
    # (memtable/inlineskiplist.h, FindGreaterOrEqual and FindSpliceForLevel): about log2(n) node visits for n
    # entries, each likely a cache miss. The active memtable holds n uniform in [0, N] over its life (E[log2 n] =
    # log2 N - 1 / ln 2), each immutable one N.
    walk = memtable_walks(cpu, lsm.write_buffer_size, memtable_entries)
    active_walk = walk(None) if active_entries is None else walk(active_entries)
    memtables = active_walk + len(tree.immutables) * walk(memtable_entries)

    # empty get: every run's filter, false positives read a block (but none past every run's keys: `beyond`)
    within = 1.0 - beyond
    work["get_empty"] = (
        memtables
        + cpu.get_base
        + within * (n_probed * cpu.filter_probe + float(fprs.sum()) * (cpu.index_search + cpu.block_decode)),
        within * fprs,
    )
    meta["get_empty"] = (within * (~indexed).astype(float), within * fprs)
    # existing get: found in run j with probability found_j (its share, or of the last level's), runs before it
    # are false positives
    found = share
    if get_last_level and n:
        found = np.where(run_level == run_level.max(), run_entries, 0.0)
        found = found / found.sum() if found.sum() > 0 else share
    before = np.cumsum(np.concatenate([[0.0], found[:-1]])) if n else np.zeros(0)
    passed = 1.0 - before  # probability the get reaches run j
    blocks = found + (passed - found).clip(0) * fprs  # the hit + false positives of runs passed
    probes = float(passed[~indexed].sum()) + (1.0 if indexed.any() else 0.0)
    work["get"] = (
        memtables
        + cpu.get_base
        + cpu.get_found
        + probes * cpu.filter_probe
        + blocks.sum() * (cpu.index_search + cpu.block_decode),
        blocks,
    )
    meta["get"] = (np.where(indexed, 0.0, passed), blocks)

    def scan(k: float) -> tuple[float, np.ndarray]:
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
            memtables
            + cpu.scan_base
            + probe
            + float(visit.sum()) * (cpu.index_search + cpu.block_decode)
            # the merging iterator's heap holds a child per run the scan visits (MergingIterator): with a range
            # filter or a full index, the runs that hold none of its keys are not in it (EcoTune §4.1)
            + k * cpu.next_entry * max(1.0, np.log2(max(float(visit.sum()), 1.0)) + 1)
        )
        cpu_s += float(np.maximum(0.0, b - visit).sum()) * cpu.block_decode
        return cpu_s, b

    work["short_scan"] = scan(short_scan_length)
    work["long_scan"] = scan(scan_length)
    for op in ("short_scan", "long_scan"):  # a seek reads the index of each run it visits
        meta[op] = (np.zeros(n), np.minimum(work[op][1], 1.0))

    # ---- the caches: steady-state hit ratios per run for this mix, then how warm each run is
    weights = {op: x for op, x in (mix or {}).items() if op in work and x > 0} or {"get": 1.0}
    access = sum(x * work[op][1] for op, x in weights.items()) / sum(weights.values())
    if lsm.cache_index_and_filter_blocks and n:
        # filter and index blocks of each run as two more regions of the same LRU, accessed in whole loads
        files = np.array([max(1, len(s[2])) for s in stats], float)
        filter_bytes = np.where(indexed, 0.0, run_entries * lsm.bloom_bits_per_key / 8.0)
        index_bytes = run_bytes / lsm.block_size * (tree.key_size + INDEX_ENTRY_OVERHEAD)
        load_pages = np.concatenate([filter_bytes, index_bytes]) / np.concatenate([files, files]) / lsm.block_size
        meta_access = sum(x * np.concatenate(meta[op]) for op, x in weights.items()) / sum(weights.values())
        hb_all, either_all = caches.run_hit_ratios(
            np.concatenate([access, meta_access * load_pages]),
            np.concatenate([run_bytes, filter_bytes, index_bytes]),
            lsm.block_cache_size,
            page_cache,
            lsm.block_size,
        )
        hb, either = hb_all[:n], either_all[:n]
        has_meta = load_pages > 0
        meta_bc_miss = np.where(has_meta, 1.0 - hb_all[n:], 0.0)  # per load: misses the block cache
        meta_dev_miss = np.where(has_meta, 1.0 - either_all[n:], 0.0)  # and reads the device
    else:
        hb, either = (
            caches.run_hit_ratios(access, run_bytes, lsm.block_cache_size, page_cache, lsm.block_size)
            if n
            else (np.zeros(0), np.zeros(0))
        )
        meta_bc_miss = meta_dev_miss = load_pages = None
    bc_hit = np.zeros(n)  # per run: probability a block access hits the block cache
    pc_hit = np.zeros(n)  # and that a block-cache miss hits the page cache
    # a read credited to a run adds block_size / bytes of reads per byte to each file (Run.credit_block_reads), so a
    # file not yet warm gains block_size / hit of warm bytes per read per byte: the run's warm share, and with it its
    # hit ratio hb x warm share, rises by block_size x cold bytes / bytes^2 per read
    warming = np.zeros(n)
    buffered_writes = not lsm.use_direct_io_for_flush_and_compaction
    for j, run in enumerate(tree.runs()):
        b = run.bytes
        if b <= 0:
            continue
        if hb[j] > 0:
            bc_hit[j] = hb[j] * run.warm_bytes(hb[j], lsm.block_size) / b
            warming[j] = lsm.block_size * run.cold_bytes(hb[j], lsm.block_size) / (b * b)
        if page_cache > 0:
            # written through the page cache, a file starts warm there; else it warms as it is read
            warm = b if buffered_writes else run.warm_bytes(either[j], lsm.block_size)
            if not buffered_writes:
                warming[j] = max(warming[j], lsm.block_size * run.cold_bytes(either[j], lsm.block_size) / (b * b))
            served = max(bc_hit[j], either[j] * warm / b)  # the page cache holds what the block cache holds
            pc_hit[j] = (served - bc_hit[j]) / (1.0 - bc_hit[j]) if bc_hit[j] < 1.0 else 0.0
    miss = (1.0 - bc_hit) * (1.0 - pc_hit)  # per run: a block access reads the device

    copy_block = cpu.block_read_per_byte * lsm.block_size  # a miss's copy and checksum of one block_size
    block_read = cpu.block_read + copy_block

    def op_cost(cpu_s: float, blocks: np.ndarray, op: str | None = None) -> OpCost:
        """Add the block reads' CPU and the device reads to an operation of `blocks` accesses per run (and of
        op's filter and index loads, when they go through the block cache)."""
        bc_misses = blocks * (1.0 - bc_hit)
        r = float((blocks * miss).sum())
        pages, ios, extra = r, r, 0.0
        if meta_bc_miss is not None and op is not None:
            loads = np.concatenate(meta[op])
            # a filter or index load reads load_pages blocks' bytes in one call
            cpu_s += float((loads * meta_bc_miss * (cpu.block_read + copy_block * load_pages)).sum())
            pages += float((loads * meta_dev_miss * load_pages).sum())
            ios += float((loads * meta_dev_miss).sum())
            extra = float((loads * meta_dev_miss * np.maximum(load_pages - 1.0, 0.0)).sum())
        return OpCost(
            cpu_s + client + float(bc_misses.sum()) * block_read,
            pages,
            ios,
            blocks,
            np.bincount(run_level, blocks, levels),
            np.bincount(run_level, blocks * bc_hit, levels),
            np.bincount(run_level, bc_misses * pc_hit, levels),
            extra,
        )

    # keys in order: the skiplist insert starts from its last position (InlineSkipList's splice hint)
    wcpu = (cpu.memtable_insert_sequential if sequential_writes else cpu.memtable_insert + walk(None)) + wal_cpu(
        cpu, lsm
    )
    wcpu += client
    total_access = float(access.sum())
    h = float((access * hb).sum()) / total_access if total_access > 0 else 0.0
    h_either = float((access * either).sum()) / total_access if total_access > 0 else 0.0
    return CostTable(
        get=op_cost(*work["get"], "get"),
        get_empty=op_cost(*work["get_empty"], "get_empty"),
        short_scan=op_cost(*work["short_scan"], "short_scan"),
        long_scan=op_cost(*work["long_scan"], "long_scan"),
        long_scan_seek=op_cost(*scan(0.0), "long_scan"),
        write=OpCost(wcpu, 0.0, 0.0, np.zeros(n), np.zeros(levels), np.zeros(levels), np.zeros(levels)),
        hit_ratio=h,
        runs=n,
        page_hit_ratio=(h_either - h) / (1.0 - h) if h < 1.0 else 0.0,
        warming=warming,
        client=client,
    )
