"""`lsmsim ssd replay --all DIR`: every preset of lsmsim/presets/ssd/ on the traces under DIR its `fio_traces` match,
labelled with the drive's state its `steady_traces` give; a table per device, the fitted and held-out traces apart,
and a summary over all devices."""

from __future__ import annotations

from pathlib import Path

from .report import comparison, summary


def _ceiling(rows: list[dict]) -> str:
    """The replay's ceiling line (ceiling.py): how many directions one model could meet at most."""
    from .ceiling import ceiling

    met, total, disagree = ceiling(rows)
    n = sum(len(g) for g in disagree)
    return (
        f"  ceiling: at most {met}/{total} can meet every goal on these recordings ({100 * met / max(total, 1):.1f}%): "
        f"{n} directions in {len(disagree)} groups of recordings of one job as the model sees it disagree beyond the "
        "goals"
    )


def replay_all(args) -> int:
    """`replay --all DIR`: every preset on the traces under DIR its fio_traces match, a table per device, a summary."""
    from .calibrate import compare
    from .profile import load_profile, load_traces, matching, ssd_presets

    root = Path(args.all)
    if not root.is_dir():
        raise ValueError(f"{root}: not a directory")
    totals, seeds_met = [], [0] * args.seeds
    for name, path in ssd_presets().items():
        model, cfg = load_profile(path)
        files = matching(root, cfg.fio_traces)
        if not files:
            continue
        results = load_traces(files, steady=matching(root, cfg.steady_traces))
        rows = compare(model, results, n_ios=args.ios)
        for r in rows:
            r["device"] = name
        print(f"\n== {name} ({len(files)} files under {root}) ==")
        print(comparison(rows))
        print(summary(rows))
        print(_ceiling(rows))
        fitted = {str(f) for f in matching(root, cfg.fit_traces)}
        for r in rows:
            r["held_out"] = bool(fitted) and _source(r["job"]) not in fitted
        if fitted:
            print(f"  fitted:   {summary([r for r in rows if not r['held_out']])}")
            print(f"  held out: {summary([r for r in rows if r['held_out']])}")
        if args.seeds > 1:
            met = _over_seeds(model, results, args, rows)
            seeds_met = [a + b for a, b in zip(seeds_met, met)]
            print(f"  over {args.seeds} seeds' draws: {', '.join(map(str, met))} meet every goal")
        totals += rows
    if not totals:
        print(f"no trace under {root} matches a profile's fio_traces in lsmsim/presets/ssd/")
        return 1
    print(f"\n== all devices ==\n{summary(totals)}\n{_ceiling(totals)}")
    if args.seeds > 1:
        print(f"  over {args.seeds} seeds' draws: {', '.join(map(str, seeds_met))} meet every goal")
    held = [r for r in totals if r["held_out"]]
    if held:
        print(f"held out (traces of presets that list fit_traces, never fitted): {summary(held)}")
    return 0


def _over_seeds(model, results, args, rows) -> list[int]:
    """Directions meeting every goal with the draws of seeds 1..--seeds: seed 1's are the table's `rows`, the others
    simulated again. A score's share of luck."""
    from .calibrate import compare
    from .goals import errors, judge

    def met(rs) -> int:
        return sum(bool(judge(errors(dict(r)))) for r in rs)

    return [met(rows)] + [met(compare(model, results, n_ios=args.ios, seed=s)) for s in range(2, args.seeds + 1)]


def _source(name: str) -> str:
    """'job (path)' -> path."""
    return name[name.index("(") + 1 : name.rindex(")")] if "(" in name else name
