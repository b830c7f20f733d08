"""`lsmsim import` and `lsmsim export`: RocksDB OPTIONS files to and from lsmsim configs (options_file.py)."""

from __future__ import annotations

import sys
from pathlib import Path

_EPILOG = "Config reference: `lsmsim config` (docs/config-reference.md)."


def _cmd_import(args) -> int:
    import yaml

    from ..loading import load_config
    from .options_file import read_options, to_config

    opts = read_options(args.options)
    workload = None
    if args.workload:
        from ..loading import read_yaml

        workload = read_yaml(args.workload).get("workload")
    cfg, rep = to_config(opts, workload)
    load_config(cfg)  # what lsmsim would refuse, refused here, naming the field
    # the report goes to stderr when the config itself goes to stdout, so that `lsmsim import X > c.yaml` is YAML
    out = sys.stdout if args.out else sys.stderr
    print(f"{args.options}: {len(rep.mapped)} mapped, {len(rep.ignored)} ignored, {len(rep.unsupported)} unsupported",
          file=out)  # fmt: skip
    for name, value, why in rep.unsupported:  # what changes the numbers comes first
        print(f"lsmsim: warning: {name} = {value}: {why}; the config runs without it", file=sys.stderr)
    if args.verbose:
        for name, value, path in rep.mapped:
            print(f"  mapped       {name} = {value}  ->  {path}", file=out)
        for name, value in rep.ignored:
            print(f"  ignored      {name} = {value}  (not modelled; no effect on what lsmsim models)", file=out)
    elif rep.mapped or rep.ignored:
        print("  (-v lists each option mapped, with its config field, and each one ignored: not modelled, at a value "
              "that changes nothing lsmsim models)", file=out)  # fmt: skip
    head = (
        f"# imported from {args.options} by lsmsim import: the options lsmsim models; the workload is not in an\n"
        "# OPTIONS file (db_bench fillrandom of 1M keys unless --workload gave one)\n"
    )
    return _write_or_print(head + yaml.safe_dump(cfg, sort_keys=False), args.out, "config")


def _cmd_export(args) -> int:
    from ..loading import load_config
    from .options_file import from_config

    cfg = load_config(args.config, args.set or [])
    text = from_config(cfg)
    cache = cfg.lsm.block_cache_size  # an OPTIONS file has no field for the block cache's capacity
    print(f"lsmsim: note: OPTIONS files do not hold the block cache size; run db_bench with --cache_size={cache}",
          file=sys.stderr)  # fmt: skip
    return _write_or_print(text, args.out, "RocksDB options", f" (db_bench --options_file={args.out})")


def _write_or_print(text: str, out: str | None, what: str, hint: str = "") -> int:
    """`text` into the file `out` (atomically), or to stdout without one."""
    from ..atomic import atomic_write

    if out:
        atomic_write(Path(out), lambda tmp: Path(tmp).write_text(text))
        print(f"{what} written to {out}{hint}")
    else:
        sys.stdout.write(text)
    return 0


def add_parsers(sub) -> None:
    im = sub.add_parser(
        "import",
        help="a RocksDB OPTIONS file as an lsmsim config",
        description="Read a RocksDB OPTIONS-NNNNNN file (any database directory holds one) and write the lsmsim "
        "config it maps to: print which options were mapped, warn about each one set to something lsmsim does "
        "not model, and list the ones ignored (with -v, their values).",
        epilog=_EPILOG,
    )
    im.add_argument("options", help="a RocksDB OPTIONS file")
    im.add_argument("-o", "--out", metavar="FILE", help="write the config YAML here (default: print it)")
    im.add_argument("--workload", metavar="YAML", help="take the `workload:` section of this config")
    im.add_argument("-v", "--verbose", action="store_true", help="list the options ignored one a line, with values")
    im.set_defaults(func=_cmd_import)
    ex = sub.add_parser(
        "export",
        help="an lsmsim config as a RocksDB OPTIONS file",
        description="Write the RocksDB OPTIONS file of a config (leveled or universal policy) that RocksDB and "
        "db_bench --options_file load; options lsmsim does not model keep RocksDB's defaults.",
        epilog=_EPILOG,
    )
    ex.add_argument("config", help="experiment YAML file")
    ex.add_argument("--set", action="append", metavar="PATH=VALUE", help="override a config field (repeatable)")
    ex.add_argument("-o", "--out", metavar="FILE", help="write the OPTIONS file here (default: print it)")
    ex.set_defaults(func=_cmd_export)
