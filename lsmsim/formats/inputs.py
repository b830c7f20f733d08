"""The config a command runs from its inputs: a YAML, with its workload from a YCSB property file, or everything
from a db_bench command line (`lsmsim run` and `lsmsim tune` take the same three)."""

from __future__ import annotations

import sys

from ..errors import ConfigError


def config_source(config: str | None, ycsb: str | None, dbbench: str | None, command: str = "lsmsim run"):
    """The YAML path as given, or a config dict merged from the YAML (if any), the db_bench line and the YCSB file;
    each unsupported property or flag is named on stderr."""
    if not (ycsb or dbbench):
        if config is None:
            raise ConfigError(command, [("config", "give a config YAML, --ycsb FILE or --dbbench ARGS")])
        return config
    from ..loading import read_yaml

    cfg = read_yaml(config) if config else {}
    notes = []
    if dbbench:
        from .dbbench_args import dbbench_config

        from_db, notes = dbbench_config(dbbench)
        for section, value in from_db.items():
            cfg[section] = {**cfg.get(section, {}), **value} if isinstance(value, dict) else value
    if ycsb:
        from ..workloads.ycsb import load_ycsb

        cfg["workload"], more = load_ycsb(ycsb)
        notes += more
    for name, why in notes:
        print(f"lsmsim: warning: {name}: {why}", file=sys.stderr)
    return cfg


def add_arguments(parser) -> None:
    """The inputs `run`, `tune` and `check` share: a config YAML, --ycsb FILE, --dbbench ARGS, --set PATH=VALUE."""
    parser.add_argument("config", nargs="?", help="experiment YAML file (optional with --ycsb or --dbbench)")
    parser.add_argument("--ycsb", metavar="FILE", help="the workload from a YCSB property file (workloads/workloada)")
    parser.add_argument(
        "--dbbench",
        metavar="ARGS",
        help='a db_bench command line, e.g. "--benchmarks=fillrandom,readrandom --num=1000000": its benchmarks as '
        "phases, its options as the config (the YAML, if given, underneath)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="override a config field, e.g. --set lsm.write_buffer_size=64MiB (repeatable)",
    )
