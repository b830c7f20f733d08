"""The live keys of the run, tracked as they are written: logical data size at any time, in O(1) per write.

Spooky's space-amplification (PVLDB'22 Eq. 1) divides physical by logical size at every point of a run
(Fig. 7B, 13A). The exact logical size (newest version of every key, tombstones dropped) is a merge of every
sample in the tree, far too costly per sample. Here each sampled key written says whether its newest version is a
value (not a tombstone); a write flips it, so the count of live sampled keys, times entries_per_sample and the
entry's key + value bytes, is the logical size. The recorder checks it against the exact computation at the end
of the run (tests/test_limits.py).

Two stores of that one bit per key, chosen by the key space's size:
- a bitmap over the key space `[0, num)` (num / 8 bytes), dense and the fastest, while it takes at most
  `DENSE_LIMIT_BYTES`;
- past that, a hash set of the keys written (open addressing, linear probing, at most half full: 18-36 bytes a
  key written), so memory follows the keys the run writes, not the key space (a 4G key space's bitmap is 512 MiB
  whatever the run writes; the design space's Fig. 6 writes 2.5M sampled keys into it, 75 MiB here).
"""

from __future__ import annotations

import numpy as np

from .._numba import numba
from ..errors import ConfigError

DENSE_LIMIT_BYTES = 64 << 20  # bitmap up to 512M keys; a hash set of the keys written above
_EMPTY = np.uint64(0xFFFF_FFFF_FFFF_FFFF)  # no key: keys are < num <= 2^63
_FIB = np.uint64(0x9E37_79B9_7F4A_7C15)  # Fibonacci hashing's multiplier (2^64 / golden ratio)


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


@numba.njit(cache=True)
def _slot(table, shift, k):
    """The slot holding key k, or the empty slot where it would go (linear probing from its Fibonacci hash)."""
    mask = np.uint64(table.shape[0] - 1)
    j = (k * _FIB) >> np.uint64(shift)
    while table[j] != k and table[j] != _EMPTY:
        j = (j + np.uint64(1)) & mask
    return j


@numba.njit(cache=True)
def _apply_hashed(table, flags, shift, keys, tombs):
    """`_apply` on the hash set: (born, over, died, keys added to the table). A tombstone of a key never written
    live adds nothing (its bit would stay clear); a deleted key keeps its slot with its flag cleared."""
    born, over, died, added = 0, 0, 0, 0
    for i in range(keys.shape[0]):
        k = keys[i]
        j = _slot(table, shift, k)
        present = table[j] == k
        live = present and flags[j] != 0
        if tombs[i]:
            if live:
                flags[j] = 0
                died += 1
        elif live:
            over += 1
        else:
            if not present:
                table[j] = k
                added += 1
            flags[j] = 1
            born += 1
    return born, over, died, added


@numba.njit(cache=True)
def _rehash(table, flags, new_table, new_flags, new_shift):
    for j in range(table.shape[0]):
        k = table[j]
        if k != _EMPTY:
            s = _slot(new_table, new_shift, k)
            new_table[s] = k
            new_flags[s] = flags[j]


class LiveKeys:
    """Which sampled keys of [0, num) hold a value now, and the logical bytes they stand for (module docstring:
    a bitmap of the key space, or a hash set of the keys written when that bitmap would pass
    `DENSE_LIMIT_BYTES`; `dense` forces one or the other)."""

    bits: np.ndarray  # the bitmap (dense)
    table: np.ndarray  # the hash set's keys (_EMPTY: a free slot)
    flags: np.ndarray  # 1 where the slot's key is live
    shift: int  # 64 - log2(slots): Fibonacci hashing's shift

    def __init__(self, num: int, entries_per_sample: int, entry_bytes: float, dense: bool | None = None):
        self.dense = (int(num) + 7) // 8 <= DENSE_LIMIT_BYTES if dense is None else bool(dense)
        if self.dense:
            try:
                self.bits = np.zeros((int(num) + 63) // 64, np.uint64)
            except MemoryError:
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
        else:
            self._resize(1 << 16)
            self.used = 0  # slots holding a key
        self.count = 0  # live sampled keys
        self.eps = int(entries_per_sample)
        self.entry_bytes = float(entry_bytes)  # mean key + value bytes of a live key
        self._sized = 0.0  # live sampled keys x their entry bytes

    def _resize(self, slots: int) -> None:
        """A table of `slots` (a power of two) holding the keys so far."""
        table, flags = np.full(slots, _EMPTY, np.uint64), np.zeros(slots, np.uint8)
        shift = 64 - (slots.bit_length() - 1)
        if hasattr(self, "table"):
            _rehash(self.table, self.flags, table, flags, shift)
        self.table, self.flags, self.shift = table, flags, shift

    @property
    def nbytes(self) -> int:
        """Bytes the store holds."""
        return int(self.bits.nbytes) if self.dense else int(self.table.nbytes + self.flags.nbytes)

    def write(self, keys: np.ndarray, tombs: np.ndarray, entry_bytes: float | None = None) -> None:
        """A batch of sampled writes (`Samples.keys`, `Samples.tombs`) of `entry_bytes` each (default: the size
        given at the start) in write order. With sizes that change between phases, an overwritten or deleted key
        is taken to have the mean size of the live keys: exact while every write has one size."""
        if not keys.shape[0]:
            return
        e = self.entry_bytes if entry_bytes is None else float(entry_bytes)
        mean = self._sized / self.count if self.count else e
        if self.dense:
            born, over, died = _apply(self.bits, keys, tombs)
        else:
            need = 2 * (self.used + keys.shape[0])  # at most half full even if every key of the batch is new
            if need > self.table.shape[0]:
                self._resize(1 << (need - 1).bit_length())
            born, over, died, added = _apply_hashed(self.table, self.flags, self.shift, keys, tombs)
            self.used += added
        self.count += born - died
        self._sized = max(0.0, self._sized + born * e + over * (e - mean) - died * mean) if self.count else 0.0

    @property
    def bytes(self) -> float:
        return self._sized * self.eps
