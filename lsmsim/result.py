"""`Result`: the summary and tables of one run, saved as JSON + Parquet with provenance."""

from __future__ import annotations

import functools
import json
import platform
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    import pandas as pd

from ._version import __version__
from .atomic import atomic_write


@functools.cache
def code_state() -> tuple[str | None, bool]:
    """(git commit, uncommitted changes) of the lsmsim source this process runs: read once, on first call, which
    `simulate` makes before it starts, so that a run saved after a later commit still names the code it ran."""

    def git(*args):
        try:
            return (
                subprocess.run(
                    ["git", *args], capture_output=True, text=True, timeout=5, cwd=Path(__file__).parent
                ).stdout.strip()
                or None
            )
        except (OSError, subprocess.SubprocessError):
            return None

    return git("rev-parse", "HEAD"), bool(git("status", "--porcelain"))


def provenance(cfg, code: tuple[str | None, bool] | None = None) -> dict:
    """What made a result: versions, seed, host, and `code` (git commit, uncommitted changes) as the run recorded
    it, or this process's `code_state()`."""
    commit, dirty = code if code is not None else code_state()
    return {
        "lsmsim_version": __version__,
        "seed": cfg.seed,
        "git_commit": commit,
        "git_dirty": dirty,
        "host": platform.node(),
        "python": platform.python_version(),
    }


TABLES = ("timeseries", "compactions", "latency", "requests", "events")


def summary_json(summary: dict) -> str:
    """The summary as standard JSON: a value that is not a finite number (NaN: nothing measured) is null, which every
    JSON parser reads (Python's NaN is not JSON); `summary_from_json` reads it back with NaN."""
    import math

    clean = {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in summary.items()}
    return json.dumps(clean, indent=2, sort_keys=True, allow_nan=False)


def summary_from_json(text: str) -> dict:
    """A summary written by `summary_json`: null back to NaN (a summary holds no None of its own)."""
    return {k: float("nan") if v is None else v for k, v in json.loads(text).items()}


