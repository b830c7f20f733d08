"""Calibrate lsmsim's CPU costs (machine.cpu) on this machine against db_bench, and write a machine preset.

    python scripts/calibrate_cpu.py --name epyc-2vcpu [--num 1000000] [--reads 100000]

Runs Debian's db_bench (rocksdb-tools 7.8.3) with --threads=1, --statistics and no compression:

1. fillrandom at three entry sizes (16-byte keys; 100, 400 and 1,000-byte values), with and without
   the WAL. Per write: (benchmark seconds - rocksdb.stall.micros) / writes; the WAL's share is the
   difference of the two. Compactions: each compaction_finished event of the LOG gives its CPU
   micros, input records and (from compaction_started) input bytes; a least-squares line through
   all of them gives CPU per merged entry, per input byte and per data block read or written (more
   fillrandom runs at 1, 16 and 64 KiB blocks tell the last two apart). Flushes: the L0 row's
   CompMergeCPU(sec) against the entries and bytes flushed, fitted the same way.
2. The read path: readrandom, readmissing and seekrandom with 0, 10 and 100 Next as the validation
   matrix runs them (lsmsim/validation/matrix.py, cases cache-1gib and buffered-8mib: the mean of
   three recorded runs each, from benchmarks/validation/dbbench.json or run here). lsmsim runs the
   same cases once per read constant (that constant 1 ms, the others 1 us) to count, per operation and
   averaged over each phase as the block cache warms, what each constant multiplies; non-negative
   least squares on the relative errors gives the constants.

Writes lsmsim/presets/machines/<name>.yaml with `cores`, `memory` and `cpu:`, each figure's source
in `source:` and in comments.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import yaml
from scipy.optimize import nnls

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lsmsim.validation.dbbench import run_db_bench  # noqa: E402
from lsmsim.validation.matrix import COMMON  # noqa: E402

VALUES = (100, 400, 1000)
BLOCK_SIZES = (1024, 16384, 65536)  # besides db_bench's default 4096: per-block compaction CPU (merge_per_block)
# scan_base is left at 0: every case the fit sees has the same runs (L0 files + L1 + L2), so a
# seek's fixed cost and its per-run cost (index_search, one child iterator per run) cannot be told
# apart; RocksDB's NewIterator builds one child per run, so the per-run term takes it
READ_CONSTANTS = (
    "get_base",
    "get_found",
    "filter_probe",
    "index_search",
    "block_decode",
    "next_entry",
    "block_read",
)


def _common(value: int) -> list[str]:
    return [a for a in COMMON if not a.startswith("--value_size")] + [f"--value_size={value}", "--statistics=1"]


def write_runs(num: int, repeat: int = 3) -> list[dict]:
    out = []
    for value in VALUES:
        n = int(num * 116 / (16 + value))  # about the same bytes at every entry size
        for wal in [True, False] * repeat:
            r = run_db_bench(
                ["--benchmarks=fillrandom,stats", f"--num={n}", *_common(value), f"--disable_wal={int(not wal)}"]
            )
            stall = r.statistics.get("rocksdb.stall.micros", 0) / 1e6
            secs = r.seconds["fillrandom"]
            out.append(
                {
                    "value": value,
                    "wal": wal,
                    "writes": n,
                    "per_write_s": (secs - stall) / n,
                    "stall_s": stall,
                    "compactions": r.compactions,
                    "flush_cpu_s": r.levels.get("L0", {}).get("CompMergeCPU(sec)", float("nan")),
                    "flush_entries": sum(f["entries"] for f in r.flushes),
                    "flush_bytes": r.flush_bytes,
                    "block_size": 4096,  # db_bench's default --block_size
                }
            )
            print(f"  fillrandom value={value} wal={wal}: {out[-1]['per_write_s'] * 1e6:.2f} us/write", file=sys.stderr)
    for bs in BLOCK_SIZES * repeat:  # compactions at other block sizes: what a data block costs (merge_per_block)
        r = run_db_bench(
            ["--benchmarks=fillrandom,stats", f"--num={num}", *_common(100), "--disable_wal=1", f"--block_size={bs}"]
        )
        out.append({"block_size": bs, "blocks_only": True, "compactions": r.compactions})
        print(f"  fillrandom block_size={bs}: {len(r.compactions)} compactions", file=sys.stderr)
    for _ in range(repeat):  # keys in order: fillseq without the WAL
        r = run_db_bench(["--benchmarks=fillseq", f"--num={num}", *_common(100), "--disable_wal=1"])
        stall = r.statistics.get("rocksdb.stall.micros", 0) / 1e6
        out.append(
            {
                "value": 100,
                "wal": False,
                "sequential": True,
                "writes": num,
                "stall_s": stall,
                "per_write_s": (r.seconds["fillseq"] - stall) / num,
                "compactions": [],
            }
        )
        print(f"  fillseq: {out[-1]['per_write_s'] * 1e6:.2f} us/write", file=sys.stderr)
    return out


def fit_writes(runs: list[dict]) -> dict:
    """Per-write costs are medians over the repeats (this shared VM's speed varies by 20-40% from one
    run to the next); compactions and flushes of all runs are pooled. A compaction's CPU is fitted on its
    input records, input bytes and data blocks read and written ((input + output bytes) / block size): the
    runs at several block sizes tell the last two apart."""
    rows = [
        (
            c["input_records"],
            c["input_bytes"],
            (c["input_bytes"] + c["bytes"]) / r.get("block_size", 4096),
            c["cpu_micros"] / 1e6,
        )
        for r in runs
        for c in r["compactions"]
    ]
    merge, _ = nnls(np.array([x[:3] for x in rows], float), np.array([x[3] for x in rows], float))
    sequential = float(np.median([r["per_write_s"] for r in runs if r.get("sequential")]))
    runs = [r for r in runs if not r.get("sequential") and not r.get("blocks_only")]
    by = {
        (v, w): float(np.median([r["per_write_s"] for r in runs if (r["value"], r["wal"]) == (v, w)]))
        for v, w in {(r["value"], r["wal"]) for r in runs}
    }
    insert = by[(100, False)]
    wal = by[(100, True)] - insert
    fa = np.array([[r["flush_entries"], r["flush_bytes"]] for r in runs], float)
    fb = np.array([r["flush_cpu_s"] for r in runs], float)
    flush, _ = nnls(fa, fb)
    return {
        "memtable_insert": insert,
        "memtable_insert_sequential": sequential,
        "wal_append": max(0.0, wal),
        "merge_per_entry": merge[0],
        "merge_per_byte": merge[1],
        "merge_per_block": merge[2],
        "flush_per_entry": flush[0],
        "flush_per_byte": flush[1],
        "_per_write_us": {f"{v}B wal={w}": round(by[(v, w)] * 1e6, 3) for v, w in sorted(by)},
        "_compactions": len(rows),
    }


READ_CASES = ("cache-1gib", "buffered-8mib")


def read_measurements(reference: Path | None, repeat: int) -> dict[str, dict[str, float]]:
    """Mean us/op of every read benchmark of the matrix's two in-memory read cases (lsmsim/rocksdb/
    matrix.py: 1 GiB block cache; 8 MiB with the page cache), from the recorded runs in `reference`
    or from `repeat` new db_bench runs."""
    from lsmsim.validation.dbbench import DbBenchRun
    from lsmsim.validation.matrix import case, real_figures, record_case

    saved = json.loads(reference.read_text())["cases"] if reference and reference.exists() else {}
    out = {}
    for label in READ_CASES:
        c = case(label)
        if label in saved:
            runs = [[DbBenchRun.from_dict(d) for d in rep] for rep in saved[label]]
        else:
            runs = record_case(c, repeat)
        real = real_figures(c, runs)
        out[label] = {k.removeprefix("us_per_op_"): v for k, v in real.items()}
        print(f"  {label}: " + ", ".join(f"{k} {v:.2f} us" for k, v in out[label].items()), file=sys.stderr)
    return out


def read_features(cpu: dict, memory: int) -> dict[str, dict[str, dict[str, float]]]:
    """Per read case and phase, what each read constant multiplies in lsmsim, averaged over the phase
    as lsmsim runs it (block caches warming included): the phase's seconds per operation with that
    constant set to 1 ms and the other read constants to 1 us, less the same with all of them 1 us."""
    import lsmsim
    from lsmsim.validation.matrix import case

    def per_op(label: str, read: dict[str, float]) -> dict[str, float]:
        c = case(label)
        sets = [f"machine.memory={memory}", "machine.preset=null", "sim.max_time=10000h"]
        sets += [f"machine.cpu.{k}={v}" for k, v in {**cpu, **read}.items()]
        s = lsmsim.run(lsmsim.load_config(c.config, sets)).summary
        return {phase: 1.0 / s[f"phase_{phase}_ops_per_s"] for phase in c.reads.values()}

    out: dict[str, dict[str, dict[str, float]]] = {}
    for label in READ_CASES:
        small = dict.fromkeys(READ_CONSTANTS, 1e-6)  # not 0: an operation must take time
        base = per_op(label, small)
        feats: dict[str, dict[str, float]] = {phase: {} for phase in base}
        for const in READ_CONSTANTS:
            t = per_op(label, {**small, const: 1e-3})
            for phase in base:
                feats[phase][const] = (t[phase] - base[phase]) / (1e-3 - 1e-6)
        out[label] = feats
        for phase, f in feats.items():
            print(
                f"  lsmsim counts {label}/{phase}: " + ", ".join(f"{k} {v:.3g}" for k, v in f.items()), file=sys.stderr
            )
    return out


def fit_reads(measured: dict, features: dict) -> tuple[dict, dict]:
    rows, targets, names = [], [], []
    for label, per_phase in measured.items():
        for phase, us in per_phase.items():
            rows.append([features[label][phase][c] for c in READ_CONSTANTS])
            targets.append(us * 1e-6)
            names.append(f"{label}/{phase}")
    a, b = np.array(rows), np.array(targets)
    x, _ = nnls(a / b[:, None], np.ones_like(b))  # relative errors: a 1 us get weighs as much as a 60 us scan
    fitted = a @ x
    resid = {n: round(float((f - t) / t), 4) for n, f, t in zip(names, fitted, b)}
    return dict(zip(READ_CONSTANTS, x)), resid


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--name", required=True, help="preset name: lsmsim/presets/machines/<name>.yaml")
    ap.add_argument("--num", type=int, default=1_000_000, help="fillrandom writes at 100-byte values (default 1M)")
    ap.add_argument(
        "--reference",
        type=Path,
        default=ROOT / "benchmarks" / "validation" / "dbbench.json",
        help="recorded read cases to fit the read path on (default: the validation matrix's; "
        "missing cases are run here)",
    )
    ap.add_argument("--measurements", type=Path, help="keep the write runs' figures here, and reuse them if it exists")
    args = ap.parse_args(argv)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if shutil.which("db_bench") is None and not (args.measurements and args.measurements.exists()):
        print("db_bench not found: apt-get install rocksdb-tools", file=sys.stderr)
        return 2
    if args.measurements and args.measurements.exists():
        writes = json.loads(args.measurements.read_text())["writes"]
    else:
        writes = write_runs(args.num)
        if args.measurements:
            args.measurements.write_text(json.dumps({"writes": writes}))
    w = fit_writes(writes)
    write_cpu = {k: v for k, v in w.items() if not k.startswith("_")}
    measured = read_measurements(args.reference, 3)
    r, resid = fit_reads(measured, read_features(write_cpu, memory))
    r["scan_base"] = 0.0
    cpu = {k: f"{v * 1e6:.4g}us" for k, v in {**{k: v for k, v in w.items() if not k.startswith("_")}, **r}.items()}
    cpu_model = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        "unknown CPU",
    )
    source = (
        f"scripts/calibrate_cpu.py on {datetime.date.today().isoformat()}: {cpu_model} x {os.cpu_count()}, "
        f"Debian db_bench 7.8.3 --threads=1, fillrandom {args.num} at 100/400/1000-byte values with and "
        "without the WAL; fillseq; the read path on the validation matrix's cache-1gib and buffered-8mib cases"
    )
    preset = {
        "source": source,
        "cores": os.cpu_count(),
        "memory": f"{memory / 2**30:.1f}GiB",
        "cpu": cpu,
    }
    notes = [
        "# A machine preset written by scripts/calibrate_cpu.py (re-run it on another machine).",
        "# Where each figure comes from:",
        "# - memtable_insert: fillrandom without the WAL, 100-byte values: median of 3 (seconds - stall.micros)"
        f" / writes; all sizes (us/write): {w['_per_write_us']}",
        "# - memtable_insert_sequential: the same for fillseq (median of 3)",
        "# - wal_append: the same with the WAL, minus memtable_insert",
        f"# - merge_per_entry, merge_per_byte, merge_per_block: non-negative least squares over {w['_compactions']}"
        " compactions' CPU micros (LOG compaction_finished) against input records, input bytes and data blocks"
        " read and written, at 100/400/1000-byte values (4 KiB blocks) and 1/16/64 KiB blocks (100-byte values)",
        "# - flush_*: least squares of the L0 row's CompMergeCPU(sec) against entries and bytes flushed (18 runs)",
        "# - get_base .. block_read: non-negative least squares (relative errors) of the validation matrix's"
        " cache-1gib and buffered-8mib cases (readrandom, readmissing, seekrandom+0/10/100; mean of 3 db_bench"
        " runs each) on lsmsim's per-op counts averaged over each phase; scan_base is 0 (see READ_CONSTANTS);"
        " relative residuals:",
        *[f"#     {k}: {v:+.1%}" for k, v in resid.items()],
    ]
    out = ROOT / "lsmsim" / "presets" / "machines" / f"{args.name}.yaml"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(notes) + "\n" + yaml.safe_dump(preset, sort_keys=False, width=100))
    print(out.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
