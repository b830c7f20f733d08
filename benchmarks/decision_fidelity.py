"""Decision fidelity (issue 34, 6): does lsmsim rank RocksDB option sets as db_bench does on this host?

    python benchmarks/decision_fidelity.py --record --calibration FILE   # db_bench: every option set x 3 workloads
                                                                         # x 3 runs, after `lsmsim calibrate
                                                                         # --measurements FILE` on a quiet machine
    python benchmarks/decision_fidelity.py [--markdown FILE]   # lsmsim beside the recorded runs: the scores

The option sets, workloads and metrics are lsmsim/validation/fidelity.py's. Recorded runs live in
benchmarks/validation/hosts/<host>-fidelity.json, named after the host they ran on (a time measured on one CPU model
says nothing of another); lsmsim runs on the costs fitted from the calibration the recording keeps (this VM's speed
moves by up to 2x from one day to the next), or on that host's machine preset where it keeps none. Prints, per
workload and metric, Spearman's rank correlation over the option sets, the median and 90th-percentile relative
error, and whether lsmsim's best option set is db_bench's best (or within db_bench's spread of it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lsmsim.preset_files import host_preset, host_preset_name  # noqa: E402

HOSTS = ROOT / "benchmarks" / "validation" / "hosts"


def recorded_path(name: str | None = None) -> Path:
    return HOSTS / f"{name or host_preset_name()}-fidelity.json"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="run db_bench (resumes an interrupted recording)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--calibration",
        type=Path,
        help="with --record: the measurements `lsmsim calibrate --measurements FILE` took just before, kept with the "
        "runs, which are judged on the costs fitted from them",
    )
    ap.add_argument("--host", help="the recorded host's preset name (default: this host's)")
    ap.add_argument("--sets", nargs="*", help="only these option sets")
    ap.add_argument("--markdown", type=Path, help="write the tables as Markdown here")
    ap.add_argument("--csv", type=Path, help="write the per-set table as CSV here")
    args = ap.parse_args(argv)
    from lsmsim.validation import fidelity

    path = recorded_path(args.host)
    if args.record:
        fidelity.record(path, repeat=args.repeat, sets=args.sets, calibration=args.calibration)
        return 0
    import json

    recorded = json.loads(path.read_text())
    machine = args.host or host_preset(recorded["host"]) or host_preset()
    t0 = time.perf_counter()
    names = args.sets or list(recorded["runs"])
    sims = {}
    for name in names:
        sims[name] = fidelity.sim_metrics(name, machine, recorded.get("costs"))
        print(f"  lsmsim {name}", file=sys.stderr, flush=True)
    wall = time.perf_counter() - t0
    fid = fidelity.compare(recorded, sims)
    scores = fid.scores()
    print(scores.to_string(index=False))
    print(f"lsmsim: {len(names)} option sets x {len(fidelity.WORKLOADS)} workloads in {wall:.0f} s; machine {machine}")
    if args.csv:
        fid.table.to_csv(args.csv, index=False)
    if args.markdown:
        old = args.markdown.read_text() if args.markdown.exists() else ""
        name = path.name.removesuffix("-fidelity.json")
        from lsmsim.validation.fidelity_report import markdown, with_section

        args.markdown.write_text(with_section(old, markdown(recorded, fid, machine, name), name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
