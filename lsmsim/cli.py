"""The `lsmsim` command: parses arguments, calls the API, prints. No simulation logic here."""
from __future__ import annotations

import argparse
import json
import math
import sys

from . import __version__
from .errors import ConfigError, LsmsimError

_EPILOG = "Config reference: the pydantic models in lsmsim/config.py; summary keys: README.md."


def _fmt(v) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-3):
            return f"{v:.4g}"
        return f"{v:,.3f}"
    return str(v)


def _human_latency(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if v < 1e-3:
        return f"{v * 1e6:.1f} us"
    if v < 1:
        return f"{v * 1e3:.2f} ms"
    return f"{v:.2f} s"


def print_summary(result, file=sys.stdout) -> None:
    s = result.summary
    w = lambda *a: print(*a, file=file)  # noqa: E731
    w(f"== {getattr(result.config, 'name', 'run')}: {s['sim_time_s']:.2f} simulated s "
      f"({s['measured_time_s']:.2f} s measured)")
    w("throughput (ops/s)")
    for op in ("write", "get", "get_empty", "short_scan", "long_scan"):
        if s.get(f"ops_{op}", 0) > 0:
            w(f"  {op:<12}{s[f'throughput_{op}_ops_per_s']:>14,.0f}   ({s[f'ops_{op}']:,.0f} ops)")
    w(f"  {'total':<12}{s['throughput_ops_per_s']:>14,.0f}")
    if len(result.latency):
        w("latency        mean        p50        p99      p99.9")
        for _, r in result.latency.iterrows():
            w(f"  {r['op']:<10}" + "".join(f"{_human_latency(r[c]):>11}" for c in ("mean_s", "p50_s", "p99_s", "p999_s")))
    w("amplification")
    w(f"  write-amp        {s['write_amp']:.3f}  (flush {s['write_amp_flush']:.3f} + compaction "
      f"{s['write_amp_compaction']:.3f}; RocksDB 'Sum' W-Amp {s['write_amp_rocksdb']:.3f})")
    w(f"  space-amp        {s['space_amp']:.3f}  (peak {s['space_amp_peak']:.3f})")
    w("stalls and utilisation")
    w(f"  write stop       {s['stall_stop_s']:.2f} s, slowdown {s['stall_slowdown_s']:.2f} s")
    w(f"  CPU              {100 * s['cpu_util']:.1f}%  (flush {100 * s['cpu_util_flush']:.1f}%, compaction "
      f"{100 * s['cpu_util_compaction']:.1f}%, foreground {100 * s['cpu_util_foreground']:.1f}%)")
    w(f"  device           {100 * s['device_util']:.1f}%  ({s['device_host_write_bytes'] / 2**30:.2f} GiB written, "
      f"{s['device_host_read_bytes'] / 2**30:.2f} GiB read)")
    w(f"jobs: {s['flushes']} flushes, {s['compactions']} compactions, {s['trivial_moves']} trivial moves")
    levels = [k for k in s if k.startswith("files_L")]
    w("final tree: " + ", ".join(f"L{k[7:]} {s['runs_L' + k[7:]]} runs/{s[k]} files/"
                                 f"{s['bytes_L' + k[7:]] / 2**20:.1f} MiB" for k in levels if s[k]))


def _cmd_run(args) -> int:
    from .api import run
    result = run(args.config, overrides=args.set or [], out=args.out, progress=not args.quiet and sys.stderr.isatty())
    if args.json:
        print(json.dumps(result.summary, indent=2, sort_keys=True))
    else:
        print_summary(result)
        if args.out:
            print(f"results written to {args.out}/ (summary.json, *.parquet, config.yaml, tree.png)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lsmsim", description="Simulate LSM-tree compaction on modeled CPUs and SSDs.",
                                epilog=_EPILOG)
    p.add_argument("--version", action="version", version=f"lsmsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    r = sub.add_parser("run", help="run one experiment config and print its summary",
                       description="Run one experiment YAML and print a summary table.", epilog=_EPILOG)
    r.add_argument("config", help="experiment YAML file")
    r.add_argument("--set", action="append", metavar="PATH=VALUE",
                   help="override a config field, e.g. --set lsm.write_buffer_size=64MiB (repeatable)")
    r.add_argument("-o", "--out", metavar="DIR", help="write summary.json, Parquet tables, config and a tree plot here")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=_cmd_run)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except ConfigError as e:
        print(f"lsmsim: {e}", file=sys.stderr)
        return 2
    except LsmsimError as e:
        print(f"lsmsim: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lsmsim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
