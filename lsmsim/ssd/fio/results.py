"""fio ``--output-format=json`` / ``json+`` results: `load_result` and the per-job, per-direction
and latency records (clat/slat/lat means, percentiles, json+ histogram bins)."""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .common import DIRECTIONS, FioParseError, read_text
from .jobfile import FioJobSpec, override, spec_from_options


@dataclass(frozen=True)
class LatencyStats:
    """Latency of one kind (slat, clat or lat) in one direction, in seconds.

    `percentiles` maps fio's percent points (1.0, 5.0, ..., 99.99) to seconds; it is empty when
    fio did not report them (``lat_percentiles`` is off by default). `bin_latency`/`bin_count`
    are fio's json+ histogram (bucket latency in s, I/Os), None for plain json.
    """

    min: float
    max: float
    mean: float
    stddev: float
    n: int
    percentiles: dict[float, float] = field(default_factory=dict)
    bin_latency: np.ndarray | None = field(default=None, repr=False, compare=False)
    bin_count: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def has_bins(self) -> bool:
        """True for json+ results, which carry the latency histogram."""
        return self.bin_latency is not None

    def percentile(self, pct: float) -> float:
        """The percentile fio reported for `pct` percent (KeyError if fio did not report it)."""
        for p, v in self.percentiles.items():
            if math.isclose(p, pct, abs_tol=1e-6):
                return v
        raise KeyError(f"fio reported no {pct}th percentile (has {sorted(self.percentiles)})")

    def bin_percentile(self, pct: float) -> float:
        """Percentile from the json+ histogram, computed as fio does (first bucket whose cumulative
        count reaches pct% of all I/Os)."""
        if self.bin_latency is None or self.bin_count is None:
            raise ValueError("no histogram bins (plain json output; record with --output-format=json+)")
        total = int(self.bin_count.sum())
        if total == 0:
            raise ValueError("empty histogram")
        idx = int(np.searchsorted(np.cumsum(self.bin_count), pct / 100.0 * total, side="left"))
        return float(self.bin_latency[min(idx, len(self.bin_latency) - 1)])


@dataclass(frozen=True)
class FioDirectionResult:
    """What one job did in one direction (read, write or trim). Bytes, seconds, bytes/s, IO/s."""

    direction: str
    io_bytes: int
    runtime: float  # seconds fio ran this direction
    bandwidth: float  # bytes/s (fio's bw_bytes)
    iops: float
    total_ios: int
    short_ios: int = 0
    drop_ios: int = 0
    slat: LatencyStats | None = None  # submission latency
    clat: LatencyStats | None = None  # completion latency
    lat: LatencyStats | None = None  # total latency (slat + clat)

    @property
    def mean_block_size(self) -> float:
        """io_bytes / total_ios."""
        return self.io_bytes / self.total_ios if self.total_ios else float("nan")

    @property
    def slat_mean(self) -> float | None:
        """Mean submission latency (s)."""
        return self.slat.mean if self.slat else None

    @property
    def clat_mean(self) -> float | None:
        """Mean completion latency (s)."""
        return self.clat.mean if self.clat else None

    @property
    def lat_mean(self) -> float | None:
        """Mean total latency (s)."""
        return self.lat.mean if self.lat else None

    @property
    def clat_percentiles(self) -> dict[float, float]:
        """Completion-latency percentiles, percent -> seconds."""
        return dict(self.clat.percentiles) if self.clat else {}

    @property
    def lat_percentiles(self) -> dict[float, float]:
        """Total-latency percentiles, percent -> seconds (empty unless lat_percentiles=1)."""
        return dict(self.lat.percentiles) if self.lat else {}

    @property
    def clat_bins(self) -> tuple[np.ndarray, np.ndarray] | None:
        """json+ completion-latency histogram: (bucket latency in s, I/O count), or None."""
        if self.clat is None or self.clat.bin_latency is None:
            return None
        return self.clat.bin_latency, self.clat.bin_count


