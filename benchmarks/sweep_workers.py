"""Sweep speed-up from one to two local workers (and Dask LocalCluster with two).

    python benchmarks/sweep_workers.py [--points 8] [--num 6M] [--dask]

Runs the same sweep (a fillrandom-style load of --num keys, --points seeds) with -j 1 and -j 2
into fresh temporary folders and prints wall time, points per minute and the ratio. Pool start-up
(spawning workers, importing lsmsim, loading numba's cache) is included, as a user sees it.
Goal (issue 5): two workers at least 1.8x faster than one. It prints figures; it is not a test.
It first measures what the machine allows: the speed-up of two plain CPU-bound processes over
one (on a VM whose two vCPUs share a physical core this is near 1x, and no sweep can beat it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lsmsim.sweeps import load_sweep, run_sweep  # noqa: E402


def _burn(n: int, go=None, done=None) -> None:
    if go is not None:
        go.wait()
    x = 0
    for i in range(n):
        x += i
    if done is not None:
        done.put(time.time())


def machine_speedup(n: int = 20_000_000) -> float:
    """Two CPU-bound processes doing `n` additions each, against one doing it twice (process
    start-up excluded: both start on a shared event once running)."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    t = time.perf_counter()
    _burn(n)
    _burn(n)
    one = time.perf_counter() - t
    go, done = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_burn, args=(n, go, done)) for _ in range(2)]
    for p in procs:
        p.start()
    time.sleep(3.0)  # let both children import and reach the event
    t0 = time.time()
    go.set()
    end = max(done.get(), done.get())
    for p in procs:
        p.join()
    return one / (end - t0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", type=int, default=8)
    ap.add_argument("--num", default="6M")
    ap.add_argument("--dask", action="store_true", help="also time the Dask executor with 2 workers")
    a = ap.parse_args()
    spec = {
        "name": "bench",
        "seed": 1,
        "machine": {"cores": 2},
        "workload": {"num": a.num, "phases": [{"name": "load", "operations": a.num, "mix": {"insert": 1.0}}]},
        "sweep": {"seeds": a.points},
    }
    print(f"machine: two CPU-bound processes run {machine_speedup():.2f}x as fast as one", flush=True)
    sweep = load_sweep(spec)
    runs = [("local", 1), ("local", 2)] + ([("dask", 2)] if a.dask else [])
    times = {}
    for executor, jobs in runs:
        with tempfile.TemporaryDirectory() as out:
            t = time.perf_counter()
            done = run_sweep(sweep, out=out, jobs=jobs, executor=executor, progress=False)
            times[(executor, jobs)] = s = time.perf_counter() - t
            assert done.failed == 0 and done.ran == a.points
        print(
            f"{executor:5s} -j {jobs}: {a.points} points in {s:6.1f} s  ({60 * a.points / s:5.1f} points/min)",
            flush=True,
        )
    base = times[("local", 1)]
    for key, s in times.items():
        if key != ("local", 1):
            print(f"speed-up {key[0]} -j {key[1]} over local -j 1: {base / s:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
