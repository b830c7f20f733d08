"""The summary of a run: one dict of scalars, each key documented in `SUMMARY_DOC`."""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from ..tolerances import TIME_EPS
from . import sanity

if TYPE_CHECKING:
    from ..config import Config
    from ..lsm.tree import Tree
    from .counters import Counters
    from .write_controller import WriteController

SUMMARY_DOC = {
    "warnings": "what makes the run's figures mean little (sim/sanity.py), joined by ' | '; empty when nothing",
    "completed": "false when sim.max_time or a limit (ended_by) ended the run before its phases finished",
    "ended_by": "what ended the run: phases (all ran, then the drain), max_time (sim.max_time), disk_full (the tree "
    "and its outputs in flight outgrew device.capacity) or open_files_limit (machine.open_files_limit); a limit "
    "also leaves a row in the events table",
    "level0_slowdown_writes_trigger / level0_stop_writes_trigger": "the stall triggers in effect (raised "
    "to at least the policy's compaction trigger, as RocksDB's SanitizeOptions does)",
    "sim_time_s": "simulated seconds until the run ended (phases, then draining if sim.drain)",
    "measured_time_s": "simulated seconds of phases with measure: true",
    "ops_<op>": "operations executed (all phases), op in write, get, get_empty, short_scan, long_scan",
    "measured_ops_<op>": "of them, the operations of measured phases (what the throughputs count)",
    "throughput_<op>_ops_per_s": "operations of measured phases / measured_time_s",
    "throughput_ops_per_s": "all operations of measured phases / measured_time_s",
    "latency_<op>_<stat>_s": "latency percentiles (p50, p90, p99, p999) and mean, measured phases; "
    "op 'query' is open-loop arrivals, queueing included",
    "user_bytes": "key + value bytes written by the workload",
    "flush_bytes": "bytes written by flushes (L0 files)",
    "compaction_read_bytes / compaction_write_bytes": "bytes compactions read and wrote",
    "wal_bytes": "bytes appended to the write-ahead log",
    "wal_device_bytes": "of them, the bytes the drive wrote: all with lsm.wal_sync or lsm.wal_bytes_per_sync, else "
    "those the OS wrote back before the WAL was deleted (sim/wal.py)",
    "write_amp": "(flush_bytes + compaction_write_bytes) / user_bytes",
    "write_amp_flush / write_amp_compaction": "the two parts of write_amp",
    "write_amp_rocksdb": "(flush_bytes + compaction_write_bytes) / flush_bytes: RocksDB's 'Sum' W-Amp",
    "space_amp": "tree bytes at the end / live logical bytes (key + value of live keys)",
    "space_amp_peak": "peak of (tree bytes + transient bytes) / live logical bytes",
    "space_amp_durable": "Spooky Eq. 1's durable part at the end: (tree bytes - live logical bytes) / live logical "
    "bytes (obsolete versions and tombstones)",
    "space_amp_transient_peak": "Spooky Eq. 1's transient part at its peak: flush and compaction output written "
    "but not yet installed (its inputs still on the device), and the inputs of finished compactions that running "
    "jobs' versions still hold, / live logical bytes at that time",
    "physical_bytes_peak": "peak of tree bytes + transient bytes (what the device held)",
    "obsolete_bytes_peak": "peak bytes of files compactions removed that running jobs' versions still held (RocksDB "
    "deletes a file when no version holds it; sim/versions.py)",
    "obsolete_bytes_mean": "the same bytes averaged over sim_time_s",
    "sharing_unconverged_steps": "kernel steps whose CPU/device sharing had not reached its fixed point in the "
    "solver's rounds (their rates are the last round's); 0 in a healthy run",
    "stall_stop_s / stall_slowdown_s": "simulated seconds writes were stopped / slowed down",
    "first_slowdown_s / first_stop_s, first_slowdown_cause / first_stop_cause": "when writes were first slowed "
    "down / stopped (NaN: never) and why (RocksDB's stall conditions: L0 runs, memtables, pending compaction bytes)",
    "cpu_util / cpu_util_<role>": "CPU busy fraction of all cores (role: flush, compaction, foreground, "
    "search: a policy's background search such as ARCE's FindBestParams)",
    "device_util": "device busy seconds / sim_time_s",
    "gc_write_amp": "SSD model: flash pages written / host pages written (1 without an FTL)",
    "total_write_amp": "write_amp x gc_write_amp (Spooky Eq. 2)",
    "flash_write_bytes / erases / gc_copies / gc_stall_s": "SSD model: flash writes, block erases, "
    "GC page copies, device seconds spent on foreground GC copies",
    "erase_count_max / erase_count_mean / wear_spread": "SSD model: erase counts per block (max - min)",
    "device_peak_utilization": "SSD model: peak fraction of the logical capacity in use (files, WAL, outputs)",
    "device_host_write_bytes / device_host_read_bytes": "bytes the device served to the host",
    "flushes / compactions / trivial_moves": "job counts",
    "data_movement": "(compaction_read_bytes + compaction_write_bytes) / user_bytes: the bytes compactions move "
    "per byte ingested (Sarkar et al. PVLDB'21 §4.2)",
    "compaction_latency_<stat>_s": "compaction durations, start to install (stat: mean, p50, p90, p99, max; "
    "trivial moves excluded)",
    "compaction_cpu_mean_s / compaction_device_mean_s": "a compaction's CPU work and device work (seconds on an "
    "idle core and device; the compactions table has them per job as cpu_s and device_s)",
    "tombstones_remaining": "tombstones (deletes) left in the tree's files at the end",
    "deletes_persisted / delete_persistence_<stat>_s": "deletes whose tombstone a bottommost compaction dropped, "
    "and the time from each delete to that drop (stat: mean, p50, p90, p99, max; Sarkar et al. §2's delete "
    "persistence latency)",
    "files_L<i> / bytes_L<i> / runs_L<i>": "the final tree",
    "live_entries / logical_bytes": "live keys and their key + value bytes at the end",
    "sorted_runs": "sorted runs in the final tree",
    "block_cache_hit_ratio / block_cache_hit_ratio_L<i>": "data-block accesses of reads served by RocksDB's "
    "block cache (LRU), all levels / level i",
    "read_pages_per_<op>": "device pages (lsm.block_size) one read operation read, all phases: data blocks, and "
    "filter and index blocks with lsm.cache_index_and_filter_blocks",
    "read_amp_point": "device pages point lookups (get, get_empty) read / lookups that found their key: read "
    "amplification over the ideal of one page per found key (Sarkar et al. PVLDB'21 §4.2)",
    "phase_<name>_ops_per_s": "throughput of a measured phase",
    "phase_<name>_stall_s": "a measured phase: seconds writes were stopped or slowed down within it",
    "phase_<name>_pages_per_query": "a measured phase with reads: device pages per read operation (EcoTune Table 3)",
    "phase_<name>_read_amp / _pages_per_lookup / _lookup_mean_s / _lookup_p90_s / _lookup_p99_s / _lookup_p999_s": "a "
    "measured phase of point lookups: read_amp_point, device pages per lookup, and the lookups' (get and get_empty "
    "together, as db_bench's read histogram) mean, P90, P99 and P99.9 latency",
    "page_cache_hit_ratio / page_cache_hit_ratio_L<i>": "block-cache misses served by the OS page cache "
    "(machine.memory; 0 with lsm.use_direct_reads), all levels / level i",
}


