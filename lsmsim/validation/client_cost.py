"""What db_bench's mixgraph client spends drawing a key (machine.cpu.mixgraph_key; calibrate §3).

With `--key_dist_a/b` (the power model of Cao et al., FAST'20), Benchmark::MixGraph draws each operation's key as
`Random64 rand(PowerCdfInversion(u, a, b)); key = rand.Next() % num` (tools/db_bench_tool.cc, v7.8.3; with key
ranges GenerateTwoTermExpKeys::DistGetKeyID does the same within the range). Random64 is a std::mt19937_64
(util/random.h): every operation seeds its 312 words of state and twists them once for one draw, beside a pow().
That is the client's own work, on the same core as the operation, and no other benchmark the calibration runs
pays it (they step one Random64). On the Xeon host (2026-11-29) a mixgraph Put cost 12.5-13.4 us with power-model
keys and 8.4 us with uniform ones (`--key_dist_a=0`) on the same DB, and a compiled loop of the draw alone 2.8-3.0
us.

Measured directly: mixgraph with Gets only on an empty DB (no file to search, an empty memtable: the Get is a
constant) with power-model keys and with uniform ones, in turns; the benchmark thread's CPU per operation
(schedstat), power less uniform, is the draw. The median over the rounds.
"""

from __future__ import annotations

import datetime
import shutil
import tempfile
from pathlib import Path

import numpy as np

from .contention import _say
from .dbbench import run_db_bench

OPS = 300_000
NUM = 2_000_000
POWER = ("--key_dist_a=0.002312", "--key_dist_b=0.3467")  # db_bench's defaults (Cao et al.'s fit)
UNIFORM = ("--key_dist_a=0", "--key_dist_b=0")


def mixgraph_get_args(keys: tuple[str, ...], ops: int = OPS) -> list[str]:
    """mixgraph with Gets only, `ops` of them over a key space of NUM keys, on an empty DB."""
    return [
        "--benchmarks=mixgraph",
        "--mix_get_ratio=1",
        "--mix_put_ratio=0",
        "--mix_seek_ratio=0",
        *keys,
        f"--num={NUM}",
        f"--reads={ops}",
        "--key_size=16",
        "--compression_type=none",
        "--threads=1",
    ]


def measure_mixgraph_key(repeat: int, ops: int = OPS) -> list[dict]:
    """`repeat` rounds of mixgraph's Gets on an empty DB with power-model and with uniform keys, each on a fresh DB:
    the benchmark thread's CPU per operation (its wall time per operation where /proc gives no thread CPU)."""
    out = []
    for i in range(repeat):
        for name, keys in (("power", POWER), ("uniform", UNIFORM)):
            d = Path(tempfile.mkdtemp(prefix="lsmsim-calibrate-"))
            try:
                r = run_db_bench(mixgraph_get_args(keys, ops), db=d / "db", thread_cpu=True)
            finally:
                shutil.rmtree(d, ignore_errors=True)
            cpu = r.thread_cpu.get("db_bench", 0.0)
            per_op = cpu / ops if cpu > 0 else r.micros_per_op["mixgraph"] * 1e-6
            out.append(
                {
                    "keys": name,
                    "round": i,
                    "per_op_s": per_op,
                    "micros_per_op": r.micros_per_op["mixgraph"],
                    "date": datetime.date.today().isoformat(),
                }
            )
            _say(f"mixgraph Gets on an empty DB, {name} keys #{i + 1}: {per_op * 1e6:.2f} us per op")
    return out


def key_draw_costs(runs: list[dict]) -> list[float]:
    """Per round with both kinds of keys: seconds per operation with power-model keys less with uniform ones."""
    rounds: dict[int, dict[str, float]] = {}
    for r in runs:
        rounds.setdefault(r["round"], {})[r["keys"]] = r["per_op_s"]
    return [p["power"] - p["uniform"] for p in rounds.values() if "power" in p and "uniform" in p]


def fit_mixgraph_key(runs: list[dict]) -> float | None:
    """machine.cpu.mixgraph_key in seconds: the median over the rounds of key_draw_costs (at least 0); None without
    a round that ran both."""
    costs = key_draw_costs(runs)
    return max(0.0, float(np.median(costs))) if costs else None


__all__ = ["POWER", "UNIFORM", "fit_mixgraph_key", "key_draw_costs", "measure_mixgraph_key", "mixgraph_get_args"]
