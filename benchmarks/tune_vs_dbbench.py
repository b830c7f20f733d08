"""`lsmsim tune` against the ways people tune RocksDB, judged on real db_bench on this host (issue 36).

    python benchmarks/tune_vs_dbbench.py                    # the four workloads, three db_bench runs per arm
    python benchmarks/tune_vs_dbbench.py --quick --workloads fillrandom --repeat 1   # a smoke run of minutes

Per workload (a db_bench line), four arms, each measured `--repeat` times on a fresh DB:
- defaults: RocksDB's own options (the line as it is);
- benchmark.sh: the settings RocksDB's tools/benchmark.sh uses (write buffer and target file 128 MB, L1 1 GB,
  fanout 8, 16 background jobs, 8 KiB blocks, 10 Bloom bits, dynamic level bytes), scaled to this machine: the
  buffers and files to a quarter of the memory budget, L1 to 8 buffers, background jobs to twice the cores;
- random: the better of two option sets drawn from `lsmsim tune`'s space, one real run each (tune's budget of
  real runs: the baseline and the check);
- tune: `lsmsim tune --dbbench LINE` (throughput, the defaults' memory budget), its OPTIONS file and cache size.
The table: each arm's median throughput of the line's last benchmark (db_bench's ops/sec), its range, its gain
over the defaults, and tune's predicted throughput beside the measured one. Records go to
benchmarks/validation/hosts/<host>-tune.json with the host (a time on one CPU model says nothing of another).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lsmsim.atomic import atomic_write  # noqa: E402
from lsmsim.preset_files import host_facts, host_preset_name  # noqa: E402

MiB = 1 << 20
COMMON = ["--key_size=16", "--value_size=100", "--compression_type=none"]
WORKLOADS = {
    "fillrandom": ["--benchmarks=fillrandom"],
    "readwhilewriting": ["--benchmarks=fillrandom,readwhilewriting", "--threads=2"],
    "readrandomwriterandom": ["--benchmarks=fillrandom,readrandomwriterandom", "--readwritepercent=50"],
    "mixgraph": ["--benchmarks=fillrandom,mixgraph", "--mix_get_ratio=0.83", "--mix_put_ratio=0.14",
                 "--mix_seek_ratio=0.03", "--key_dist_a=0.002312", "--key_dist_b=0.3467"],
}  # fmt: skip
BUDGET = 2 * 64 * MiB + 8 * MiB  # RocksDB's defaults: two 64 MiB memtables and an 8 MiB block cache


def line(workload: str, quick: bool) -> list[str]:
    num, duration = (300_000, 5) if quick else (2_000_000, 30)
    extra = [] if workload == "fillrandom" else [f"--duration={duration}"]
    return [*WORKLOADS[workload], *COMMON, f"--num={num}", *extra]


def benchmark_sh(cores: int) -> list[str]:
    """tools/benchmark.sh's leveled settings (its const_params_base and level_const_params), scaled to BUDGET."""
    buf = BUDGET // 4
    return [f"--write_buffer_size={buf}", f"--target_file_size_base={buf}", f"--max_bytes_for_level_base={8 * buf}",
            "--max_bytes_for_level_multiplier=8", f"--max_background_jobs={2 * cores}", "--block_size=8192",
            "--bloom_bits=10", "--level_compaction_dynamic_level_bytes=true", "--num_levels=8",
            f"--cache_size={BUDGET - 2 * buf}"]  # fmt: skip


def options_flags(cfg, options: dict, out: Path) -> list[str]:
    """An option set of lsmsim tune's space as db_bench flags: its OPTIONS file and the block cache's size."""
    from lsmsim.formats.options_file import from_config
    from lsmsim.loading import load_config
    from lsmsim.tuning import space

    c = load_config(space.apply(cfg.model_dump(mode="json"), options, BUDGET))
    out.write_text(from_config(c))
    return [f"--options_file={out}", f"--cache_size={c.lsm.block_cache_size}"]


def measure(args: list[str], repeat: int) -> list[float]:
    """db_bench's ops/sec of the line's last benchmark, `repeat` times, each on a fresh DB."""
    from lsmsim.validation.dbbench import run_db_bench

    last = [a for a in args if a.startswith("--benchmarks=")][0].split("=", 1)[1].split(",")[-1]
    return [run_db_bench(args).ops_per_sec[last] for _ in range(repeat)]


def random_arm(cfg, base: list[str], tmp: Path, cores: int) -> tuple[dict, list[str]]:
    import optuna

    from lsmsim.tuning import space

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=cfg.seed))
    best = None
    for i in range(2):  # two real runs, as tune's baseline and check
        opts = space.suggest(study.ask(), cores, BUDGET)
        flags = options_flags(cfg, opts, tmp / f"OPTIONS-random-{i}")
        tput = measure([*base, *flags], 1)[0]
        if best is None or tput > best[0]:
            best = (tput, opts, flags)
    return best[1], best[2]


def predicted(data: dict) -> float:
    """lsmsim's throughput of the line's scored phase for config dict `data` (a loaded config's dump), as tune
    predicts it: the mean over its runs at the host's speeds (tuning/search.py, speed_points)."""
    from lsmsim.tuning import search

    speeds = search.speed_points(2, data["machine"].get("speed_spread", 0.0))
    runs = search.evaluate(data, [(data.get("seed", 0) + i, f) for i, f in enumerate(speeds)])
    return statistics.mean(r["throughput"] for r in runs)


