"""Which part of an option set makes its predicted gain: each group of options alone, on db_bench and on lsmsim
(issue 36, docs/tuning.md 'The mixed lines split').

    python benchmarks/tune_ablation.py --line "--benchmarks=fillrandom,mixgraph ... --duration=30" \\
        --variant bloom="--bloom_bits=12" --variant levels="--max_bytes_for_level_base=19092134 ..." --repeat 2

Each variant is the line plus its flags (db_bench's names, which `lsmsim tune --dbbench` reads too); the line as
given runs first as `defaults`. Per variant it prints lsmsim's throughput of the line's last benchmark and its mean
latency per operation type on this host's preset, then db_bench's over `--repeat` fresh runs (with `--histogram`).
Needs a quiet machine: db_bench's figures move with whatever else runs. `--out` keeps the rows as JSON, with the
host.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lsmsim.atomic import atomic_write  # noqa: E402
from lsmsim.preset_files import host_facts  # noqa: E402


def simulated(args: list[str]) -> dict:
    """lsmsim's throughput of the line's scored phase and its mean latency per operation type (us)."""
    from lsmsim.formats.dbbench_args import dbbench_config
    from lsmsim.loading import load_config
    from lsmsim.sim import simulate
    from lsmsim.tuning import objective

    cfg = load_config(dbbench_config(" ".join(args))[0])
    s = simulate(cfg).summary
    m = objective.metrics(s, objective.queries_only(cfg), objective.scored_phase(cfg))
    lat = {
        k[len("latency_") : -len("_mean_s")]: v * 1e6
        for k, v in s.items()
        if k.startswith("latency_") and k.endswith("_mean_s")
    }
    return {"ops_per_s": m["throughput"], "mean_us": lat}


def measured(args: list[str]) -> dict:
    """db_bench's ops/sec of the line's last benchmark and its mean latency per operation type (us)."""
    from lsmsim.validation.dbbench import run_db_bench

    last = [a for a in args if a.startswith("--benchmarks=")][0].split("=", 1)[1].split(",")[-1]
    run = run_db_bench([*args, "--histogram=1"])
    hist = run.histograms.get(last, {})
    return {"ops_per_s": run.ops_per_sec[last], "mean_us": {k: h.get("Average") for k, h in hist.items()}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--line", required=True, help="the db_bench line (without --db)")
    ap.add_argument("--variant", action="append", default=[], help="NAME=FLAGS, repeatable")
    ap.add_argument("--repeat", type=int, default=2, help="db_bench runs per variant (0: lsmsim only)")
    ap.add_argument("--out", type=Path, help="keep the rows here (JSON)")
    a = ap.parse_args(argv)
    base = a.line.split()
    variants = {"defaults": []}
    for v in a.variant:
        name, _, flags = v.partition("=")
        variants[name] = flags.split()
    rows = []
    for name, flags in variants.items():
        sim = simulated([*base, *flags])
        real = [measured([*base, *flags]) for _ in range(a.repeat)]
        rows.append({"variant": name, "flags": flags, "lsmsim": sim, "db_bench": real})
        ops = ", ".join(f"{r['ops_per_s']:,.0f}" for r in real) or "-"
        lat = " ".join(f"{k} {v:.1f}" for k, v in sim["mean_us"].items())
        print(f"{name:>12}: lsmsim {sim['ops_per_s']:,.0f} ops/s ({lat} us); db_bench {ops}", flush=True)
    if a.out:
        text = json.dumps({"host": host_facts(), "line": a.line, "rows": rows}, indent=1) + "\n"
        atomic_write(a.out, lambda p: Path(p).write_text(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
