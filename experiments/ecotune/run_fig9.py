"""EcoTune Fig. 9, scaled down: query latency (queueing included, §5.3) vs arrival rate, 10K-50K/s,
for EcoTune, leveling and lazy leveling, with 30% long range scans, plus the bursty variant at
30K/s (15K/s base; 5% of arrivals bring 20 queries, modelled as on/off bursts of the same mean).

    .venv/bin/python experiments/ecotune/run_fig9.py [--rates 10000 20000 30000 40000 50000]

Writes <out>/fig9.csv and fig9.png (p50/p99/p99.9 per policy and rate).
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
sys.path.insert(0, str(HERE))
from run_fig7 import POLICIES, mix  # noqa: E402

RUN = ["Leveling", "Lazy leveling", "EcoTune"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rates", type=float, nargs="+", default=[10e3, 20e3, 30e3, 40e3, 50e3])
    ap.add_argument("--out", default="results/ecotune-fig9")
    a = ap.parse_args()
    rows = []
    cases = [(rate, "poisson") for rate in a.rates] + [(30e3, "bursty")]
    for rate, arrival in cases:
        for label in RUN:
            q = f"{{mode: open, threads: 7, arrival_rate: {rate}, arrival: {arrival}, burst_factor: 4, burst_duty: 0.2}}"
            r = lsmsim.run(HERE / "fig7.yaml", POLICIES[label] + mix(0.3) + [f"workload.phases.1.queries={q}"],
                           progress=sys.stderr.isatty())
            s = r.summary
            row = {"policy": label, "arrival_rate": rate, "arrival": arrival,
                   **{k: s.get(f"latency_query_{k}_s", float("nan")) for k in ("mean", "p50", "p99", "p999")}}
            rows.append(row)
            print(f"{arrival:8s} {rate / 1e3:4.0f}K/s {label:14s} mean {row['mean'] * 1e3:9.3f} ms  p50 "
                  f"{row['p50'] * 1e3:9.3f} ms  p99 {row['p99'] * 1e3:9.3f} ms  p99.9 {row['p999'] * 1e3:9.3f} ms",
                  flush=True)
    df = pd.DataFrame(rows)
    out = Path(a.out)
    atomic_write(out / "fig9.csv", lambda p: df.to_csv(p, index=False))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, stat in zip(axes, ("mean", "p99")):
        for label, g in df[df.arrival == "poisson"].groupby("policy", sort=False):
            ax.semilogy(g.arrival_rate / 1e3, g[stat] * 1e3, marker="o", label=label)
        ax.set_xlabel("query arrival rate (K/s)")
        ax.set_ylabel(f"{stat} latency (ms)")
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.tight_layout()
    atomic_write(out / "fig9.png", lambda p: fig.savefig(p, dpi=110, format="png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