def run_workload(name: str, repeat: int, quick: bool, trials: int) -> dict:
    from lsmsim.formats.dbbench_args import dbbench_config
    from lsmsim.loading import load_config
    from lsmsim.tuning import space

    base = line(name, quick)
    cfg = load_config(dbbench_config(" ".join(base))[0])
    cores = cfg.machine.cores or 2
    tmp = Path(tempfile.mkdtemp(prefix="lsmsim-tune-bench-"))
    t0 = time.perf_counter()
    out = tmp / "tune"
    cmd = [sys.executable, "-m", "lsmsim.cli", "tune", "--dbbench", " ".join(base), "--objective", "throughput",
           "--memory", str(BUDGET), "--trials", str(trials), "--timeout", "10min", "-o", str(out), "-q"]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    search_s = time.perf_counter() - t0
    tuned = json.loads((out / "tune.json").read_text())
    random_options, random_flags = random_arm(cfg, base, tmp, cores)
    arms = {
        "defaults": base,
        "benchmark.sh": [*base, *benchmark_sh(cores)],
        "random": [*base, *random_flags],
        "tune": [*base, f"--options_file={out / 'OPTIONS'}", f"--cache_size={tuned['block_cache_size']}"],
    }
    # lsmsim's figure for every arm, as tune predicts its own: the ranking it would give the four
    data = cfg.model_dump(mode="json")
    predictions = {
        "defaults": tuned["predicted"]["given"]["throughput"]["mean"],
        "benchmark.sh": predicted(
            load_config(dbbench_config(" ".join(arms["benchmark.sh"]))[0]).model_dump(mode="json")
        ),
        "random": predicted(space.apply(data, random_options, BUDGET)),
        "tune": tuned["predicted"]["tuned"]["throughput"]["mean"],
    }
    runs: dict[str, list[float]] = {arm: [] for arm in arms}
    for _ in range(repeat):  # the arms in turns: this VM's speed drifts over minutes (machine.speed_spread)
        for arm, args in arms.items():
            runs[arm] += measure(args, 1)
    # the OPTIONS files live in a temporary folder: the record keeps their text, and tune's options, so that an arm
    # can be rerun and tune's prediction remade on another preset
    files = {a: Path(f.split("=", 1)[1]).read_text() for a in arms for f in arms[a] if f.startswith("--options_file=")}
    record = {a: {"args": arms[a], "ops_per_s": runs[a], "predicted_ops_per_s": predictions[a]} for a in arms}
    for a, text in files.items():
        record[a]["options_file"] = text
    return {
        "line": base,
        "arms": record,
        "search_s": search_s,
        "tune_options": tuned.get("options"),
        "tune_predicted_ops_per_s": tuned["predicted"]["tuned"]["throughput"]["mean"],
        "tune_predicted_range": tuned["predicted"]["tuned"]["throughput"]["range"],
        "host_speeds": tuned.get("host_speeds"),
    }


def table(rec: dict) -> str:
    rows = ["| workload | arm | ops/s (median) | range | vs defaults | lsmsim predicted |", "|---|---|---|---|---|---|"]
    for w, r in rec["workloads"].items():
        base = statistics.median(r["arms"]["defaults"]["ops_per_s"])
        for arm, a in r["arms"].items():
            m = statistics.median(a["ops_per_s"])
            p = a.get("predicted_ops_per_s")
            rows.append(f"| {w} | {arm} | {m:,.0f} | {min(a['ops_per_s']):,.0f}-{max(a['ops_per_s']):,.0f} | "
                        f"{m / base - 1:+.1%} | {'' if p is None else f'{p:,.0f} ({p / m - 1:+.0%})'} |")  # fmt: skip
        rows.append(f"| {w} | tune predicted | {r['tune_predicted_ops_per_s']:,.0f} | search {r['search_s']:.0f} s | |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", nargs="*", default=list(WORKLOADS), choices=list(WORKLOADS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--quick", action="store_true", help="300K keys and 5 s phases: a smoke run, not the table")
    ap.add_argument("--out", type=Path, help="record here (default benchmarks/validation/hosts/<host>-tune.json)")
    args = ap.parse_args(argv)
    rec = {"host": host_facts(), "quick": args.quick, "workloads": {}}
    out = args.out or ROOT / "benchmarks" / "validation" / "hosts" / f"{host_preset_name()}-tune.json"
    failed = []
    for w in args.workloads:
        try:
            rec["workloads"][w] = run_workload(w, args.repeat, args.quick, args.trials)
        except (subprocess.CalledProcessError, RuntimeError, KeyError) as e:  # one workload's failure keeps the rest
            failed.append(w)
            print(f"  {w} failed: {e} {getattr(e, 'stderr', '') or ''}", file=sys.stderr, flush=True)
            continue
        print(f"  {w} done", file=sys.stderr, flush=True)
        if not args.quick or args.out:  # after each workload: a long run's finished workloads are kept
            atomic_write(out, lambda p: Path(p).write_text(json.dumps(rec, indent=1)))
    print(table(rec))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
