"""`Result`: the summary and tables of one run, saved as JSON + Parquet with provenance."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from . import __version__

SUMMARY_DOC = {
    "completed": "false when sim.max_time ended the run before its phases finished",
    "level0_slowdown_writes_trigger / level0_stop_writes_trigger": "the stall triggers in effect (raised "
        "to at least the policy's compaction trigger, as RocksDB's SanitizeOptions does)",
    "sim_time_s": "simulated seconds until the run ended (phases, then draining if sim.drain)",
    "measured_time_s": "simulated seconds of phases with measure: true",
    "ops_<op>": "operations executed (all phases), op in write, get, get_empty, short_scan, long_scan",
    "throughput_<op>_ops_per_s": "operations of measured phases / measured_time_s",
    "throughput_ops_per_s": "all operations of measured phases / measured_time_s",
    "latency_<op>_<stat>_s": "latency percentiles (p50, p90, p99, p999) and mean, measured phases; "
                             "op 'query' is open-loop arrivals, queueing included",
    "user_bytes": "key + value bytes written by the workload",
    "flush_bytes": "bytes written by flushes (L0 files)",
    "compaction_read_bytes / compaction_write_bytes": "bytes compactions read and wrote",
    "wal_bytes": "bytes appended to the write-ahead log",
    "write_amp": "(flush_bytes + compaction_write_bytes) / user_bytes",
    "write_amp_flush / write_amp_compaction": "the two parts of write_amp",
    "write_amp_rocksdb": "(flush_bytes + compaction_write_bytes) / flush_bytes: RocksDB's 'Sum' W-Amp",
    "space_amp": "tree bytes at the end / live logical bytes (key + value of live keys)",
    "space_amp_peak": "peak of (tree bytes + compaction output written so far) / live logical bytes",
    "stall_stop_s / stall_slowdown_s": "simulated seconds writes were stopped / slowed down",
    "cpu_util / cpu_util_<role>": "CPU busy fraction of all cores (role: flush, compaction, foreground)",
    "device_util": "device busy seconds / sim_time_s",
    "gc_write_amp": "SSD model: flash pages written / host pages written (1 without an FTL)",
    "total_write_amp": "write_amp x gc_write_amp (Spooky Eq. 2)",
    "flash_write_bytes / erases / gc_copies / gc_stall_s": "SSD model: flash writes, block erases, "
        "GC page copies, device seconds spent on foreground GC copies",
    "erase_count_max / erase_count_mean / wear_spread": "SSD model: erase counts per block (max - min)",
    "device_peak_utilization": "SSD model: peak fraction of the logical capacity in use (files, WAL, outputs)",
    "device_host_write_bytes / device_host_read_bytes": "bytes the device served to the host",
    "flushes / compactions / trivial_moves": "job counts",
    "files_L<i> / bytes_L<i> / runs_L<i>": "the final tree",
    "live_entries / logical_bytes": "live keys and their key + value bytes at the end",
    "sorted_runs": "sorted runs in the final tree",
}


def build_summary(sim, logical_bytes: float, live_entries: int, latency: pd.DataFrame, compactions: pd.DataFrame) -> dict:
    now = sim.env.now
    mt = sim.measured_time
    s: dict = {"sim_time_s": now, "measured_time_s": mt,
               "completed": bool(sim.finished_phases and now < sim.cfg.sim.max_time * (1 - 1e-12)),
               "level0_slowdown_writes_trigger": sim.slowdown_trigger, "level0_stop_writes_trigger": sim.stop_trigger}
    total = 0.0
    for op, n in sim.ops.items():
        m = sim.measured_ops[op]
        s[f"ops_{op}"] = n
        s[f"throughput_{op}_ops_per_s"] = m / mt if mt > 0 else 0.0
        total += m
    s["throughput_ops_per_s"] = total / mt if mt > 0 else 0.0
    for _, row in latency.iterrows():
        for stat in ("mean", "p50", "p90", "p99", "p999"):
            s[f"latency_{row['op']}_{stat}_s"] = float(row[f"{stat}_s"])
    ub = sim.user_bytes
    written = sim.flush_bytes + sim.compaction_write_bytes
    s.update({
        "user_bytes": ub, "flush_bytes": sim.flush_bytes, "compaction_read_bytes": sim.compaction_read_bytes,
        "compaction_write_bytes": sim.compaction_write_bytes, "wal_bytes": sim.wal_bytes,
        "write_amp": written / ub if ub else 0.0,
        "write_amp_flush": sim.flush_bytes / ub if ub else 0.0,
        "write_amp_compaction": sim.compaction_write_bytes / ub if ub else 0.0,
        "write_amp_rocksdb": written / sim.flush_bytes if sim.flush_bytes else 0.0,
        "logical_bytes": logical_bytes, "live_entries": live_entries,
        "space_amp": sim.tree.bytes / logical_bytes if logical_bytes else 0.0,
        "space_amp_peak": sim.peak_space / logical_bytes if logical_bytes else 0.0,
        "stall_stop_s": sim.stop_time, "stall_slowdown_s": sim.slowdown_time,
    })
    cores = sim.cfg.machine.cores
    s["cpu_util"] = sum(sim.cpu_busy.values()) / (cores * now) if now else 0.0
    for role, busy in sim.cpu_busy.items():
        s[f"cpu_util_{role}"] = busy / (cores * now) if now else 0.0
    s.update(sim.device.stats())
    s["device_util"] = sim.device.busy_seconds / now if now else 0.0
    if "gc_write_amp" in s:
        s["total_write_amp"] = s["write_amp"] * s["gc_write_amp"]  # Spooky PVLDB'22 Eq. 2
    kinds = compactions["kind"].value_counts().to_dict() if len(compactions) else {}
    s["flushes"] = int(kinds.get("flush", 0))
    s["compactions"] = int(kinds.get("compaction", 0))
    s["trivial_moves"] = int(kinds.get("trivial_move", 0))
    for lvl in sim.tree.levels:
        s[f"files_L{lvl.index}"] = len(lvl.files)
        s[f"bytes_L{lvl.index}"] = lvl.bytes
        s[f"runs_L{lvl.index}"] = len(lvl.runs)
    s["sorted_runs"] = len(sim.tree.runs())
    return {k: (float(v) if isinstance(v, float) else v) for k, v in s.items()}


def provenance(cfg) -> dict:
    def git(*args):
        try:
            return subprocess.run(["git", *args], capture_output=True, text=True, timeout=5,
                                  cwd=Path(__file__).parent).stdout.strip() or None
        except (OSError, subprocess.SubprocessError):
            return None
    return {"lsmsim_version": __version__, "seed": cfg.seed, "git_commit": git("rev-parse", "HEAD"),
            "git_dirty": bool(git("status", "--porcelain")), "host": platform.node(),
            "python": platform.python_version()}


def atomic_write(path: Path, write) -> None:
    """Write via a temporary file in the same folder and rename it: readers never see a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@dataclass
