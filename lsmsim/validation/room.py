"""Before `lsmsim validate` runs real RocksDB: what it will write where, and whether the folder has room."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from ..config import Config
from ..errors import ConfigError


def disk_estimate(cfg: Config) -> int:
    """Bytes the real run's DB folder may hold at its peak: the key space's entries twice over (a compaction's
    inputs and outputs both exist until it ends; space-amp of leveled RocksDB stays near 1.1 beyond that) plus
    the WAL of the memtables (our estimate, meant to catch a config far too big for the disk)."""
    w, lsm = cfg.workload, cfg.lsm
    entry = int(w.key_size) + int(w.value_size) + int(lsm.entry_overhead)
    return int(2 * w.num * entry + 2 * lsm.write_buffer_size * lsm.max_write_buffer_number)


def check_room(cfg: Config, db_dir: str | Path | None, force: bool) -> None:
    """Say what the real run writes where; refuse a missing folder, and more than its free space unless forced."""
    where = Path(db_dir) if db_dir is not None else Path(tempfile.gettempdir())
    if not where.is_dir():
        raise ConfigError("--db-dir", [(str(where), "no such folder: give an existing folder for the real RocksDB")])
    need, free = disk_estimate(cfg), shutil.disk_usage(where).free
    print(f"lsmsim validate: runs real RocksDB in {where}: up to about {need / 2**30:.2f} GiB "
          f"({free / 2**30:.1f} GiB free there)", file=sys.stderr)  # fmt: skip
    if need > free and not force:
        raise ConfigError(
            "validate",
            [(str(where), f"the real run may need {need / 2**30:.1f} GiB, more than the {free / 2**30:.1f} GiB free; "
              "shrink workload.num, give --db-dir on a larger disk, or --force")],
        )  # fmt: skip
