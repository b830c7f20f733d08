"""Fit the SSD timing model to fio results, and replay fio jobs on the model.

`fit` starts from closed-form estimates (4KiB QD1 latency, 1MiB QD1 streaming rate, the largest
bandwidth and IOPS seen) and refines all nine parameters together by least squares on the log
of every trace's bandwidth and median completion latency per direction (scipy.optimize). The
model predicts a mean-value latency; it is compared with fio's median, and the other percentiles
are predicted from the shape of the same direction's queue-depth-1 distribution (percentile /
median), which the profile stores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from scipy.optimize import least_squares

from ..tolerances import REL_EPS
from .fio import FioJobResult, FioJobSpec
from .timing import Direction, SSDTiming

PCTS = (1.0, 5.0, 10.0, 50.0, 90.0, 99.0, 99.9)
_KEYS = ("latency", "stream_bandwidth", "bandwidth", "iops")


def _qd(spec: FioJobSpec) -> int:
    return spec.iodepth * spec.numjobs


def _p50(d) -> float:
    """The latency the model is fitted to: fio's mean total latency, submission + completion
    (the model is a mean-value model; Little's law ties this mean to throughput, and fio's
    numbers satisfy it: iodepth / IOPS = mean lat within 1% on our traces)."""
    return d.lat_mean if d.lat_mean is not None else d.clat_mean


@dataclass
class Profile:
    read: Direction
    write: Direction
    shape: dict  # direction -> {percent: ratio to the mean}
    host_per_io: float = 0.0
    parallel_units: int = 1

    @property
    def timing(self) -> SSDTiming:
        return SSDTiming(self.read, self.write, self.host_per_io, self.parallel_units)

    def to_device(self, source: str, capacity: float) -> dict:
        """The profile as a device preset (`device:` section)."""

        def direction(d: Direction) -> dict:
            return {
                "latency": f"{d.latency * 1e6:.3f}us",
                "stream_bandwidth": f"{d.stream_bandwidth / 1e6:.3f}MB/s",
                "bandwidth": f"{d.bandwidth / 1e6:.3f}MB/s",
                "iops": f"{d.iops:.1f}/s",
            }

        # the fit finds the number of independent units, not how they split into channels
        return {
            "model": "ssd",
            "source": source,
            "capacity": int(capacity),
            "channels": int(self.parallel_units),
            "dies_per_channel": 1,
            "read": direction(self.read),
            "write": direction(self.write),
            "host_per_io": f"{self.host_per_io * 1e6:.3f}us",
            "latency_shape": {k: {float(p): float(r) for p, r in v.items()} for k, v in self.shape.items()},
        }


def _initial(results: list[FioJobResult], direction: str) -> np.ndarray:
    jobs = [(r.spec, r.directions[direction]) for r in results if direction in r.directions]
    if not jobs:
        raise ValueError(f"no fio result has {direction} I/O: calibration needs both directions")
    small = [(s, d) for s, d in jobs if s.block_size(direction) <= 16384]
    large = [(s, d) for s, d in jobs if s.block_size(direction) >= 131072]
    qd1 = [(s, d) for s, d in small if _qd(s) == 1 and not s.mixed] or small or jobs
    latency = min(_p50(d) for _, d in qd1)
    bw = max(d.bandwidth for _, d in (large or jobs))
    iops = max(d.iops for _, d in (small or jobs))
    big1 = [(s, d) for s, d in large if _qd(s) == 1]
    if big1:
        s, d = big1[0]
        stream = (s.block_size(direction) - 4096) / max(_p50(d) - latency, 1e-7)
    else:
        stream = bw
    return np.log([latency, max(stream, 1e3), bw, iops])


def _observations(results: list[FioJobResult]):
    return [
        (r.spec.block_size(direction), _qd(r.spec), r.spec.read_fraction, direction, d.bandwidth, _p50(d), r.name)
        for r, direction, d in _measured(results)
    ]


def _predict(timing: SSDTiming, size, qd, f, direction):
    p = timing.perf(size, qd, f)
    return (p.read_bw, p.read_lat) if direction == "read" else (p.write_bw, p.write_lat)


def _timing(x: np.ndarray, units: int = 1) -> SSDTiming:
    v = np.exp(x)
    return SSDTiming(Direction(*v[:4]), Direction(*v[4:8]), v[8], units)


# candidate numbers of parallel units (channels x dies); an integer, so it is searched, not fitted
UNITS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)


def fit(results: list[FioJobResult]) -> tuple[Profile, list[dict]]:
    """Fit the model; returns the profile and, per trace and direction, measured vs fitted."""
    results = [r for r in results if r.directions]
    x0 = np.concatenate([_initial(results, "read"), _initial(results, "write"), [math.log(5e-6)]])
    obs = _observations(results)

    def residuals(x, units):
        t = _timing(x, units)
        res = []
        for size, qd, f, direction, bw, lat, _ in obs:
            pbw, plat = _predict(t, size, qd, f, direction)
            res += [math.log(pbw / bw), math.log(plat / lat)]
        return res

    best = None
    for units in UNITS:
        sol = least_squares(residuals, x0, method="trf", x_scale=1.0, diff_step=1e-3, args=(units,))
        if best is None or sol.cost < best[0].cost * (1 - REL_EPS):  # ties keep the fewer units
            best = (sol, units)
    sol, units = best
    t = _timing(sol.x, units)
    shape = {}
    for direction in ("read", "write"):
        # the least-queued small-request trace of the direction (queue depth 1 when recorded)
        cands = sorted(
            (_qd(r.spec), r.spec.mixed, i)
            for i, r in enumerate(results)
            if direction in r.directions
            and r.spec.block_size(direction) <= 16384
            and r.directions[direction].clat
            and r.directions[direction].clat.percentiles
        )
        if cands:
            qd, _, i = cands[0]
            c = results[i].directions[direction].clat
            d = results[i].directions[direction]
            ratios = {p: _pct(d, p) / _p50(d) for p in PCTS if _has(c, p)}
            # undo the queueing share of that trace, so the stored shape is the unqueued one
            w = _queue_share(t, results[i].spec.block_size(direction), qd, results[i].spec.read_fraction, direction)
            if w < 0.5:
                ratios = {k: max(0.0, (v - w) / (1 - w)) for k, v in ratios.items()}
            # (a heavily queued trace's shape is kept as it is: an approximation, said in the note)
            shape[direction] = ratios
    return Profile(t.read, t.write, shape, t.host_per_io, units), compare(t, shape, results)


def _queue_share(timing: SSDTiming, size, qd, f, direction) -> float:
    """Fraction of a request's mean latency spent queueing (0 at queue depth 1)."""
    one = timing.perf(size, 1, f)
    many = timing.perf(size, qd, f)
    l1, lq = (one.read_lat, many.read_lat) if direction == "read" else (one.write_lat, many.write_lat)
    return max(0.0, 1.0 - l1 / lq) if lq > 0 else 0.0


