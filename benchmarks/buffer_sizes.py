"""Which write buffer is faster: db_bench against lsmsim over buffer sizes, and the fixed job costs that decide it.

    python benchmarks/buffer_sizes.py [--num 500000] [--repeat 2] [--set PATH=VALUE ...]

For each write_buffer_size in 64 KiB-16 MiB (files as large, L1 four buffers), Debian's db_bench runs fillrandom
(400-byte values, WAL on, no compression) `--repeat` times and lsmsim runs the same command line (`lsmsim run
--dbbench`, with the `--set` overrides: a host's speed today, say). It prints both throughputs, their ratio,
the Spearman rank correlation over the sizes, and the fixed costs as `lsmsim calibrate` fits them from its own runs
(lsmsim/validation/job_costs.py: fillrandom without the WAL at 64 KiB and 1 MiB buffers, not these runs), then
lsmsim again with those costs set (`machine.cpu.flush_per_job`,
`machine.cpu.merge_per_file`, `device.sync_per_job`, `device.sync_per_file`), so the two columns show what they
change. The CPU figures are divided back by `machine.cpu_speed` when one is set, since lsmsim multiplies them by it.
Record the host (printed) with the figures: they are this host's, today.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lsmsim.validation.dbbench import run_db_bench  # noqa: E402
from lsmsim.validation.job_costs import fit_job_costs, measure_job_costs  # noqa: E402

SIZES = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]


def args_for(wbs: int, num: int) -> str:
    return (
        f"--benchmarks=fillrandom,stats --num={num} --value_size=400 --compression_type=none "
        f"--write_buffer_size={wbs} --max_bytes_for_level_base={4 * wbs} --target_file_size_base={wbs} "
        "--bloom_bits=10 --statistics"
    )


def simulate(args: str, sets: list[str]) -> float:
    exe = Path(sys.executable).with_name("lsmsim")
    cmd = [str(exe) if exe.exists() else "lsmsim", "run", "--dbbench", args, "--json", "-q"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return float(json.loads(out)["throughput_ops_per_s"])


def host() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num", type=int, default=500_000, help="writes per run (64 KiB buffers: a quarter of it)")
    ap.add_argument("--repeat", type=int, default=2, help="db_bench runs per size")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", help="lsmsim overrides")
    a = ap.parse_args()
    print(f"host: {host()}")
    speed = next((float(s.split("=", 1)[1]) for s in a.set if s.startswith("machine.cpu_speed=")), 1.0)
    real = {}
    for wbs in SIZES:
        num = a.num // 4 if wbs < 256 << 10 else a.num
        real[wbs] = [run_db_bench(args_for(wbs, num).split()).ops_per_sec["fillrandom"] for _ in range(a.repeat)]
        print(f"db_bench {wbs >> 10:>6} KiB: {' '.join(f'{x:,.0f}' for x in real[wbs])} ops/s", flush=True)
    cal = measure_job_costs()
    fit = fit_job_costs([f for r in cal for f in r["flushes"]], [c for r in cal for c in r["compactions"]])
    print("fixed costs as lsmsim calibrate fits them (seconds): " + ", ".join(f"{k} {v:.3g}" for k, v in fit.items()))
    fixed = [
        f"machine.cpu.flush_per_job={fit['flush_per_job'] * speed * 1e6:.1f}us",
        f"machine.cpu.merge_per_file={fit['merge_per_file'] * speed * 1e6:.1f}us",
        f"device.sync_per_job={fit['sync_per_job'] * 1e6:.1f}us",
        f"device.sync_per_file={fit['sync_per_file'] * 1e6:.1f}us",
    ]
    print("with: " + " ".join(fixed))
    rows = []
    for wbs in SIZES:
        num = a.num // 4 if wbs < 256 << 10 else a.num
        mean = sum(real[wbs]) / len(real[wbs])
        before, after = simulate(args_for(wbs, num), a.set), simulate(args_for(wbs, num), a.set + fixed)
        rows.append((wbs, mean, before, after))
        print(
            f"{wbs >> 10:>6} KiB  db_bench {mean:>9,.0f}  lsmsim {before:>9,.0f} ({before / mean:5.2f}x)"
            f"  with fixed costs {after:>9,.0f} ({after / mean:5.2f}x)",
            flush=True,
        )
    for name, col in (("lsmsim", 2), ("with fixed costs", 3)):
        rho = spearmanr([r[1] for r in rows], [r[col] for r in rows]).statistic
        print(f"Spearman over the sizes, {name}: {rho:.2f}")


if __name__ == "__main__":
    main()
