"""Block-cache hit model.

The cache holds the hottest `capacity` bytes of data blocks (index and filter blocks are pinned, as
with RocksDB's cache_index_and_filter_blocks=false). In steady state a data-block access hits with
probability hot_fraction(capacity / data bytes) of the key distribution (uniform: capacity/data).
A file's blocks enter the cache only as they are read: a new file (flush or compaction output) starts
cold and warms once it has served as many block reads as the cache holds of it.
"""

from __future__ import annotations

from collections.abc import Callable


def steady_hit_ratio(cache_bytes: float, data_bytes: float, hot_fraction: Callable[[float], float]) -> float:
    if data_bytes <= 0 or cache_bytes <= 0:
        return 0.0
    f = min(1.0, cache_bytes / data_bytes)
    return min(1.0, max(0.0, hot_fraction(f)))


def warmth(block_reads: float, file_bytes: float, cache_bytes: float, data_bytes: float, block_size: float) -> float:
    """Fraction of a file's steady-state cached blocks already in cache."""
    if data_bytes <= 0 or cache_bytes <= 0:
        return 0.0
    cached_blocks = min(cache_bytes, data_bytes) * (file_bytes / data_bytes) / block_size
    if cached_blocks <= 0:
        return 1.0
    return min(1.0, block_reads / cached_blocks)
