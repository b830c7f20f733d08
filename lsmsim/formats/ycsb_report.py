"""A run's summary in YCSB's own output format (`[OVERALL]`, `[READ]`, ...), printed after the summary of a
`lsmsim run --ycsb` run, so that YCSB users read it the way they read YCSB (site.ycsb.measurements's text
exporter: `[SECTION], metric, value` lines)."""

from __future__ import annotations

import math

#: lsmsim's operation types as YCSB's sections (YCSB's inserts and updates are both lsmsim writes).
SECTIONS = {"get": "READ", "write": "UPDATE", "long_scan": "SCAN", "short_scan": "SCAN", "get_empty": "READ"}


def ycsb_lines(s: dict) -> str:
    """`[OVERALL]` (measured time and throughput) and one section per operation type that ran: its measured
    operations, mean, 95th and 99th percentile latency (us). lsmsim keeps p90 and p99, so YCSB's 95th is not
    printed; its MinLatency and MaxLatency are not kept either."""
    lines = [
        f"[OVERALL], RunTime(ms), {s['measured_time_s'] * 1e3:.0f}",
        f"[OVERALL], Throughput(ops/sec), {s['throughput_ops_per_s']:.2f}",
    ]
    for op, section in SECTIONS.items():
        n = s.get(f"measured_ops_{op}", 0)
        if not n:
            continue
        name = "INSERT/UPDATE" if section == "UPDATE" else section
        lines.append(f"[{name}], Operations, {n:.0f}")
        for stat, label in (("mean", "AverageLatency(us)"), ("p90", "90thPercentileLatency(us)"),
                            ("p99", "99thPercentileLatency(us)")):  # fmt: skip
            v = s.get(f"latency_{op}_{stat}_s", math.nan)
            if v == v:
                lines.append(f"[{name}], {label}, {v * 1e6:.1f}")
    return "\n".join(lines)
