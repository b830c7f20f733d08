"""The `lsmsim` command: parses arguments, calls the API, prints. No simulation logic here."""

from __future__ import annotations

import sys

try:  # Ctrl-C while the command starts, before `main` handles it: one line and 130, no traceback
    import argparse
    import json
    import math
    import os
    from pathlib import Path

    from . import __version__
    from .errors import LsmsimError
except KeyboardInterrupt:
    sys.stderr.write("lsmsim: interrupted\n")
    raise SystemExit(130) from None

_EPILOG = "Config reference: `lsmsim config` (docs/config-reference.md); summary keys: README.md."


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
    from .sim.counters import OPS

    s = result.summary
    w = lambda *a: print(*a, file=file)  # noqa: E731
    w(
        f"== {getattr(result.config, 'name', 'run')} ({getattr(getattr(result.config, 'policy', None), 'name', '?')}): "
        f"{s['sim_time_s']:.2f} simulated s ({s['measured_time_s']:.2f} s measured)"
    )
    if not s.get("completed", True):
        w(f"   WARNING: sim.max_time ({result.config.sim.max_time:g} s) ended the run before its phases finished")
    for text in filter(None, s.get("warnings", "").split(" | ")):
        print(f"lsmsim: warning: {text}", file=sys.stderr)
    w("throughput (ops/s)")
    for op in OPS:
        if s.get(f"ops_{op}", 0) > 0:
            n = s.get(f"measured_ops_{op}", s[f"ops_{op}"])  # measured phases only (not a load's inserts)
            w(f"  {op:<12}{s[f'throughput_{op}_ops_per_s']:>14,.0f}   ({n:,.0f} ops measured)")
    w(f"  {'total':<12}{s['throughput_ops_per_s']:>14,.0f}")
    phases = [k[6:-10] for k in s if k.startswith("phase_") and k.endswith("_ops_per_s") and f"{k[:-10]}_stall_s" in s]
    if phases:  # one line per measured phase, as db_bench prints one per benchmark (us/op: 1e6 / ops/s)
        w("phases (measured)      ops/s      us/op   stall s   by type (ops/s)")
        for ph in phases:
            r, kinds = s[f"phase_{ph}_ops_per_s"], [op for op in OPS if f"phase_{ph}_{op}_ops_per_s" in s]
            by = ", ".join(f"{op} {s[f'phase_{ph}_{op}_ops_per_s']:,.0f}" for op in kinds) if len(kinds) > 1 else ""
            w(f"  {ph:<14}{r:>13,.0f}{1e6 / r if r else float('nan'):>11.2f}{s[f'phase_{ph}_stall_s']:>10.2f}   {by}")
    # from the summary's latency_<op>_<stat>_s keys (in the latency table's order), so printing needs no pandas
    lat_ops = [k[len("latency_") : -len("_mean_s")] for k in s if k.startswith("latency_") and k.endswith("_mean_s")]
    if lat_ops:
        w("latency        mean        p50        p99      p99.9")
        for op in lat_ops:
            w(
                f"  {op:<10}"
                + "".join(f"{_human_latency(s[f'latency_{op}_{c}_s']):>11}" for c in ("mean", "p50", "p99", "p999"))
            )
    w("amplification")
    w(
        f"  write-amp        {s['write_amp']:.3f}  (flush {s['write_amp_flush']:.3f} + compaction "
        f"{s['write_amp_compaction']:.3f}; RocksDB 'Sum' W-Amp {s['write_amp_rocksdb']:.3f})"
    )
    w(f"  space-amp        {s['space_amp']:.3f}  (peak {s['space_amp_peak']:.3f})")
    w("stalls and utilisation")
    w(f"  write stop       {s['stall_stop_s']:.2f} s, slowdown {s['stall_slowdown_s']:.2f} s")
    w(
        f"  CPU              {100 * s['cpu_util']:.1f}%  (flush {100 * s['cpu_util_flush']:.1f}%, compaction "
        f"{100 * s['cpu_util_compaction']:.1f}%, foreground {100 * s['cpu_util_foreground']:.1f}%)"
    )
    w(
        f"  device           {100 * s['device_util']:.1f}%  ({s['device_host_write_bytes'] / 2**30:.2f} GiB written, "
        f"{s['device_host_read_bytes'] / 2**30:.2f} GiB read)"
    )
    w(f"jobs: {s['flushes']} flushes, {s['compactions']} compactions, {s['trivial_moves']} trivial moves")
    levels = [k for k in s if k.startswith("files_L")]
    w(
        "final tree: "
        + ", ".join(
            f"L{k[7:]} {s['runs_L' + k[7:]]} runs/{s[k]} files/{s['bytes_L' + k[7:]] / 2**20:.1f} MiB"
            for k in levels
            if s[k]
        )
    )


