"""Compaction CPU against the data block size: Debian's db_bench and lsmsim side by side.

    python benchmarks/block_size_compaction.py             # lsmsim vs the recorded db_bench runs
    python benchmarks/block_size_compaction.py --record    # re-run db_bench (2 repeats) and record them

Sarkar et al. PVLDB'21 §5.3 (Fig. 8 q): smaller pages make compactions slower. RocksDB parses every data
block a compaction reads and builds, checksums and indexes every block it writes
(table/block_based/block_based_table_builder.cc `BlockBasedTableBuilder::Flush`, `WriteBlock`), so its CPU per
byte grows as blocks shrink. db_bench fillrandom (2M entries of 16 + 112 B, 4 MiB buffers and files, 40 MiB L1,
no compression, direct I/O for compactions) at 1, 4, 16 and 64 KiB blocks: CPU per byte read + written by
compactions (`rocksdb.compaction.times.cpu_micros` over `compact.read.bytes` + `compact.write.bytes`), as a
ratio to 16 KiB's so that this shared VM's day-to-day speed cancels; lsmsim the same, from its compactions'
CPU (machine.cpu.merge_per_block). `--record` writes benchmarks/validation/block_size.json, which
tests/test_costs_workloads.py checks lsmsim against.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "benchmarks" / "validation" / "block_size.json"
BLOCK_SIZES = (1024, 4096, 16384, 65536)
KEY, VALUE, BUFFER = 16, 112, 4 << 20


def dbbench_args(block_size: int, num: int) -> list[str]:
    return [
        "--benchmarks=fillrandom,stats",
        f"--num={num}",
        f"--key_size={KEY}",
        f"--value_size={VALUE}",
        "--compression_type=none",
        f"--write_buffer_size={BUFFER}",
        f"--target_file_size_base={BUFFER}",
        f"--max_bytes_for_level_base={10 * BUFFER}",
        f"--block_size={block_size}",
        "--use_direct_io_for_flush_and_compaction=true",
        "--max_background_jobs=2",
        "--threads=1",
        "--seed=1",
        "--statistics=1",
    ]


def record(num: int, repeat: int, out: Path) -> None:
    from lsmsim.atomic import atomic_write
    from lsmsim.validation.dbbench import run_db_bench

    runs = []
    for rep in range(repeat):
        for bs in BLOCK_SIZES:
            s = run_db_bench(dbbench_args(bs, num)).statistics
            runs.append(
                {
                    "block_size": bs,
                    "read_bytes": s["rocksdb.compact.read.bytes"],
                    "write_bytes": s["rocksdb.compact.write.bytes"],
                    "cpu_s": s["rocksdb.compaction.times.cpu_micros"]["SUM"] / 1e6,
                    "compactions": s["rocksdb.compaction.times.cpu_micros"]["COUNT"],
                }
            )
            print(f"  run {rep + 1}, {bs} B blocks: {runs[-1]}", file=sys.stderr)
    text = json.dumps({"num": num, "args": dbbench_args(0, num)[:-1], "runs": runs}, indent=1)
    atomic_write(out, lambda tmp: Path(tmp).write_text(text))


def real_ratios(reference: dict) -> dict[int, float]:
    """CPU per compacted byte at each block size over 16 KiB's (means over the repeats)."""
    per = {}
    for bs in BLOCK_SIZES:
        rs = [r for r in reference["runs"] if r["block_size"] == bs]
        per[bs] = sum(r["cpu_s"] for r in rs) / sum(r["read_bytes"] + r["write_bytes"] for r in rs)
    return {bs: v / per[16384] for bs, v in per.items()}


def sim_config(block_size: int, num: int) -> dict:
    """db_bench's run as an lsmsim config (leveled, RocksDB's defaults otherwise)."""
    return {
        "name": f"block-size-{block_size}",
        "seed": 1,
        "machine": {"cores": 2, "threads": {"flush": 1, "compaction": 1}},
        "lsm": {"write_buffer_size": BUFFER, "block_size": block_size, "use_direct_io_for_flush_and_compaction": True},
        "policy": {"name": "leveled", "max_bytes_for_level_base": 10 * BUFFER, "target_file_size_base": BUFFER},
        "workload": {
            "num": num,
            "key_size": KEY,
            "value_size": VALUE,
            "phases": [{"name": "fill", "operations": num, "mix": {"insert": 1.0}}],
        },
    }


def sim_ratios(num: int) -> dict[int, float]:
    import lsmsim

    per = {}
    for bs in BLOCK_SIZES:
        c = lsmsim.run(sim_config(bs, num), progress=False).compactions
        c = c[c.kind == "compaction"]
        per[bs] = c.cpu_s.sum() / (c.read_bytes.sum() + c.write_bytes.sum())
    return {bs: v / per[16384] for bs, v in per.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="re-run db_bench and record it (needs rocksdb-tools)")
    ap.add_argument("--num", type=int, default=2_000_000, help="db_bench fillrandom entries (default 2M)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--sim-num", type=int, default=500_000, help="lsmsim's entries (ratios do not depend on it)")
    a = ap.parse_args(argv)
    if a.record:
        record(a.num, a.repeat, REFERENCE)
    real = real_ratios(json.loads(REFERENCE.read_text()))
    sim = sim_ratios(a.sim_num)
    print("compaction CPU per byte (read + written), over 16 KiB blocks'")
    print(f"{'block size':>12} {'db_bench':>9} {'lsmsim':>8} {'error':>7}")
    for bs in BLOCK_SIZES:
        print(f"{bs:>12} {real[bs]:>9.3f} {sim[bs]:>8.3f} {sim[bs] / real[bs] - 1:>+7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
