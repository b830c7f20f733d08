"""Read fio job files, results and logs, for calibrating the SSD model against real devices.

Three entry points, all in SI units (bytes, seconds, bytes/s, IO/s):

- `load_result(path)`   -> list[FioJobResult]  from ``fio --output-format=json`` or ``json+``
- `load_log(path)`      -> pandas.DataFrame     from ``--write_{bw,lat,iops}_log`` files
- `parse_jobfile(path)` -> list[FioJobSpec]     from fio ini job files

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

import configparser
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import LsmsimError

__all__ = [
    "FioParseError", "FioJobSpec", "LatencyStats", "FioDirectionResult", "FioJobResult",
    "load_result", "load_log", "parse_jobfile", "parse_fio_size", "parse_fio_time",
    "DIRECTIONS", "LOG_KINDS",
]

DIRECTIONS = ("read", "write", "trim")
LOG_KINDS = ("bw", "iops", "lat", "clat", "slat")

# rw= values fio accepts, aliases mapped to one name.
_RW_ALIASES = {
    "read": "read", "write": "write", "trim": "trim",
    "randread": "randread", "randwrite": "randwrite", "randtrim": "randtrim",
    "rw": "rw", "readwrite": "rw", "randrw": "randrw",
    "trimwrite": "trimwrite", "randtrimwrite": "randtrimwrite",
}
# Which directions each rw mode issues.
_RW_DIRECTIONS = {
    "read": ("read",), "randread": ("read",),
    "write": ("write",), "randwrite": ("write",),
    "trim": ("trim",), "randtrim": ("trim",),
    "rw": ("read", "write"), "randrw": ("read", "write"),
    "trimwrite": ("trim", "write"), "randtrimwrite": ("trim", "write"),
}
_DEFAULT_BS = 4096


class FioParseError(LsmsimError, ValueError):
    """A fio job file, result or log that cannot be read. The message names the file."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------

_INT_RE = re.compile(r"\s*(0[xX][0-9a-fA-F]+|[0-9]+)\s*([A-Za-z%]*)\s*")


def parse_fio_size(text: str, kb_base: int = 1024) -> int:
    """Bytes of a fio size value such as ``4k``, ``1m``, ``4096``, ``0x1000``, ``4KiB``.

    Mirrors fio's ``get_mult_bytes``: with ``kb_base=1024`` (fio's default) single-letter and
    ``kb``-style suffixes are binary and ``kib``-style ones decimal; ``kb_base=1000`` swaps them.
    Raises ValueError for anything else (decimals, percentages, unknown suffixes).
    """
    if kb_base not in (1000, 1024):
        raise ValueError(f"kb_base must be 1000 or 1024, not {kb_base}")
    m = _INT_RE.fullmatch(str(text))
    if not m:
        raise ValueError(f"{text!r} is not a fio size (an integer with an optional k/m/g/t/p suffix)")
    digits, suffix = m.groups()
    number = int(digits, 16) if digits[:2].lower() == "0x" else int(digits)
    suffix = suffix.lower()
    if digits[:2].lower() == "0x" and suffix:
        raise ValueError(f"{text!r}: a hex size takes no suffix")
    if suffix in ("", "b"):
        return number
    other = 1000 if kb_base == 1024 else 1024
    for power, letter in enumerate("kmgtp", start=1):
        if suffix in (letter + "ib", letter + "ibyte"):
            return number * other ** power
        if suffix in (letter, letter + "b", letter + "i"):
            return number * kb_base ** power
    raise ValueError(f"{text!r}: unknown size suffix {suffix!r} (use k, m, g, t or p)")