def _cmd_run(args) -> int:
    from .api import run
    from .formats.inputs import config_source

    config = config_source(args.config, args.ycsb, args.dbbench)
    result = run(config, overrides=args.set or [], out=args.out, progress=not args.quiet and sys.stderr.isatty())
    if args.json:
        from .result import summary_json

        print(summary_json(result.summary))
    else:
        print_summary(result)
        if args.ycsb:  # YCSB's own [OVERALL] / [READ] lines too
            from .formats.ycsb_report import ycsb_lines

            print(ycsb_lines(result.summary))
        if args.out:
            print(f"results written to {args.out}/ (summary.json, *.parquet, config.yaml, LOG, tree.png)")
    return 0


def _cmd_sweep(args) -> int:
    from .sweeps import load_sweep, run_sweep
    from .sweeps.runner import default_out

    sw = load_sweep(args.file, args.scale)
    if args.dry_run:
        import pandas as pd

        with pd.option_context("display.max_rows", None, "display.width", 200, "display.max_colwidth", 60):
            print(f"{sw.name}: {len(sw.points)} points -> {args.out or default_out(sw)}/")
            print(sw.table().to_string(index=False))
        return 0
    done = run_sweep(
        sw, out=args.out, jobs=args.jobs, executor=args.executor, scheduler=args.scheduler, progress=not args.quiet
    )
    print(
        f"{sw.name}: {len(sw.points)} points, {done.ran} run, {done.skipped} already done, "
        f"{done.failed} failed -> {done.store.root}/results.parquet"
    )
    from .compare import sweep_table

    print(sweep_table(done.table, list(dict.fromkeys(k for p in sw.points for k in p.params))))
    if done.failed:
        for _, row in done.table[done.table["status"] == "failed"].iterrows():
            print(
                f"  failed {row['point_id']}: {row['error']}  (traceback: {done.store.failed}/{row['point_id']}.json)",
                file=sys.stderr,
            )
        return 1
    return 0


def _cmd_figures(args) -> int:
    from .figures import all_figures, make_figures
    from .figures.registry import experiments_dir

    if args.list:
        for fid, spec in all_figures().items():
            print(f"{fid:18s} {spec.title}  [{spec.paper}; experiments/{spec.sweep}]")
        return 0
    experiments_dir()  # fail early, with the hint, when the sweeps are not at hand
    written = make_figures(
        args.only,
        out=args.out,
        scale=args.scale,
        results=args.results,
        jobs=args.jobs,
        executor=args.executor,
        scheduler=args.scheduler,
        progress=not args.quiet,
    )
    print(f"{len(written) // 3} figure(s) written to {args.out}/")
    return 0


def _cmd_validate(args) -> int:
    from .validation.validate import validate

    v = validate(
        args.config,
        overrides=args.set or [],
        out=args.out,
        db_dir=args.db_dir,
        sample_every=args.sample_every,
        driver=True if args.driver else None,
        match_rate=not args.own_rate,
        force=args.force,
    )
    t = v.table
    print(f"{'metric':24s} {'RocksDB':>16s} {'lsmsim':>16s} {'error':>8s}")
    for _, r in t.iterrows():
        err = "-" if r.rel_err != r.rel_err else f"{100 * r.rel_err:+.1f}%"
        print(f"{r.metric:24s} {_fmt(r.real):>16s} {_fmt(r.sim):>16s} {err:>8s}")
    if args.own_rate:
        print("(throughput: the RocksDB side is driven from Python, about 2-4 us per operation of interpreter time)")
    else:
        print("(the simulator wrote at the rate the real client reached; --own-rate lets it run at its modeled speed)")
    if args.out:
        print(f"written to {args.out}/ (comparison.parquet, real/, sim/, runs.png)")
    return 0


def _cmd_headroom(args) -> int:
    from .headroom import headroom

    h = headroom(args.config, args.set or [], searches=args.searches, progress=not args.quiet and sys.stderr.isatty())
    t = h.table()
    for _, r in t.iterrows():
        print(f"{r.figure:34s} {_fmt(r.value):>12s}  {r.note}")
    if args.out:
        from .atomic import atomic_write

        out = Path(args.out)
        atomic_write(out / "headroom.csv", lambda p: t.to_csv(p, index=False))
        h.plot(out / "headroom.png")
        print(f"written to {out}/ (headroom.csv, headroom.png)")
    return 0


