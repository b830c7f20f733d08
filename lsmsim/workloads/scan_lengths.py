"""How many entries a long scan reads, when it varies from scan to scan (`phase.scan_lengths`).

- `uniform`: YCSB's `scanlengthdistribution=uniform`, every length of [min, max] alike (CoreWorkload:
  UniformLongGenerator(minscanlength, maxscanlength));
- `zipfian`: YCSB's `scanlengthdistribution=zipfian`, ZipfianGenerator(minscanlength, maxscanlength) with its
  constant 0.99: the shortest length the most likely (Gray et al.'s inverse, `zipf.py`);
- `pareto`: db_bench mixgraph's Seeks, ceil(ParetoCdfInversion(u, iter_theta, iter_k, iter_sigma)) Nexts modulo
  mix_max_scan_len (tools/db_bench_tool.cc, Benchmark::MixGraph): a heavy tail folded into [0, max).

The throughput takes the mean length (`phase.scan_length`); the latency percentiles take the spread: a scan of
length L costs its seek plus L / E[L] of the rest of a mean-length scan (`multipliers`), the seek's share coming from
the cost model (`lsm/costs.py`, the scan at length 0).
"""

from __future__ import annotations

import functools

import numpy as np

_GRID = 1 << 20  # midpoints of u for the distributions drawn by inversion
# probability bins of `points`: the head at quartiles, the tail finer (p99 and p99.9 fall on bin edges)
EDGES = np.array([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.97, 0.99, 0.995, 0.997, 0.999, 0.9997, 1.0])


def _u() -> np.ndarray:
    return (np.arange(_GRID, dtype=np.float64) + 0.5) / _GRID


@functools.lru_cache(maxsize=32)
def pmf(distribution: str, lo: int, hi: int, theta: float = 0.0, k: float = 0.0, sigma: float = 0.0):
    """(lengths, probabilities) of the scan lengths, lengths ascending. `lo`..`hi`: uniform's and zipfian's range
    (inclusive); pareto's lengths run over [0, hi) (`lo` unused)."""
    if distribution == "uniform":
        lengths = np.arange(lo, hi + 1, dtype=np.int64)
        return lengths, np.full(lengths.size, 1.0 / lengths.size)
    if distribution == "zipfian":
        from .keys import _zipf_draw

        items = hi - lo + 1
        ranks = _zipf_draw(None, _GRID, items, 0.99, 0, 1, 0, u=_u()).astype(np.int64)
        counts = np.bincount(ranks, minlength=items)
        return np.arange(lo, hi + 1, dtype=np.int64), counts / counts.sum()
    if distribution == "pareto":
        from .mixgraph import _ceiled

        lengths = np.mod(_ceiled(None, None, theta, k, sigma), max(1, hi)).astype(np.int64)
        counts = np.bincount(lengths, minlength=max(1, hi))
        keep = counts > 0
        return np.flatnonzero(keep).astype(np.int64), counts[keep] / counts.sum()
    raise ValueError(f"unknown scan length distribution {distribution!r}")


def mean(distribution: str, lo: int, hi: int, theta: float = 0.0, k: float = 0.0, sigma: float = 0.0) -> float:
    lengths, p = pmf(distribution, lo, hi, theta, k, sigma)
    return float((lengths * p).sum())


@functools.lru_cache(maxsize=32)
def points(distribution: str, lo: int, hi: int, theta: float = 0.0, k: float = 0.0, sigma: float = 0.0):
    """The distribution in a few points for the fluid's latency percentiles: (lengths, probabilities), one point per
    bin of cumulative probability (`EDGES`) at the bin's conditional mean length. The mean is kept exactly; a
    quantile on a bin edge is the bin's mean, within the bin's range of lengths."""
    lengths, p = pmf(distribution, lo, hi, theta, k, sigma)
    cdf_hi = np.cumsum(p)
    cdf_lo = cdf_hi - p
    # mass of each length inside each bin: the overlap of [cdf_lo, cdf_hi) with [EDGES[i], EDGES[i + 1])
    overlap = np.clip(
        np.minimum(cdf_hi[None, :], EDGES[1:, None]) - np.maximum(cdf_lo[None, :], EDGES[:-1, None]), 0.0, None
    )
    mass = overlap.sum(axis=1)
    keep = mass > 0
    means = (overlap * lengths[None, :]).sum(axis=1)[keep] / mass[keep]
    return means, mass[keep] / mass[keep].sum()


def multipliers(lengths: np.ndarray, mean_length: float, seek_share: float) -> np.ndarray:
    """A scan of each length's latency over the mean-length scan's: its seek (`seek_share` of the mean scan's cost:
    the memtables, a seek in each run, their index blocks) plus the rest in proportion to its length."""
    if mean_length <= 0:
        return np.ones_like(lengths, dtype=np.float64)
    return seek_share + (1.0 - seek_share) * np.asarray(lengths, dtype=np.float64) / mean_length
