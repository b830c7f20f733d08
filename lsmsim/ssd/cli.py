"""`lsmsim ssd calibrate` and `lsmsim ssd replay`: fit the drive model to fio results, and print
measured vs simulated per trace and per device."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import units as U
from .replay_all import replay_all
from .report import comparison, summary, table

# what a drive in steady state is to the model (timing.gc_write_amp)
STATE = "(written over: its write buffer or SLC cache spent, GC at work; replay --all: each preset's steady_traces)"


def _labelled(results: list, state: str) -> list:
    """fio results labelled with the drive's state when they were recorded (FioJobResult.drive_state)."""
    from dataclasses import replace

    return [replace(r, drive_state=state) for r in results]


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a whole number of at least 1")
    return n


def _progress(u, cost, start=None):
    at = f", start {start}" if start else ""
    print(f"  units={u}{at}: cost {cost:.4f}", file=sys.stderr, flush=True)


def _start_at(pairs: list[str] | None) -> dict:
    """--start PARAM=VALUE pairs as starting values (calibrate.BOUNDS names, SI units)."""
    from .calibrate import BOUNDS

    out = {}
    for kv in pairs or ():
        k, _, v = kv.partition("=")
        if k not in BOUNDS:
            raise ValueError(f"--start {k}: not a fitted parameter (allowed: {', '.join(BOUNDS)})")
        try:
            out[k] = float(v)
        except ValueError:
            raise ValueError(f"--start {kv}: the value is not a number (SI units, e.g. read_bandwidth=3e9)") from None
    return out


def cmd_calibrate(args) -> int:
    from dataclasses import replace

    import yaml

    from ..atomic import atomic_write
    from . import engines, holdout
    from .calibrate import BOUNDS, FLAGS, OPT_IN, changed_state, compare, fit
    from .goals import GOALS
    from .profile import load_traces, to_device, trace_files

    steady = trace_files(args.steady or [])
    given = {t.resolve() for t in trace_files(args.traces)}
    if unknown := sorted(str(f) for f in steady if f.resolve() not in given):
        raise ValueError(f"--steady: {', '.join(unknown)} not among the traces given (give some of them)")
    results = load_traces(args.traces, tuple(args.exclude), steady=steady)
    train, held, per_axis = holdout.split(results, holdout.parse_axes(args.holdout))
    fixed = dict(kv.split("=", 1) for kv in args.fix or [])
    bad = [k for k in fixed if k not in BOUNDS and k not in FLAGS]
    if bad:
        raise ValueError(f"--fix {', '.join(bad)}: not a model parameter (allowed: {', '.join([*BOUNDS, *FLAGS])})")
    switches = {"1": True, "true": True, "0": False, "false": False}
    bad = [f"{k}={v}" for k, v in fixed.items() if k in FLAGS and v.strip().lower() not in switches]
    if bad:
        raise ValueError(f"--fix {', '.join(bad)}: a switch takes 1 or 0 (true or false)")
    fixed = {k: (switches[v.strip().lower()] if k in FLAGS else float(v)) for k, v in fixed.items()}
    also = tuple(args.also or ())
    if set(also) - OPT_IN:
        raise ValueError(f"--also {', '.join(sorted(set(also) - OPT_IN))}: allowed {', '.join(sorted(OPT_IN))}")
    units = tuple(int(x) for x in args.units.split(",")) if args.units else None
    kept = f" (held out to judge the fit: {len(held)}, by {_by(per_axis)})" if held else ""
    print(f"fitting {len(train)} of {len(results)} fio jobs{kept} ...", file=sys.stderr)
    if changed := [r for r in train if changed_state(r)]:
        print(
            f"  not fitted: {len(changed)} runs whose IOPS differ from those of their last seconds (fio's steadystate "
            f"window) by more than {GOALS['iops']:.0%}: the drive changed state during them",
            file=sys.stderr,
        )
    main, drive_jobs, others = engines.split(train)
    if others:
        rest = ", ".join(f"{e or 'unnamed'} ({len(j)} jobs)" for e, j in sorted(others.items()))
        print(
            f"  the drive fitted on the {len(drive_jobs)} {main or 'unnamed'} jobs; then, with it held, the host cost "
            f"of {rest}",
            file=sys.stderr,
        )
    f = fit(
        drive_jobs,
        fixed=fixed,
        progress=_progress,
        also=also,
        starts=args.starts,
        start_at=_start_at(getattr(args, "start", None)),
        robust=bool(getattr(args, "robust", False)),
        **({"units": units} if units else {}),
    )
    model = replace(f.model, engine=main)
    if getattr(args, "write_order", False):
        model = write_order(model, drive_jobs)
    model = host_queues(model, drive_jobs)
    if getattr(args, "goal_polish", False):
        from . import goal_polish

        p = goal_polish.polish(model, drive_jobs, [*f.fitted, "units"], progress=goal_polish.progress)
        print(goal_polish.report(p))
        model = p.model
    if others:
        if text := engines.unseen_ceiling(main, compare(model, drive_jobs)):
            print(text, file=sys.stderr)
        model, costs = engines.fit_engines(model, others)
        for name, host, r_over, w_over in model.engines:
            print(
                f"ioengine {name}: host_per_io {host * 1e6:.3g}us, read_overhead {r_over * 1e6:.3g}us, write_overhead "
                f"{w_over * 1e6:.3g}us (the {main} jobs': {model.host_per_io * 1e6:.3g}, "
                f"{model.read_overhead * 1e6:.3g}, {model.write_overhead * 1e6:.3g}us; fit cost {costs[name]:.3g})"
            )
    source = f"lsmsim ssd calibrate from {len(train)} fio jobs" + (f", {len(held)} more held out" if held else "")
    dev = to_device(model, source, args.capacity, args.fio_traces, getattr(args, "fit_traces", None))
    atomic_write(Path(args.output), lambda p: Path(p).write_text(yaml.safe_dump(dev, sort_keys=False)))
    print(f"profile written to {args.output}: {model.units} parallel units (cost by units: {f.units_costs})")
    rows = [
        {"parameter": k, "value": float(getattr(f.model, k)), "lo": lo, "hi": hi, "status": status}
        for k, status in [(k, f"fitted ({len(f.constrained_by[k])} traces)") for k in f.fitted]
        + [(k, "default (no trace constrains it)") for k in f.defaults]
        + [(k, "fixed (--fix)") for k in fixed]
        for lo, hi in [BOUNDS.get(k, (0, 1))[:2]]  # a switch (FLAGS): 0 or 1
    ]
    print(
        table(
            rows,
            [
                ("parameter", "parameter", "s"),
                ("value", "value", ".4g"),
                ("lo", "min", ".3g"),
                ("hi", "max", ".3g"),
                ("status", "", "s"),
            ],
        )
    )
    rows = compare(model, train)
    print(f"\nfitted on ({len(train)} jobs):")
    print(comparison(rows))
    print(summary(rows))
    if held:
        rows = compare(model, held)
        print(f"\nheld out, never fitted ({len(held)} jobs, by {_by(per_axis)}):")
        print(comparison(rows))
        print(summary(rows))
    else:
        print("\nheld out: none (no series of three or more queue depths, mixes or job counts; or --holdout none)")
    return 0