_TIME_RE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*")
_TIME_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "msec": 1e-3, "us": 1e-6, "usec": 1e-6,
               "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def parse_fio_time(text: str, default_unit: float = 1.0) -> float:
    """Seconds of a fio time value (``15``, ``500ms``, ``2m``, ``100us``, ``1h``, ``1d``)."""
    m = _TIME_RE.fullmatch(str(text))
    if not m:
        raise ValueError(f"{text!r} is not a fio time (a number with an optional us/ms/s/m/h/d suffix)")
    number, unit = float(m.group(1)), m.group(2).lower()
    if unit == "":
        return number * default_unit
    if unit not in _TIME_UNITS:
        raise ValueError(f"{text!r}: unknown time unit {unit!r} (use us, ms, s, m, h or d)")
    return number * _TIME_UNITS[unit]


def _parse_bool(text: str | None) -> bool:
    if text is None:                      # a flag given without a value means "on"
        return True
    t = str(text).strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a boolean (use 1 or 0)")


def _parse_bs(text: str, kb_base: int, prev: tuple[int, int, int]) -> tuple[int, int, int]:
    """fio's ``bs=r[,w][,t]``: a value not followed by a comma applies to the following kinds too;
    an empty field keeps the default."""
    parts = str(text).split(",")
    if len(parts) > 3:
        raise ValueError(f"{text!r}: bs takes at most three comma-separated values (read,write,trim)")
    out = list(prev)
    for i, part in enumerate(parts):
        if part.strip() == "":
            out[i] = _DEFAULT_BS
            continue
        value = parse_fio_size(part, kb_base)
        if value <= 0:
            raise ValueError(f"{text!r}: block size must be positive")
        out[i] = value
        if i == len(parts) - 1:           # last value applies to the remaining kinds
            for j in range(i + 1, 3):
                out[j] = value
    return out[0], out[1], out[2]


# ---------------------------------------------------------------------------------------------
# job specs
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FioJobSpec:
    """One fio job, as a job file (or a json result's option lists) defines it.

    Sizes are bytes, times seconds. `options` holds every option, global ones merged under the
    job's own (lower-case names; value None for a flag given without a value).
    """
    name: str
    rw: str                      # normalized: readwrite -> rw; the ':N' suffix is dropped
    bs_read: int = _DEFAULT_BS
    bs_write: int = _DEFAULT_BS
    bs_trim: int = _DEFAULT_BS
    iodepth: int = 1
    numjobs: int = 1
    rwmixread: float = 50.0      # percent of reads in mixed (rw/randrw) jobs
    size: int | None = None      # bytes, None if not given or given as a percentage
    size_percent: float | None = None
    runtime: float | None = None
    ramp_time: float = 0.0
    time_based: bool = False
    direct: bool = False
    ioengine: str | None = None  # None: fio's default (psync on Linux)
    filename: str | None = None
    kb_base: int = 1024
    options: dict[str, str | None] = field(default_factory=dict, compare=False)
    source: str | None = field(default=None, compare=False)

    @property
    def directions(self) -> tuple[str, ...]:
        """Directions the job issues: ('read',), ('write',), ('read', 'write'), ..."""
        return _RW_DIRECTIONS[self.rw]

    @property
    def random(self) -> bool:
        """True for the rand* modes."""
        return self.rw.startswith("rand")

    @property
    def mixed(self) -> bool:
        """True when the job issues more than one direction."""
        return len(self.directions) > 1

    @property
    def bs(self) -> int:
        """Block size of the job's first direction (read, then write, then trim)."""
        return self.block_size(self.directions[0])

    def block_size(self, direction: str) -> int:
        """Block size (bytes) of `direction` ('read', 'write' or 'trim')."""
        return {"read": self.bs_read, "write": self.bs_write, "trim": self.bs_trim}[direction]

    @property
    def read_fraction(self) -> float:
        """Fraction of I/Os that are reads: 1 or 0 for single-direction jobs, rwmixread/100 for rw/randrw."""
        if self.rw in ("rw", "randrw"):
            return self.rwmixread / 100.0
        return 1.0 if self.directions == ("read",) else 0.0