class Result:
    """What one run produced. `summary` is a dict of scalars (keys: `lsmsim.sim.summary.SUMMARY_DOC`); `timeseries`
    has one row per sample interval; `compactions` one row per flush, compaction or trivial move;
    `latency` one row per operation type with percentiles; `requests` sampled open-loop requests; `events` one row
    when a limit ended the run (`summary["ended_by"]`: disk_full or open_files_limit; `lsmsim.sim.limits`).

    The tables are pandas DataFrames built on first access from the rows the run recorded (a DataFrame passed in
    is kept as it is): a run whose caller reads only the summary never imports pandas."""

    def __init__(
        self,
        summary: dict,
        timeseries=None,
        compactions=None,
        latency=None,
        requests=None,
        events=None,
        config=None,
        code: tuple[str | None, bool] | None = None,
    ):
        self.summary = summary
        self.config = config
        # (commit, dirty) of the code that ran, recorded where it ran: a sweep worker's result is saved by the parent
        self.code = code
        self._tables: dict[str, Any] = dict(zip(TABLES, (timeseries, compactions, latency, requests, events)))

    def _table(self, name: str) -> pd.DataFrame:
        import pandas as pd

        t = self._tables[name]
        if not isinstance(t, pd.DataFrame):
            t = pd.DataFrame(t if t is not None else [])
            if name == "compactions" and len(t):
                t["id"] = range(1, len(t) + 1)  # jobs in order of completion
            self._tables[name] = t
        return t

    @property
    def timeseries(self) -> pd.DataFrame:
        return self._table("timeseries")

    @property
    def compactions(self) -> pd.DataFrame:
        return self._table("compactions")

    @property
    def latency(self) -> pd.DataFrame:
        return self._table("latency")

    @property
    def requests(self) -> pd.DataFrame:
        return self._table("requests")

    @property
    def events(self) -> pd.DataFrame:
        return self._table("events")

    def save(self, out: str | Path, log: bool = True) -> Path:
        """Write summary.json, *.parquet, config.yaml (resolved), provenance.json and (with `log`) RocksDB's LOG
        into `out`."""
        out = Path(out)
        atomic_write(out / "summary.json", lambda p: Path(p).write_text(summary_json(self.summary)))
        for name in TABLES:
            df = getattr(self, name)
            atomic_write(out / f"{name}.parquet", lambda p, df=df: df.to_parquet(p, index=False))
        if log and "lsm_state" in self.compactions:  # RocksDB's LOG of the run (formats/log_format.py)
            from .formats.log_format import write_log

            write_log(self, out / "LOG")
        if self.config is not None:
            cfg = self.config.model_dump(mode="json")
            atomic_write(out / "config.yaml", lambda p: Path(p).write_text(yaml.safe_dump(cfg, sort_keys=False)))
            atomic_write(
                out / "provenance.json",
                lambda p: Path(p).write_text(json.dumps(provenance(self.config, self.code), indent=2)),
            )
        return out

    def table(self) -> pd.DataFrame:
        """The summary as a two-column table (metric, value)."""
        import pandas as pd

        return pd.DataFrame({"metric": list(self.summary), "value": list(self.summary.values())})

    PLOTS = ("tree", "throughput", "write_amp")

    def plot(self, kind: str = "tree", path: str | Path | None = None, ax=None):
        """A matplotlib Figure of one view: "tree" (sorted runs and bytes per level over time),
        "throughput" (ops/s per operation type over time) or "write_amp" (flush, compaction and,
        with an SSD model, GC and device-total write-amp). `path` also writes the figure (PNG
        unless the suffix says otherwise); `ax` draws into an existing Axes."""
        from . import plots  # one way: plots draw DataFrames and dicts, never import Result

        title = getattr(self.config, "name", "")
        pol = getattr(getattr(self.config, "policy", None), "name", None)
        title = f"{title}: {pol}" if pol else title  # tree.png says which policy drew it
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
        done = "" if s.get("completed", True) else f", ended by {s.get('ended_by', 'max_time')}"
        return (
            f"<Result {self._name()!r}: {s.get('sim_time_s', 0):.1f} simulated s{done}, "
            f"{s.get('throughput_ops_per_s', 0):,.0f} ops/s, write-amp {s.get('write_amp', 0):.2f}, "
            f"space-amp {s.get('space_amp', 0):.2f}, {s.get('sorted_runs', 0)} sorted runs>"
        )

    def _repr_html_(self) -> str:
        """Jupyter: a header and the key metrics by group; `table()` has every metric."""
        import html

        s = self.summary
        rows = []
        for group, items in _summary_groups(s):
            if items:
                rows.append(f'<tr><th colspan="2" style="text-align:left">{group}</th></tr>')
                rows += [
                    f'<tr><td style="text-align:left;padding-left:1.5em">{html.escape(k)}</td>'
                    f'<td style="text-align:right">{html.escape(v)}</td></tr>'
                    for k, v in items
                ]
        ended = html.escape(str(s.get("ended_by", "max_time")))
        done = "" if s.get("completed", True) else f" &middot; <b>ended by {ended}</b>"
        jobs = (
            f"{s.get('flushes', 0)} flushes, {s.get('compactions', 0)} compactions, "
            f"{s.get('trivial_moves', 0)} trivial moves; {s.get('sorted_runs', 0)} sorted runs at the end"
        )
        return (
            f"<div><b>lsmsim result: {html.escape(self._name())}</b> &middot; "
            f"{s.get('sim_time_s', 0):,.1f} simulated s ({s.get('measured_time_s', 0):,.1f} s measured){done}"
            f"<table>{''.join(rows)}</table>"
            f"<small>{html.escape(jobs)}. All metrics: <code>.table()</code>; "
            f'plots: <code>.plot("tree" | "throughput" | "write_amp")</code>.</small></div>'
        )


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
    thr += [(op, f"{s[f'throughput_{op}_ops_per_s']:,.0f} ops/s") for op in ops if s.get(f"throughput_{op}_ops_per_s")]
    lat = [
        (
            f"{op} mean / p50 / p99 / p99.9",
            " / ".join(_seconds(s[f"latency_{op}_{st}_s"]) for st in ("mean", "p50", "p99", "p999")),
        )
        for op in ops
        if f"latency_{op}_p50_s" in s
    ]
    amp = [
        (
            "write-amp (flush + compaction)",
            f"{s.get('write_amp', 0):.2f} ({s.get('write_amp_flush', 0):.2f} + {s.get('write_amp_compaction', 0):.2f})",
        )
    ]
    if "gc_write_amp" in s:
        amp.append(("GC write-amp", f"{s['gc_write_amp']:.2f}"))
    if "total_write_amp" in s:
        amp.append(("device write-amp (total)", f"{s['total_write_amp']:.2f}"))
    amp += [("space-amp (end / peak)", f"{s.get('space_amp', 0):.2f} / {s.get('space_amp_peak', 0):.2f}")]
    util = [("CPU", f"{s.get('cpu_util', 0):.1%}"), ("device", f"{s.get('device_util', 0):.1%}")]
    if s.get("stall_stop_s") or s.get("stall_slowdown_s"):
        util.append(
            (
                "write stalls (stop / slowdown)",
                f"{s.get('stall_stop_s', 0):.2f} s / {s.get('stall_slowdown_s', 0):.2f} s",
            )
        )
    return [("throughput", thr), ("latency", lat), ("amplification", amp), ("utilisation", util)]