def write_order(model, results):
    """The model with the write order (lsmsim/ssd/order.py) that meets the most goals on `results`; says which."""
    from . import order

    def progress(k, _n, c, met, cost):
        if k % 10 == 0:
            print(f"  write order: {k} candidates tried", file=sys.stderr)

    best, tried = order.search(model, results, progress=progress)
    if tried:
        base = next(t for t in tried if t[0]["write_window"] == 1 and t[0]["map_update_time"] == 0)
        met = max(t[1] for t in tried)
        print(
            f"write order: write_window {best.write_window}, map_update_time {best.map_update_time * 1e6:.3g}us, "
            f"map_update_backlog {best.map_update_backlog * 1e6:.3g}us: {met} directions meet every goal "
            f"({base[1]} in submission order), of {len(tried)} candidates"
        )
    return best


def host_queues(model, results):
    """The model with the submitting thread's move interval (lsmsim/ssd/host_queues.py) that meets the most goals on
    the jobs of `results` deeper than the drive's command slots; says which. Without such jobs: the model as is."""
    from . import host_queues as hq

    best, tried = hq.search(model, results)
    if tried:
        base = next(t for t in tried if t[0]["sq_move_interval"] == 0)
        print(
            f"submission queues: the thread moves every {best.sq_move_interval * 1e3:.3g}ms among {best.sq_count}: "
            f"{max(t[1] for t in tried)} directions of the {len(hq.backlogged(model, results))} jobs deeper than "
            f"{round(model.command_slots)} command slots meet every goal ({base[1]} with one queue), of {len(tried)} "
            "intervals"
        )
    return best


def _engine_note(model, specs) -> None:
    from .engines import note

    if text := note(model, [s.ioengine or "" for s in specs]):
        print(text)