@dataclass(frozen=True)
class FioJobResult:
    """One job of a fio json/json+ result. `directions` holds only directions that did I/O."""

    name: str
    spec: FioJobSpec  # rw, bs, iodepth, ... from fio's global + job options
    directions: dict[str, FioDirectionResult]
    error: int = 0
    elapsed: float = 0.0  # wall seconds of the job, ramp time included
    job_runtime: float = 0.0  # seconds fio measured
    fio_version: str = ""
    timestamp: float | None = None  # unix seconds at the end of the run
    json_plus: bool = False  # True when histogram bins were present
    source: str | None = field(default=None, compare=False)
    # the drive's state when recorded, a label of the trace set (not in fio's output): "fresh", or "steady" (written
    # over: its write buffer or SLC cache spent by what ran before, GC at work; timing.gc_write_amp)
    drive_state: str = field(default="fresh", compare=False)
    # IOPS over the window fio's `steadystate` option judged last (its `steadystate_duration` seconds; the json's
    # steadystate.data.iops_mean), when the job ran with that option: None otherwise
    window_iops: float | None = field(default=None, compare=False)

    @property
    def state_change(self) -> float | None:
        """The run's IOPS relative to those of its last seconds (fio's steady-state window), minus 1; None without a
        window. Far from 0, the drive changed state during the run (an SLC cache spent or recovered, the Sabrent's
        reads falling from 91K to 33K IOPS at depth 8 within 20 s), and the run's averages mix the two."""
        return self.iops / self.window_iops - 1.0 if self.window_iops else None

    @property
    def read(self) -> FioDirectionResult | None:
        """The read direction, or None."""
        return self.directions.get("read")

    @property
    def write(self) -> FioDirectionResult | None:
        """The write direction, or None."""
        return self.directions.get("write")

    @property
    def trim(self) -> FioDirectionResult | None:
        """The trim direction, or None."""
        return self.directions.get("trim")

    @property
    def bandwidth(self) -> float:
        """Sum of all directions' bandwidth (bytes/s)."""
        return sum(d.bandwidth for d in self.directions.values())

    @property
    def iops(self) -> float:
        """Sum of all directions' IOPS."""
        return sum(d.iops for d in self.directions.values())


def _read_json(path: Path) -> dict:
    text = read_text(path, "a fio result")
    # fio may print notes/warnings before the JSON (and sometimes after it): start at the first
    # line that opens an object, and ignore whatever follows the object.
    m = re.search(r"^\s*\{", text, re.MULTILINE)
    if not m:
        raise FioParseError(path, "no JSON object found; expected fio --output-format=json or json+ output")
    start = m.end() - 1
    try:
        data, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as e:
        raise FioParseError(
            path, f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg} (truncated or not fio output?)"
        ) from None
    if not isinstance(data, dict):
        raise FioParseError(path, "JSON top level is not an object")
    return data


def _number(d: dict, key: str, where: str, path: Path, default: float | None = None) -> float:
    if key not in d:
        if default is not None:
            return default
        raise FioParseError(path, f"{where}: missing {key!r}")
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise FioParseError(path, f"{where}: {key!r} is {v!r}, not a number")
    return v


def _latency(d: dict, key: str, where: str, path: Path) -> LatencyStats | None:
    """`key` is e.g. 'clat'; finds clat_ns (fio 3), clat_us or clat (us, fio 2)."""
    for name, scale in ((f"{key}_ns", 1e-9), (f"{key}_us", 1e-6), (key, 1e-6)):  # noqa: B007 (used after break)
        if name in d:
            break
    else:
        return None
    s = d[name]
    where = f"{where}.{name}"
    if not isinstance(s, dict):
        raise FioParseError(path, f"{where} is not an object")
    n = int(_number(s, "N", where, path, default=0))
    pct: dict[float, float] = {}
    raw_pct = s.get("percentile")
    if raw_pct is not None:
        if not isinstance(raw_pct, dict):
            raise FioParseError(path, f"{where}.percentile is not an object")
        try:
            items = sorted((float(p), float(v)) for p, v in raw_pct.items())
        except (TypeError, ValueError):
            raise FioParseError(path, f"{where}.percentile has a non-numeric entry") from None
        if n > 0:
            pct = {p: v * scale for p, v in items}
    bins_lat = bins_cnt = None
    raw_bins = s.get("bins")
    if raw_bins is not None:
        if not isinstance(raw_bins, dict):
            raise FioParseError(path, f"{where}.bins is not an object")
        try:
            pairs = sorted((float(k), int(v)) for k, v in raw_bins.items())
        except (TypeError, ValueError):
            raise FioParseError(path, f"{where}.bins has a non-numeric entry") from None
        bins_lat = np.array([p[0] for p in pairs], dtype=float) * scale
        bins_cnt = np.array([p[1] for p in pairs], dtype=np.int64)
    return LatencyStats(
        min=_number(s, "min", where, path) * scale,
        max=_number(s, "max", where, path) * scale,
        mean=_number(s, "mean", where, path) * scale,
        stddev=_number(s, "stddev", where, path, default=0.0) * scale,
        n=n,
        percentiles=pct,
        bin_latency=bins_lat,
        bin_count=bins_cnt,
    )


