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
        "stall_delay_s": sim.delay_time, "stall_delay_write_s": sim.delay_total,
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
    s.update({f"policy_{k}": v for k, v in sim.policy.summary().items()})
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

    PLOTS = ("tree", "throughput", "write_amp")

    def plot(self, kind: str = "tree", path: str | Path | None = None, ax=None):
        """A matplotlib Figure of one view: "tree" (sorted runs and bytes per level over time),
        "throughput" (ops/s per operation type over time) or "write_amp" (flush, compaction and,
        with an SSD model, GC and device-total write-amp). `path` also writes the figure (PNG
        unless the suffix says otherwise); `ax` draws into an existing Axes."""
        from . import plots
        title = getattr(self.config, "name", "")
        if kind == "tree":
            return plots.plot_tree(self.timeseries, path, title=title, ax=ax)
        if kind == "throughput":
            return plots.plot_throughput(self.timeseries, path, title=title, ax=ax)
        if kind == "write_amp":
            return plots.plot_write_amp(self.summary, path, title=title, ax=ax)
        raise ValueError(f"unknown plot kind {kind!r}; allowed: {', '.join(self.PLOTS)}")

    def plot_tree(self, path: str | Path | None = None):
        """Sorted runs and bytes per level over time (the tree's shape as the run went on)."""
        return self.plot("tree", path)

    def _name(self) -> str:
        return getattr(self.config, "name", None) or "run"

    def __repr__(self) -> str:
        s = self.summary
        done = "" if s.get("completed", True) else ", stopped at sim.max_time"
        return (f"<Result {self._name()!r}: {s.get('sim_time_s', 0):.1f} simulated s{done}, "
                f"{s.get('throughput_ops_per_s', 0):,.0f} ops/s, write-amp {s.get('write_amp', 0):.2f}, "
                f"space-amp {s.get('space_amp', 0):.2f}, {s.get('sorted_runs', 0)} sorted runs>")

    def _repr_html_(self) -> str:
        """Jupyter: a header and the key metrics by group; `table()` has every metric."""
        import html
        s = self.summary
        rows = []
        for group, items in _summary_groups(s):
            if items:
                rows.append(f'<tr><th colspan="2" style="text-align:left">{group}</th></tr>')
                rows += [f'<tr><td style="text-align:left;padding-left:1.5em">{html.escape(k)}</td>'
                         f'<td style="text-align:right">{html.escape(v)}</td></tr>' for k, v in items]
        done = "" if s.get("completed", True) else " &middot; <b>stopped at sim.max_time</b>"
        jobs = (f"{s.get('flushes', 0)} flushes, {s.get('compactions', 0)} compactions, "
                f"{s.get('trivial_moves', 0)} trivial moves; {s.get('sorted_runs', 0)} sorted runs at the end")
        return (f"<div><b>lsmsim result: {html.escape(self._name())}</b> &middot; "
                f"{s.get('sim_time_s', 0):,.1f} simulated s ({s.get('measured_time_s', 0):,.1f} s measured){done}"
                f"<table>{''.join(rows)}</table>"
                f"<small>{html.escape(jobs)}. All metrics: <code>.table()</code>; "
                f"plots: <code>.plot(\"tree\" | \"throughput\" | \"write_amp\")</code>.</small></div>")


def _seconds(v: float) -> str:
    """A latency in a readable unit."""
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if v >= f:
            return f"{v / f:.3g} {unit}"
    return f"{v * 1e9:.3g} ns"


def _summary_groups(s: dict) -> list[tuple[str, list[tuple[str, str]]]]:
    """The key metrics of a summary as (group, [(label, formatted value)]), groups in display order."""
    ops = ("write", "get", "get_empty", "short_scan", "long_scan", "query")
    thr = [("total", f"{s.get('throughput_ops_per_s', 0):,.0f} ops/s")]
    thr += [(op, f"{s[f'throughput_{op}_ops_per_s']:,.0f} ops/s") for op in ops
            if s.get(f"throughput_{op}_ops_per_s")]
    lat = [(f"{op} mean / p50 / p99 / p99.9", " / ".join(_seconds(s[f"latency_{op}_{st}_s"])
                                                       for st in ("mean", "p50", "p99", "p999")))
           for op in ops if f"latency_{op}_p50_s" in s]
    amp = [("write-amp (flush + compaction)",
            f"{s.get('write_amp', 0):.2f} ({s.get('write_amp_flush', 0):.2f} + {s.get('write_amp_compaction', 0):.2f})")]
    if "gc_write_amp" in s:
        amp.append(("GC write-amp", f"{s['gc_write_amp']:.2f}"))
    if "total_write_amp" in s:
        amp.append(("device write-amp (total)", f"{s['total_write_amp']:.2f}"))
    amp += [("space-amp (end / peak)", f"{s.get('space_amp', 0):.2f} / {s.get('space_amp_peak', 0):.2f}")]
    util = [("CPU", f"{s.get('cpu_util', 0):.1%}"), ("device", f"{s.get('device_util', 0):.1%}")]
    if s.get("stall_stop_s") or s.get("stall_slowdown_s"):
        util.append(("write stalls (stop / slowdown)", f"{s.get('stall_stop_s', 0):.2f} s / {s.get('stall_slowdown_s', 0):.2f} s"))
    return [("throughput", thr), ("latency", lat), ("amplification", amp), ("utilisation", util)]