def _by(per_axis: dict[str, int]) -> str:
    names = {"qd": "queue depth", "mix": "read/write mix", "jobs": "job count"}
    return ", ".join(f"{names[a]} {n}" for a, n in per_axis.items() if n) or "-"


def cmd_replay(args) -> int:
    from .calibrate import compare, job_of
    from .fio import load_result, parse_jobfile
    from .profile import load_profile, load_traces
    from .timing import fio_job

    if args.all:
        return replay_all(args)
    if not args.profile or not args.jobfile:
        raise ValueError("replay: give PROFILE and JOBFILE (or --all DIR)")
    model, _ = load_profile(args.profile)
    jf = Path(args.jobfile)
    if jf.suffix in (".json", ".txt") or jf.is_dir():  # fio results: compare them directly
        results = load_traces([jf])
        rows = compare(model, _labelled(results, args.state), n_ios=args.ios)
        print(comparison(rows))
        print(summary(rows))
        _engine_note(model, [r.spec for r in results])
        return 0
    specs = parse_jobfile(jf)
    measured = args.measured or [
        p for p in (jf.parent / "traces" / f"{jf.stem}.json", jf.with_suffix(".json")) if p.is_file()
    ]
    if measured:
        names = {s.name for s in specs}
        results = [r for m in measured for r in load_result(m) if r.directions]
        rows = compare(model, _labelled([r for r in results if r.name in names] or results, args.state), n_ios=args.ios)
        print(f"{jf} on {args.profile}, against {', '.join(map(str, measured))}")
        print(comparison(rows))
        print(summary(rows))
        _engine_note(model, specs)
        return 0
    print(f"{jf} on {args.profile} (no fio result to compare with; give --measured)")
    rows = []
    for s in specs:
        p = fio_job(model, job_of(s, None, args.state), args.ios)
        for d in p.iops:
            rows.append(
                {
                    "job": s.name,
                    "direction": d,
                    "qd": s.iodepth * s.numjobs,
                    "bw_mb": p.bandwidth[d] / 1e6,
                    "iops": p.iops[d],
                    "p50_us": p.get(d, "p50") * 1e6,
                    "p99_us": p.get(d, "p99") * 1e6,
                }
            )
    print(
        table(
            rows,
            [
                ("job", "job", "s"),
                ("direction", "dir", "s"),
                ("qd", "qd", "d"),
                ("bw_mb", "MB/s", ".1f"),
                ("iops", "IOPS", ",.0f"),
                ("p50_us", "p50 us", ".1f"),
                ("p99_us", "p99 us", ".1f"),
            ],
        )
    )
    _engine_note(model, specs)
    return 0


