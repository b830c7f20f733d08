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

from ..errors import ConfigError


@numba.njit(cache=True)
def _apply(bits, keys, tombs):
    """Set or clear each key's bit in write order; returns the keys that became live, the live keys overwritten
    with a value and the live keys deleted."""
    born, over, died = 0, 0, 0
    for i in range(keys.shape[0]):
        k = keys[i]
        w = k >> np.uint64(6)
        m = np.uint64(1) << (k & np.uint64(63))
        live = (bits[w] & m) != np.uint64(0)
        if tombs[i]:
            if live:
                bits[w] &= ~m
                died += 1
        elif live:
            over += 1
        else:
            bits[w] |= m
            born += 1
    return born, over, died


class LiveKeys:
    """Which sampled keys of [0, num) hold a value now (num / 8 bytes), and the logical bytes they stand for."""

    def __init__(self, num: int, entries_per_sample: int, entry_bytes: float):
        try:
            self.bits = np.zeros((int(num) + 63) // 64, np.uint64)
        except MemoryError:  # one bit per key of the key space (issue 38 would make it follow the keys written)
            raise ConfigError(
                "config",
                [
                    (
                        "workload.num",
                        f"{num:,} keys need a {num / 8 / 2**30:,.1f} GiB bitmap of live keys: more than "
                        "this machine can allocate",
                    )
                ],
            ) from None
        self.count = 0  # live sampled keys
        self.eps = int(entries_per_sample)
        self.entry_bytes = float(entry_bytes)  # mean key + value bytes of a live key
        self._sized = 0.0  # live sampled keys x their entry bytes

    def write(self, keys: np.ndarray, tombs: np.ndarray, entry_bytes: float | None = None) -> None:
        """A batch of sampled writes (`Samples.keys`, `Samples.tombs`) of `entry_bytes` each (default: the size
        given at the start) in write order. With sizes that change between phases, an overwritten or deleted key
        is taken to have the mean size of the live keys: exact while every write has one size."""
        if not keys.shape[0]:
            return
        e = self.entry_bytes if entry_bytes is None else float(entry_bytes)
        mean = self._sized / self.count if self.count else e
        born, over, died = _apply(self.bits, keys, tombs)
        self.count += born - died
        self._sized = max(0.0, self._sized + born * e + over * (e - mean) - died * mean) if self.count else 0.0

    @property
    def bytes(self) -> float:
        return self._sized * self.eps
