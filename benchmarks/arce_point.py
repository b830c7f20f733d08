"""One ARC point of an ArceKV sweep, end to end (issue 35: "one ARC point at paper scale within 10 minutes"):
wall and CPU time of the whole simulation, the time inside FindBestParams, its searches, tuples and simulated
tuples, with R28's shared trajectories and without them (every tuple simulated, as before R28).

    python benchmarks/arce_point.py [--sweep experiments/arce/workloads.yaml] [--scale paper]
                                    [--match workload.suite.name=arce-I] [--modes shared unshared]
                                    [--operations N] [--threads 1] [--side-by-side]

--operations cuts each sub-workload to N operations (the paper scale's 40,960,000 take hours per point; a cut
point is then a sample to extrapolate from, not the point).

Each mode runs in a fresh process; "cpu s" is its process CPU time (all its threads, start-up included). With
--side-by-side the modes run at the same time, one process each, so a loaded machine slows both alike (use
--threads 1 then). The two modes must give the same summary to the last bit (R28 is exact); the script says so
and exits 1 otherwise. Prints the host's CPU model with the figures: times from different hosts do not compare.
It prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, sys, time
import lsmsim.policies.arce.search as search
from lsmsim.sweeps import load_sweep
from lsmsim.sim import simulate

sweep, scale, match, mode, ops = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], int(sys.argv[5])
sw = load_sweep(sweep, None if scale == "default" else scale)
pts = [p for p in sw.points if p.params.get("variant") == "ARC"
       and all(str(p.params.get(k)) == v for k, v in match.items())]
if len(pts) != 1:
    sys.exit(f"{len(pts)} ARC points match {match}: {[p.params for p in pts]}")
spent, stats = [0.0], {}
grid = search.grid_objectives

def timed(*a, **kw):
    t = time.perf_counter()
    out = grid(*a, **{**kw, "share": mode == "shared", "stats": stats})
    spent[0] += time.perf_counter() - t
    return out

search.grid_objectives = timed
t = time.perf_counter()
cfg = pts[0].config
if ops:
    data = cfg.model_dump(mode="json")
    data["workload"]["suite"]["operations"] = ops
    cfg = type(cfg).model_validate(data)
res = simulate(cfg)
s = res.summary
print(json.dumps({"params": pts[0].params, "sim_s": time.perf_counter() - t, "search_s": spent[0],
                  "cpu_s": time.process_time(),
                  "searches": s.get("policy_reselections"), **stats,
                  "summary": {k: v for k, v in s.items() if isinstance(v, (int, float))}}))
"""


def launch(args, mode):
    env = {**os.environ, "NUMBA_NUM_THREADS": str(args.threads)}
    match = json.dumps(dict(m.split("=", 1) for m in args.match))
    cmd = [sys.executable, "-c", CHILD, args.sweep, args.scale, match, mode, str(args.operations)]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True), time.perf_counter()


def main() -> int:
    from lsmsim.preset_files import host_facts

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sweep", default="experiments/arce/workloads.yaml")
    ap.add_argument("--scale", default="paper", choices=["quick", "default", "paper"])
    ap.add_argument("--match", nargs="*", default=["workload.suite.name=arce-I"], help="param=value of the point")
    ap.add_argument("--modes", nargs="+", default=["shared", "unshared"], choices=["shared", "unshared"])
    ap.add_argument("--operations", type=int, default=0, help="operations per sub-workload (0: the sweep's)")
    ap.add_argument("--threads", type=int, default=1, help="NUMBA_NUM_THREADS of each run")
    ap.add_argument("--side-by-side", action="store_true", help="run the modes at the same time")
    a = ap.parse_args()
    print(f"host: {host_facts()['cpu']} x {host_facts()['cores']}; {a.sweep} at {a.scale} scale, {a.match}")
    runs = {m: launch(a, m) for m in a.modes} if a.side_by_side else {}
    results = {}
    for m in a.modes:
        proc, t0 = runs[m] if a.side_by_side else launch(a, m)
        out, _ = proc.communicate()
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            print(f"{m}: failed (exit {proc.returncode})")
            return 1
        results[m] = {**json.loads(out.strip().splitlines()[-1]), "wall_s": wall}
    cols = ("wall_s", "cpu_s", "sim_s", "search_s", "searches", "tuples", "simulated")
    print(f"  {'mode':<10}" + "".join(f"{c.replace('_s', ' s'):>10}" for c in cols))
    for m, r in results.items():
        print(f"  {m:<10}" + "".join(f"{r.get(c, 0):>10.0f}" for c in cols))
    s = results[a.modes[0]]["summary"]
    print(f"  throughput {s.get('throughput_ops_per_s', float('nan')):.1f} ops/s, write-amp {s.get('write_amp'):.3f}")
    if len(results) == 2 and results["shared"]["summary"] != results["unshared"]["summary"]:
        print("  the two modes' summaries differ: R28 is not exact here")
        return 1
    if len(results) == 2:
        r = results["unshared"]["search_s"] / max(results["shared"]["search_s"], 1e-9)
        print(f"  same summary in both modes; search time unshared / shared = {r:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
