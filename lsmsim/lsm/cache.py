"""The two caches between a read and the device: RocksDB's block cache, then the OS page cache.

Both are LRU caches of data blocks (RocksDB's `LRUCache`, cache/lru_cache.cc; Linux's page cache is
an approximate LRU of active/inactive lists). Their steady-state hit ratios come from Che's
approximation (Che, Tung and Wang, IEEE JSAC 2002; Fricker, Robert and Roberts, ITC 2012): under
independent references, a block with access rate p stays in an LRU cache of C blocks with
probability 1 - exp(-p T), where the characteristic time T solves sum_i (1 - exp(-p_i T)) = C.
The page cache sees only the block cache's misses, and every block the block cache holds came
through it: together they hold about what one LRU cache of the larger size holds (inclusive
caching; the LRU-network approximation, Che on the filtered stream, overstates page-cache hits
by up to 0.17 when the two are of a size). `tests/test_cache.py` checks both levels against exact
LRU caches run on a trace of block references.

Popularity comes from the key distribution's `hot_fraction(x)` (the share of accesses that the
hottest fraction x of the data receives), sliced into buckets of equal per-block rate. Index and
filter blocks are pinned (cache_index_and_filter_blocks = false, RocksDB's default), so only data
blocks compete for the cache.

A file's blocks enter a cache as they are read (`warmth`): a new file starts cold in the block
cache, and in the page cache too unless it was written through it (buffered flush and compaction
I/O, RocksDB's default `use_direct_io_for_flush_and_compaction = false`). Deleted files leave both.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numba
import numpy as np

GRID = np.concatenate([[0.0], np.logspace(-6, 0, 241)])  # data fractions: fine near 0, where skew lives


def profile(hot_fraction: Callable[[float], float]) -> tuple[np.ndarray, np.ndarray]:
    """(data share w_k, access share a_k) of each popularity bucket, hottest first."""
    h = np.array([min(1.0, max(0.0, hot_fraction(float(x)))) for x in GRID])
    h = np.maximum.accumulate(h)
    h[-1] = 1.0
    return np.diff(GRID), np.diff(h)


@numba.njit(cache=True)
def characteristic_time(count: np.ndarray, rate: np.ndarray, capacity: float) -> float:
    """T with sum count * (1 - exp(-rate T)) = capacity (< sum count), by Newton's method from below: the
    occupancy is increasing and concave in T, so it lies under its tangents; starting from the lower bound
    T0 = capacity / sum(count * rate) (the tangent at 0) every step stays below the root and the iterates
    rise to it monotonically (3-14 steps in tests/test_cache.py, which checks it against scipy's brentq)."""
    flow = 0.0
    for i in range(count.shape[0]):
        for k in range(count.shape[1]):
            flow += count[i, k] * rate[i, k]
    if flow <= 0.0:
        return math.inf
    t = capacity / flow
    for _ in range(500):
        occ = 0.0
        slope = 0.0
        for i in range(count.shape[0]):
            for k in range(count.shape[1]):
                x = rate[i, k] * t
                if x > 0.0:
                    occ += count[i, k] * -math.expm1(-x)
                    slope += count[i, k] * rate[i, k] * math.exp(-x)
        if slope <= 0.0:
            return math.inf
        step = (capacity - occ) / slope
        t += step
        if step <= 1e-13 * t or t > 1e300:
            break
    return t


def lru_run_hits(access: np.ndarray, blocks: np.ndarray, w: np.ndarray, a: np.ndarray, capacity: float) -> np.ndarray:
    """Per run, the probability that a block access hits an LRU cache of `capacity` blocks, when run j
    of `blocks[j]` blocks gets `access[j]` accesses per operation spread over its blocks by the key
    popularity (w, a): a block of a small run that every operation visits (an L0 file under range
    scans) is far hotter than one of the last level, and stays cached."""
    count = blocks[:, None] * w[None, :]
    rate = np.divide(access[:, None] * a[None, :], count, out=np.zeros_like(count), where=count > 0)
    if capacity <= 0:
        return np.zeros(len(blocks))
    if capacity >= count[rate > 0].sum():
        return np.where(access > 0, 1.0, 0.0)
    t = characteristic_time(count, rate, float(capacity))
    return (-np.expm1(-rate * t) * a[None, :]).sum(axis=1)


class Caches:
    """The block cache over the page cache for one key distribution (its popularity profile is
    built once, on first use)."""

    def __init__(self, hot_fraction: Callable[[float], float]):
        self.hot_fraction = hot_fraction
        self._profile: tuple[np.ndarray, np.ndarray] | None = None

    def run_hit_ratios(
        self, access: np.ndarray, run_bytes: np.ndarray, block_cache: float, page_cache: float, block_size: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per run: (steady-state block-cache hit ratio, share of accesses either cache serves), with
        `access[j]` block accesses per operation going to run j. The page cache holds what the block
        cache holds and more (inclusive): together they act as one LRU cache of the larger size."""
        if self._profile is None:
            self._profile = profile(self.hot_fraction)
        w, a = self._profile
        blocks = np.asarray(run_bytes, float) / block_size
        acc = np.asarray(access, float)
        hb = lru_run_hits(acc, blocks, w, a, block_cache / block_size)
        hp = lru_run_hits(acc, blocks, w, a, page_cache / block_size) if page_cache > block_cache else hb
        return hb, np.maximum(hb, hp)


def warmth(block_reads: float, file_bytes: float, hit_ratio: float, block_size: float) -> float:
    """Fraction of a file's steady-state cached blocks already in the cache, after `block_reads`
    reads of its blocks since it was created. In steady state the cache holds about `hit_ratio`
    of the file's blocks (under LRU a run's occupancy is its hit ratio, for blocks alike within it);
    each read that misses brings one in."""
    cached_blocks = hit_ratio * file_bytes / block_size
    if cached_blocks <= 0:
        return 1.0
    return min(1.0, block_reads / cached_blocks)


def warm_bytes(file_bytes: np.ndarray, block_reads: np.ndarray, hit_ratio: float, block_size: float) -> float:
    """sum over a run's files of bytes x `warmth` (the bytes already as warm as the steady state), vectorized."""
    if hit_ratio <= 0 or len(file_bytes) == 0:
        return float(file_bytes.sum())
    cached_blocks = hit_ratio * file_bytes / block_size
    return float(np.dot(file_bytes, np.minimum(1.0, block_reads / cached_blocks)))
