"""Files (SSTs) and sorted runs over key samples.

A file keeps a sorted sample of its keys and its real metadata. `entries_per_sample` (e) maps one
sample to e real entries; samples are chosen by key hash (see `workloads.generator`), so the sampled
keys deduplicate exactly as the full key set would and measured overlap is unbiased. Byte counts are
always real: bytes = e * sum(key_size + value length + entry_overhead) over the samples.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np


@dataclass(eq=False)
class Samples:
    """Column arrays of key samples, sorted by key."""

    keys: np.ndarray  # uint64
    seqs: np.ndarray  # uint64
    vlens: np.ndarray  # uint32, value length (0 for tombstones)
    tombs: np.ndarray  # uint8, 1 = tombstone

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def slice(self, a: int, b: int) -> Samples:
        return Samples(self.keys[a:b], self.seqs[a:b], self.vlens[a:b], self.tombs[a:b])

    @staticmethod
    def concat(parts: list[Samples]) -> Samples:
        return Samples(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("keys", "seqs", "vlens", "tombs")))

    @staticmethod
    def empty() -> Samples:
        return Samples(np.empty(0, np.uint64), np.empty(0, np.uint64), np.empty(0, np.uint32), np.empty(0, np.uint8))


@dataclass(eq=False)
class SSTFile:
    id: int
    samples: Samples
    bytes: int
    entries: int
    level: int
    created: float
    tombstones: int = 0
    being_compacted: bool = False
    block_reads: float = 0.0  # data-block reads served since creation (block-cache warm-up)
    installed: int = -1  # the tree version that first held it (sim/versions.py); -1 while being written

    def __post_init__(self):
        # a file never changes: cache its key and sequence range as Python ints (hot in pickers)
        k, q = self.samples.keys, self.samples.seqs
        self.min_key = int(k[0])
        self.max_key = int(k[-1])
        self.min_seq = int(q.min())
        self.max_seq = int(q.max())
        # the seqno of its oldest tombstone (None without any): when its oldest delete was written, for
        # tombstone-age triggers (Lethe's FADE)
        t = self.samples.tombs
        self.oldest_tombstone_seq = int(q[t != 0].min()) if self.tombstones and t.any() else None

    def overlaps(self, lo: int, hi: int) -> bool:
        return not (self.max_key < lo or self.min_key > hi)

    def __repr__(self) -> str:
        return f"SSTFile(#{self.id} L{self.level} [{self.min_key}..{self.max_key}] {self.bytes}B)"


class Run:
    """A sorted run: non-overlapping files sorted by key."""

    def __init__(self, id: int, files: list[SSTFile] | None = None):
        self.id = id
        self._base: np.ndarray | None = None  # per file: block reads per byte, less _delta
        self._delta = 0.0
        self._warm_index: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._order: np.ndarray | None = None  # the files sorted by _base (kept through splices)
        self.files = files or []

    @property
    def files(self) -> list[SSTFile]:
        return self._files

    @files.setter
    def files(self, files: list[SSTFile]) -> None:
        # a run changes only by assignment (Run.replace, Tree.install): derive its totals once here,
        # not on every kernel step and every pick
        self.settle_block_reads()
        self._files = files
        self._maxes = [f.max_key for f in files]  # for binary search in `overlapping`
        self.bytes = sum(f.bytes for f in files)
        self.entries = sum(f.entries for f in files)
        self.tombstones = sum(f.tombstones for f in files)
        self._file_bytes: np.ndarray | None = None
        self._keys: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def key_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(min keys, max keys, cumulative bytes with a leading 0) in key order, as arrays built once per
        change of the run's files (pickers that rank every file of a level use them instead of a loop)."""
        if self._keys is None:
            fs = self._files
            n = len(fs)
            cum = np.zeros(n + 1, np.int64)
            np.cumsum(np.fromiter((f.bytes for f in fs), np.int64, n), out=cum[1:])
            self._keys = (
                np.fromiter((f.min_key for f in fs), np.uint64, n),
                np.fromiter((f.max_key for f in fs), np.uint64, n),
                cum,
            )
        return self._keys

    def overlap_bytes(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Bytes of this run's files that intersect each key range [lo[i], hi[i]] (vectorized `overlapping`)."""
        mins, maxs, cum = self.key_arrays()
        a = np.searchsorted(maxs, lo, "left")  # the first file ending at or after lo
        b = np.searchsorted(mins, hi, "right")  # past the last file starting at or before hi
        return np.where(b > a, cum[np.maximum(a, b)] - cum[a], 0)

    def index_of(self, f: SSTFile) -> int:
        """Position of `f` in the run (binary search on the files' max keys, which are distinct)."""
        i = bisect.bisect_left(self._maxes, f.max_key)
        if i >= len(self._files) or self._files[i] is not f:
            raise ValueError(f"{f} is not in run {self.id}")
        return i

    # ---- block-cache warm-up (lsm/cache.py). A uniform key's reads land in a file in proportion to its share of
    # the run, so crediting reads adds the same reads-per-byte to every file: file i has read rho_i = base_i + delta
    # blocks per byte, and a credit moves only `delta`. Its warmth min(1, rho_i * block_size / hit_ratio) is 1 above
    # a threshold on base_i, so the run's warm bytes come from prefix sums over the files sorted by base_i: a
    # binary search per query, not a pass over the files (which dominated 1-L at the paper's 20K files).
    def _ensure_base(self) -> None:
        if self._base is None:
            fb = self.file_bytes()
            reads = np.fromiter((f.block_reads for f in self._files), float, len(self._files))
            self._base = np.divide(reads, fb, out=np.zeros_like(fb), where=fb > 0)
            self._delta = 0.0
            self._warm_index = None
            self._order = None

    def file_bytes(self) -> np.ndarray:
        """Bytes per file, as an array owned by the run."""
        if self._file_bytes is None:
            self._file_bytes = np.fromiter((f.bytes for f in self._files), float, len(self._files))
        return self._file_bytes

    def block_read_state(self) -> tuple[np.ndarray, np.ndarray]:
        """(bytes, data-block reads served since creation) per file (a new reads array)."""
        self._ensure_base()
        fb = self.file_bytes()
        return fb, (self._base + self._delta) * fb  # type: ignore[operator]

    def credit_block_reads(self, reads: float) -> None:
        """Spread `reads` data-block reads over the run's files by their bytes (O(1): see above)."""
        if reads > 0 and self.bytes > 0:
            self._ensure_base()
            self._delta += reads / self.bytes

    def warm_bytes(self, hit_ratio: float, block_size: float) -> float:
        """sum over the files of bytes x warmth (`cache.warm_bytes`, its reference), in O(log files)."""
        if hit_ratio <= 0 or not self._files:
            return float(self.bytes)
        self._ensure_base()
        if self._warm_index is None:
            if self._order is None:
                self._order = np.argsort(self._base, kind="stable")
            order = self._order
            fb = self.file_bytes()[order]
            sb = self._base[order]  # type: ignore[index]
            pb = np.zeros(len(fb) + 1)
            ps = np.zeros(len(fb) + 1)
            np.cumsum(fb, out=pb[1:])
            np.cumsum(fb * sb, out=ps[1:])
            self._warm_index = (sb, pb, ps)
        sb, pb, ps = self._warm_index
        k = int(np.searchsorted(sb, hit_ratio / block_size - self._delta, "left"))  # files [0, k) are not yet warm
        return float(pb[-1] - pb[k] + block_size / hit_ratio * (ps[k] + self._delta * pb[k]))

    def cold_bytes(self, hit_ratio: float, block_size: float) -> float:
        """Bytes of the files not yet as warm as the steady state (`warm_bytes`' files [0, k)): they still warm as
        the run is read."""
        if hit_ratio <= 0 or not self._files:
            return 0.0
        self.warm_bytes(hit_ratio, block_size)  # builds the index
        sb, pb, _ = self._warm_index  # type: ignore[misc]
        return float(pb[int(np.searchsorted(sb, hit_ratio / block_size - self._delta, "left"))])

    def settle_block_reads(self) -> None:
        """Write the reads back to the files (before the run's files change: files outlive runs)."""
        if self._base is not None:
            reads = ((self._base + self._delta) * self.file_bytes()).tolist()
            for f, r in zip(self._files, reads):
                f.block_reads = r
            self._base = None
            self._warm_index = None
            self._order = None

    @property
    def min_key(self) -> int:
        return self.files[0].min_key

    @property
    def max_key(self) -> int:
        return self.files[-1].max_key

    @property
    def max_seq(self) -> int:
        return max(f.max_seq for f in self.files)

    @property
    def min_seq(self) -> int:
        return min(f.min_seq for f in self.files)

    def overlapping(self, lo: int, hi: int) -> list[SSTFile]:
        """Files whose key range intersects [lo, hi] (binary search on file boundaries)."""
        i = bisect.bisect_left(self._maxes, lo)
        out = []
        while i < len(self.files) and self.files[i].min_key <= hi:
            out.append(self.files[i])
            i += 1
        return out

    def replace(self, removed: set[int], added: list[SSTFile]) -> None:
        """Swap files (by id) for new ones, keeping key order."""
        self.splice([i for i, f in enumerate(self._files) if f.id in removed], added)

    def splice(self, remove: list[int], added: list[SSTFile]) -> None:
        """Remove the files at positions `remove` and insert `added` (disjoint from the files that stay) in key
        order. The totals and the per-file arrays are edited in place, so a compaction that touches a few files
        of a large run costs memory moves, not a Python pass over the run."""
        remove = sorted(set(remove))
        added = sorted(added, key=lambda f: f.min_key)
        files, maxes = self._files, self._maxes
        gone = [files[i] for i in remove]
        if self._base is not None:  # removed files keep what they were read (a trivial move takes them along)
            fb = self.file_bytes()
            for i, b, x in zip(remove, self._base[remove].tolist(), fb[remove].tolist()):
                files[i].block_reads = (b + self._delta) * x
        for i in reversed(remove):
            del files[i]
            del maxes[i]
        pos = [bisect.bisect_left(maxes, f.max_key) for f in added]  # in the run without the removed files
        for k, (i, f) in enumerate(zip(pos, added)):
            files.insert(i + k, f)
            maxes.insert(i + k, f.max_key)
        self.bytes += sum(f.bytes for f in added) - sum(f.bytes for f in gone)
        self.entries += sum(f.entries for f in added) - sum(f.entries for f in gone)
        self.tombstones += sum(f.tombstones for f in added) - sum(f.tombstones for f in gone)
        self._warm_index = None
        if self._base is None and self._file_bytes is None and self._keys is None:
            return
        # one index computation for every per-file array: the files that stay keep their order, the added ones
        # land at `pos + k` (as in the list inserts above)
        n = len(files)
        at = np.asarray(pos, np.int64) + np.arange(len(added), dtype=np.int64)
        stay = np.ones(n, bool)
        stay[at] = False
        kept = np.ones(n + len(remove) - len(added), bool)
        kept[remove] = False

        def edit(old: np.ndarray, new_values) -> np.ndarray:
            out = np.empty(n, old.dtype)
            out[stay] = old[kept]
            out[at] = new_values
            return out

        if self._base is not None:
            new_base = [f.block_reads / f.bytes - self._delta if f.bytes > 0 else 0.0 for f in added]
            self._base = edit(self._base, new_base)
            if self._order is not None:  # keep the sorted order without sorting: new outputs (unread) go first
                old_to_new = np.full(len(kept), -1, np.int64)
                old_to_new[kept] = np.flatnonzero(stay)
                rest = old_to_new[self._order]
                rest = rest[rest >= 0]
                if not added:
                    self._order = rest
                elif not rest.size or max(new_base) <= self._base[rest[0]]:
                    self._order = np.concatenate([at[np.argsort(new_base, kind="stable")], rest])
                else:  # a trivial move brought files read before: sort again when asked
                    self._order = None
        if self._file_bytes is not None:
            self._file_bytes = edit(self._file_bytes, [f.bytes for f in added])
        if self._keys is not None:
            mins, maxs, cum = self._keys
            size = edit(np.diff(cum), [f.bytes for f in added])
            cum = np.zeros(n + 1, np.int64)
            np.cumsum(size, out=cum[1:])
            self._keys = (
                edit(mins, np.array([f.min_key for f in added], np.uint64)),
                edit(maxs, np.array([f.max_key for f in added], np.uint64)),
                cum,
            )

    def samples(self) -> Samples:
        return Samples.concat([f.samples for f in self.files]) if self.files else Samples.empty()

    def __repr__(self) -> str:
        return f"Run(#{self.id} files={len(self.files)} {self.bytes}B)"
