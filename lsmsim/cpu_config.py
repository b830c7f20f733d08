"""The machine's CPU cost of RocksDB's work (`machine.cpu`): one figure per unit of work, each measured with
db_bench (`lsmsim calibrate`)."""

from __future__ import annotations

from pydantic import Field

from . import units
from .fields import Bytes, Duration, Section

NOT_TIMES = frozenset({"write_wait", "memtable_cache"})  # a multiplier and bytes: machine.cpu_speed leaves them


class CpuCostConfig(Section):
    """CPU time per unit of RocksDB's work. The defaults are the `epyc-2vcpu-24g` machine preset
    (lsmsim/presets/machines/, which says where each figure comes from): written by
    scripts/calibrate_cpu.py (now `lsmsim calibrate`) against Debian's db_bench 7.8.3 (--threads=1, no
    compression) on the AMD EPYC host of the recorded validation matrix. Writes and merges from fillrandom at
    three entry sizes with and without the WAL and the LOG's per-compaction CPU; the read path from readrandom,
    readmissing and seekrandom with 0, 10 and 100 Next at a 1 GiB and an 8 MiB block cache. A config without
    machine.preset runs on the preset calibrated on its host instead, when there is one."""

    memtable_insert: Duration = Field(
        units.parse_duration("2.928us"), description="A write without the WAL: the write path and the memtable insert."
    )
    memtable_insert_sequential: Duration = Field(
        units.parse_duration("1.252us"),
        description="A write without the WAL whose key follows the previous one (fillseq: the skiplist's splice hint).",
    )
    memtable_search: Duration = Field(
        units.parse_duration("0us"),
        description="One skiplist walk per log2 of a memtable's entries: a write walks the active memtable "
        "(on top of memtable_insert), a Get or Seek every memtable (InlineSkipList's ~log2 n node visits, each "
        "likely a cache miss). `lsmsim calibrate` measures it from readrandom with full against flushed memtables; "
        "0 in the built-in costs, which were measured without it.",
    )
    memtable_miss: Duration = Field(
        units.parse_duration("0us"),
        description="More per skiplist node visit once a memtable outgrows `memtable_cache`: the share of a walk's "
        "visits beyond the cache, max(0, 1 - memtable_cache / memtable bytes), pays it (a TLB and cache miss). "
        "Fitted with memtable_cache by `lsmsim calibrate` from fillrandom without the WAL at 4-64 MiB memtables (on "
        "the AMD EPYC host 1.95, 2.19, 2.44, 2.94 and 3.43 us/write at 4, 8, 16, 32 and 64 MiB: 96 ns per visit "
        "beyond 8 MiB). 0: no cache effect (the built-in costs did not measure it).",
    )
    memtable_cache: Bytes | None = Field(
        None,
        description="The memtable bytes the CPU keeps close: beyond them a node visit pays memtable_miss. `lsmsim "
        "calibrate` fits it (5-13 MiB on the AMD EPYC host: its VM's share of a 32 MiB L3 shared with other "
        "cores). None: memtable_miss is not charged.",
    )
    write_serial: Duration = Field(
        units.parse_duration("0us"),
        description="A write's time in RocksDB's write thread, which concurrent writers pass one at a time "
        "(db/write_thread.cc): their writes together stay within 1 / write_serial per second. `lsmsim calibrate` "
        "measures it as fillrandom's seconds per write from 2 threads (on the 2-vCPU Xeon host 2 threads write "
        "0.81-0.87x what one does). 0: concurrent writers scale with cores (the built-in costs did not measure it).",
    )
    write_wait: float = Field(
        0.5,
        ge=0,
        description="The CPU a write spends waiting for other threads' write groups in RocksDB's write thread, in "
        "write_serial per unit of their share of it: a write finds another thread's group holding the write thread "
        "with the chance U that the others' writes hold it, and spins (WriteThread::AwaitState: 200 pause spins, "
        "then sched_yield for up to max_yield_usec) for the rest of that group's hold: write_wait x write_serial x U "
        "of CPU per write (foreground.write_thread_spin). 0.5 is a hold of fixed length whose holder keeps its core "
        "(M/D/1's mean residual); the holder loses its core to other threads, so on the Xeon host it is larger. "
        "`lsmsim calibrate` fits it to readrandomwriterandom 50/50 from 2 threads against 1. Only with write_serial.",
    )
    wal_append: Duration = Field(
        units.parse_duration("3.258us"),
        description="More for a write with the WAL: its record and the write() that hands it to the OS page cache.",
    )
    wal_append_buffered: Duration | None = Field(
        None,
        description="The same with lsm.manual_wal_flush (records buffered, one write() per 1 MiB). None: "
        "0.4 x wal_append (db_bench 7.8.3 fillrandom on the Xeon host, median of 14 interleaved rounds).",
    )
    wal_sync_cpu: Duration = Field(
        0.0,
        description="A synced write's time beyond its unsynced write and the sync (lsm.wal_sync): after "
        "DBImpl::WriteToWAL's fdatasync the thread appends and inserts with cold caches. `lsmsim calibrate` measures "
        "it as fillrandom --sync=1's seconds per write less rocksdb.wal.file.sync.micros' mean and the unsynced "
        "write: 6.2 us on the Xeon host (PerfContext: +2.5 us in write_wal_time beside the sync, +1.8 us in "
        "write_memtable_time). 0: not measured.",
    )
    flush_per_entry: Duration = Field(units.parse_duration("0.5437us"), description="A flush, per entry.")
    flush_per_byte: Duration = Field(units.parse_duration("0.001302us"), description="A flush, per byte written.")
    flush_per_job: Duration = Field(
        units.parse_duration("0us"),
        description="A flush's CPU whatever its size: the table builder's set-up and finish (index, filter, "
        "properties, footer), the new file and its LOG events (FlushJob::WriteLevel0Table's cpu_micros, the LOG's "
        "'Flush lasted ... cpu microseconds'; db/flush_job.cc). 1.1-1.6 ms in three fits on the EPYC host on "
        "2026-11-29, where a 64 KiB memtable's flush took 1.18 ms of CPU (benchmarks/buffer_sizes.py). 0: not "
        "measured (`lsmsim calibrate` measures it).",
    )
    merge_per_entry: Duration = Field(units.parse_duration("0.6883us"), description="A compaction, per input entry.")
    merge_per_byte: Duration = Field(units.parse_duration("0.0004287us"), description="A compaction, per input byte.")
    merge_per_block: Duration = Field(
        units.parse_duration("2.155us"),
        description="A compaction, per data block (lsm.block_size) it reads or writes: parsing or building the block, "
        "its checksum and index entry (db_bench fillrandom at 1, 4, 16 and 64 KiB blocks: `lsmsim calibrate`).",
    )
    merge_per_file: Duration = Field(
        units.parse_duration("0us"),
        description="A compaction's CPU per output file whatever its size: building and finishing the table, then "
        "opening it through the table cache to check it is usable (CompactionJob::FinishCompactionOutputFile; "
        "db/compaction/compaction_job.cc). 1.5-2.0 ms in three fits on the EPYC host on 2026-11-29 (fillrandom at "
        "64 KiB-4 MiB files, the LOG's compaction_time_cpu_micros against output files and bytes). 0: not measured.",
    )
    get_base: Duration = Field(units.parse_duration("0us"), description="A Get, whether or not it finds its key.")
    get_found: Duration = Field(
        units.parse_duration("3.593us"),
        description="More for a Get that finds its key (GetContext, pinning the value).",
    )
    scan_base: Duration = Field(
        units.parse_duration("0us"),
        description="A range scan's fixed cost: NewIterator (one child per run) and the Seek's setup.",
    )
    filter_probe: Duration = Field(units.parse_duration("0.5275us"), description="One bloom-filter probe.")
    index_search: Duration = Field(
        units.parse_duration("4.679us"),
        description="Positioning in one run: the index block's binary search and the data block's seek.",
    )
    block_decode: Duration = Field(
        units.parse_duration("0us"), description="Parsing a data block beyond the first one a seek positions in."
    )
    next_entry: Duration = Field(
        units.parse_duration("0.2207us"),
        description="One Next of the merging iterator, per heap level (log2 of the runs the scan visits + 1).",
    )
    block_read: Duration = Field(
        units.parse_duration("1.062us"),
        description="A block-cache miss: the read call (page cache or device), copy and checksum, and the block "
        "cache's insert (BlockBasedTable::MaybeReadBlockAndLoadToCache, BlockFetcher::ReadBlockContents); "
        "block_read_per_byte x the block's bytes more.",
    )
    block_read_per_byte: Duration = Field(
        0.0,
        description="A block-cache miss's CPU per byte of the block read: its copy and checksum. `lsmsim calibrate` "
        "measures the miss at 4 and 16 KiB blocks (validation/block_reads.py). 0: a miss costs block_read at any "
        "block size.",
    )
    mixgraph_key: Duration = Field(
        0.0,
        description="The client's own CPU per operation of a phase with `key_draw: mixgraph`: db_bench mixgraph's "
        "power-model key, a pow() and a std::mt19937_64 seeded per operation for one draw (tools/db_bench_tool.cc, "
        "Benchmark::MixGraph; util/random.h, Random64). `lsmsim calibrate` measures it as mixgraph's Gets on an "
        "empty DB with power-model keys less with uniform ones (validation/client_cost.py): 2.7-3.7 us on the Xeon "
        "host. 0: not measured.",
    )
