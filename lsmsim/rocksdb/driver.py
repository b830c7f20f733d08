"""Apply a lsmsim policy's decisions to a real RocksDB: auto compactions off, the policy picks
from a mirror of the real live files, the shim's CompactFiles executes.

RocksDB's levels below L0 each hold one sorted run, so the driver gives every lsmsim level a band
of `band` RocksDB levels, one per run it may hold (the policy's runs per level): lsmsim level j
>= 1 owns RocksDB levels 1 + (j - 1) * band .. j * band, and L0 stays L0 (one run per flushed
file, as in both). Within a band runs are placed from the deepest level up, so a newer run always
sits above older ones (RocksDB reads levels top-down and needs newer data higher) and a merge's
output level is never above its inputs (CompactFiles' rule). A compaction into an existing run
(`target_run`) writes into that run's level; a new run takes the free level just above the
band's youngest run. RocksDB has no trivial-move call, so a policy's trivial move is executed as a
rewrite (counted in the real write-amp; say so when comparing).

Flushes stay RocksDB's: the driver polls the live files, mirrors each new L0 file as a run and
asks the policy for compactions until it has none, running them one at a time (the writer waits,
so the real run's timing is not comparable; its bytes are).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..config import Config
from ..errors import LsmsimError
from ..lsm.sstable import Samples, SSTFile
from ..lsm.tree import Tree
from ..policies import make_policy
from ..policies.view import StaticView

ONE_FILE = 1 << 40  # an output file size limit no run reaches


def band_size(cfg: Config) -> int:
    """RocksDB levels per lsmsim level: the most runs the policy keeps in one level."""
    p = cfg.policy
    if p.name == "tiering":
        return int(p.size_ratio)
    if p.name == "lazy_leveling":
        return int(p.size_ratio)
    if p.name == "moose":
        return max(p.runs_per_level)
    if p.name in ("full_leveling", "leveled"):
        return 1
    raise LsmsimError(
        f"policy {p.name}: the RocksDB policy driver supports tiering, lazy_leveling, moose, full_leveling and leveled"
    )


def _file_number(name: str) -> int:
    return int(name.strip("/").split(".")[0])


def _key_id(key: bytes) -> int:
    return int.from_bytes(key[:8].ljust(8, b"\0"), "big")


@dataclass
class DriverStats:
    compactions: int = 0
    trivial_moves_rewritten: int = 0
    read_bytes: int = 0
    log: list = field(default_factory=list)


class PolicyDriver:
    """Mirror of the real DB as a lsmsim `Tree`, the policy that reads it, and the level bands."""

    def __init__(self, cfg: Config, max_levels: int = 8):
        self.cfg = cfg
        self.band = band_size(cfg)
        self.max_levels = max_levels
        self.num_levels = 1 + max_levels * self.band
        self.policy = make_policy(cfg.policy, cfg.lsm)
        lsm = cfg.lsm
        self.tree = Tree(int(cfg.workload.key_size), int(lsm.entry_overhead), 1, int(lsm.memtable_entry_overhead))
        self.known: dict[int, SSTFile] = {}  # RocksDB file number -> mirrored file
        self.slot: dict[int, int] = {}  # lsmsim run id -> RocksDB level
        self.stats = DriverStats()

    def options(self, opts):
        """The real DB's options: level style, auto compactions off, enough levels for the bands."""
        opts.compaction_style = "level"
        opts.disable_auto_compactions = True
        opts.num_levels = self.num_levels
        opts.level_compaction_dynamic_level_bytes = False
        return opts

    # ------------------------------------------------------------------ mirror
    def _mirror(self, lf, level: int) -> SSTFile:
        lo, hi = _key_id(lf.smallest_key), _key_id(lf.largest_key)
        n = _file_number(lf.name)
        keys = np.array([lo, hi] if hi > lo else [lo], np.uint64)
        seqs = np.full(keys.shape[0], n, np.uint64)
        samples = Samples(
            keys,
            seqs,
            np.full(keys.shape[0], int(self.cfg.workload.value_size), np.uint32),
            np.zeros(keys.shape[0], np.uint8),
        )
        f = SSTFile(
            id=n,
            samples=samples,
            bytes=int(lf.size),
            entries=int(lf.entries),
            level=level,
            created=float(n),
            tombstones=int(lf.deletions),
        )
        f.name = lf.name
        return f

    def poll(self, db) -> None:
        """Mirror new flushes as L0 runs, then run the policy's compactions until it has none."""
        new = sorted(
            (lf for lf in db.live_files() if lf.level == 0 and _file_number(lf.name) not in self.known),
            key=lambda lf: _file_number(lf.name),
        )
        for lf in new:  # oldest first, so the youngest ends up first in L0
            f = self._mirror(lf, 0)
            self.known[f.id] = f
            run = self.tree.new_run([f])
            self.tree.level(0).runs.insert(0, run)
            self.tree.version += 1
            self.policy.on_flush(StaticView(self.tree), run)
        if new:
            self._compact(db)

    def _compact(self, db) -> None:
        for _ in range(10_000):
            view = StaticView(self.tree)
            c = self.policy.next_compaction(view)
            if c is None:
                return
            self._execute(db, c)
        raise LsmsimError("policy driver: the policy kept picking compactions (10,000 in a row)")

    def _slot_for(self, c) -> int:
        if c.target_run is not None:
            return self.slot[c.target_run.id]
        if c.output_level == 0:
            return 0
        j = c.output_level
        if j > self.max_levels:
            raise LsmsimError(
                f"policy driver: the policy wants lsmsim level {j}, beyond the {self.max_levels} "
                "levels the real DB was opened with"
            )
        top, bottom = 1 + (j - 1) * self.band, j * self.band
        inputs = {f.id for f in c.inputs}
        used = [self.slot[r.id] for r in self.tree.runs_at(j) if not all(f.id in inputs for f in r.files)]
        free = min(used) - 1 if used else bottom
        # a merge within the band: the output takes the deepest input's level (CompactFiles never
        # writes above its inputs, and the runs above it stay younger)
        free = max(free, max(self._level_of(f) for f in c.inputs))
        if free < top:
            raise LsmsimError(
                f"policy driver: lsmsim level {j} holds more runs than its band of {self.band} RocksDB levels"
            )
        return free

    def _level_of(self, f: SSTFile) -> int:
        for lvl in self.tree.levels:
            for r in lvl.runs:
                if any(g.id == f.id for g in r.files):
                    return 0 if lvl.index == 0 else self.slot[r.id]
        raise LsmsimError(f"policy driver: file {f.id} is not in the mirror")

    def _execute(self, db, c) -> None:
        out_level = self._slot_for(c)
        before = {_file_number(lf.name) for lf in db.live_files()}
        size = int(c.target_file_size or ONE_FILE)  # no target size: the run is one file, as in lsmsim
        db.compact_files([f.name for f in c.inputs], out_level, size)
        after = db.live_files()
        gone = {f.id for f in c.inputs}
        missing = [f for f in after if _file_number(f.name) in gone]
        if missing:
            raise LsmsimError(f"policy driver: CompactFiles left inputs {[f.name for f in missing]} in place")
        outputs = [
            self._mirror(lf, c.output_level)
            for lf in after
            if _file_number(lf.name) not in before and lf.level == out_level
        ]
        for f in c.inputs:
            self.known.pop(f.id, None)
        for f in outputs:
            self.known[f.id] = f
        self.stats.compactions += 1
        self.stats.trivial_moves_rewritten += bool(c.trivial_move)
        self.stats.read_bytes += c.input_bytes
        run = self.tree.install(c.inputs, outputs, c.output_level, c.target_run)
        if run is not None:
            self.slot[run.id] = out_level
        self.stats.log.append(
            {
                "inputs": len(c.inputs),
                "output_level": c.output_level,
                "rocksdb_level": out_level,
                "read_bytes": c.input_bytes,
                "write_bytes": sum(f.bytes for f in outputs),
                "reason": c.reason,
            }
        )
        self.policy.on_compaction_done(StaticView(self.tree), c)

    # ------------------------------------------------------------------ views
    def levels(self) -> dict:
        """Files, bytes and runs per lsmsim level (for the validation timeseries)."""
        out = {}
        for lvl in self.tree.levels:
            out[f"files_L{lvl.index}"] = len(lvl.files)
            out[f"bytes_L{lvl.index}"] = lvl.bytes
            out[f"runs_L{lvl.index}"] = len(lvl.runs)
        out["sorted_runs"] = len(self.tree.runs())
        return out
