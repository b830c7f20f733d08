"""RocksDB's options as the bridge sets them: `Options` (DBOptions + ColumnFamilyOptions +
BlockBasedTableOptions with RocksDB 7.8's defaults) and its translation into a C `rocksdb_options_t*`."""

from __future__ import annotations

import math
from dataclasses import dataclass

COMPACTION_STYLES = {"level": 0, "universal": 1, "fifo": 2}  # c.h: rocksdb_level_compaction, ...
COMPRESSIONS = {"none": 0, "snappy": 1, "zlib": 2, "bz2": 3, "lz4": 4, "lz4hc": 5, "xpress": 6, "zstd": 7}
UINT_MAX = 2**32 - 1
INT_MAX = 2**31 - 1
SIZE_MAX = 2**63 - 1  # size_t and uint64_t options, kept below int64's top so no conversion wraps

# field -> (lowest, highest, why): checked before any C call, since ctypes wraps what does not fit its C type and
# RocksDB aborts on some values instead of returning a status (issue 18's trials on Debian's 7.8.3)
LIMITS = {
    "write_buffer_size": (1, SIZE_MAX, "size_t; SanitizeOptions clips it to [64 KiB, ...]"),
    "max_write_buffer_number": (1, INT_MAX, "int"),
    "level0_file_num_compaction_trigger": (0, INT_MAX, "int; 0 is sanitized to 1"),
    "level0_slowdown_writes_trigger": (0, INT_MAX, "int"),
    "level0_stop_writes_trigger": (0, INT_MAX, "int"),
    "max_bytes_for_level_base": (1, SIZE_MAX, "uint64_t"),
    "target_file_size_base": (1, SIZE_MAX, "uint64_t"),
    "target_file_size_multiplier": (1, INT_MAX, "int; 0 makes every file 0 bytes"),
    "num_levels": (1, INT_MAX, "int; -3 aborted in std::vector (std::length_error)"),
    "block_cache_size": (0, SIZE_MAX, "size_t"),
    "wal_bytes_per_sync": (0, SIZE_MAX, "uint64_t; 0: off"),
    "soft_pending_compaction_bytes_limit": (0, SIZE_MAX, "size_t; 0: the hard limit"),
    "hard_pending_compaction_bytes_limit": (0, SIZE_MAX, "size_t; 0: off"),
    "max_background_jobs": (1, INT_MAX, "int"),
    "max_subcompactions": (1, UINT_MAX, "uint32_t"),
    "universal_size_ratio": (0, UINT_MAX, "unsigned int"),
    "universal_min_merge_width": (2, UINT_MAX, "unsigned int; a merge takes at least two runs"),
    "universal_max_merge_width": (2, UINT_MAX, "unsigned int"),
    "universal_max_size_amplification_percent": (0, UINT_MAX, "unsigned int"),
    "fifo_max_table_files_size": (0, SIZE_MAX, "uint64_t"),
}


def _c_int(v: int) -> int:
    """An unsigned value passed through a C `int` parameter (c.cc stores it in an unsigned field)."""
    v = int(v)
    return v - 2**32 if v > 2**31 - 1 else v


