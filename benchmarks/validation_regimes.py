"""The validation matrix's regimes (issue 34, 5): mixed reads and writes, several writers, stalls, the rate limiter
and WAL syncs, on db_bench and on lsmsim side by side.

    python benchmarks/validation_regimes.py --record [--calibration FILE]   # db_bench: calibrate, then 3 runs each
    python benchmarks/validation_regimes.py [--markdown docs/validation.md]  # lsmsim beside the recorded runs
    python benchmarks/validation_regimes.py --refit   # the recording's machine fitted again from its measurements

The regimes, figures and budgets are lsmsim/validation/regimes.py's. Recorded runs live in
benchmarks/validation/hosts/<host>-regimes.json with the calibration measured beside them (this VM's speed drifts
by up to 2x within an hour); lsmsim runs on the costs fitted from that calibration. `--record` needs Debian's
db_bench and a quiet machine: about 3 minutes of calibration (none with --calibration, a `lsmsim calibrate
--measurements` file measured just before) and 10 regimes x 3 runs of 2-12 s.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lsmsim.preset_files import host_preset_name  # noqa: E402

HOSTS = ROOT / "benchmarks" / "validation" / "hosts"


def recorded_path(name: str | None = None) -> Path:
    return HOSTS / f"{name or host_preset_name()}-regimes.json"


def to_markdown(table, recorded: dict, name: str) -> str:
    from lsmsim.validation.contention import mixed_speed_up
    from lsmsim.validation.regimes import REGIMES

    host = recorded["host"]
    sync = recorded["sync_latency_s"]
    judged = table[table["ok"].notna()]
    lines = [
        f"## The matrix's regimes on {host['cpu']}: mixed reads and writes, several writers, stalls, the rate "
        "limiter, WAL syncs",
        "",
        f"Written by `python benchmarks/validation_regimes.py --host {name} --markdown docs/validation.md` "
        "(lsmsim/validation/"
        f"regimes.py). db_bench: {recorded['db_bench']} on {host['cpu']} x {host['cores']} (recorded "
        f"{host['date']}), the mean of {min(len(v) for v in recorded['runs'].values())} runs; *spread* is its own "
        "(max - min) / mean. lsmsim runs on the costs `lsmsim calibrate` measured beside the recording (this VM's "
        f"speed drifts by up to 2x within an hour) and its measured WAL sync ({sync * 1e6:.1f} us). Budgets (issue "
        "34): ops/s and stall time 15%, p99 25%, or db_bench's spread where larger; W-Amp 10%; a level's bytes 15%; "
        f"p99.9 shown. Figures over budget are `KNOWN_GAPS[{name!r}]` in lsmsim/validation/regimes.py, with their "
        "cause.",
        "",
        f"**{int(judged['ok'].sum())} of {len(judged)} judged figures within budget.**",
        "",
        "The calibration beside the runs also measured readrandomwriterandom 50/50 from 2 threads at "
        f"{mixed_speed_up(recorded['calibration'].get('interference', [])):.2f}x one thread, to which it fitted the "
        f"writes' spin in the write thread (machine.cpu.write_wait = {recorded['machine']['cpu'].get('write_wait')};"
        " docs/design.md, 'Writers spin for each other's write groups').",
        "",
    ]
    about = {r.name: r.about for r in REGIMES}
    for name, t in table.groupby("case", sort=False):
        lines += [
            f"### {name}",
            "",
            about[name] + ".",
            "",
            "| figure | db_bench | spread | lsmsim | error | budget | | known gap |",
            "|---|---:|---:|---:|---:|---:|---|---|",
        ]
        for _, r in t.iterrows():
            budget = "" if r["budget"] is None or r["budget"] != r["budget"] else f"{r['budget']:.0%}"
            ok = "" if r["ok"] is None or r["ok"] != r["ok"] else ("ok" if r["ok"] else "**over**")
            spread = "" if r["spread"] != r["spread"] else f"{r['spread']:.0%}"
            lines.append(
                f"| {r['metric']} | {_fmt(r['metric'], r['db_bench'])} | {spread} | {_fmt(r['metric'], r['lsmsim'])} "
                f"| {r['rel_err']:+.1%} | {budget} | {ok} | {r['known_gap']} |"
            )
        lines.append("")
    return "\n".join(lines)


def _fmt(metric: str, x: float) -> str:
    if metric.startswith(("p99_", "p999_")):
        return f"{x * 1e6:,.1f} us"
    if metric.startswith("bytes_written"):
        return f"{x / 2**20:,.1f} MiB"
    return f"{x:,.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="run db_bench (resumes an interrupted recording)")
    ap.add_argument("--calibration", type=Path, help="with --record: calibration measurements to keep, not measure")
    ap.add_argument("--repeat", type=int, default=3, help="db_bench runs per regime when recording (default 3)")
    ap.add_argument("--host", help="the recorded host's preset name (default: this host's)")
    ap.add_argument("--regimes", nargs="*", help="only these regimes")
    ap.add_argument("--markdown", type=Path, help="write the table into this Markdown file's regimes part")
    ap.add_argument(
        "--refit",
        action="store_true",
        help="fit the recording's machine again from its calibration measurements (after the fit gained a figure)",
    )
    args = ap.parse_args(argv)
    from lsmsim.validation import regimes

    path = recorded_path(args.host)
    if args.record:
        regimes.record(path, repeat=args.repeat, names=args.regimes, calibration=args.calibration)
    if not path.exists():
        print(f"{path}: no recorded db_bench runs; run with --record", file=sys.stderr)
        return 2
    recorded = json.loads(path.read_text())
    if args.refit:  # derived from the recorded measurements, which stay as db_bench gave them
        from lsmsim.atomic import atomic_write

        recorded["machine"], recorded["sync_latency_s"] = regimes.calibrated_machine(recorded["calibration"])
        atomic_write(path, lambda p: Path(p).write_text(json.dumps(recorded, indent=1)))
    t0 = time.perf_counter()
    name = regimes.host_name(path)
    table = regimes.compare_all(recorded, args.regimes, regimes.KNOWN_GAPS.get(name, {}))
    wall = time.perf_counter() - t0
    import pandas as pd

    with pd.option_context("display.width", 170, "display.max_rows", 500, "display.max_colwidth", 40):
        print(table.drop(columns=["known_gap"]).to_string(index=False, float_format=lambda x: f"{x:,.4g}"))
    judged = table[table["ok"].notna()]
    print(f"\n{int(judged['ok'].sum())} of {len(judged)} judged figures within budget; lsmsim {wall:.1f} s")
    if args.markdown:
        from lsmsim.validation.report import put_section

        old = args.markdown.read_text() if args.markdown.exists() else ""
        args.markdown.write_text(put_section(old, f"regimes:{name}", to_markdown(table, recorded, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
