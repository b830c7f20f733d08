"""Spooky PVLDB'22 Fig. 7(A), scaled down: compaction, GC and total write-amp over time for
RocksDB-style partial merge and full-level merge at ~85% device utilisation.

    .venv/bin/python experiments/spooky/run_gc.py [--out results/spooky-gc]

Writes <out>/gc_write_amp.csv (one row per sample: policy, time, compaction, GC and total
write-amp, cumulative and per interval), <out>/gc_write_amp.png and each run's results folder.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import lsmsim  # noqa: E402
from lsmsim.result import atomic_write  # noqa: E402

HERE = Path(__file__).resolve().parent
RUNS = {"partial merge (leveled, T=5)": HERE / "gc-partial-merge.yaml",
        "full merge (preemptive, T=5)": HERE / "gc-full-merge.yaml"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/spooky-gc")
    a = ap.parse_args()
    out = Path(a.out)
    frames, rows = [], []
    for label, cfg in RUNS.items():
        r = lsmsim.run(cfg, out=out / cfg.stem, progress=sys.stderr.isatty())
        ts = r.timeseries
        frames.append(pd.DataFrame({
            "policy": label, "time_s": ts["time"], "phase": ts["phase"],
            "compaction_write_amp": ts["write_amp"], "gc_write_amp": ts["gc_write_amp"],
            "gc_write_amp_interval": ts["gc_write_amp_interval"], "total_write_amp": ts["total_write_amp"]}))
        s = r.summary
        rows.append({"policy": label, "compaction_write_amp": s["write_amp"], "gc_write_amp": s["gc_write_amp"],
                     "total_write_amp": s["total_write_amp"], "space_amp": s["space_amp"],
                     "device_peak_utilization": s["device_peak_utilization"], "gc_stall_s": s["gc_stall_s"]})
    df = pd.concat(frames, ignore_index=True)
    atomic_write(out / "gc_write_amp.csv", lambda p: df.to_csv(p, index=False))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, (label, g) in zip(axes, df.groupby("policy", sort=False)):
        ax.plot(g.time_s, g.compaction_write_amp, label="compaction write-amp")
        ax.plot(g.time_s, g.gc_write_amp, label="GC write-amp")
        ax.plot(g.time_s, g.total_write_amp, label="total (Eq. 2)")
        ax.set_title(label)
        ax.set_xlabel("simulated time (s)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("write-amp (cumulative)")
    axes[0].legend()
    fig.tight_layout()
    atomic_write(out / "gc_write_amp.png", lambda p: fig.savefig(p, dpi=110, format="png"))
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"written to {out}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
