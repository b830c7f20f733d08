"""The live keys of the run, tracked as they are written: logical data size at any time, in O(1) per write.

Spooky's space-amplification (PVLDB'22 Eq. 1) divides physical by logical size at every point of a run
(Fig. 7B, 13A). The exact logical size (newest version of every key, tombstones dropped) is a merge of every
sample in the tree, far too costly per sample. Here one bit per key of the key space says whether the newest
version written is a value (not a tombstone); a write flips it, so the count of live sampled keys, times
entries_per_sample and the entry's key + value bytes, is the logical size. The recorder checks it against the
exact computation at the end of the run (tests/test_limits.py).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _apply(bits, keys, tombs) -> int:
    """Set or clear each key's bit in write order; returns the change in live keys."""
    d = 0
    for i in range(keys.shape[0]):
        k = keys[i]
        w = k >> np.uint64(6)
        m = np.uint64(1) << (k & np.uint64(63))
        live = (bits[w] & m) != np.uint64(0)
        if tombs[i]:
            if live:
                bits[w] &= ~m
                d -= 1
        elif not live:
            bits[w] |= m
            d += 1
    return d


class LiveKeys:
    """Which sampled keys of [0, num) hold a value now (num / 8 bytes), and the logical bytes they stand for."""

    def __init__(self, num: int, entries_per_sample: int, entry_bytes: float):
        self.bits = np.zeros((int(num) + 63) // 64, np.uint64)
        self.count = 0  # live sampled keys
        self.eps = int(entries_per_sample)
        self.entry_bytes = float(entry_bytes)  # key + value bytes of one live key (the workload's fixed sizes)

    def write(self, keys: np.ndarray, tombs: np.ndarray) -> None:
        """A batch of sampled writes (`Samples.keys`, `Samples.tombs`) in write order."""
        if keys.shape[0]:
            self.count += int(_apply(self.bits, keys, tombs))

    @property
    def bytes(self) -> float:
        return self.count * self.eps * self.entry_bytes
