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

import numpy as np

from .._numba import numba

GRID = np.concatenate([[0.0], np.logspace(-6, 0, 241)])  # data fractions: fine near 0, where skew lives


def profile(hot_fraction: Callable[[float], float]) -> tuple[np.ndarray, np.ndarray]:
    """(data share w_k, access share a_k) of each popularity bucket, hottest first. Neighbouring buckets of the
    same per-block rate a_k / w_k are one bucket (Che's sums depend on a bucket only through its count and
    rate): a uniform distribution is a single bucket, which makes the cache kernel 241x cheaper."""
    h = np.array([min(1.0, max(0.0, hot_fraction(float(x)))) for x in GRID])
    h = np.maximum.accumulate(h)
    h[-1] = 1.0
    w, a = np.diff(GRID), np.diff(h)
    rate = a / w
    new = np.ones(len(w), bool)
    new[1:] = ~np.isclose(rate[1:], rate[:-1], rtol=1e-9, atol=0.0)
    group = np.cumsum(new) - 1
    return np.bincount(group, w), np.bincount(group, a)


@numba.njit(cache=True)
def _referenced(access, blocks, w, a):
    """(blocks referenced at all, references per operation) over every run and popularity bucket."""
    total = 0.0
    flow = 0.0
    for i in range(blocks.shape[0]):
        if access[i] > 0.0 and blocks[i] > 0.0:
            for k in range(w.shape[0]):
                if w[k] > 0.0 and a[k] > 0.0:
                    total += blocks[i] * w[k]
                    flow += access[i] * a[k]
    return total, flow


@numba.njit(cache=True)
def _occupancy(access, blocks, w, a, t):
    """(blocks an LRU cache of characteristic time t holds, and the derivative in t)."""
    occ = 0.0
    slope = 0.0
    for i in range(blocks.shape[0]):
        if access[i] > 0.0 and blocks[i] > 0.0:
            alpha = access[i] / blocks[i]
            for k in range(w.shape[0]):
                if w[k] > 0.0 and a[k] > 0.0:
                    r = alpha * a[k] / w[k]
                    occ += blocks[i] * w[k] * -math.expm1(-r * t)
                    slope += blocks[i] * a[k] * alpha * math.exp(-r * t)
    return occ, slope


@numba.njit(cache=True)
def lru_hits_kernel(access, blocks, w, a, capacity, t0, out):
    """Che's approximation for runs of blocks (see `lru_run_hits`), without building the runs x buckets arrays:
    bucket k of run i holds count = blocks_i w_k blocks at rate (access_i / blocks_i)(a_k / w_k) each. Fills
    out[i] with run i's hit probability and returns the characteristic time T, the root of
    sum count (1 - exp(-rate T)) = capacity, found by Newton's method. The occupancy is increasing and concave
    in T, so from the lower bound T0 = capacity / sum(count rate) every step stays below the root and the iterates
    rise to it; from a start above the root (`t0`, the previous call's T: the tree changed little) the first step
    lands below it, then they rise. tests/test_cache.py checks T against scipy's brentq and the hits against
    numpy. Returns 0 when the cache is empty, inf when it holds every referenced block."""
    n = blocks.shape[0]
    out[:] = 0.0
    if capacity <= 0.0:
        return 0.0
    total, flow = _referenced(access, blocks, w, a)
    if capacity >= total:
        for i in range(n):
            out[i] = 1.0 if access[i] > 0.0 else 0.0
        return math.inf
    lower = capacity / flow
    t = t0 if lower < t0 < math.inf else lower
    for _ in range(500):
        occ, slope = _occupancy(access, blocks, w, a, t)
        if slope <= 0.0:
            t = math.inf
            break
        step = (capacity - occ) / slope
        t = max(t + step, lower)
        if abs(step) <= 1e-13 * t or t > 1e300:
            break
    for i in range(n):
        if access[i] > 0.0 and blocks[i] > 0.0:
            alpha = access[i] / blocks[i]
            for k in range(w.shape[0]):
                if w[k] > 0.0 and a[k] > 0.0:
                    out[i] += -math.expm1(-alpha * a[k] / w[k] * t) * a[k]
    return t


def lru_run_hits(
    access: np.ndarray, blocks: np.ndarray, w: np.ndarray, a: np.ndarray, capacity: float, t0: float = 0.0
) -> tuple[np.ndarray, float]:
    """Per run, the probability that a block access hits an LRU cache of `capacity` blocks, when run j
    of `blocks[j]` blocks gets `access[j]` accesses per operation spread over its blocks by the key
    popularity (w, a): a block of a small run that every operation visits (an L0 file under range
    scans) is far hotter than one of the last level, and stays cached. Also returns the characteristic
    time, which a next call may pass as `t0` to start Newton's method near its root."""
    out = np.empty(len(blocks))
    t = lru_hits_kernel(
        np.ascontiguousarray(access, float), np.ascontiguousarray(blocks, float), w, a, float(capacity), t0, out
    )
    return out, t


class Caches:
    """The block cache over the page cache for one key distribution (its popularity profile is
    built once, on first use)."""

    def __init__(self, hot_fraction: Callable[[float], float]):
        self.hot_fraction = hot_fraction
        self._profile: tuple[np.ndarray, np.ndarray] | None = None
        self._t: dict[float, float] = {}  # cache size -> last characteristic time (Newton's next start)

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
        hb = self._hits(acc, blocks, block_cache / block_size)
        hp = self._hits(acc, blocks, page_cache / block_size) if page_cache > block_cache else hb
        return hb, np.maximum(hb, hp)

    def _hits(self, acc: np.ndarray, blocks: np.ndarray, capacity: float) -> np.ndarray:
        w, a = self._profile  # type: ignore[misc]
        h, t = lru_run_hits(acc, blocks, w, a, capacity, self._t.get(capacity, 0.0))
        self._t[capacity] = t
        return h


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
    """sum over a run's files of bytes x `warmth` (the bytes already as warm as the steady state), vectorized: the
    reference of `Run.warm_bytes`, which answers from prefix sums in O(log files)."""
    if hit_ratio <= 0 or len(file_bytes) == 0:
        return float(file_bytes.sum())
    cached_blocks = hit_ratio * file_bytes / block_size
    return float(np.dot(file_bytes, np.minimum(1.0, block_reads / cached_blocks)))
