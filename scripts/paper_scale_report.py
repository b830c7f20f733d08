"""Write the per-point table of paper-scale sweeps for docs/paper-scale/: one CSV per sweep.

    python scripts/paper_scale_report.py results/paper/arce-workloads-paper [...] --out docs/paper-scale

Each row is a finished point: its parameters, the wall time the sweep measured for it (`runtime_s`, one
worker process), the commit it ran at, and headline metrics. A partial sweep's CSV holds the points finished so
far; the sweep resumes where it stopped (`lsmsim figures --scale paper` skips finished points).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

METRICS = (
    "throughput_ops_per_s",
    "write_amp",
    "space_amp",
    "sim_time_s",
    "flushes",
    "compactions",
    "gc_write_amp",
    "total_write_amp",
    "space_amp_peak",
    "physical_bytes_peak",
    "obsolete_bytes_peak",
    "ended_by",
    "data_movement",
    "compaction_latency_mean_s",
    "read_amp_point",
    "tombstones_remaining",
)


def point_rows(root: Path) -> pd.DataFrame:
    rows = []
    for d in sorted((root / "points").glob("*/")):
        meta = json.loads((d / "point.json").read_text())
        summary = json.loads((d / "summary.json").read_text())
        prov = json.loads((d / "provenance.json").read_text()) if (d / "provenance.json").exists() else {}
        row = {"point_id": meta["point_id"], **meta["params"], "runtime_s": round(meta["runtime_s"], 3)}
        row["commit"] = prov.get("git_commit", "")[:10] + ("+dirty" if prov.get("git_dirty") else "")
        row.update({m: summary[m] for m in METRICS if m in summary})
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweeps", nargs="+", type=Path, help="sweep result folders (results/<sweep>-paper)")
    ap.add_argument("--out", type=Path, default=Path("docs/paper-scale"))
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    for root in a.sweeps:
        if not (root / "sweep.yaml").exists():
            print(f"{root}: not a sweep result folder (no sweep.yaml)", file=sys.stderr)
            return 2
        df = point_rows(root)
        path = a.out / f"{root.name}-points.csv"
        df.to_csv(path, index=False)
        total = df["runtime_s"].sum() if len(df) else 0.0
        print(f"{path}: {len(df)} finished points, {total / 60:.1f} min of worker time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
