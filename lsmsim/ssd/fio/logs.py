"""fio ``--write_{bw,lat,iops}_log`` files: `load_log` reads one into a DataFrame in SI units."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .common import DIRECTIONS, FioParseError, read_text

LOG_KINDS = ("bw", "iops", "lat", "clat", "slat")

_LOG_NAME_RE = re.compile(r"_(bw|iops|lat|clat|slat)(?:\.\d+)?\.log$")
_LOG_SCALE = {"bw": 1024.0, "iops": 1.0, "lat": 1e-9, "clat": 1e-9, "slat": 1e-9}
_LOG_COLUMNS = {
    4: ["time_ms", "value", "ddir", "block_size"],  # fio < 3.x prio
    5: ["time_ms", "value", "ddir", "block_size", "priority"],
    6: ["time_ms", "value", "ddir", "block_size", "offset", "priority"],  # log_offset=1
}


def load_log(path: str | os.PathLike, kind: str | None = None) -> pd.DataFrame:  # noqa: C901 (one branch per fio log format variant)
    """A fio bw/iops/lat/clat/slat log as a DataFrame.

    Columns: ``time_s`` (s), ``value`` (bytes/s for bw, s for latencies, IO/s for iops),
    ``direction`` ('read'/'write'/'trim'), ``block_size`` (bytes; 0 in windowed logs),
    ``offset`` (bytes, only with log_offset=1) and ``priority`` (when fio wrote it).
    `kind` (bw, iops, lat, clat, slat) is taken from the file name (``x_bw.1.log``) unless
    given; it is kept in ``df.attrs['kind']``. An empty log gives an empty frame.
    """
    path = Path(path)
    if kind is None:
        m = _LOG_NAME_RE.search(path.name)
        if not m:
            raise FioParseError(
                path,
                "cannot tell the log kind from the name (expected "
                "<prefix>_{bw,iops,lat,clat,slat}[.N].log); pass kind=",
            )
        kind = m.group(1)
    if kind not in _LOG_SCALE:
        raise FioParseError(path, f"unknown log kind {kind!r} (one of {', '.join(LOG_KINDS)})")
    text = read_text(path, "a fio log")

    rows: list[list[float]] = []
    ncols = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if ncols is None:
            ncols = len(fields)
            if ncols not in _LOG_COLUMNS:
                raise FioParseError(
                    path,
                    f"line {lineno}: {ncols} columns; a fio log has 4, 5 or 6 "
                    "(time, value, direction, block size[, offset], priority)",
                )
        elif len(fields) != ncols:
            raise FioParseError(path, f"line {lineno}: {len(fields)} columns, earlier lines have {ncols}")
        try:
            row = [float(f) for f in fields]
        except ValueError:
            raise FioParseError(path, f"line {lineno}: non-numeric field in {line.strip()!r}") from None
        if not all(math.isfinite(x) for x in row):
            raise FioParseError(path, f"line {lineno}: non-finite number in {line.strip()!r}")
        rows.append(row)

    if not rows:
        df = pd.DataFrame(
            {
                "time_s": pd.Series(dtype=float),
                "value": pd.Series(dtype=float),
                "direction": pd.Series(dtype=str),
                "block_size": pd.Series(dtype=np.int64),
            }
        )
        df.attrs.update(kind=kind, source=str(path))
        return df

    arr = np.asarray(rows, dtype=float)
    cols = _LOG_COLUMNS[ncols]
    raw = {name: arr[:, i] for i, name in enumerate(cols)}
    ddir = raw["ddir"]
    bad = ~np.isin(ddir, (0, 1, 2))
    if bad.any():
        lineno = [i for i, line in enumerate(text.splitlines(), start=1) if line.strip()][int(np.argmax(bad))]
        raise FioParseError(
            path, f"line {lineno}: data direction {ddir[bad][0]:g} is not 0 (read), 1 (write) or 2 (trim)"
        )
    if (raw["time_ms"] < 0).any():
        raise FioParseError(path, "negative time stamp")
    df = pd.DataFrame(
        {
            "time_s": raw["time_ms"] / 1e3,
            "value": raw["value"] * _LOG_SCALE[kind],
            "direction": np.asarray(DIRECTIONS, dtype=object)[ddir.astype(int)],
            "block_size": raw["block_size"].astype(np.int64),
        }
    )
    if "offset" in raw:
        df["offset"] = raw["offset"].astype(np.int64)
    if "priority" in raw:
        df["priority"] = raw["priority"].astype(np.int64)
    df.attrs.update(kind=kind, source=str(path))
    return df