def add_parser(sub):
    ssd = sub.add_parser(
        "ssd",
        help="SSD model: fit it to fio traces, replay fio jobs on it",
        description="Calibrate the SSD timing model from fio results and replay fio jobs on it.",
    )
    ssd_sub = ssd.add_subparsers(dest="ssd_command", metavar="SUBCOMMAND")
    c = ssd_sub.add_parser(
        "calibrate",
        help="fit the drive model to fio json/json+ results",
        description="Fit the drive model (lsmsim/ssd/timing.py) to fio results (files, or directories "
        "searched for *.json and *.txt) and write a device profile usable as `device:` in a config. "
        "Parameters no trace constrains keep their defaults; a fit that puts a parameter at its "
        "bound is refused. Some jobs are held out of the fit (--holdout) and the model is judged on them apart. "
        "Traces of several fio ioengines: the drive is fitted on the jobs of the engine with most of them, then each "
        "other engine's host cost (CPU per request, fixed parts) with the drive held (lsmsim/ssd/engines.py).",
    )
    c.add_argument("traces", nargs="+", help="fio --output-format=json or json+ files, or directories of them")
    c.add_argument("-o", "--output", required=True, help="profile YAML to write")
    c.add_argument(
        "--capacity",
        type=U.parse_size,
        default=U.parse_size("256GB"),
        help="logical capacity to record (default 256GB)",
    )
    c.add_argument("--exclude", nargs="*", default=["layout"], help="job names to leave out (default: layout)")
    c.add_argument("--steady", nargs="*", help="of the traces, those recorded with the drive in steady state " + STATE)
    c.add_argument(
        "--fix",
        nargs="*",
        metavar="PARAM=VALUE",
        help="hold model parameters (SI units) at these values; the switches program_first and program_suspend take "
        "1 or 0",
    )
    c.add_argument("--units", help="candidate numbers of parallel units, comma-separated (default: a search)")
    c.add_argument(
        "--also",
        nargs="*",
        metavar="PARAM",
        help="fit these parameters too, held at their defaults unless named: write_command_share (write commands "
        "that overlap in the controller), write_unit and subunit_write_time (a program unit small writes are merged "
        "into; fitting write_unit starts it at 4 KiB, where a drive without the effect is refused at that bound: "
        "rather --fix write_unit=<bytes> and --also subunit_write_time), fast_read_fraction and fast_read_time (data "
        "in the SLC region), partial_read_time (4 KiB reads that read part of a page), shared_read_bandwidth and "
        "shared_write_bandwidth (a controller stage reads' and programs' data share: mixes that move the harmonic "
        "mean of the pure rates)",
    )
    c.add_argument(
        "--starts",
        type=_positive_int,
        default=1,
        help="fit the best number of units again from this many starting points and keep the best (default 1: the "
        "estimates only; 2 adds the traces' own write rate, more add random points within a factor e)",
    )
    c.add_argument(
        "--start",
        nargs="*",
        metavar="PARAM=VALUE",
        help="start the fit from these values (SI units) rather than the traces' estimates: a region found by hand",
    )
    c.add_argument(
        "--robust",
        action="store_true",
        help="misses past 15%% weigh in linearly, not squared (soft_l1 loss): a few figures no parameter reaches (a "
        "host hiccup, fio's widest tails) do not drag the fit away from the rest",
    )
    c.add_argument(
        "--write-order",
        action="store_true",
        help="after the fit, search the order random writes are served in (write_window, map_update_time, "
        "map_update_backlog: lsmsim/ssd/order.py) on the fitted jobs: about 100 replays of them",
    )
    c.add_argument(
        "--goal-polish",
        action="store_true",
        help="after the fit, step each fitted parameter (and the units) while more fitted directions meet every goal "
        "of the replay, or as many at a lower cost (lsmsim/ssd/goal_polish.py): a few hundred replays of them",
    )
    c.add_argument(
        "--holdout",
        default="qd,mix,jobs",
        metavar="AXES",
        help="keep jobs out of the fit and judge the model on them apart: along each axis (qd, mix, jobs), in "
        "every series of 3+ values of jobs otherwise alike, every other interior value (default qd,mix,jobs; "
        "none fits every job)",
    )
    c.add_argument(
        "--fio-traces", nargs="*", default=[], help="trace globs to record in the profile (for replay --all)"
    )
    c.add_argument(
        "--fit-traces",
        nargs="*",
        default=[],
        help="of those, the globs the fit saw: replay --all scores the rest as held out",
    )
    c.set_defaults(func=cmd_calibrate)
    rp = ssd_sub.add_parser(
        "replay",
        help="run fio jobs on the model, compare with fio's results",
        description="Predict fio jobs' bandwidth, IOPS and latency percentiles on a device profile and, "
        "with fio results, print measured vs simulated with relative errors. JOBFILE is a fio job file "
        "(results: --measured, or traces/<job>.json beside it) or fio result files / a directory. "
        "--all DIR replays every trace under DIR on the lsmsim/presets/ssd/ profile whose fio_traces "
        "match it, one table per device and a summary. Not judged: host (the model's submitting threads are busy "
        "over 90% of the time) and state (fio's steady-state window says the drive changed state during the run).",
    )
    rp.add_argument("profile", nargs="?", help="device profile YAML (from `lsmsim ssd calibrate` or a preset file)")
    rp.add_argument("jobfile", nargs="?", help="fio job file, fio result file or directory of results")
    rp.add_argument("--measured", nargs="*", help="fio json results of that job")
    rp.add_argument("--all", metavar="DIR", help="replay every trace under DIR on the matching preset")
    rp.add_argument("--ios", type=int, default=40000, help="requests simulated per job (default 40000)")
    rp.add_argument(
        "--state",
        choices=("fresh", "steady"),
        default="fresh",
        help="the drive's state when the traces were recorded " + STATE,
    )
    rp.add_argument(
        "--seeds",
        type=_positive_int,
        default=1,
        help="with --all: also count the directions meeting every goal with the draws of seeds 1..N (the table's "
        "are seed 1's), to see how much of a score is the simulation's luck (default 1)",
    )
    rp.set_defaults(func=cmd_replay)
    ssd.set_defaults(func=lambda a: (ssd.print_help(), 2)[1])
    return ssd
