"""Solve time of EcoTune's dynamic programs: numba kernels against the plain-Python references.

    python benchmarks/ecotune_dp.py [--R 10 20 29 40 60] [--algs 0 1 2] [--repeat 5]
                                    [--reference-max-R 29] [--reference-timeout 120]

For each algorithm (0: the simplified recurrence of Sec. 4.3.1, 1: Algorithm 1, 2: Algorithm 2)
and each R, times `solve` (numba, after one warm-up call compiles it; best of --repeat) and
`solve_reference` (lru_cache Python; once, only for R <= --reference-max-R, and skipped for larger
R once one R took longer than --reference-timeout). Checks that both return the same score.
Parameters are the paper's setting (C = 3) with the T_w, T_c, beta and r measured in the
simulator (`lsmsim figures --only ecotune-tables5-8`).
Goals (issue 4): Algorithm 2 at R = 29 in <= 1 ms and at R = 60 in <= 50 ms, and >= 50x faster
than the Python reference (the paper reports under 1 s). It prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lsmsim.policies.ecotune import EcoTuneParams, solve, solve_reference  # noqa: E402


def params(R: int) -> EcoTuneParams:
    return EcoTuneParams(R=R, C=3.0, T_w=1.0, T_c=0.12, beta=0.4, r=0.5, f=0.01)


def time_solve(params: EcoTuneParams, alg: int, reference: bool = False, repeat: int = 3) -> float:
    """Wall time (s) of one solve, best of `repeat`, numba kernels warmed up first."""
    if not reference:
        solve(EcoTuneParams(3, params.C, params.T_w, params.T_c, params.beta, params.r, params.f), alg)
    fn = solve_reference if reference else solve
    best = math.inf
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn(params, alg)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--R", type=int, nargs="+", default=[10, 20, 29, 40, 60])
    ap.add_argument("--algs", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--reference-max-R", type=int, default=29)
    ap.add_argument("--reference-timeout", type=float, default=120.0)
    a = ap.parse_args()
    print(f"{'alg':>3} {'R':>4} {'numba ms':>10} {'python ms':>11} {'speed-up':>9}  score")
    for alg in a.algs:
        t = time.perf_counter()
        solve(params(4), alg)  # compile (or load the cache)
        print(f"  (alg {alg}: first call, compile or cache load, {1e3 * (time.perf_counter() - t):.0f} ms)")
        slow = False
        for R in a.R:
            p = params(R)
            best = time_solve(p, alg, repeat=a.repeat)
            res = solve(p, alg)
            py = "-"
            ratio = "-"
            if R <= a.reference_max_R and not slow:
                t = time.perf_counter()
                ref = solve_reference(p, alg)
                ref_s = time.perf_counter() - t
                slow = ref_s > a.reference_timeout
                if abs(ref.score - res.score) > 1e-9 * max(1.0, abs(ref.score)):
                    print(f"MISMATCH alg {alg} R {R}: numba {res.score} python {ref.score}")
                    return 1
                py, ratio = f"{1e3 * ref_s:.1f}", f"{ref_s / best:.0f}x"
            print(f"{alg:>3} {R:>4} {1e3 * best:>10.3f} {py:>11} {ratio:>9}  {res.score:.6g}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