def _options(d: object, where: str, path: Path) -> dict[str, str | None]:
    if d is None:
        return {}
    if not isinstance(d, dict):
        raise FioParseError(path, f"{where} is not an object")
    return {str(k).lower(): (None if v is None else str(v)) for k, v in d.items()}


def load_result(path: str | os.PathLike) -> list[FioJobResult]:
    """Jobs of a fio ``--output-format=json`` or ``json+`` file (one entry per job in "jobs";
    with group_reporting a group is one entry). Non-JSON lines before the JSON are skipped."""
    path = Path(path)
    data = _read_json(path)
    jobs = data.get("jobs")
    if not isinstance(jobs, list):
        raise FioParseError(path, "no 'jobs' list; not fio json output")
    if not jobs:
        raise FioParseError(path, "'jobs' is empty; fio ran no job")
    global_opts = _options(data.get("global options"), "'global options'", path)
    version = str(data.get("fio version", ""))
    ts = data.get("timestamp_ms")
    timestamp = (
        ts / 1000.0
        if isinstance(ts, (int, float))
        else (float(data["timestamp"]) if isinstance(data.get("timestamp"), (int, float)) else None)
    )
    results = []
    for i, job in enumerate(jobs):
        if not isinstance(job, dict):
            raise FioParseError(path, f"jobs[{i}] is not an object")
        name = job.get("jobname")
        if not isinstance(name, str):
            raise FioParseError(path, f"jobs[{i}]: missing 'jobname'")
        where = f"job {name!r}"
        opts = override(dict(global_opts), _options(job.get("job options"), f"{where} 'job options'", path))
        try:
            spec = spec_from_options(name, opts, str(path))
        except ValueError as e:
            raise FioParseError(path, f"{where}: {e}") from None
        dirs: dict[str, FioDirectionResult] = {}
        plus = False
        for ddir in DIRECTIONS:
            if ddir not in job:
                continue
            d = job[ddir]
            dw = f"{where} {ddir}"
            if not isinstance(d, dict):
                raise FioParseError(path, f"{dw} is not an object")
            total_ios = int(_number(d, "total_ios", dw, path))
            io_bytes = (
                int(_number(d, "io_bytes", dw, path))
                if "io_bytes" in d
                else int(_number(d, "io_kbytes", dw, path)) * 1024
            )
            if total_ios == 0 and io_bytes == 0:
                continue
            if "bw_bytes" in d:
                bw = float(_number(d, "bw_bytes", dw, path))
            else:  # older fio: bw in KiB/s only
                bw = float(_number(d, "bw", dw, path)) * 1024.0
            lat = {k: _latency(d, k, dw, path) for k in ("slat", "clat", "lat")}
            plus = plus or any(v is not None and v.has_bins for v in lat.values())
            dirs[ddir] = FioDirectionResult(
                direction=ddir,
                io_bytes=io_bytes,
                runtime=_number(d, "runtime", dw, path) / 1e3,
                bandwidth=bw,
                iops=float(_number(d, "iops", dw, path)),
                total_ios=total_ios,
                short_ios=int(_number(d, "short_ios", dw, path, default=0)),
                drop_ios=int(_number(d, "drop_ios", dw, path, default=0)),
                slat=lat["slat"],
                clat=lat["clat"],
                lat=lat["lat"],
            )
        window = _window_iops(job.get("steadystate"), f"{where} steadystate", path)
        results.append(
            FioJobResult(
                name=name,
                spec=spec,
                directions=dirs,
                error=int(_number(job, "error", where, path, default=0)),
                elapsed=float(_number(job, "elapsed", where, path, default=0)),
                job_runtime=_number(job, "job_runtime", where, path, default=0) / 1e3,
                fio_version=version,
                timestamp=timestamp,
                json_plus=plus,
                source=str(path),
                window_iops=window,
            )
        )
    return results


def _window_iops(ss: object, where: str, path: Path) -> float | None:
    """fio's mean IOPS over its steady-state window (fio's HOWTO: `steadystate`, `steadystate_duration`), or
    None when the job ran without that option."""
    if ss is None:
        return None
    data = ss.get("data") if isinstance(ss, dict) else None
    if not isinstance(data, dict):
        raise FioParseError(path, f"{where}: no 'data' object")
    mean = _number(data, "iops_mean", f"{where}.data", path)
    return float(mean) if mean > 0 else None