def _compaction_figures(n: Counters, compactions: list[dict], tree: Tree, persistence: dict | None) -> dict:
    """The design space's compaction metrics (Sarkar et al. PVLDB'21 §4.2)."""
    ub = n.user_bytes
    rows = [r for r in compactions if r["kind"] == "compaction"]
    dur = np.array([r["end"] - r["start"] for r in rows])
    out = {"data_movement": (n.compaction_read_bytes + n.compaction_write_bytes) / ub if ub else 0.0}
    for stat, q in (("mean", None), ("p50", 50), ("p90", 90), ("p99", 99), ("max", 100)):
        v = (dur.mean() if q is None else np.percentile(dur, q)) if dur.size else float("nan")
        out[f"compaction_latency_{stat}_s"] = float(v)
    out["compaction_cpu_mean_s"] = float(np.mean([r["cpu_s"] for r in rows])) if rows else float("nan")
    out["compaction_device_mean_s"] = float(np.mean([r["device_s"] for r in rows])) if rows else float("nan")
    out["tombstones_remaining"] = sum(r.tombstones for r in tree.runs())
    p = persistence or {}
    out["deletes_persisted"] = float(p.get("count", 0.0))
    for stat in ("mean", "p50", "p90", "p99", "max"):
        out[f"delete_persistence_{stat}_s"] = float(p.get(f"{stat}_s", float("nan")))
    return out


