"""EcoTune Fig. 7, scaled down: average query throughput vs long-range-scan ratio for EcoTune,
leveling, lazy leveling and Moose (experiments/ecotune/fig7.yaml holds the shared setup).

    .venv/bin/python experiments/ecotune/run_fig7.py [--r 0.1 0.3 0.5 0.7 0.9] [--out results/ecotune-fig7]

Writes <out>/fig7.csv (policy, r, queries/s, write MB/s, compactions' CPU share) and fig7.png.
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
POLICIES = {
    "EcoTune": ["policy.name=ecotune"],
    "Leveling": ["policy={name: leveled, max_bytes_for_level_multiplier: 10, max_bytes_for_level_base: 32MiB, num_levels: 4}"],
    "Lazy leveling": ["policy={name: lazy_leveling, size_ratio: 10}"],
    "Moose": ["policy={name: moose, size_ratios: [7, 7, 7, 6], runs_per_level: [3, 3, 3, 3, 1]}"],
}


def mix(r: float) -> list[str]:
    w = 0.3  # writes run at a fixed rate; the read mix is what r shapes
    return [f"workload.phases.1.mix={{update: {w}, long_scan: {r * (1 - w)}, short_scan: {(1 - r) / 2 * (1 - w)}, "
            f"get: {(1 - r) / 2 * (1 - w)}}}"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--r", type=float, nargs="+", default=[0.1, 0.3, 0.5, 0.7, 0.9])
    ap.add_argument("--out", default="results/ecotune-fig7")
    a = ap.parse_args()
    rows = []
    for r in a.r:
        for label, overrides in POLICIES.items():
            res = lsmsim.run(HERE / "fig7.yaml", overrides + mix(r), progress=sys.stderr.isatty())
            s = res.summary
            reads = sum(s[f"throughput_{op}_ops_per_s"] for op in ("get", "short_scan", "long_scan"))
            rows.append({"policy": label, "r": r, "queries_per_s": reads, "write_mb_per_s":
                         s["throughput_write_ops_per_s"] * (8 + 256) / 1e6, "cpu_util_compaction": s["cpu_util_compaction"],
                         "sorted_runs": s["sorted_runs"], "write_amp": s["write_amp"]})
            print(f"r={r:.1f} {label:14s} {reads:10.0f} queries/s  writes {rows[-1]['write_mb_per_s']:6.1f} MB/s  "
                  f"compaction CPU {100 * s['cpu_util_compaction']:5.1f}%", flush=True)
    df = pd.DataFrame(rows)
    out = Path(a.out)
    atomic_write(out / "fig7.csv", lambda p: df.to_csv(p, index=False))
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, g in df.groupby("policy", sort=False):
        ax.plot(g.r, g.queries_per_s / 1e3, marker="o", label=label)
    ax.set_xlabel("long-range-scan ratio r")
    ax.set_ylabel("average query throughput (K ops/s)")
    ax.set_title("EcoTune Fig. 7 (scaled down), Optane, 10 cores")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    atomic_write(out / "fig7.png", lambda p: fig.savefig(p, dpi=110, format="png"))
    ratio = df.pivot(index="r", columns="policy", values="queries_per_s")
    for base in ("Leveling", "Lazy leveling", "Moose"):
        ratio[f"EcoTune / {base}"] = ratio["EcoTune"] / ratio[base]
    print(ratio.filter(like="/").to_string(float_format=lambda x: f"{x:.2f}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