def percentile(timing: SSDTiming, shape: dict, size, qd, f, direction, pct, mean) -> float:
    """A latency percentile: the queue-free part keeps the queue-depth-1 shape, the queueing part
    is tight around its mean (a closed loop of many requests queues almost deterministically)."""
    ratio = shape.get(direction, {}).get(pct)
    if ratio is None:
        return float("nan")
    w = _queue_share(timing, size, qd, f, direction)
    return mean * ((1 - w) * ratio + w)


def _has(c, p) -> bool:
    try:
        c.percentile(p)
        return True
    except KeyError:
        return False


def _measured(results: list[FioJobResult]):
    """(job result, direction, its stats) for every direction that did I/O (trims aside)."""
    for r in results:
        for direction, d in r.directions.items():
            if direction != "trim" and d.total_ios:
                yield r, direction, d


def _model_row(timing: SSDTiming, shape: dict, spec: FioJobSpec, direction: str) -> dict:
    """The model's bandwidth, IOPS and latency percentiles for one direction of a fio job."""
    size, qd = spec.block_size(direction), _qd(spec)
    bw, lat = _predict(timing, size, qd, spec.read_fraction, direction)
    row = {
        "job": spec.name,
        "direction": direction,
        "bs": size,
        "qd": qd,
        "bw_model": bw,
        "iops_model": bw / size,
        "mean_lat_model": lat,
    }
    for pct in (50.0, 99.0):
        row[f"p{pct:g}_model"] = percentile(timing, shape, size, qd, spec.read_fraction, direction, pct, lat)
    return row


def compare(timing: SSDTiming, shape: dict, results: list[FioJobResult]) -> list[dict]:
    """Measured vs model for every job and direction: bandwidth, IOPS, latency percentiles."""
    rows = []
    for r, direction, d in _measured(results):
        row = _model_row(timing, shape, r.spec, direction)
        row.update(
            {
                "job": r.name,
                "bw_measured": d.bandwidth,
                "iops_measured": d.iops,
                "p50_measured": _pct(d, 50.0),
                "p99_measured": _pct(d, 99.0),
            }
        )
        rows.append(row)
    return rows


def _pct(d, pct):
    """A total-latency percentile (record.sh sets lat_percentiles=1); for results with only
    completion-latency percentiles (fio's default), clat's plus the mean submission latency."""
    for stats, extra in ((d.lat, 0.0), (d.clat, d.slat_mean or 0.0)):
        try:
            return stats.percentile(pct) + extra
        except (KeyError, AttributeError):
            continue
    return float("nan")


def replay(timing: SSDTiming, shape: dict, specs: list[FioJobSpec]) -> list[dict]:
    """What the model predicts for fio jobs (no measurements)."""
    return [_model_row(timing, shape, s, direction) for s in specs for direction in s.directions if direction != "trim"]


def load_profile(path: str | Path) -> Profile:
    """A device YAML (preset or calibrated profile) as a timing profile."""
    from ..devices.ssd import SSDOptions, _direction
    from ..loading import _deep_merge
    from ..preset_files import load_preset

    data = yaml.safe_load(Path(path).read_text())
    if isinstance(data, dict) and "device" in data:
        data = data["device"]
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a device profile (expected a mapping with read:, write:)")
    if data.get("preset"):
        data = _deep_merge(load_preset("devices", data["preset"]), data)
    cfg = SSDOptions.model_validate({**data, "model": "ssd"})
    shape = {k: {float(p): float(r) for p, r in v.items()} for k, v in (cfg.latency_shape or {}).items()}
    return Profile(
        _direction(cfg.read), _direction(cfg.write), shape, cfg.host_per_io, cfg.channels * cfg.dies_per_channel
    )
