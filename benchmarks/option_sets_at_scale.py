"""Option sets a user compares, at a fill where compactions back up: db_bench and lsmsim side by side on this host.

    python benchmarks/option_sets_at_scale.py [--num 5000000] [--repeat 2] [--preset NAME] [--sets base jobs-4]

The decision-fidelity recordings (benchmarks/decision_fidelity.py) fill 500K keys, where the background keeps up
and the scheduling of compactions hardly shows. Here db_bench fillrandom of `--num` keys (the flags of
benchmarks/dbbench_fillrandom.py: 4 MiB buffers and files, 16 MiB L1, no compression) runs under each option set
(`SETS`: buffer size, L0 trigger, background jobs, level multiplier, L1 size), `--repeat` times on a fresh DB, and
lsmsim runs the same line (`formats.dbbench_args`) on machine preset `--preset` (default: the host's). Printed per
set: db_bench's median fill time and Sum W-Amp with their range, lsmsim's, the errors, and Spearman's rank
correlation of each over the sets. First `lsmsim calibrate --check` says whether the preset holds here now: a VM's
speed moves from day to day (lsmsim/validation/host_check.py), and a preset of another day ranks the sets wrongly.

Measured 2026-11-29 on the AMD EPYC host (2 db_bench runs per set, lsmsim on that day's calibration): fill times
-1.6% to +6.1% of db_bench's medians, W-Amp -4.0% to +0.6%, Spearman 0.71 (times) and 0.94 (W-Amp) over the six
sets; before RocksDB's one-compaction-at-a-time scheduling (sim/background.py `compaction_slots`) jobs-4's W-Amp was
+24% (6.60 against 5.33). On the host's preset of the day before, every time was half db_bench's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.dbbench_fillrandom import FLAGS  # noqa: E402

SETS: dict[str, list[str]] = {
    "base": [],
    "buffer-16m": ["--write_buffer_size=16777216"],
    "trigger-8": ["--level0_file_num_compaction_trigger=8"],
    "jobs-4": ["--max_background_jobs=4"],
    "multiplier-5": ["--max_bytes_for_level_multiplier=5"],
    "l1-64m": ["--max_bytes_for_level_base=67108864"],
}


def line(num: int, extra: list[str]) -> list[str]:
    """The db_bench arguments (without --db): FLAGS with the set's flags over them."""
    flags = {a.split("=")[0]: a for a in FLAGS}
    flags.update({a.split("=")[0]: a for a in extra})
    return ["--benchmarks=fillrandom,stats", f"--num={num}", "--statistics=1", *flags.values()]


def real(num: int, extra: list[str]) -> dict:
    from lsmsim.validation.dbbench import run_db_bench

    r = run_db_bench(line(num, extra))
    return {"s": r.seconds["fillrandom"], "w_amp": r.w_amp}


def simulated(num: int, extra: list[str], preset: str | None) -> dict:
    from lsmsim.formats.dbbench_args import dbbench_config
    from lsmsim.loading import load_config
    from lsmsim.sim.simulate import simulate
    from lsmsim.validation.host_disk import host_device

    cfg, _ = dbbench_config(" ".join(line(num, extra)))
    if preset:
        cfg["machine"] = {**cfg.get("machine", {}), "preset": preset}
    cfg["device"] = {**cfg.get("device", {}), "preset": host_device(preset)}  # the host's disk, its syncs
    cfg.setdefault("sim", {})["drain"] = False  # db_bench's figures are taken when the fill ends
    s = simulate(load_config(cfg)).summary
    return {"s": s["measured_time_s"], "w_amp": s["write_amp_rocksdb"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num", type=int, default=5_000_000)
    ap.add_argument("--repeat", type=int, default=2, help="db_bench runs per set (medians and ranges)")
    ap.add_argument("--preset", help="lsmsim's machine preset (default: the host's)")
    ap.add_argument("--sets", nargs="*", choices=list(SETS), help="only these sets")
    ap.add_argument("--no-check", action="store_true", help="skip `lsmsim calibrate --check`")
    a = ap.parse_args()
    from scipy.stats import spearmanr

    from lsmsim.preset_files import host_preset
    from lsmsim.validation.host_check import check, report

    preset = a.preset or host_preset()
    if not a.no_check and preset:
        print(f"host check of machine preset {preset}:\n{report(check(preset))}\n")
    sets = a.sets or list(SETS)
    rows = []
    for name in sets:
        runs = [real(a.num, SETS[name]) for _ in range(a.repeat)]
        sim = simulated(a.num, SETS[name], preset)
        db = {k: statistics.median(r[k] for r in runs) for k in ("s", "w_amp")}
        rows.append((name, runs, db, sim))
        print(
            f"{name:14s} db_bench {db['s']:7.1f} s ({min(r['s'] for r in runs):.1f}-{max(r['s'] for r in runs):.1f}) "
            f"W-Amp {db['w_amp']:.2f} ({min(r['w_amp'] for r in runs):.2f}-{max(r['w_amp'] for r in runs):.2f})   "
            f"lsmsim {sim['s']:7.1f} s ({100 * (sim['s'] / db['s'] - 1):+.1f}%) "
            f"W-Amp {sim['w_amp']:.2f} ({100 * (sim['w_amp'] / db['w_amp'] - 1):+.1f}%)",
            flush=True,
        )
    if len(rows) > 2:
        for k, what in (("s", "fill time"), ("w_amp", "W-Amp")):
            rho = spearmanr([r[2][k] for r in rows], [r[3][k] for r in rows]).statistic
            print(f"Spearman over the sets, {what}: {rho:.2f}")
    print(
        f"lsmsim on machine preset {preset or 'default (the built-in costs)'}, {a.num:,} keys, {a.repeat} db_bench runs"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