def _expand_env(value: str) -> str:
    """fio's ${VAR} substitution; unknown variables are left as written."""
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}",
                  lambda m: os.environ.get(m.group(1), m.group(0)), value)


def _spec_from_options(name: str, opts: dict[str, str | None], source: str) -> FioJobSpec:
    """Interpret merged fio options; ValueError (without the file name) on a bad value."""
    def get(*keys: str) -> tuple[str | None, str | None]:
        # last key wins if several aliases are given; returns (key, value)
        found = (None, None)
        for k in opts:
            if k in keys:
                found = (k, opts[k])
        return found

    def need_value(key: str, value: str | None) -> str:
        if value is None or str(value).strip() == "":
            raise ValueError(f"option {key!r} needs a value")
        return str(value).strip()

    def as_int(key: str, value: str | None, minimum: int) -> int:
        v = need_value(key, value)
        try:
            n = parse_fio_size(v, 1024)
        except ValueError:
            raise ValueError(f"{key}={v!r} is not an integer") from None
        if n < minimum:
            raise ValueError(f"{key}={v!r} must be >= {minimum}")
        return n

    kb_base = 1024
    key, val = get("kb_base")
    if key:
        v = need_value(key, val)
        if v not in ("1000", "1024"):
            raise ValueError(f"kb_base={v!r} must be 1000 or 1024")
        kb_base = int(v)

    key, val = get("rw", "readwrite")
    rw = "read"                                    # fio's default
    if key:
        raw = need_value(key, val).split(":", 1)[0].strip().lower()
        if raw not in _RW_ALIASES:
            raise ValueError(f"{key}={val!r} is not a fio I/O pattern "
                             f"(one of {', '.join(sorted(_RW_ALIASES))})")
        rw = _RW_ALIASES[raw]

    bs = (_DEFAULT_BS,) * 3
    key, val = get("bs", "blocksize")
    if key:
        try:
            bs = _parse_bs(need_value(key, val), kb_base, bs)
        except ValueError as e:
            raise ValueError(f"{key}: {e}") from None

    iodepth = as_int(*get("iodepth"), 1) if get("iodepth")[0] else 1
    numjobs = as_int(*get("numjobs"), 1) if get("numjobs")[0] else 1

    rwmixread = 50.0
    key, val = get("rwmixread", "rwmixwrite")
    if key:
        v = need_value(key, val)
        try:
            pct = float(v)
        except ValueError:
            raise ValueError(f"{key}={v!r} is not a percentage") from None
        if not 0 <= pct <= 100:
            raise ValueError(f"{key}={v!r} must be between 0 and 100")
        rwmixread = pct if key == "rwmixread" else 100.0 - pct

    size = size_percent = None
    key, val = get("size")
    if key:
        v = need_value(key, val)
        if v.endswith("%"):
            try:
                size_percent = float(v[:-1])
            except ValueError:
                raise ValueError(f"{key}={v!r} is not a percentage") from None
        else:
            try:
                size = parse_fio_size(v, kb_base)
            except ValueError as e:
                raise ValueError(f"{key}: {e}") from None

    def as_time(k: str) -> float | None:
        key, val = get(k)
        if not key:
            return None
        try:
            return parse_fio_time(need_value(key, val))
        except ValueError as e:
            raise ValueError(f"{key}: {e}") from None

    runtime = as_time("runtime")
    if runtime is None:
        runtime = as_time("timeout")
    ramp_time = as_time("ramp_time") or 0.0

    def as_flag(k: str) -> bool | None:
        key, val = get(k)
        if not key:
            return None
        try:
            return _parse_bool(val)
        except ValueError as e:
            raise ValueError(f"{key}: {e}") from None

    time_based = bool(as_flag("time_based"))
    # direct and buffered set the same thing; the one given last wins
    key, _ = get("direct", "buffered")
    direct = False
    if key:
        flag = as_flag(key)
        direct = flag if key == "direct" else not flag

    key, val = get("ioengine")
    ioengine = need_value(key, val) if key else None
    key, val = get("filename")
    filename = need_value(key, val) if key else None

    return FioJobSpec(name=name, rw=rw, bs_read=bs[0], bs_write=bs[1], bs_trim=bs[2],
                      iodepth=iodepth, numjobs=numjobs, rwmixread=rwmixread, size=size,
                      size_percent=size_percent, runtime=runtime, ramp_time=ramp_time,
                      time_based=time_based, direct=direct, ioengine=ioengine,
                      filename=filename, kb_base=kb_base, options=dict(opts), source=source)


