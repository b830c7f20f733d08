"""Compile lsmsim's numba kernels into their on-disk cache (`cache=True`), so that the first `lsmsim run` after
set-up loads machine code instead of compiling it (6-15 s per kernel family on a fresh clone). scripts/setup.sh
runs it; running it again costs only the cache loads.

    python scripts/warm_numba.py [-v]

It runs a tiny simulation of every registered policy (on a device with the FTL and the drive model), the fio
drive simulator, and the EcoTune and ARCE searches once. Figures are not looked at: this only fills the cache.
"""

from __future__ import annotations

import argparse
import sys
import time

# the smallest configs that reach each policy's kernels: a load, then a mixed phase with scans
BASE = {
    "name": "warm-numba",
    "seed": 1,
    "machine": {"cores": 4, "threads": {"flush": 1, "compaction": 2}},
    "device": {"preset": "samsung-pm981-256gb", "capacity": "1GB"},
    "lsm": {"write_buffer_size": "256KiB", "block_cache_size": "1MiB", "bloom_bits_per_key": 10},
    "workload": {
        "num": 20000,
        "key_size": "16B",
        "value_size": "100B",
        "phases": [
            {"name": "load", "operations": 20000, "mix": {"insert": 1.0}, "keys": {"distribution": "shuffled"}},
            {"name": "mixed", "operations": 2000, "mix": {"update": 0.3, "get": 0.4, "long_scan": 0.3}},
        ]
        + [  # every key distribution's kernel, and the open-loop queueing recursion
            {"name": d, "operations": 500, "mix": {"update": 0.5, "get": 0.5}, "keys": {"distribution": d}}
            for d in ("zipfian", "latest", "normal", "sequential")
        ]
        + [
            {
                "name": "open",
                "duration": "0.05s",
                "mix": {"get": 1.0},
                "queries": {"mode": "open", "threads": 2, "arrival": "poisson", "arrival_rate": 20000},
            }
        ],
    },
}
POLICY_OPTIONS = {
    "arce": {"num_levels": 4, "stats_operations": 1000, "max_iter": 20},
    "ecotune": {"R": 4, "C": 1, "T_w": 0.4, "T_c": 0.1},
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="print each step and its time")
    args = ap.parse_args()
    from lsmsim.loading import load_config
    from lsmsim.policies.registry import names
    from lsmsim.sim import simulate

    def step(label, fn):
        t = time.perf_counter()
        fn()
        if args.verbose:
            print(f"{label:24} {time.perf_counter() - t:6.1f} s", flush=True)

    failed = []
    for name in names():
        cfg = dict(BASE, policy={"name": name, **POLICY_OPTIONS.get(name, {})})
        try:
            step(f"policy {name}", lambda cfg=cfg: simulate(load_config(cfg)))
        except Exception as e:  # a policy that needs more than this tiny config: say so, keep warming the rest
            failed.append(f"{name}: {type(e).__name__}: {e}")

    def fio():
        from lsmsim.ssd.profile import load_profile, ssd_presets
        from lsmsim.ssd.timing import Job, fio_job

        model, _ = load_profile(ssd_presets()["samsung-pm981-256gb"])
        fio_job(model, Job(size_read=4096, size_write=4096, read_fraction=0.7, iodepth=4, numjobs=1), 500, 1)

    step("fio drive simulator", fio)
    for f in failed:
        print(f"warm_numba: not warmed: {f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
