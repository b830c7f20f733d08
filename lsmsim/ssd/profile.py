"""Drive profiles as YAML `device:` sections, and the fio traces they belong to.

A fitted profile is written with `to_device` and read back with `load_profile`; the fitted
drives of ../shared/data/fio-real/ live in `lsmsim/presets/ssd/` (usable as `device.preset:`),
each listing the trace globs it was fitted to (`fio_traces`), which `replay --all` uses to match
traces to drives.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from ..preset_files import PRESET_ROOT
from .fio import FioJobResult, load_result
from .timing import KIB4, DriveModel

SSD_PRESETS = PRESET_ROOT / "ssd"
TRACE_SUFFIXES = (".json", ".txt")


def to_device(
    model: DriveModel,
    source: str,
    capacity: float,
    fio_traces: list[str] | None = None,
    fit_traces: list[str] | None = None,
) -> dict:
    """A device section (`model: ssd`) whose `drive_model` is `model` again."""

    def us(x):
        return f"{x * 1e6:.4g}us"

    def mbs(x):
        return f"{x / 1e6:.6g}MB/s"

    out = {
        "model": "ssd",
        "source": source,
        "capacity": int(capacity),
        "channels": int(model.units),  # the fit finds independent units, not how they split into channels
        "dies_per_channel": 1,
        "host_per_io": us(model.host_per_io),
        **({"ioengine": model.engine} if model.engine else {}),
        **({"engines": {e[0]: _engine(model.for_engine(e[0]), us) for e in model.engines}} if model.engines else {}),
        "flash_page": int(model.page),
        "read": {
            "latency": us(model.read_latency_alone(KIB4)),
            "stream_bandwidth": mbs(model.read_stream_bandwidth),
            "bandwidth": mbs(model.read_bandwidth),
            "flash_time": us(model.read_flash_time),
            "sigma": round(float(model.read_sigma), 4),
            **({"shared_bandwidth": mbs(model.shared_read_bandwidth)} if model.shared_read_bandwidth > 0 else {}),
        },
        "write": {
            "latency": us(model.write_latency_alone(KIB4)),
            "stream_bandwidth": mbs(model.write_stream_bandwidth),
            "bandwidth": mbs(model.write_bandwidth),
            "iops": f"{model.write_iops:.6g}/s",
            "flash_time": us(model.program_time),
            "sigma": round(float(model.write_sigma), 4),
            **({"shared_bandwidth": mbs(model.shared_write_bandwidth)} if model.shared_write_bandwidth > 0 else {}),
        },
        "read_retry_fraction": float(f"{model.read_retry_fraction:.4g}"),
        "read_retry_time": us(model.read_retry_time),
        "fast_read_fraction": float(f"{model.fast_read_fraction:.4g}"),
        "fast_read_time": us(model.fast_read_time),
        **({"partial_read_time": us(model.partial_read_time)} if model.partial_read_time > 0 else {}),
        "write_buffer": int(model.write_buffer),
        "write_buffer_release": int(model.write_buffer_release),
        "program_suspend": bool(model.program_suspend),
        "program_first": bool(model.program_first),
        "suspend_latency": us(model.suspend_latency),
        "write_command_share": float(f"{model.write_command_share:.4g}"),
        "write_unit": int(model.write_unit),
        "subunit_write_time": us(model.subunit_write_time),
        "command_slots": int(round(model.command_slots)),
        **({"command_bytes": int(model.command_bytes)} if model.command_bytes > 0 else {}),
        "readahead": int(model.readahead),
        "write_window": int(round(model.write_window)),
        "map_update_time": us(model.map_update_time),
        "map_update_backlog": us(model.map_update_backlog),
        "sq_count": int(round(model.sq_count)),
        "sq_move_interval": f"{model.sq_move_interval * 1e3:.4g}ms",
    }
    if fio_traces:
        out["fio_traces"] = list(fio_traces)
    if fit_traces:
        out["fit_traces"] = list(fit_traces)
    return out


def _engine(model: DriveModel, us) -> dict:
    """An engine's entry (devices.ssd.EngineOptions) from the model as a job of that engine sees it."""
    return {
        "host_per_io": us(model.host_per_io),
        "read_latency": us(model.read_latency_alone(KIB4)),
        "write_latency": us(model.write_latency_alone(KIB4)),
    }


def device_options(data: dict, where: str):
    """Validated SSDOptions from a device mapping (a `preset:` in it is expanded)."""
    from ..devices.ssd import SSDOptions
    from ..errors import ConfigError
    from ..loading import _deep_merge
    from ..preset_files import load_preset

    if data.get("preset"):
        try:
            data = _deep_merge(load_preset("devices", str(data["preset"])), data)
        except KeyError:
            raise ValueError(f"{where}: no device preset {data['preset']!r}") from None
    try:
        return SSDOptions.model_validate({**data, "model": "ssd"})
    except Exception as e:  # pydantic's message names the field
        raise ConfigError(where, [("device", str(e).splitlines()[0] if str(e) else repr(e))]) from None


def load_profile(path: str | Path):
    """(DriveModel, SSDOptions) from a device YAML: a calibrated profile, a preset file, or a
    config with a `device:` section."""
    from ..devices.ssd import drive_model

    data = yaml.safe_load(Path(path).read_text())
    if isinstance(data, dict) and "device" in data:
        data = data["device"]
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a device profile (expected a mapping with read:, write:)")
    cfg = device_options(data, str(path))
    return drive_model(cfg), cfg


def ssd_presets() -> dict[str, Path]:
    return {p.stem: p for p in sorted(SSD_PRESETS.glob("*.yaml"))}


def trace_files(paths: list[str | Path]) -> list[Path]:
    """fio result files: the files given, and under each directory given every *.json / *.txt
    (recursively, sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in TRACE_SUFFIXES)
        elif p.is_file():
            out.append(p)
        else:
            raise ValueError(f"{p}: no such file or directory")
    return out


def load_traces(paths: list[str | Path], exclude: tuple[str, ...] = (), steady=()) -> list[FioJobResult]:
    """Every job with I/O in these fio result files (job names in `exclude` left out); the jobs of the files in
    `steady` are labelled as recorded on a drive in steady state (FioJobResult.drive_state)."""
    steady = {Path(f).resolve() for f in steady}
    return [
        replace(r, drive_state="steady") if f.resolve() in steady else r
        for f in trace_files(paths)
        for r in load_result(f)
        if r.directions and r.name not in exclude
    ]


def matching(root: Path, globs: list[str]) -> list[Path]:
    """Files under `root` matching a profile's `fio_traces` globs."""
    return sorted({f for g in globs for f in root.glob(g) if f.is_file()})