def _cmd_config(args) -> int:
    from .schema import json_schema, reference_markdown

    if args.schema:
        print(json.dumps(json_schema(), indent=2))
    else:
        sys.stdout.write(reference_markdown())
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lsmsim", description="Simulate LSM-tree compaction on modeled CPUs and SSDs.", epilog=_EPILOG
    )
    p.add_argument("--version", action="version", version=f"lsmsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    r = sub.add_parser(
        "run",
        help="run one experiment config and print its summary",
        description="Run one experiment YAML and print a summary table.",
        epilog=_EPILOG,
    )
    from .formats.inputs import add_arguments

    add_arguments(r)
    r.add_argument("-o", "--out", metavar="DIR", help="write summary.json, Parquet tables, config and a tree plot here")
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=_cmd_run)

    sw = sub.add_parser(
        "sweep",
        help="run a sweep YAML (grid, zip, seeds, variants); resumes",
        description="Expand a sweep YAML (a config plus a `sweep:` section) into points, run the "
        "ones not finished yet and write results/<sweep>/results.parquet (one row "
        "per point) plus one folder per point. Exit 1 if a point failed.",
        epilog=_EPILOG,
    )
    sw.add_argument("file", help="sweep YAML")
    sw.add_argument("--dry-run", action="store_true", help="list the points and exit")
    sw.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default: all cores)")
    sw.add_argument(
        "--executor",
        choices=("local", "dask"),
        default="local",
        help="local processes, or Dask distributed (default: local)",
    )
    sw.add_argument(
        "--scheduler",
        metavar="ADDR",
        help="Dask scheduler address, e.g. tcp://host:8786 (default: a LocalCluster of --jobs workers)",
    )
    sw.add_argument("--scale", help="a named scale of the sweep (its `scales:` section)")
    sw.add_argument("-o", "--out", metavar="DIR", help="results folder (default: results/<sweep name>)")
    sw.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    sw.set_defaults(func=_cmd_sweep)

    fg = sub.add_parser(
        "figures",
        help="regenerate paper figures and tables (PNG, PDF and CSV)",
        description="Run the sweeps behind registered paper figures (skipping finished points) "
        "and write <id>.png, <id>.pdf and <id>.csv for each.",
        epilog=_EPILOG,
    )
    fg.add_argument("--list", action="store_true", help="list the registered figures and exit")
    fg.add_argument("--only", nargs="+", metavar="ID", help="just these figures (see --list)")
    fg.add_argument("--out", default="figures", metavar="DIR", help="where the figures go (default: figures/)")
    fg.add_argument(
        "--scale",
        default="quick",
        choices=("quick", "default", "paper"),
        help="quick: minutes on 2 cores (CI); default: the sweeps as written; paper: the papers' "
        "setting (hours). Default: quick",
    )
    fg.add_argument(
        "--results",
        default="results",
        metavar="DIR",
        help="sweep results go to DIR/<sweep>-<scale>/ (default: results/)",
    )
    fg.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default: all cores)")
    fg.add_argument("--executor", choices=("local", "dask"), default="local")
    fg.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address (default: a LocalCluster)")
    fg.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    fg.set_defaults(func=_cmd_figures)

    va = sub.add_parser(
        "validate",
        help="run a config on real RocksDB and on the simulator, side by side",
        description="Run the config's workload on real RocksDB 7.8 (Debian's librocksdb, through "
        "the ctypes bridge) with the same options, and on the simulator; print "
        "write-amp, flush and compaction bytes, compactions, files and bytes per "
        "level, sorted runs, stalls, peak table-file bytes (and the bytes only older versions "
        "hold) and throughput with relative errors. leveled and "
        "universal run on RocksDB's own pickers; other policies (tiering, lazy_leveling, "
        "moose, full_leveling) through the policy driver: the lsmsim policy picks, "
        "CompactFiles executes.",
        epilog=_EPILOG,
    )
    va.add_argument("config", help="experiment YAML (see experiments/validation/)")
    va.add_argument("--set", action="append", metavar="PATH=VALUE", help="override a config field (repeatable)")
    va.add_argument("-o", "--out", metavar="DIR", help="save both runs (Parquet), the table and runs.png here")
    va.add_argument("--db-dir", metavar="DIR", help="where the temporary RocksDB goes (default: the system temp dir)")
    va.add_argument("--force", action="store_true", help="run even if the DB may outgrow the folder's free space")
    va.add_argument(
        "--sample-every",
        type=int,
        metavar="OPS",
        help="live-file samples every OPS operations (default: 1%% of the operations)",
    )
    va.add_argument(
        "--own-rate",
        action="store_true",
        help="let the simulator write at its own modeled speed (default: at the real client's rate)",
    )
    va.add_argument(
        "--driver",
        action="store_true",
        help="run a leveled config through the policy driver too (lsmsim's picker on the real DB)",
    )
    va.set_defaults(func=_cmd_validate)

    hr = sub.add_parser(
        "headroom",
        help="how far a config is from a write stall, its peak space and SSD wear",
        description="Run a config and report when writes first slow down and stop (and why), the highest "
        "write rate its write-only phases sustain without a stall (bisection over runs at fixed rates), the "
        "peak physical space (compaction outputs in flight included) and, on an SSD with an FTL, the wear per "
        "TB ingested; -o adds headroom.csv and headroom.png (each over time).",
        epilog=_EPILOG,
    )
    hr.add_argument("config", help="experiment YAML file")
    hr.add_argument("--set", action="append", metavar="PATH=VALUE", help="override a config field (repeatable)")
    hr.add_argument("--searches", type=int, default=7, help="runs to bisect the stall-free rate with (default 7)")
    hr.add_argument("-o", "--out", metavar="DIR", help="write headroom.csv and headroom.png here")
    hr.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    hr.set_defaults(func=_cmd_headroom)

    cf = sub.add_parser(
        "config",
        help="the config reference: every YAML field, its type and default",
        description="Print the configuration reference generated from the pydantic models "
        "(Markdown, as docs/config-reference.md), or the JSON schema.",
    )
    cf.add_argument("--schema", action="store_true", help="print the JSON schema instead")
    cf.add_argument("--reference", action="store_true", help="print the Markdown reference (the default)")
    cf.set_defaults(func=_cmd_config)

    from . import runs_cli
    from .formats import options_cli
    from .policies.ecotune import solve_cli
    from .ssd import cli as ssd_cli
    from .tuning import tune_cli
    from .tuning.camal import cli as camal_cli
    from .validation import calibrate_cli

    ssd_cli.add_parser(sub)
    calibrate_cli.add_parser(sub, _EPILOG)
    options_cli.add_parsers(sub)
    runs_cli.add_parsers(sub)
    camal_cli.add_parser(sub)
    tune_cli.add_parser(sub)
    eco = solve_cli.add_parser(sub)
    if eco.get_default("func") is None:
        eco.set_defaults(func=lambda a: (eco.print_help(), 2)[1])
    return p


