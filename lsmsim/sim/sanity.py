"""Warnings for runs whose numbers mean little: checked on the config and on the summary of a finished run, kept in
the summary (`warnings`, one string, "" when none) and printed once by the CLI. A memtable that cannot hold one entry
is not a warning but a config error (config.py)."""

from __future__ import annotations

ROCKSDB_MIN_BUFFER = 64 << 10  # db/column_family.cc SanitizeCfOptions: ClipToRange(write_buffer_size, 64 KiB, ...)


def config_warnings(cfg) -> list[str]:
    """What the config sets that RocksDB would not run as given, or that lsmsim reads in a way the user may not
    expect."""
    out = []
    b = cfg.lsm.write_buffer_size
    if b < ROCKSDB_MIN_BUFFER:
        out.append(
            f"lsm.write_buffer_size = {b:,} B is below RocksDB's minimum of 64 KiB (RocksDB raises it: "
            "db/column_family.cc SanitizeCfOptions); lsmsim keeps it, as scaled-down experiments do, but every flush "
            "is a job: the run is slow and its jobs are not RocksDB's"
        )
    for i, p in enumerate(cfg.workload.phases):
        total = p.mix.reads() + p.mix.writes()
        if abs(total - 1.0) > 1e-6:
            out.append(f"workload.phases[{i}].mix sums to {total:g}: its fractions are taken as shares of that sum")
    return out


def result_warnings(cfg, s: dict) -> list[str]:
    """What a finished run's summary says about how much its figures mean."""
    out = []
    static = cfg.policy.name == "static"
    if s.get("flushes", 0) > 0 and s.get("compactions", 0) + s.get("trivial_moves", 0) == 0 and not static:
        out.append(
            "no compaction ran: the write-amp and space-amp are the flushes' alone, and compaction policies cannot "
            "differ here (more operations, or smaller buffers, make them run)"
        )
    user, flushed = s.get("user_bytes", 0.0), s.get("flush_bytes", 0.0)
    if user > 0 and flushed < 0.5 * user:
        out.append(
            f"{100 * (1 - flushed / user):.0f}% of the bytes written never left the memtables: write-amp "
            f"({s.get('write_amp', 0):.2f}) and space-amp describe the part that did"
        )
    return out


def warnings(cfg, s: dict) -> str:
    """Every warning of the run, joined by " | " (the summary's `warnings`)."""
    return " | ".join(config_warnings(cfg) + result_warnings(cfg, s))
