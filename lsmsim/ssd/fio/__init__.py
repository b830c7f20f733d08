"""Read fio job files, results and logs, for calibrating the SSD model against real devices.

Three entry points, all in SI units (bytes, seconds, bytes/s, IO/s):

- `load_result(path)`   -> list[FioJobResult]  from ``fio --output-format=json`` or ``json+``
- `load_log(path)`      -> pandas.DataFrame     from ``--write_{bw,lat,iops}_log`` files
- `parse_jobfile(path)` -> list[FioJobSpec]     from fio ini job files

(modules `results`, `logs` and `jobfile`; `values` parses sizes and times, `common` holds the error).

Every problem with a file raises `FioParseError` (a `ValueError`) whose message starts with the
file name and says what is wrong; errors from `json`/`configparser` never escape raw.

fio conventions this module follows (checked against fio 3.33):

- Size suffixes: with the default ``kb_base=1024`` ``k``/``kb``/``m``/``g``... are powers of 1024
  and ``kib``/``mib``/``gib``... are powers of 1000 (fio's "compatibility mode": 4KiB = 4000!);
  ``kb_base=1000`` swaps the two. Case does not matter; ``0x`` hex and a trailing ``b`` are allowed.
- Times (``runtime``, ``ramp_time``) default to seconds; suffixes us/usec, ms/msec, s/sec, m, h, d.
- json latencies are in ns (``slat_ns``, ``clat_ns``, ``lat_ns``; fio < 3 used us), direction
  ``runtime`` in ms, ``bw`` in KiB/s and ``bw_bytes`` in bytes/s.
- Logs are ``time_ms, value, ddir, bs[, offset], prio`` (4 columns before fio added prio); bw
  values are KiB/s, latencies ns, iops IO/s. ddir 0/1/2 = read/write/trim.
- fio's json lists only options that have a value: flags such as ``time_based`` or
  ``group_reporting`` are absent there, so `FioJobResult.spec.time_based` is False even for
  time-based jobs (the job file's `FioJobSpec` has it right).
"""

from __future__ import annotations

from .common import DIRECTIONS, FioParseError
from .jobfile import FioJobSpec, parse_jobfile
from .logs import LOG_KINDS, load_log
from .results import FioDirectionResult, FioJobResult, LatencyStats, load_result
from .values import parse_fio_size, parse_fio_time

__all__ = [
    "FioParseError",
    "FioJobSpec",
    "LatencyStats",
    "FioDirectionResult",
    "FioJobResult",
    "load_result",
    "load_log",
    "parse_jobfile",
    "parse_fio_size",
    "parse_fio_time",
    "DIRECTIONS",
    "LOG_KINDS",
]