class Result:
    """What one run produced. `summary` is a dict of scalars (keys: `SUMMARY_DOC`); `timeseries`
    has one row per sample interval; `compactions` one row per flush, compaction or trivial move;
    `latency` one row per operation type with percentiles; `requests` sampled open-loop requests."""
    summary: dict
    timeseries: pd.DataFrame
    compactions: pd.DataFrame
    latency: pd.DataFrame
    requests: pd.DataFrame = field(default_factory=pd.DataFrame)
    config: object = None

    def save(self, out: str | Path) -> Path:
        """Write summary.json, *.parquet, config.yaml (resolved) and provenance.json into `out`."""
        out = Path(out)
        atomic_write(out / "summary.json", lambda p: Path(p).write_text(json.dumps(self.summary, indent=2, sort_keys=True)))
        for name in ("timeseries", "compactions", "latency", "requests"):
            df = getattr(self, name)
            atomic_write(out / f"{name}.parquet", lambda p, df=df: df.to_parquet(p, index=False))
        if self.config is not None:
            cfg = self.config.model_dump(mode="json")
            atomic_write(out / "config.yaml", lambda p: Path(p).write_text(yaml.safe_dump(cfg, sort_keys=False)))
            atomic_write(out / "provenance.json",
                         lambda p: Path(p).write_text(json.dumps(provenance(self.config), indent=2)))
        return out

    def table(self) -> pd.DataFrame:
        """The summary as a two-column table (metric, value)."""
        return pd.DataFrame({"metric": list(self.summary), "value": list(self.summary.values())})

    def plot_tree(self, path: str | Path | None = None):
        """Sorted runs and bytes per level over time (the tree's shape as the run went on)."""
        from .plots import plot_tree
        return plot_tree(self.timeseries, path, title=getattr(self.config, "name", ""))

    def _repr_html_(self) -> str:
        return self.table().to_html(index=False)
