"""Memory and speed of the live-key stores (lsm/live.py, issue 38): the key space's bitmap against the hash set of
the keys written, side by side in one run, at a 4G key space (the design space's Fig. 6) and a 40M one.

    python benchmarks/live_keys.py [--written 1M 10M] [--batch 4096]

For each key space and count of sampled keys written (uniform, 10% of the writes overwrites, 5% tombstones), it
prints each store's bytes and its time per write, and the ratios. It prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lsmsim.lsm.live import LiveKeys  # noqa: E402
from lsmsim.units import parse_count  # noqa: E402


def run(num: int, written: int, dense: bool, batch: int) -> tuple[int, float, int]:
    """(bytes held, seconds per write, live keys) for `written` sampled writes into a fresh store."""
    rng = np.random.default_rng(7)
    store = LiveKeys(num, 1, 100.0, dense=dense)
    warm = rng.integers(0, num, 1000).astype(np.uint64)
    store.write(warm, np.zeros(warm.size, np.uint8))  # numba's first call out of the timing
    t = 0.0
    for start in range(0, written, batch):
        n = min(batch, written - start)
        keys = rng.integers(0, num, n).astype(np.uint64)
        again = rng.random(n) < 0.1
        keys[again] = rng.choice(warm, int(again.sum()))  # overwrites of keys already live
        tombs = (rng.random(n) < 0.05).astype(np.uint8)
        t0 = time.perf_counter()
        store.write(keys, tombs)
        t += time.perf_counter() - t0
    return store.nbytes, t / written, store.count


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--written", nargs="+", default=["1M", "10M"], help="sampled keys written per case")
    ap.add_argument("--batch", type=int, default=4096, help="writes per call (a flush's samples)")
    a = ap.parse_args(argv)
    print(
        f"{'key space':>12} {'written':>10} {'bitmap MB':>10} {'hash MB':>9} {'ratio':>7} {'bitmap ns':>10} "
        f"{'hash ns':>8} {'ratio':>6}"
    )
    for num in (2**32, 40_000_000):
        for w in (int(parse_count(x)) for x in a.written):
            bb, bt, bc = run(num, w, True, a.batch)
            hb, ht, hc = run(num, w, False, a.batch)
            assert bc == hc, (bc, hc)  # the same live keys either way
            print(
                f"{num:>12,} {w:>10,} {bb / 1e6:>10.1f} {hb / 1e6:>9.1f} {hb / bb:>7.3f} {bt * 1e9:>10.1f} "
                f"{ht * 1e9:>8.1f} {ht / bt:>6.2f}"
            )


if __name__ == "__main__":
    main()