def build_summary(
    cfg: Config,
    now: float,
    finished: bool,
    n: Counters,
    wc: WriteController,
    tree: Tree,
    device,
    policy_summary: dict,
    logical_bytes: float,
    live_entries: int,
    latency: list[dict],
    compactions: list[dict],
    ended_by: str | None = None,
    persistence: dict | None = None,
) -> dict:
    """The run's scalars (keys: `SUMMARY_DOC`) from its counters, write controller, final tree, device and
    the policy's own figures (prefixed `policy_`)."""
    mt = n.measured_time
    ended_by = ended_by or ("phases" if finished and now < cfg.sim.max_time * (1 - TIME_EPS) else "max_time")
    s: dict = {
        "sim_time_s": now,
        "measured_time_s": mt,
        "completed": ended_by == "phases",
        "ended_by": ended_by,
        "level0_slowdown_writes_trigger": wc.slowdown_trigger,
        "level0_stop_writes_trigger": wc.stop_trigger,
        **{f"first_{k}_s": wc.first[k][0] if k in wc.first else math.nan for k in ("slowdown", "stop")},
        **{f"first_{k}_cause": wc.first[k][1] if k in wc.first else "" for k in ("slowdown", "stop")},
    }
    total = 0.0
    for op, count in n.ops.items():
        m = n.measured_ops[op]
        s[f"ops_{op}"] = count
        s[f"measured_ops_{op}"] = m
        s[f"throughput_{op}_ops_per_s"] = m / mt if mt > 0 else 0.0
        total += m
    s["throughput_ops_per_s"] = total / mt if mt > 0 else 0.0
    for row in latency:
        for stat in ("mean", "p50", "p90", "p99", "p999"):
            s[f"latency_{row['op']}_{stat}_s"] = float(row[f"{stat}_s"])
    ub = n.user_bytes
    written = n.flush_bytes + n.compaction_write_bytes
    s.update(
        {
            "user_bytes": ub,
            "flush_bytes": n.flush_bytes,
            "compaction_read_bytes": n.compaction_read_bytes,
            "compaction_write_bytes": n.compaction_write_bytes,
            "wal_bytes": n.wal_bytes,
            "wal_device_bytes": n.wal_device_bytes,
            "write_amp": written / ub if ub else 0.0,
            "write_amp_flush": n.flush_bytes / ub if ub else 0.0,
            "write_amp_compaction": n.compaction_write_bytes / ub if ub else 0.0,
            "write_amp_rocksdb": written / n.flush_bytes if n.flush_bytes else 0.0,
            "logical_bytes": logical_bytes,
            "live_entries": live_entries,
            "space_amp": tree.bytes / logical_bytes if logical_bytes else 0.0,
            "space_amp_peak": n.peak_space / logical_bytes if logical_bytes else 0.0,
            "space_amp_durable": tree.bytes / logical_bytes - 1.0 if logical_bytes else 0.0,
            "space_amp_transient_peak": n.peak_transient_amp,
            "physical_bytes_peak": n.peak_space,
            "obsolete_bytes_peak": n.peak_obsolete,
            "obsolete_bytes_mean": n.obsolete_byte_seconds / now if now > 0 else 0.0,
            "stall_stop_s": n.stop_time,
            "stall_slowdown_s": n.slowdown_time,
            "stall_delay_s": n.delay_time,
            "sharing_unconverged_steps": n.unconverged_steps,
            "stall_delay_write_s": n.delay_total,
        }
    )
    cores = cfg.machine.cores
    s["cpu_util"] = sum(n.cpu_busy.values()) / (cores * now) if now else 0.0
    for role, busy in n.cpu_busy.items():
        s[f"cpu_util_{role}"] = busy / (cores * now) if now else 0.0
    s.update(device.stats())
    s["device_util"] = device.busy_seconds / now if now else 0.0
    if "gc_write_amp" in s:
        s["total_write_amp"] = s["write_amp"] * s["gc_write_amp"]  # Spooky PVLDB'22 Eq. 2
    kinds = Counter(row["kind"] for row in compactions)
    s["flushes"] = int(kinds.get("flush", 0))
    s["compactions"] = int(kinds.get("compaction", 0))
    s["trivial_moves"] = int(kinds.get("trivial_move", 0))
    s.update(_compaction_figures(n, compactions, tree, persistence))
    for lvl in tree.levels:
        s[f"files_L{lvl.index}"] = len(lvl.files)
        s[f"bytes_L{lvl.index}"] = lvl.bytes
        s[f"runs_L{lvl.index}"] = len(lvl.runs)
    s["sorted_runs"] = len(tree.runs())
    for op in ("get", "get_empty", "short_scan", "long_scan"):
        s[f"read_pages_per_{op}"] = n.read_pages[op] / n.ops[op] if n.ops[op] else 0.0
    point_pages = n.read_pages["get"] + n.read_pages["get_empty"]
    s["read_amp_point"] = point_pages / n.ops["get"] if n.ops["get"] else float("nan")
    s["block_cache_hit_ratio"], s["page_cache_hit_ratio"] = n.hit_ratios()
    for i in sorted(n.blocks):
        s[f"block_cache_hit_ratio_L{i}"], s[f"page_cache_hit_ratio_L{i}"] = n.hit_ratios(i)
    s.update({f"policy_{k}": v for k, v in policy_summary.items()})
    s["warnings"] = sanity.warnings(cfg, s)
    return {k: (float(v) if isinstance(v, float) else v) for k, v in s.items()}