_SECTION_RE = re.compile(r"^\[(.*)\]\s*$")
_INCLUDE_RE = re.compile(r"^include\s+(\S.*?)\s*$")


def _read_text(path: Path, what: str) -> str:
    """A file's UTF-8 text; every failure is a FioParseError naming the file (`what`: 'a fio job file')."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise FioParseError(path, "no such file") from None
    except IsADirectoryError:
        raise FioParseError(path, f"is a directory, not {what}") from None
    except UnicodeDecodeError as e:
        raise FioParseError(path, f"not a text file ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise FioParseError(path, f"cannot read: {e.strerror or e}") from None


def _jobfile_lines(path: Path, depth: int = 0) -> list[str]:
    """The job file's lines, stripped, with ``include`` directives expanded."""
    if depth > 8:
        raise FioParseError(path, "include nesting deeper than 8 (an include loop?)")
    text = _read_text(path, "a fio job file")
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()                      # fio ignores indentation; configparser would not
        m = _INCLUDE_RE.match(line)
        if m:
            inc = Path(_expand_env(m.group(1)))
            out.extend(_jobfile_lines(inc if inc.is_absolute() else path.parent / inc, depth + 1))
        else:
            out.append(line)
    return out


def _override(base: dict[str, str | None], new: dict[str, str | None]) -> dict[str, str | None]:
    """Update `base` with `new`, moving overridden keys to the end so dict order stays the order
    options were last given (which decides between aliases such as direct/buffered)."""
    for k, v in new.items():
        base.pop(k, None)
        base[k] = v
    return base


def parse_jobfile(path: str | os.PathLike) -> list[FioJobSpec]:
    """The jobs of a fio ini job file, in file order.

    A ``[global]`` section applies to the jobs after it (several may appear; later ones add to or
    override earlier ones). Options without a value (``direct``, ``time_based``, ``stonewall``)
    count as set. ``${VAR}`` is replaced from the environment when VAR is set. ``include FILE``
    lines are expanded. ``numjobs`` is kept as a field, not expanded into copies.
    """
    path = Path(path)
    lines = _jobfile_lines(path)
    # Number the sections so repeated [global] (or job) headers stay separate and ordered.
    numbered: list[str] = []
    names: list[str] = []
    for line in lines:
        m = _SECTION_RE.match(line)
        if m:
            names.append(m.group(1).strip())
            numbered.append(f"[{len(names) - 1}]")
        else:
            numbered.append(line)
    parser = configparser.ConfigParser(allow_no_value=True, interpolation=None, strict=False,
                                       delimiters=("=",), comment_prefixes=(";", "#"),
                                       inline_comment_prefixes=(";", "#"),
                                       default_section="\x00no default section\x00")
    parser.optionxform = lambda s: s.strip().lower()   # type: ignore[method-assign]
    try:
        parser.read_string("\n".join(numbered) + "\n", source=str(path))
    except configparser.MissingSectionHeaderError as e:
        raise FioParseError(path, f"line {e.lineno}: option {e.line.strip()!r} before the first "
                                  "[section] header") from None
    except configparser.Error as e:
        first = str(e).splitlines()[0]
        raise FioParseError(path, f"not a valid fio job file: {first}") from None

    globals_: dict[str, str | None] = {}
    specs: list[FioJobSpec] = []
    for section in parser.sections():
        name = names[int(section)]
        opts = {k: (_expand_env(v) if v is not None else None) for k, v in parser[section].items()}
        if not name:
            raise FioParseError(path, "a section header has an empty name")
        if name == "global":
            _override(globals_, opts)
            continue
        merged = _override(dict(globals_), opts)
        try:
            specs.append(_spec_from_options(name, merged, str(path)))
        except ValueError as e:
            raise FioParseError(path, f"job [{name}]: {e}") from None
    if not specs:
        raise FioParseError(path, "no job sections (only [global] or nothing at all)")
    return specs


