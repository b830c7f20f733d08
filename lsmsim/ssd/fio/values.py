"""fio option values: sizes (``4k``, ``1m``, ``0x1000``), times (``500ms``, ``2m``), booleans and
``bs=r,w,t``, following fio's own parsers (checked against fio 3.33)."""

from __future__ import annotations

import re

DEFAULT_BS = 4096

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
            return number * other**power
        if suffix in (letter, letter + "b", letter + "i"):
            return number * kb_base**power
    raise ValueError(f"{text!r}: unknown size suffix {suffix!r} (use k, m, g, t or p)")


_TIME_RE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*")
_TIME_UNITS = {
    "": 1.0,
    "s": 1.0,
    "sec": 1.0,
    "ms": 1e-3,
    "msec": 1e-3,
    "us": 1e-6,
    "usec": 1e-6,
    "m": 60.0,
    "min": 60.0,
    "h": 3600.0,
    "d": 86400.0,
}


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


def parse_bool(text: str | None) -> bool:
    if text is None:  # a flag given without a value means "on"
        return True
    t = str(text).strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a boolean (use 1 or 0)")


def parse_bs(text: str, kb_base: int, prev: tuple[int, int, int]) -> tuple[int, int, int]:
    """fio's ``bs=r[,w][,t]``: a value not followed by a comma applies to the following kinds too;
    an empty field keeps the default."""
    parts = str(text).split(",")
    if len(parts) > 3:
        raise ValueError(f"{text!r}: bs takes at most three comma-separated values (read,write,trim)")
    out = list(prev)
    for i, part in enumerate(parts):
        if part.strip() == "":
            out[i] = DEFAULT_BS
            continue
        value = parse_fio_size(part, kb_base)
        if value <= 0:
            raise ValueError(f"{text!r}: block size must be positive")
        out[i] = value
        if i == len(parts) - 1:  # last value applies to the remaining kinds
            for j in range(i + 1, 3):
                out[j] = value
    return out[0], out[1], out[2]
