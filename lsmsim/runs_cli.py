"""`lsmsim check` (what a config will run) and `lsmsim compare` (runs side by side)."""

from __future__ import annotations


def add_parsers(subparsers) -> None:
    """Register `check` and `compare` on the `lsmsim` sub-parsers."""
    c = subparsers.add_parser(
        "check",
        help="validate a config and print what it will run, without running it",
        description="Validate and resolve a config (presets, suites, db_bench or YCSB inputs) and print what "
        "`lsmsim run` would run: policy, device, machine, memory, keys and bytes, each phase, a lower bound on "
        "the simulated time, and the config's warnings. Exit 2 on an invalid config.",
    )
    from .formats.inputs import add_arguments

    add_arguments(c)
    c.set_defaults(func=_cmd_check)
    m = subparsers.add_parser(
        "compare",
        help="print runs' summaries side by side, with ratios to the first",
        description="Print the headline figures (throughput per operation type, p99 latencies, stalls, write- "
        "and space-amp, jobs) of runs saved with `lsmsim run -o DIR`, side by side; from the second run on, each "
        "figure's ratio to the first run's.",
    )
    m.add_argument("runs", nargs="+", metavar="RUN", help="folders of `lsmsim run -o` (or their summary.json)")
    m.set_defaults(func=_cmd_compare)


def _cmd_check(a) -> int:
    from .check import describe
    from .formats.inputs import config_source
    from .loading import load_config

    print(describe(load_config(config_source(a.config, a.ycsb, a.dbbench, "lsmsim check"), a.set)))
    return 0


def _cmd_compare(a) -> int:
    from pathlib import Path

    from .compare import read_summary, render

    names = [Path(r).name if Path(r).is_dir() else Path(r).parent.name for r in a.runs]
    if len(set(names)) < len(names):  # two folders of one name: their paths tell them apart
        names = list(a.runs)
    print(render({n: read_summary(r) for n, r in zip(names, a.runs, strict=True)}))
    return 0