def _crash_report(exc: BaseException) -> Path | None:
    """Write the traceback of an unexpected error to a file; its path, or None if none could be written."""
    import tempfile
    import time
    import traceback

    path = Path(tempfile.gettempdir()) / f"lsmsim-crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    try:
        path.write_text("".join(traceback.format_exception(exc)) + f"\nargv: {sys.argv}\n")
    except OSError:
        return None
    return path


def _run(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (ValueError, OSError) as e:  # bad files given to ssd commands, and the like
        print(f"lsmsim: {e}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    """The `lsmsim` command. Exit 0 on success, 2 on bad input (one line naming it), 130 on Ctrl-C, 1 on an
    internal error (one line, the traceback in a report file)."""
    try:
        return _run(argv)
    except LsmsimError as e:  # ConfigError included: names the YAML path and what is allowed
        print(f"lsmsim: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lsmsim: interrupted", file=sys.stderr)
        return 130
    except RecursionError as e:
        print(f"lsmsim: input nested too deeply ({e})", file=sys.stderr)
        return 2
    except Exception as e:  # last resort: a bug of ours, never a traceback on the terminal
        report = _crash_report(e)
        where = f"; the traceback is in {report}" if report else ""
        print(f"lsmsim: internal error: {type(e).__name__}: {e}{where}", file=sys.stderr)
        return 1


def entry() -> None:
    """The console script (and `python -m lsmsim.cli`): `main`, then leave without the interpreter's teardown."""
    from .fast_exit import leave

    leave(main())


if __name__ == "__main__":
    entry()
