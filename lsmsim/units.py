"""Unit strings used in YAML: sizes (`64MiB`), rates (`100MB/s`, `10K/s`) and durations (`12us`).

Code works in SI base units: bytes, seconds, operations. Decimal prefixes (KB, MB, GB) are powers
of 1000 and binary ones (KiB, MiB, GiB) powers of 1024, as in IEC 80000-13 and fio.
"""

from __future__ import annotations

import math
import re

_SIZE = {
    "": 1,
    "b": 1,
    "k": 1e3,
    "kb": 1e3,
    "m": 1e6,
    "mb": 1e6,
    "g": 1e9,
    "gb": 1e9,
    "t": 1e12,
    "tb": 1e12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_TIME = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0, "h": 3600.0}
_COUNT = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "b": 1e9}

_NUM = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"


class UnitError(ValueError):
    """A unit string that does not parse; the message says what is allowed."""


# beyond this no model quantity makes sense (2^62 bytes is 4.6 EB; 1e15 s is 30 million years), and integers stay
# inside numpy's int64 and ctypes' 64-bit fields
LIMIT = 2.0**62


def check_range(x: float, value, what: str) -> float:
    """`x` if finite and within +-LIMIT: infinities, NaN and 1e400 are no size, rate or duration."""
    if not math.isfinite(x) or abs(x) > LIMIT:
        raise UnitError(f"{value!r} is out of range: a {what} must be finite and at most {LIMIT:.3g}")
    return x


def _split(text: str, what: str) -> tuple[float, str]:
    m = re.fullmatch(_NUM + r"\s*([A-Za-zµ/]*)", text.strip())
    if not m:
        raise UnitError(f"{text!r} is not a {what}")
    return float(m.group(1)), m.group(2)


def parse_size(value: str | int | float) -> int:
    """Bytes from `4096`, `64MiB`, `1.5GB`, `16B`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(check_range(value, value, "size"))
    num, unit = _split(str(value), "size")
    factor = _SIZE.get(unit.lower())
    if factor is None:
        raise UnitError(f"{value!r}: size unit must be one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB")
    return int(round(check_range(num * factor, value, "size")))


def parse_bandwidth(value: str | int | float) -> float:
    """Bytes per second from `100MB/s`, `2GiB/s` or a plain number."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return check_range(float(value), value, "bandwidth")
    text = str(value).strip()
    if not text.lower().endswith("/s"):
        raise UnitError(f"{value!r}: a bandwidth needs '/s', e.g. '100MB/s' or '2GiB/s'")
    return float(parse_size(text[:-2]))


def parse_duration(value: str | int | float) -> float:
    """Seconds from `12us`, `1.5ms`, `30s`, `2min` or a plain number of seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return check_range(float(value), value, "duration")
    num, unit = _split(str(value), "duration")
    factor = _TIME.get(unit.lower() if unit != "µs" else unit)
    if factor is None:
        raise UnitError(f"{value!r}: duration unit must be one of ns, us, ms, s, min, h")
    return check_range(num * factor, value, "duration")


def parse_count(value: str | int | float) -> int:
    """A count such as `2000000`, `2M`, `500K`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(check_range(value, value, "count"))
    num, unit = _split(str(value), "count")
    factor = _COUNT.get(unit.lower())
    if factor is None:
        raise UnitError(f"{value!r}: count suffix must be one of K, M, G (e.g. '2M')")
    return int(round(check_range(num * factor, value, "count")))


def parse_op_rate(value: str | int | float) -> float:
    """Operations per second from `50K/s`, `10000/s` or a plain number."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return check_range(float(value), value, "rate")
    text = str(value).strip()
    if text.lower().endswith("/s"):
        text = text[:-2]
    return float(parse_count(text))