# ---------------------------------------------------------------------------------------------
# json / json+ results
# ---------------------------------------------------------------------------------------------

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
    runtime: float               # seconds fio ran this direction
    bandwidth: float             # bytes/s (fio's bw_bytes)
    iops: float
    total_ios: int
    short_ios: int = 0
    drop_ios: int = 0
    slat: LatencyStats | None = None   # submission latency
    clat: LatencyStats | None = None   # completion latency
    lat: LatencyStats | None = None    # total latency (slat + clat)

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
    spec: FioJobSpec             # rw, bs, iodepth, ... from fio's global + job options
    directions: dict[str, FioDirectionResult]
    error: int = 0
    elapsed: float = 0.0         # wall seconds of the job, ramp time included
    job_runtime: float = 0.0     # seconds fio measured
    fio_version: str = ""
    timestamp: float | None = None   # unix seconds at the end of the run
    json_plus: bool = False      # True when histogram bins were present
    source: str | None = field(default=None, compare=False)

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
    text = _read_text(path, "a fio result")
    # fio may print notes/warnings before the JSON (and sometimes after it): start at the first
    # line that opens an object, and ignore whatever follows the object.
    m = re.search(r"^\s*\{", text, re.MULTILINE)
    if not m:
        raise FioParseError(path, "no JSON object found; expected fio --output-format=json or json+ output")
    start = m.end() - 1
    try:
        data, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as e:
        raise FioParseError(path, f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
                                  " (truncated or not fio output?)") from None
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
    for name, scale in ((f"{key}_ns", 1e-9), (f"{key}_us", 1e-6), (key, 1e-6)):
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
    return LatencyStats(min=_number(s, "min", where, path) * scale,
                        max=_number(s, "max", where, path) * scale,
                        mean=_number(s, "mean", where, path) * scale,
                        stddev=_number(s, "stddev", where, path, default=0.0) * scale,
                        n=n, percentiles=pct, bin_latency=bins_lat, bin_count=bins_cnt)


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
    timestamp = ts / 1000.0 if isinstance(ts, (int, float)) else (
        float(data["timestamp"]) if isinstance(data.get("timestamp"), (int, float)) else None)
    results = []
    for i, job in enumerate(jobs):
        if not isinstance(job, dict):
            raise FioParseError(path, f"jobs[{i}] is not an object")
        name = job.get("jobname")
        if not isinstance(name, str):
            raise FioParseError(path, f"jobs[{i}]: missing 'jobname'")
        where = f"job {name!r}"
        opts = _override(dict(global_opts),
                         _options(job.get("job options"), f"{where} 'job options'", path))
        try:
            spec = _spec_from_options(name, opts, str(path))
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
            io_bytes = int(_number(d, "io_bytes", dw, path)) if "io_bytes" in d else \
                int(_number(d, "io_kbytes", dw, path)) * 1024
            if total_ios == 0 and io_bytes == 0:
                continue
            if "bw_bytes" in d:
                bw = float(_number(d, "bw_bytes", dw, path))
            else:                                   # older fio: bw in KiB/s only
                bw = float(_number(d, "bw", dw, path)) * 1024.0
            lat = {k: _latency(d, k, dw, path) for k in ("slat", "clat", "lat")}
            plus = plus or any(v is not None and v.has_bins for v in lat.values())
            dirs[ddir] = FioDirectionResult(
                direction=ddir, io_bytes=io_bytes, runtime=_number(d, "runtime", dw, path) / 1e3,
                bandwidth=bw, iops=float(_number(d, "iops", dw, path)), total_ios=total_ios,
                short_ios=int(_number(d, "short_ios", dw, path, default=0)),
                drop_ios=int(_number(d, "drop_ios", dw, path, default=0)),
                slat=lat["slat"], clat=lat["clat"], lat=lat["lat"])
        results.append(FioJobResult(
            name=name, spec=spec, directions=dirs,
            error=int(_number(job, "error", where, path, default=0)),
            elapsed=float(_number(job, "elapsed", where, path, default=0)),
            job_runtime=_number(job, "job_runtime", where, path, default=0) / 1e3,
            fio_version=version, timestamp=timestamp, json_plus=plus, source=str(path)))
    return results


