"""The RocksDB options `lsmsim tune` searches, within RocksDB's own limits and a memory budget.

Every option is one lsmsim models (docs/design.md, formats/options_file.py maps each to RocksDB's name). Ranges:
RocksDB 7.8's sanitisation and option docs (include/rocksdb/options.h, advanced_options.h; db/column_family.cc
SanitizeOptions: level0_slowdown_writes_trigger >= level0_file_num_compaction_trigger, level0_stop_writes_trigger
>= the slowdown trigger; max_write_buffer_number >= 2), bounded where a wider range only adds trials that cannot
win on one machine (background jobs beyond twice the cores, buffers beyond the budget).

The memory budget is RocksDB's own accounting of what the options set: the memtables (write_buffer_size x
max_write_buffer_number) plus the block cache; Bloom filters live in the page cache as lsmsim models them
(`cache_index_and_filter_blocks` off, RocksDB's default). The block cache gets what the memtables leave.
"""

from __future__ import annotations

from typing import Any

MiB = 2**20
#: RocksDB 7.8's defaults for the options searched (options.h, advanced_options.h, table.h): no Bloom filter
#: (BlockBasedTableOptions::filter_policy is null; db_bench's --bloom_bits default -1 keeps it).
ROCKSDB_DEFAULTS: dict[str, Any] = {
    "compaction_style": "level",
    "write_buffer_size": 64 * MiB,
    "max_write_buffer_number": 2,
    "level0_file_num_compaction_trigger": 4,
    "level0_slowdown_writes_trigger": 20,
    "level0_stop_writes_trigger": 36,
    "max_bytes_for_level_base": 256 * MiB,
    "max_bytes_for_level_multiplier": 10,
    "target_file_size_base": 64 * MiB,
    "level_compaction_dynamic_level_bytes": False,
    "compaction_pri": "min_overlapping_ratio",
    "max_background_jobs": 2,
    "bloom_bits_per_key": 0,
    "block_size": 4096,
    "universal_size_ratio": 1,
    "universal_min_merge_width": 2,
    "universal_max_size_amplification_percent": 200,
}
PRIORITIES = ["min_overlapping_ratio", "by_compensated_size", "oldest_largest_seq_first", "oldest_smallest_seq_first"]


