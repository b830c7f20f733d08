"""`lsmsim tune`: search RocksDB's options on the simulator for an objective under a memory budget, and write the
choice as an OPTIONS file db_bench loads (lsmsim/tuning: space.py, objective.py, search.py, report.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_DESCRIPTION = """\
Search RocksDB's options (buffer size and count, L0 triggers, level base and multiplier, dynamic level bytes,
file size, compaction style and universal options, compaction priority, background jobs, Bloom bits, block size;
the block cache gets what the memtables leave of the memory budget) with optuna's TPE sampler, each candidate
simulated with several seeds, each at one of the host's own speeds (machine.speed_spread), on the machine of the
config (the local host's calibrated preset by default). The config as given is the first trial and the reference
of the score. Writes OPTIONS (db_bench --options_file), trials.csv, tune.json (predictions: the mean over the
host's speeds, with the range where single real runs land, the stall trigger that binds
before and after, the robustness to a +-20% shift of the write share) and search.png."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `tune` on the `lsmsim` sub-parsers."""
    p = subparsers.add_parser(
        "tune", help="search RocksDB options for an objective on the simulator", description=_DESCRIPTION
    )
    from ..formats.inputs import add_arguments

    add_arguments(p)
    p.add_argument(
        "--objective",
        default="throughput",
        help="throughput, p99, p999, stall, wamp, or a weighted mix like throughput:1,p99:0.5 (default throughput)",
    )
    p.add_argument("--memory", metavar="BYTES", help="memtables + block cache budget (default: the config's)")
    p.add_argument("--trials", type=int, default=40, help="candidates to simulate (default 40)")
    p.add_argument(
        "--seeds",
        type=int,
        default=2,
        help="simulations per candidate, each with its seed at one of the host's speeds: their mean is the "
        "prediction (default 2)",
    )
    p.add_argument("--timeout", default="10min", help="stop asking for candidates after this long (default 10min)")
    p.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("-o", "--out", default="results/tune", help="folder of the outputs (default results/tune)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd)
    return p


def _cmd(a) -> int:
    import os

    from tqdm import tqdm

    from ..formats.inputs import config_source
    from ..loading import load_config
    from ..units import parse_duration, parse_size
    from . import objective, report, space
    from .search import tune

    weights = objective.parse(a.objective)
    for name, v, lo in (("--trials", a.trials, 1), ("--seeds", a.seeds, 1), ("--jobs", a.jobs or 1, 1)):
        if v < lo:
            raise ValueError(f"{name}: at least {lo}, got {v}")
    budget = parse_size(a.memory) if a.memory else None
    timeout = parse_duration(a.timeout)
    cfg = load_config(config_source(a.config, a.ycsb, a.dbbench, "lsmsim tune"), a.set)
    if cfg.policy.name not in ("leveled", "universal"):
        raise ValueError(
            f"policy.name: tune searches RocksDB's leveled and universal compaction, not {cfg.policy.name!r}"
        )
    bar = tqdm(total=a.trials, disable=a.quiet or not sys.stderr.isatty(), unit="trial", desc="tune")
    t = tune(
        cfg,
        weights,
        trials=a.trials,
        seeds=a.seeds,
        jobs=a.jobs or os.cpu_count() or 1,
        budget=budget,
        timeout=timeout,
        on_trial=lambda c: bar.update(1),
    )
    bar.close()
    best_cfg = load_config(space.apply(cfg.model_dump(mode="json"), t.best.options, t.budget))
    print(report.write(t, cfg, best_cfg, Path(a.out)))
    return 0
