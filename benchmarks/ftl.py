"""Throughput of the numba FTL with GC active, and the write-amp it measures.

    python benchmarks/ftl.py [--logical-gib 1] [--writes-m 20] [--batch 1048576] [--victims greedy,cost_benefit]
                             [--spare-factors 0.07,0.28] [--page 4096] [--erase-unit-pages 256]

For each spare factor and victim policy: fill the logical space sequentially, overwrite it once
uniformly at random (warm-up: GC reaches steady state), then time `--writes-m` million uniformly
random page writes fed to FTL.write in batches of `--batch` (random numbers are drawn before the
clock starts). Prints host page writes per second (the mapped-unit writes the simulator issues),
flash page writes per second (host + GC copies), the steady-state write-amp and, for greedy, the
analytic value (lsmsim.ssd.gc_theory, Eq. 1 and Eq. 2 at the FTL's effective spare factor).
Goal: >= 10 million host writes/s. It prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lsmsim.ssd import gc_theory  # noqa: E402
from lsmsim.ssd.ftl import FTL, FTLConfig  # noqa: E402


def run(sf: float, victim: str, args) -> dict:
    L = int(args.logical_gib * 2**30) // args.page
    P = args.erase_unit_pages
    f = FTL(
        FTLConfig(
            logical_bytes=L * args.page,
            mapping_unit=args.page,
            erase_unit=P * args.page,
            over_provisioning=sf,
            op_definition="spare_factor",
            victim=victim,
        )
    )
    rng = np.random.default_rng(args.seed)
    t = time.perf_counter()
    f.write(np.arange(L, dtype=np.int64))
    fill_s = time.perf_counter() - t
    for start in range(0, L, args.batch):  # warm-up: one logical size
        f.write(rng.integers(0, L, min(args.batch, L - start)))
    total = int(args.writes_m * 1e6)
    batches = [rng.integers(0, L, min(args.batch, total - s)) for s in range(0, total, args.batch)]
    s0 = f.snapshot()
    t = time.perf_counter()
    for b in batches:
        f.write(b)
    dt = time.perf_counter() - t
    s1 = f.snapshot()
    host, flash = s1["host_pages"] - s0["host_pages"], s1["flash_pages"] - s0["flash_pages"]
    return {
        "sf": sf,
        "victim": victim,
        "blocks": f.physical_blocks,
        "eff_sf": f.spare_factor,
        "fill_mps": L / fill_s / 1e6,
        "host_mps": host / dt / 1e6,
        "flash_mps": flash / dt / 1e6,
        "wa": flash / host,
        "eq1": gc_theory.wa_greedy_limit(f.spare_factor),
        "eq2": gc_theory.wa_greedy(f.spare_factor, P),
        "seconds": dt,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logical-gib", type=float, default=1.0)
    ap.add_argument("--writes-m", type=float, default=20.0, help="million timed host page writes per case")
    ap.add_argument("--batch", type=int, default=1 << 20, help="pages per FTL.write call")
    ap.add_argument("--spare-factors", default="0.07,0.28")
    ap.add_argument("--victims", default="greedy,cost_benefit")
    ap.add_argument("--page", type=int, default=4096)
    ap.add_argument("--erase-unit-pages", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    # compile (or load the numba cache) outside the timings
    w = FTL(
        FTLConfig(
            logical_bytes=args.page * 4096,
            mapping_unit=args.page,
            erase_unit=16 * args.page,
            over_provisioning=0.3,
            op_definition="spare_factor",
        )
    )
    w.write(np.arange(4096)), w.write(np.arange(4096)), w.trim(np.arange(8)), w.idle_gc(10)
    w = FTL(
        FTLConfig(
            logical_bytes=args.page * 4096,
            mapping_unit=args.page,
            erase_unit=16 * args.page,
            over_provisioning=0.3,
            op_definition="spare_factor",
            victim="cost_benefit",
        )
    )
    w.write(np.arange(4096)), w.write(np.arange(4096))

    L = int(args.logical_gib * 2**30) // args.page
    print(
        f"FTL benchmark: {args.logical_gib:g} GiB logical = {L} pages of {args.page} B, "
        f"{args.erase_unit_pages} pages per erase block, {args.writes_m:g}M timed uniform random writes "
        f"per case, batches of {args.batch}"
    )
    print(
        f"{'sf':>5} {'victim':>12} {'blocks':>7} {'fill Mw/s':>9} {'host Mw/s':>9} {'flash Mw/s':>10} "
        f"{'WA':>6} {'Eq.1':>6} {'Eq.2':>6} {'seconds':>7}"
    )
    for sf in (float(x) for x in args.spare_factors.split(",")):
        for victim in args.victims.split(","):
            r = run(sf, victim, args)
            model = f"{r['eq1']:6.3f} {r['eq2']:6.3f}" if victim == "greedy" else f"{'-':>6} {'-':>6}"
            print(
                f"{sf:5.2f} {victim:>12} {r['blocks']:7d} {r['fill_mps']:9.1f} {r['host_mps']:9.2f} "
                f"{r['flash_mps']:10.1f} {r['wa']:6.3f} {model} {r['seconds']:7.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
