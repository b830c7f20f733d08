"""Allocations per second of the SSD's extent allocator on a free list of holes smaller than a file: the numba
max-tree next-fit the device uses (lsmsim.ssd.alloc.ExtentAllocator) beside its plain-Python reference
(alloc_reference.ReferenceAllocator) and the plain walk that one replaced (WalkingAllocator).

    python benchmarks/extent_alloc.py [--pages 48000000] [--file-pages 1024] [--holes 40000] [--ops 2000]

The regime is the one py-spy caught in Spooky's paper-scale Partial Merge point (pre-7.8 file cutting, 960 GB
drive): an allocation of 1,034 pages walking from free extent 42,691 around to 33,427, past holes too small for
it, 78% of the run's CPU in that walk. Here the device is filled with files of `--file-pages` pages, each
followed by a small one (a compaction's remainder); freeing `--holes` of the small ones leaves that many holes
smaller than a file. Each timed step frees a random file and allocates one: next-fit finds the freed file's place
only after the small holes between the cursor and it (the walk passes each of them). The allocators start from
the same state and see the same draws; the run checks they handed out the same extents and prints the rates and
their ratios. It prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lsmsim.ssd.alloc import ExtentAllocator  # noqa: E402
from lsmsim.ssd.alloc_reference import ReferenceAllocator, WalkingAllocator  # noqa: E402


def fragmented(a, cls=ExtentAllocator) -> tuple[ExtentAllocator, list, list]:
    """A full device of (file, small file) pairs, then `holes` small files freed at random."""
    rng = np.random.default_rng(1)
    al, big, small = cls(a.pages), [], []
    fid = 0
    while al.free_pages >= a.file_pages + 8:
        al.alloc(fid, a.file_pages)
        big.append(fid)
        al.alloc(fid + 1, int(rng.integers(1, 8)))
        small.append(fid + 1)
        fid += 2
    for i in sorted(rng.choice(len(small), size=min(a.holes, len(small)), replace=False), reverse=True):
        al.free(small.pop(i))
    return al, big, small


def steps(al: ExtentAllocator, big: list, file_pages: int, ops: int, seed: int) -> list:
    """Free a random file, allocate one: next-fit passes the small holes to the freed file's place."""
    rng = np.random.default_rng(seed)
    out = []
    for fid in range(10**9, 10**9 + ops):
        al.free(big.pop(int(rng.integers(len(big)))))
        out.append(al.alloc(fid, file_pages))
        big.append(fid)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=48_000_000, help="logical pages of the device")
    ap.add_argument("--file-pages", type=int, default=1024, help="pages of a file")
    ap.add_argument("--holes", type=int, default=40_000, help="small files freed before the timed steps")
    ap.add_argument("--ops", type=int, default=2_000, help="timed steps")
    a = ap.parse_args(argv)
    al, big, _ = fragmented(a)
    ref, _, _ = fragmented(a, ReferenceAllocator)  # the same draws: the same state
    holes = len(al.free_extents)
    walk = copy.deepcopy(ref)  # the same state for the walk
    walk.__class__ = WalkingAllocator
    warm = ExtentAllocator(64)  # compile (or load) the kernels outside the timing
    warm.alloc(0, 8), warm.free(0)
    rates, handed = {}, {}
    for each in (al, ref, walk):
        t = time.perf_counter()
        handed[type(each).__name__] = steps(each, list(big), a.file_pages, a.ops, seed=2)
        rates[type(each).__name__] = a.ops / (time.perf_counter() - t)
    same = handed["ExtentAllocator"] == handed["ReferenceAllocator"] == handed["WalkingAllocator"]
    fast, py, slow = rates["ExtentAllocator"], rates["ReferenceAllocator"], rates["WalkingAllocator"]
    print(f"pages {a.pages:,}, files of {a.file_pages} pages, {holes:,} free extents, largest {al.largest_free_extent}")
    print(
        f"numba max-tree next-fit {fast:,.0f} steps/s; Python max-tree {py:,.0f}/s; walk {slow:,.0f}/s; "
        f"numba/Python {fast / py:.1f}x, numba/walk {fast / slow:.1f}x; same: {same}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
