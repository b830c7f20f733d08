"""db_bench's mixgraph on this host against lsmsim's `--dbbench` of the same line (issue 34, item 4).

    python benchmarks/mixgraph_vs_dbbench.py [--runs 3] [--record]

The line is fillrandom then mixgraph with Cao et al.'s (FAST'20) key and key-range fit, as RocksDB's wiki runs it,
at 1M keys and 4 MiB buffers. It prints, per benchmark and operation type, db_bench's mean and range over the runs
and lsmsim's figure: ops/s, mean, p50 and p99 latency, and mixgraph's mean value size and Seek length. The
fillrandom row is the host's speed reference: this VM drifts by up to 2x within an hour, so read mixgraph's
ratio against fillrandom's in the same runs. `--record` writes benchmarks/validation/hosts/<host>-mixgraph.json.
Needs Debian's db_bench and a quiet machine (3 runs of about 20 s).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lsmsim.preset_files import host_facts, host_preset_name  # noqa: E402

LINE = (
    "--benchmarks=fillrandom,mixgraph --num=1000000 --reads=500000 --key_size=16 --value_size=100 "
    "--key_dist_a=0.002312 --key_dist_b=0.3467 --keyrange_dist_a=14.18 --keyrange_dist_b=-2.917 "
    "--keyrange_dist_c=0.0164 --keyrange_dist_d=-0.08082 --keyrange_num=30 --mix_get_ratio=0.85 "
    "--mix_put_ratio=0.14 --mix_seek_ratio=0.01 --compression_type=none --write_buffer_size=4194304 "
    "--max_bytes_for_level_base=16777216 --target_file_size_base=4194304"
)
OPS = {"read": "get", "write": "write", "seek": "long_scan"}


def db_bench_once() -> dict:
    """One db_bench invocation: ops/s per benchmark, its latency histograms (us), mixgraph's own averages."""
    from lsmsim.validation.dbbench import parse_reports

    with tempfile.TemporaryDirectory(prefix="lsmsim-mixgraph-") as tmp:
        out = subprocess.run(
            ["db_bench", f"--db={tmp}/db", *LINE.split(), "--histogram=1"], capture_output=True, text=True, check=True
        ).stdout
    ops, hists = parse_reports(out)
    m = re.search(r"avg size: ([\d.]+) value, ([\d.]+) scan", out)
    return {"ops": ops, "hists": hists, "value": float(m.group(1)), "scan": float(m.group(2))} if m else {}


def lsmsim_once() -> dict:
    """lsmsim on the same line: each benchmark's ops/s, then mixgraph's latencies alone (the fill not measured)."""
    import copy

    import lsmsim
    from lsmsim.formats.dbbench_args import dbbench_config

    cfg, _ = dbbench_config(LINE)
    phases = cfg["workload"]["phases"]
    s = lsmsim.run(cfg).summary
    out = {"ops": {p["name"]: s[f"phase_{p['name']}_ops_per_s"] for p in phases}, "hists": {}}
    alone = copy.deepcopy(cfg)
    alone["workload"]["phases"][0]["measure"] = False
    lat = lsmsim.run(alone).latency.set_index("op")
    for theirs, ours in OPS.items():
        ops = [o for o in ((ours, "get_empty") if ours == "get" else (ours,)) if o in lat.index]
        if ops:
            t = lat.loc[ops]
            w = t["count"] / t["count"].sum()  # a Get that finds its key and one that does not, as db_bench's reads
            out["hists"][theirs] = {k: float((t[f"{k.lower()}_s"] * w).sum()) * 1e6 for k in ("Mean", "P50", "P99")}
    mix = phases[-1]
    out["value"], out["scan"] = float(mix.get("value_size", 0)), float(mix.get("scan_length", 0))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--record", action="store_true", help="write benchmarks/validation/hosts/<host>-mixgraph.json")
    args = ap.parse_args()
    if shutil.which("db_bench") is None:
        print("db_bench not found: apt-get install rocksdb-tools", file=sys.stderr)
        return 2
    runs = [db_bench_once() for _ in range(args.runs)]
    sim = lsmsim_once()
    host = host_facts()
    print(f"host: {host['cpu']} x {host['cores']}; db_bench {args.runs} runs (mean [min-max]) against lsmsim\n")
    print(f"{'figure':34s} {'db_bench':>28s} {'lsmsim':>10s} {'ratio':>7s}")

    def row(label, theirs, ours):
        m = statistics.mean(theirs)
        print(
            f"{label:34s} {m:12.1f} [{min(theirs):.1f}-{max(theirs):.1f}]".ljust(63) + f" {ours:10.1f} {ours / m:7.2f}"
        )

    for bench in ("fillrandom", "mixgraph"):
        row(f"{bench} ops/s", [r["ops"][bench] for r in runs], sim["ops"][bench])
    for op in OPS:
        for k in ("Average", "P50", "P99"):
            ours = sim["hists"].get(op, {}).get("Mean" if k == "Average" else k)
            if ours is not None:
                row(f"mixgraph {op} {k} (us)", [r["hists"]["mixgraph"][op][k] for r in runs], ours)
    row("mixgraph mean value size (B)", [r["value"] for r in runs], sim["value"])
    row("mixgraph mean Seek length", [r["scan"] for r in runs], sim["scan"])
    if args.record:
        path = ROOT / "benchmarks" / "validation" / "hosts" / f"{host_preset_name()}-mixgraph.json"
        record = {"host": host, "preset": host_preset_name(), "line": LINE, "db_bench": runs, "lsmsim": sim}
        path.write_text(json.dumps(record, indent=1) + "\n")
        print(f"\nrecorded: {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
