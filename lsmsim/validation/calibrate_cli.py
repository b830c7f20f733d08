"""`lsmsim calibrate`: measure this host with db_bench and write its machine preset, or (--check) judge whether
the host's preset still holds here now."""

from __future__ import annotations

from pathlib import Path


def add_parser(sub, epilog: str):
    """Register `calibrate` on the `lsmsim` sub-parsers."""
    ca = sub.add_parser(
        "calibrate",
        help="measure this host with db_bench and write its machine preset",
        description="Measure this host's CPU costs of RocksDB's work with Debian's db_bench (rocksdb-tools): "
        "the write path with and without the WAL, flushes, compactions at several block sizes and the read path "
        "(gets, misses, seeks with 0/10/100 Next at two cache sizes), and write a machine preset named after the "
        "host's CPU model, cores and memory. Configs without machine.preset then run on it on this host. Beside it, "
        "a device preset of the same name: this host's disk syncs (the WAL's sync latency, the compactions' sync "
        "bandwidth) on local-fio's drive. About 4 minutes on a 2-core VM.",
        epilog=epilog,
    )
    ca.add_argument("--num", type=int, help="writes per fill benchmark (default 1,000,000; with --check 500,000)")
    ca.add_argument(
        "--check",
        action="store_true",
        help="only check, in ~10 s, whether the host's machine preset still holds here now (this VM's speed moves "
        "from day to day): db_bench and lsmsim side by side on two fills; exit 1 when it does not",
    )
    ca.add_argument("--preset", metavar="NAME", help="with --check: the machine preset to check (default: the host's)")
    ca.add_argument("--repeat", type=int, default=2, help="repeats of each benchmark (default 2; medians and means)")
    ca.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="the preset file (default lsmsim/presets/machines/<host>.yaml; the disk's: ../devices/ or FILE-device)",
    )
    ca.add_argument(
        "--measurements",
        type=Path,
        metavar="FILE",
        help="keep db_bench's figures in this JSON file; if it exists, fit from it without running db_bench",
    )
    ca.set_defaults(func=_cmd_calibrate)
    return ca


def _cmd_calibrate(args) -> int:
    import time

    from .calibrate import calibrate

    if args.check:  # exit 1 when the preset does not hold
        from .host_check import run_check

        return run_check(args.preset, args.num)
    t0 = time.perf_counter()
    out = calibrate(num=args.num or 1_000_000, repeat=args.repeat, output=args.output, measurements=args.measurements)
    print(Path(out).read_text())
    from ..preset_files import PRESET_ROOT

    machines, took = PRESET_ROOT / "machines", f"written to {out} in {time.perf_counter() - t0:.0f} s"
    found = Path(out).resolve().parent == machines.resolve()  # -o elsewhere: not a preset lsmsim finds by itself
    print(f"{took}; " + ("a config without machine.preset now runs on it here" if found else f"copy it to {machines}"))
    return 0
