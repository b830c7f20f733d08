"""Cost of a simulation against the number of keys (issue 15): wall and CPU time and peak memory at four sizes
spanning 10x for each policy, and the fitted exponent of CPU time in keys (goal: <= 1.1 for every policy).

    python benchmarks/scaling.py [--sizes 40K 100K 200K 400K] [--only ARC 1-L ...] [--csv out.csv]

Cases (every one scales its operations with its keys, so linear cost means CPU ~ keys^1):
- leveled:   RocksDB's leveled picker as in the quickstart (4 MiB buffer and files, 16 MiB L1), fillrandom of
             10 N keys then 5 N operations of the quickstart's mixed phase (x10: its buffer is 16x 1-L's).
- 1-L:       ArceKV's 1-Leveling (experiments/arce/policies.yaml: 2 MiB files over a 256 KiB buffer, so many
             small files) on Workload I (experiments/arce/base.yaml), N preloaded keys and N operations per
             sub-workload, statistics every N/40 operations (the paper's 1M per 40.96M).
- universal: RocksDB's universal compaction on the same Workload I.
- ARC:       ARCE (d = 0.1, MaxIterTime = 400) on the same Workload I.
- EcoTune:   experiments/ecotune/base.yaml with 20 N keys loaded and a compaction round whose duration scales
             with them (30 s at 8M keys; x20: its 8 MiB buffer holds 32K entries).
- Spooky:    Spooky (X = L-2, T = 5) on experiments/spooky/inserts.yaml: 10 N unique inserts of 528 B into 256 KiB
             buffers (N/B from 800 at N = 40K), every flush merged as Fig. 6 runs it.

The "keys" column is N. Each point runs in a fresh process (os.wait4 gives its CPU time and peak RSS); the "sim"
columns time `simulate()` alone inside it, which is what the exponent is fitted on (start-up is a constant).
It prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lsmsim.units import parse_count  # noqa: E402


def _arce(policy_variant: str):
    def overrides(n: int) -> list[str]:
        return [
            f"workload.num={n}",
            f"workload.suite.operations={n}",
            f"variant={policy_variant}",
            f"policy.stats_operations={max(1, n // 40)}" if policy_variant == "ARC" else "",
        ]

    return str(ROOT / "experiments/arce/base.yaml"), overrides


CASES = {
    "leveled": (
        str(ROOT / "experiments/quickstart.yaml"),
        lambda n: [
            f"workload.num={10 * n}",
            f"workload.phases.0.operations={10 * n}",
            "workload.phases.1.duration=null",
            f"workload.phases.1.operations={5 * n}",
        ],
    ),
    "1-L": _arce("1-L"),
    "universal": (
        str(ROOT / "experiments/arce/base.yaml"),
        lambda n: [
            f"workload.num={n}",
            f"workload.suite.operations={n}",
            "policy={name: universal}",
        ],
    ),
    "ARC": _arce("ARC"),
    "EcoTune": (
        str(ROOT / "experiments/ecotune/base.yaml"),
        lambda n: [
            f"workload.num={20 * n}",
            f"workload.phases.0.operations={20 * n}",
            f"workload.phases.1.duration={30.0 * 20 * n / 8e6:.4g}s",
        ],
    ),
    "Spooky": (
        str(ROOT / "experiments/spooky/inserts.yaml"),
        lambda n: [
            f"workload.num={10 * n}",
            f"workload.phases.0.operations={10 * n}",
            "policy={name: spooky, size_ratio: 5, X: L-2, level0_file_num_compaction_trigger: 1}",
        ],
    ),
}

# Runs in the child: load the config (variants of experiments/arce/policies.yaml merged in), time simulate().
CHILD = r"""
import json, sys, time
import yaml
from lsmsim.loading import load_config
from lsmsim.sim import simulate
path, overrides = sys.argv[1], json.loads(sys.argv[2])
variant = [o.split("=", 1)[1] for o in overrides if o.startswith("variant=")]
overrides = [o for o in overrides if o and not o.startswith("variant=")]
data = yaml.safe_load(open(path))
if variant:
    from pathlib import Path
    variants = yaml.safe_load(open(Path(path).parent / "policies.yaml"))
    data.update(variants[variant[0]])
cfg = load_config(data, overrides)
w0, c0 = time.perf_counter(), time.process_time()
res = simulate(cfg)
w1, c1 = time.perf_counter(), time.process_time()
s = res.summary
print(json.dumps({"sim_wall": w1 - w0, "sim_cpu": c1 - c0, "flushes": s.get("flushes"),
                  "write_amp": s.get("write_amp"), "files": s.get("final_files")}))
"""


def run_point(path: str, overrides: list[str]) -> dict:
    """One simulation in a fresh process: its figures plus the process's wall, CPU and peak RSS."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, path, json.dumps(overrides)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()  # type: ignore[union-attr]
    if status != 0:
        raise RuntimeError(f"{path} {overrides} failed:\n{err[-3000:]}")
    row = json.loads(out.strip().splitlines()[-1])
    row.update(wall=wall, cpu=ru.ru_utime + ru.ru_stime, rss_mb=ru.ru_maxrss / 1024)
    return row


def exponent(keys: list[int], cpu: list[float]) -> float:
    """Slope of log(cpu) on log(keys), least squares."""
    return float(np.polyfit(np.log(keys), np.log(cpu), 1)[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["40K", "100K", "200K", "400K"], help="keys per point")
    ap.add_argument("--only", nargs="+", choices=list(CASES), default=list(CASES))
    ap.add_argument("--csv", help="also write the rows here")
    args = ap.parse_args()
    sizes = [int(parse_count(s)) for s in args.sizes]
    rows = []
    print(
        f"{'case':10} {'keys':>8} {'sim wall s':>10} {'sim cpu s':>10} {'proc cpu s':>10} {'peak MB':>8} "
        f"{'flushes':>8} {'W-amp':>6}",
        flush=True,
    )
    for case in args.only:
        path, over = CASES[case]
        for n in sizes:
            r = run_point(path, over(n))
            r.update(case=case, keys=n)
            rows.append(r)
            print(
                f"{case:10} {n:8d} {r['sim_wall']:10.2f} {r['sim_cpu']:10.2f} {r['cpu']:10.2f} {r['rss_mb']:8.0f} "
                f"{r['flushes'] or 0:8d} {r['write_amp'] or math.nan:6.2f}",
                flush=True,
            )
    print("\nfitted exponent of simulate() CPU time in keys (goal <= 1.1):")
    for case in args.only:
        rs = [r for r in rows if r["case"] == case]
        k = [r["keys"] for r in rs]
        cpu_exp = exponent(k, [r["sim_cpu"] for r in rs])
        per_flush = 1e3 * rs[-1]["sim_cpu"] / max(1, rs[-1]["flushes"] or 0)
        print(f"  {case:10} cpu {cpu_exp:5.2f}   {per_flush:.1f} cpu ms per flush at {k[-1]} keys")
    if args.csv:
        import pandas as pd

        pd.DataFrame(rows).to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
