"""Write streams: the samples a batch of write operations adds to the memtable.

Keys come from the phase's key distribution (`keys.py`). Only keys whose hash falls in 1/e of the
hash space are kept as samples (e = entries_per_sample): sampling by key, not by operation, keeps all
versions of a sampled key, so deduplication and overlap measured on samples are unbiased for the
full key set. Sequence numbers count every real write, so sampled seqnos keep their real order.
"""

from __future__ import annotations

import numpy as np

from .._numba import numba
from ..config import PhaseConfig
from ..lsm.sstable import Samples
from ._kernels import splitmix as _splitmix
from .hotset import HotSetSampler
from .keys import KeySampler, make_sampler


@numba.njit(cache=True)
def splitmix64(x):
    """SplitMix64 finaliser (Steele et al., OOPSLA'14): a fast, well-mixed 64-bit hash, element-wise."""
    out = np.empty(x.shape[0], np.uint64)
    for i in range(x.shape[0]):
        out[i] = _splitmix(x[i])
    return out


@numba.njit(cache=True)
def _sampled_below(num, eps):
    """The keys of [0, num) that are samples, in order, without materialising [0, num) (a 200M-key static tree's
    keys in 0.6 s, not 9 s): `sampled` over np.arange(num), one key at a time."""
    out = np.empty(num // eps + 64 * int(np.sqrt(num / eps)) + 64, np.uint64)
    n = 0
    for k in range(num):
        if _splitmix(np.uint64(k)) % np.uint64(eps) == 0:
            if n == out.shape[0]:  # beyond 64 standard deviations: grow
                out = np.concatenate((out, np.empty(out.shape[0], np.uint64)))
            out[n] = k
            n += 1
    return out[:n]


def sampled_below(num: int, eps: int) -> np.ndarray:
    """The sampled keys of the key space [0, num), in order (all of them when eps == 1)."""
    if eps == 1:
        return np.arange(num, dtype=np.uint64)
    return _sampled_below(int(num), int(eps))


def sampled(keys: np.ndarray, eps: int) -> np.ndarray:
    """Boolean mask of the keys that are samples (all of them when eps == 1)."""
    if eps == 1:
        return np.ones(keys.shape[0], bool)
    return splitmix64(keys) % np.uint64(eps) == 0


def sampler_for(phase: PhaseConfig, num: int, seed: int = 0) -> KeySampler:
    """The phase's key sampler over [0, num). With `keys.hot_keys` = H, the distribution picks one
    of H hot keys spread evenly over the key space (key h * (num // H), ArceKV PVLDB'26 Sec. 5.3)."""
    k = phase.keys
    params = {
        "zipfian": {"theta": k.theta, "scramble": k.scramble},
        "latest": {"theta": k.theta},
        "prefix_zipf": {"theta": k.theta, "prefixes": k.prefixes},
        "normal": {"mean": k.mean, "stddev": k.stddev},
        "shuffled": {"seed": seed},
        "mixgraph": {
            "key_dist_a": k.key_dist_a,
            "key_dist_b": k.key_dist_b,
            "keyrange_dist": k.keyrange_dist,
            "keyrange_num": k.keyrange_num,
        },
    }.get(k.distribution, {})
    hot = k.hot_keys
    if hot is None or hot == num:
        return make_sampler(k.distribution, num, **params)
    return HotSetSampler(make_sampler(k.distribution, hot, **params), num)


class WriteStream:
    """Draws batches of writes for one phase and turns them into memtable samples."""

    def __init__(
        self, phase: PhaseConfig, num: int, value_size: int, eps: int, rng: np.random.Generator, seed: int = 0
    ):
        self.sampler = sampler_for(phase, num, seed)
        mix = phase.mix
        w = mix.writes()
        self.p_delete = mix.delete / w if w > 0 else 0.0
        self.value_size = phase.value_size if phase.value_size is not None else value_size  # the phase's, if it has one
        self.eps = eps
        # separate streams for keys and for delete flags: each draws the same numbers however the
        # kernel splits the writes into steps (sample_interval must not change results)
        seeds = rng.integers(0, 2**63, 2)
        self.key_rng = np.random.default_rng(seeds[0])
        self.op_rng = np.random.default_rng(seeds[1])
        # deletes and updates of existing keys draw from their own streams (and take no insert number: the kernel's
        # cursor); which writes are updates, too, so that configs without them draw exactly as before
        self.delete_existing = phase.keys.deletes == "existing"
        self.delete_rng = np.random.default_rng([int(seeds[1]), 1])
        self.update_existing = phase.keys.updates == "existing"
        self.p_update = mix.update / (w - mix.delete) if self.update_existing and w > mix.delete else 0.0
        self.update_rng = np.random.default_rng([int(seeds[1]), 2])

    def draw(self, n: int, first_seq: int, cursor: int) -> tuple[Samples, float, int]:
        """n writes with seqnos first_seq.. ; returns (samples, total value bytes, writes that took the order's next
        key: n, less deletes and updates of existing keys)."""
        tomb = (self.op_rng.random(n) < self.p_delete) if self.p_delete > 0 else np.zeros(n, bool)
        deletes = int(tomb.sum())
        existing = tomb if self.delete_existing else np.zeros(n, bool)
        if self.p_update > 0:
            existing = existing | ((self.update_rng.random(n) < self.p_update) & ~tomb)
        if existing.any():
            keys = self._keys_with_existing(n, existing, cursor)
        else:
            keys = self.sampler.draw(self.key_rng, n, cursor)
        value_bytes = float((n - deletes) * self.value_size)
        keep = sampled(keys, self.eps)
        seqs = np.arange(first_seq, first_seq + n, dtype=np.uint64)[keep]
        t = tomb[keep]
        vl = np.where(t, 0, self.value_size).astype(np.uint32)
        fresh = n - int(existing.sum())
        return Samples(keys[keep].astype(np.uint64), seqs, vl, t.astype(np.uint8)), value_bytes, fresh

    def _keys_with_existing(self, n: int, existing: np.ndarray, cursor: int) -> np.ndarray:
        """Inserts take the order's next keys from insert number `cursor` (the kernel counts inserts only in this
        mode); each `existing` write (a delete or an update of an existing key) a key the order inserted before it
        (this batch's earlier inserts included), uniformly. One before any insert at all names the order's first
        key."""
        keys = np.empty(n, np.uint64)
        k = int(existing.sum())
        keys[~existing] = self.sampler.draw(self.key_rng, n - k, cursor)
        before = cursor + np.cumsum(~existing)[existing]  # inserts that precede each such write
        bound = np.minimum(before, self.sampler.num)
        positions = (self.delete_rng.random(k) * bound).astype(np.int64)
        keys[existing] = self.sampler.at(positions)
        return keys