def suggest(trial, cores: int, budget: int) -> dict[str, Any]:
    """Draw one option set from an optuna trial (the parameters' names are RocksDB's)."""
    p: dict[str, Any] = {}
    p["compaction_style"] = trial.suggest_categorical("compaction_style", ["level", "universal"])
    p["max_write_buffer_number"] = trial.suggest_int("max_write_buffer_number", 2, 6)
    top = max(MiB, min(256 * MiB, budget // p["max_write_buffer_number"]))
    p["write_buffer_size"] = trial.suggest_int("write_buffer_size", MiB, top, log=True)
    p["level0_file_num_compaction_trigger"] = trial.suggest_int("level0_file_num_compaction_trigger", 1, 16)
    slow = p["level0_file_num_compaction_trigger"] + trial.suggest_int("l0_slowdown_above_trigger", 0, 40)
    p["level0_slowdown_writes_trigger"] = slow
    p["level0_stop_writes_trigger"] = slow + trial.suggest_int("l0_stop_above_slowdown", 0, 40)
    if p["compaction_style"] == "level":
        p["max_bytes_for_level_base"] = trial.suggest_int("max_bytes_for_level_base", 16 * MiB, 2048 * MiB, log=True)
        p["max_bytes_for_level_multiplier"] = trial.suggest_int("max_bytes_for_level_multiplier", 4, 16)
        p["target_file_size_base"] = trial.suggest_int("target_file_size_base", 4 * MiB, 256 * MiB, log=True)
        p["level_compaction_dynamic_level_bytes"] = trial.suggest_categorical(
            "level_compaction_dynamic_level_bytes", [False, True]
        )
        p["compaction_pri"] = trial.suggest_categorical("compaction_pri", PRIORITIES)
    else:
        p["universal_size_ratio"] = trial.suggest_int("universal_size_ratio", 0, 20)
        p["universal_min_merge_width"] = trial.suggest_int("universal_min_merge_width", 2, 8)
        p["universal_max_size_amplification_percent"] = trial.suggest_int(
            "universal_max_size_amplification_percent", 50, 400
        )
    p["max_background_jobs"] = trial.suggest_int("max_background_jobs", 2, max(2, 2 * cores))
    p["bloom_bits_per_key"] = trial.suggest_int("bloom_bits_per_key", 0, 16)
    p["block_size"] = trial.suggest_categorical("block_size", [4096, 8192, 16384, 32768])
    return p


def memtables(p: dict[str, Any]) -> int:
    return int(p["write_buffer_size"]) * int(p["max_write_buffer_number"])


def options_of(cfg) -> dict[str, Any]:
    """The searched options as a config sets them (the search's first trial: the config as given)."""
    lsm, pol, th = cfg.lsm, cfg.policy, cfg.machine.threads
    p: dict[str, Any] = {
        "compaction_style": "universal" if pol.name == "universal" else "level",
        "write_buffer_size": int(lsm.write_buffer_size),
        "max_write_buffer_number": lsm.max_write_buffer_number,
        "level0_file_num_compaction_trigger": pol.level0_file_num_compaction_trigger,
        "level0_slowdown_writes_trigger": lsm.level0_slowdown_writes_trigger,
        "level0_stop_writes_trigger": lsm.level0_stop_writes_trigger,
        "max_background_jobs": th.flush + th.compaction,
        "bloom_bits_per_key": lsm.bloom_bits_per_key,
        "block_size": int(lsm.block_size),
    }
    if pol.name == "leveled":
        for k in ("max_bytes_for_level_base", "max_bytes_for_level_multiplier", "target_file_size_base"):
            p[k] = getattr(pol, k)
        p["level_compaction_dynamic_level_bytes"] = pol.level_compaction_dynamic_level_bytes
        p["compaction_pri"] = pol.compaction_pri
    elif pol.name == "universal":
        p["universal_size_ratio"] = pol.size_ratio
        p["universal_min_merge_width"] = pol.min_merge_width
        p["universal_max_size_amplification_percent"] = pol.max_size_amplification_percent
    return p


def apply(data: dict, p: dict[str, Any], budget: int) -> dict:
    """A config dict (`model_dump(mode="json")`) with option set `p`: the policy section rebuilt, the lsm fields
    set, the block cache given what the memtables leave of `budget`, the background jobs split as RocksDB splits
    max_background_jobs (a quarter flushes)."""
    from ..formats.options_file import bg_job_limits

    lsm = data["lsm"]
    for k in (
        "write_buffer_size",
        "max_write_buffer_number",
        "level0_slowdown_writes_trigger",
        "level0_stop_writes_trigger",
        "bloom_bits_per_key",
        "block_size",
    ):
        lsm[k] = p[k]
    lsm["block_cache_size"] = max(0, budget - memtables(p))
    flush, compaction = bg_job_limits(int(p["max_background_jobs"]), -1, -1)
    data["machine"]["threads"] = {**data["machine"].get("threads", {}), "flush": flush, "compaction": compaction}
    trigger = p["level0_file_num_compaction_trigger"]
    if p["compaction_style"] == "level":
        keep = {k: v for k, v in data["policy"].items() if data["policy"].get("name") == "leveled"}
        data["policy"] = {
            **keep,
            "name": "leveled",
            "level0_file_num_compaction_trigger": trigger,
            "max_bytes_for_level_base": p["max_bytes_for_level_base"],
            "max_bytes_for_level_multiplier": p["max_bytes_for_level_multiplier"],
            "target_file_size_base": p["target_file_size_base"],
            "level_compaction_dynamic_level_bytes": p["level_compaction_dynamic_level_bytes"],
            "compaction_pri": p["compaction_pri"],
        }
    else:
        keep = {k: v for k, v in data["policy"].items() if data["policy"].get("name") == "universal"}
        data["policy"] = {
            **keep,
            "name": "universal",
            "level0_file_num_compaction_trigger": trigger,
            "size_ratio": p["universal_size_ratio"],
            "min_merge_width": p["universal_min_merge_width"],
            "max_size_amplification_percent": p["universal_max_size_amplification_percent"],
        }
    return data


def diff(p: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Option -> (RocksDB's default, the set's value), for the options where they differ."""
    return {k: (ROCKSDB_DEFAULTS.get(k), v) for k, v in p.items() if ROCKSDB_DEFAULTS.get(k) != v}
