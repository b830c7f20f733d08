"""The memtable: an append buffer of write samples, deduplicated when flushed."""

from __future__ import annotations

import numpy as np

from .merge import dedup_versions
from .sstable import Samples


class Memtable:
    """Accumulates writes. `bytes` follows RocksDB's arena accounting: every insert, including
    overwritten versions, costs key + value + a per-entry node overhead, so a flush writes fewer
    bytes than `write_buffer_size` (see LsmConfig.memtable_entry_overhead)."""

    def __init__(self, key_size: int, entry_overhead: int, eps: int):
        self.key_size = key_size
        self.entry_overhead = entry_overhead
        self.eps = eps
        self.bytes = 0.0  # real arena bytes
        self.entries = 0  # real inserts
        self.user_bytes = 0.0  # key + value bytes written by the user
        self._chunks: list[Samples] = []
        self.id = 0  # set by the tree; its WAL is device file -id

    def add(self, n_ops: int, value_bytes_total: float, samples: Samples) -> None:
        """Record `n_ops` real writes with `samples` (the ones whose key hash is sampled)."""
        self.entries += n_ops
        self.user_bytes += n_ops * self.key_size + value_bytes_total
        self.bytes += n_ops * (self.key_size + self.entry_overhead) + value_bytes_total
        if len(samples):
            self._chunks.append(samples)

    def samples(self) -> Samples:
        return Samples.concat(self._chunks) if self._chunks else Samples.empty()

    def flush_samples(self) -> Samples:
        """Sorted, one version per key: what a flush writes to L0 (tombstones are kept)."""
        s = self.samples()
        if len(s) == 0:
            return s
        return Samples(*dedup_versions(s.keys, s.seqs, s.vlens, s.tombs))

    def lookup(self, key: int):
        s = self.samples()
        hit = np.nonzero(s.keys == np.uint64(key))[0]
        if hit.size == 0:
            return None
        j = hit[np.argmax(s.seqs[hit])]
        return int(s.seqs[j]), int(s.vlens[j]), int(s.tombs[j])