# ---------------------------------------------------------------------------------------------
# logs
# ---------------------------------------------------------------------------------------------

_LOG_NAME_RE = re.compile(r"_(bw|iops|lat|clat|slat)(?:\.\d+)?\.log$")
_LOG_SCALE = {"bw": 1024.0, "iops": 1.0, "lat": 1e-9, "clat": 1e-9, "slat": 1e-9}
_LOG_COLUMNS = {
    4: ["time_ms", "value", "ddir", "block_size"],                              # fio < 3.x prio
    5: ["time_ms", "value", "ddir", "block_size", "priority"],
    6: ["time_ms", "value", "ddir", "block_size", "offset", "priority"],        # log_offset=1
}


def load_log(path: str | os.PathLike, kind: str | None = None) -> pd.DataFrame:
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
            raise FioParseError(path, "cannot tell the log kind from the name (expected "
                                      "<prefix>_{bw,iops,lat,clat,slat}[.N].log); pass kind=")
        kind = m.group(1)
    if kind not in _LOG_SCALE:
        raise FioParseError(path, f"unknown log kind {kind!r} (one of {', '.join(LOG_KINDS)})")
    text = _read_text(path, "a fio log")

    rows: list[list[float]] = []
    ncols = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if ncols is None:
            ncols = len(fields)
            if ncols not in _LOG_COLUMNS:
                raise FioParseError(path, f"line {lineno}: {ncols} columns; a fio log has 4, 5 or 6 "
                                          "(time, value, direction, block size[, offset], priority)")
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
        df = pd.DataFrame({"time_s": pd.Series(dtype=float), "value": pd.Series(dtype=float),
                           "direction": pd.Series(dtype=str), "block_size": pd.Series(dtype=np.int64)})
        df.attrs.update(kind=kind, source=str(path))
        return df

    arr = np.asarray(rows, dtype=float)
    cols = _LOG_COLUMNS[ncols]
    raw = {name: arr[:, i] for i, name in enumerate(cols)}
    ddir = raw["ddir"]
    bad = ~np.isin(ddir, (0, 1, 2))
    if bad.any():
        lineno = [i for i, line in enumerate(text.splitlines(), start=1) if line.strip()][int(np.argmax(bad))]
        raise FioParseError(path, f"line {lineno}: data direction {ddir[bad][0]:g} is not 0 (read), "
                                  "1 (write) or 2 (trim)")
    if (raw["time_ms"] < 0).any():
        raise FioParseError(path, "negative time stamp")
    df = pd.DataFrame({
        "time_s": raw["time_ms"] / 1e3,
        "value": raw["value"] * _LOG_SCALE[kind],
        "direction": np.asarray(DIRECTIONS, dtype=object)[ddir.astype(int)],
        "block_size": raw["block_size"].astype(np.int64),
    })
    if "offset" in raw:
        df["offset"] = raw["offset"].astype(np.int64)
    if "priority" in raw:
        df["priority"] = raw["priority"].astype(np.int64)
    df.attrs.update(kind=kind, source=str(path))
    return df