@dataclass
class Options:
    """RocksDB options (DBOptions + ColumnFamilyOptions + BlockBasedTableOptions) the bridge sets.

    Defaults are RocksDB 7.8's, except compression ("none"; RocksDB's is snappy), create_if_missing (True),
    statistics (True) and bloom_bits_per_key (10; RocksDB has no filter by default; 0 = no filter).
    block_cache_size 0 disables the block cache. disable_wal, sync and low_pri apply to every write (WriteOptions).
    universal_* apply to compaction_style="universal", fifo_max_table_files_size to "fifo".
    """

    compaction_style: str = "level"
    write_buffer_size: int = 64 << 20
    max_write_buffer_number: int = 2
    level0_file_num_compaction_trigger: int = 4
    level0_slowdown_writes_trigger: int = 20
    level0_stop_writes_trigger: int = 36
    max_bytes_for_level_base: int = 256 << 20
    max_bytes_for_level_multiplier: float = 10.0
    target_file_size_base: int = 64 << 20
    target_file_size_multiplier: int = 1
    level_compaction_dynamic_level_bytes: bool = False
    num_levels: int = 7
    bloom_bits_per_key: float = 10.0
    block_cache_size: int = 8 << 20
    use_direct_reads: bool = False
    use_direct_io_for_flush_and_compaction: bool = False
    max_background_jobs: int = 2
    max_subcompactions: int = 1
    disable_auto_compactions: bool = False
    compression: str = "none"
    create_if_missing: bool = True
    statistics: bool = True
    disable_wal: bool = False
    sync: bool = False  # WriteOptions::sync: every write group syncs the WAL
    low_pri: bool = False  # WriteOptions::low_pri: the 1 MiB/s low-priority limiter while compactions lag
    manual_wal_flush: bool = False
    wal_bytes_per_sync: int = 0
    soft_pending_compaction_bytes_limit: int = 64 << 30
    hard_pending_compaction_bytes_limit: int = 256 << 30
    universal_size_ratio: int = 1
    universal_min_merge_width: int = 2
    universal_max_merge_width: int = UINT_MAX
    universal_max_size_amplification_percent: int = 200
    fifo_max_table_files_size: int = 1 << 30

    def __post_init__(self):
        if self.compaction_style not in COMPACTION_STYLES:
            raise ValueError(
                f"compaction_style must be one of {', '.join(map(repr, COMPACTION_STYLES))}, "
                f"not {self.compaction_style!r}"
            )
        if self.compression not in COMPRESSIONS:
            raise ValueError(
                f"compression must be one of {', '.join(map(repr, COMPRESSIONS))}, not {self.compression!r}"
            )
        for name, (lo, hi, why) in LIMITS.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"Options.{name} must be an integer in [{lo}, {hi}] ({why}), got {v!r}")
        m = self.max_bytes_for_level_multiplier
        if not isinstance(m, (int, float)) or not math.isfinite(m) or m < 1:
            # below 1 a level is smaller than the one above it; 0.5 aborted 7.8.3 on an assertion at the first writes
            raise ValueError(f"Options.max_bytes_for_level_multiplier must be a finite number >= 1, got {m!r}")
        b = self.bloom_bits_per_key
        if not isinstance(b, (int, float)) or not math.isfinite(b) or not 0 <= b <= 100:
            raise ValueError(f"Options.bloom_bits_per_key must be in [0, 100] (0: no filter), got {b!r}")
        if self.universal_max_merge_width < self.universal_min_merge_width:
            raise ValueError("Options.universal_max_merge_width must be at least universal_min_merge_width")

    def _to_c(self, lib) -> int:
        """A new rocksdb_options_t* (the caller destroys it) with these options set."""
        o = lib.rocksdb_options_create()
        lib.rocksdb_options_set_create_if_missing(o, bool(self.create_if_missing))
        lib.rocksdb_options_set_compaction_style(o, COMPACTION_STYLES[self.compaction_style])
        lib.rocksdb_options_set_write_buffer_size(o, int(self.write_buffer_size))
        lib.rocksdb_options_set_max_write_buffer_number(o, int(self.max_write_buffer_number))
        lib.rocksdb_options_set_level0_file_num_compaction_trigger(o, int(self.level0_file_num_compaction_trigger))
        lib.rocksdb_options_set_level0_slowdown_writes_trigger(o, int(self.level0_slowdown_writes_trigger))
        lib.rocksdb_options_set_level0_stop_writes_trigger(o, int(self.level0_stop_writes_trigger))
        lib.rocksdb_options_set_max_bytes_for_level_base(o, int(self.max_bytes_for_level_base))
        lib.rocksdb_options_set_max_bytes_for_level_multiplier(o, float(self.max_bytes_for_level_multiplier))
        lib.rocksdb_options_set_target_file_size_base(o, int(self.target_file_size_base))
        lib.rocksdb_options_set_target_file_size_multiplier(o, int(self.target_file_size_multiplier))
        lib.rocksdb_options_set_level_compaction_dynamic_level_bytes(o, bool(self.level_compaction_dynamic_level_bytes))
        lib.rocksdb_options_set_num_levels(o, int(self.num_levels))
        lib.rocksdb_options_set_max_background_jobs(o, int(self.max_background_jobs))
        lib.rocksdb_options_set_max_subcompactions(o, int(self.max_subcompactions))
        lib.rocksdb_options_set_disable_auto_compactions(o, int(bool(self.disable_auto_compactions)))
        lib.rocksdb_options_set_compression(o, COMPRESSIONS[self.compression])
        lib.rocksdb_options_set_manual_wal_flush(o, int(bool(self.manual_wal_flush)))
        lib.rocksdb_options_set_wal_bytes_per_sync(o, int(self.wal_bytes_per_sync))
        lib.rocksdb_options_set_soft_pending_compaction_bytes_limit(o, int(self.soft_pending_compaction_bytes_limit))
        lib.rocksdb_options_set_hard_pending_compaction_bytes_limit(o, int(self.hard_pending_compaction_bytes_limit))
        lib.rocksdb_options_set_use_direct_reads(o, bool(self.use_direct_reads))
        lib.rocksdb_options_set_use_direct_io_for_flush_and_compaction(
            o, bool(self.use_direct_io_for_flush_and_compaction)
        )
        if self.statistics:
            lib.rocksdb_options_enable_statistics(o)
        # table options: the factory copies them; the filter policy is owned by them once set (c.cc:
        # filter_policy.reset(p)), the cache is a shared_ptr copy, so only the cache handle is ours to free
        t = lib.rocksdb_block_based_options_create()
        if self.bloom_bits_per_key > 0:
            lib.rocksdb_block_based_options_set_filter_policy(
                t, lib.rocksdb_filterpolicy_create_bloom_full(float(self.bloom_bits_per_key))
            )
        if self.block_cache_size > 0:
            cache = lib.rocksdb_cache_create_lru(int(self.block_cache_size))
            lib.rocksdb_block_based_options_set_block_cache(t, cache)
            lib.rocksdb_cache_destroy(cache)
        else:
            lib.rocksdb_block_based_options_set_no_block_cache(t, 1)
        lib.rocksdb_options_set_block_based_table_factory(o, t)
        lib.rocksdb_block_based_options_destroy(t)
        if self.compaction_style == "universal":  # copied into the options (c.cc: *(uco->rep))
            u = lib.rocksdb_universal_compaction_options_create()
            lib.rocksdb_universal_compaction_options_set_size_ratio(u, _c_int(self.universal_size_ratio))
            lib.rocksdb_universal_compaction_options_set_min_merge_width(u, _c_int(self.universal_min_merge_width))
            lib.rocksdb_universal_compaction_options_set_max_merge_width(u, _c_int(self.universal_max_merge_width))
            lib.rocksdb_universal_compaction_options_set_max_size_amplification_percent(
                u, _c_int(self.universal_max_size_amplification_percent)
            )
            lib.rocksdb_options_set_universal_compaction_options(o, u)
            lib.rocksdb_universal_compaction_options_destroy(u)
        elif self.compaction_style == "fifo":
            f = lib.rocksdb_fifo_compaction_options_create()
            lib.rocksdb_fifo_compaction_options_set_max_table_files_size(f, int(self.fifo_max_table_files_size))
            lib.rocksdb_options_set_fifo_compaction_options(o, f)
            lib.rocksdb_fifo_compaction_options_destroy(f)
        return o


__all__ = ["Options", "COMPACTION_STYLES", "COMPRESSIONS", "UINT_MAX"]
