"""Plain-Python reference of `lsm/cutting.py`'s numba kernel: RocksDB 7.8.3's
CompactionOutputs::ShouldStopBefore and UpdateGrandparentBoundaryInfo
(db/compaction/compaction_outputs.cc), written as close to the C++ as Python allows."""

from __future__ import annotations

import math


class Outputs:
    """The state CompactionOutputs keeps between keys."""

    def __init__(self, grandparents, target, max_output, max_compaction_bytes, dynamic):
        self.gp = grandparents  # [(smallest, largest, bytes)], sorted, disjoint
        self.target, self.max_output = target, max_output
        self.max_compaction_bytes, self.dynamic = max_compaction_bytes, dynamic
        self.grandparent_index = 0
        self.being_grandparent_gap = True
        self.seen_key = False
        self.grandparent_overlapped_bytes = 0.0
        self.grandparent_boundary_switched_num = 0
        self.current_output_file_size = 0.0
        self.has_builder = False

    def current_key_overlapped_bytes(self) -> float:
        return 0.0 if self.being_grandparent_gap else self.gp[self.grandparent_index][2]

    def update_grandparent_boundary_info(self, key) -> int:
        switched = 0
        while self.grandparent_index < len(self.gp):
            lo, hi, size = self.gp[self.grandparent_index]
            if self.being_grandparent_gap:
                if key < lo:
                    break
                if self.seen_key:
                    switched += 1
                    self.grandparent_overlapped_bytes += size
                    self.grandparent_boundary_switched_num += 1
                self.being_grandparent_gap = False
            else:
                if key <= hi:  # unique user keys: cmp_result <= 0
                    break
                if self.seen_key:
                    switched += 1
                    self.grandparent_boundary_switched_num += 1
                self.being_grandparent_gap = True
                self.grandparent_index += 1
        if not self.seen_key and not self.being_grandparent_gap:
            self.grandparent_overlapped_bytes = self.current_key_overlapped_bytes()
        self.seen_key = True
        return switched

    def should_stop_before(self, key) -> bool:
        previous = self.grandparent_overlapped_bytes
        crossed = self.update_grandparent_boundary_info(key)
        if not self.has_builder:
            return False
        if self.current_output_file_size >= self.max_output:
            return True
        if crossed > 0:
            if self.grandparent_overlapped_bytes + self.current_output_file_size > self.max_compaction_bytes:
                return True
            skippable = 2 if self.being_grandparent_gap else 3
            if self.dynamic and crossed >= skippable and self.grandparent_overlapped_bytes - previous > self.target / 8:
                return True
            threshold = math.ceil(self.target / 100) * (50 + min(self.grandparent_boundary_switched_num * 5, 40))
            if self.dynamic and self.current_output_file_size >= threshold:
                return True
        return False

    def add(self, key, size) -> bool:
        """AddToOutput: True when `key` opens a new file."""
        opened = False
        if self.should_stop_before(key) and self.has_builder:
            self.has_builder = False
            self.grandparent_boundary_switched_num = 0
            self.grandparent_overlapped_bytes = self.current_key_overlapped_bytes()
        if not self.has_builder:
            self.has_builder = True
            self.current_output_file_size = 0.0
            opened = True
        self.current_output_file_size += size
        return opened


def starts(keys, sizes, grandparents, target, max_compaction_bytes=math.inf, dynamic=True) -> list[int]:
    """Start index of each output file, as RocksDB cuts them."""
    dyn = dynamic and bool(grandparents)
    out = Outputs(grandparents, target, 2 * target if dyn else target, max_compaction_bytes, dyn)
    return [i for i, (k, s) in enumerate(zip(keys, sizes)) if out.add(k, s)]
