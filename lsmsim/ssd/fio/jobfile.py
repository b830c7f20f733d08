"""fio ini job files: `parse_jobfile` and `FioJobSpec`, the job that a job file (or the option lists
of a json result) defines."""

from __future__ import annotations

import configparser
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .common import FioParseError, read_text
from .values import DEFAULT_BS, parse_bool, parse_bs, parse_fio_size, parse_fio_time

# rw= values fio accepts, aliases mapped to one name.
_RW_ALIASES = {
    "read": "read",
    "write": "write",
    "trim": "trim",
    "randread": "randread",
    "randwrite": "randwrite",
    "randtrim": "randtrim",
    "rw": "rw",
    "readwrite": "rw",
    "randrw": "randrw",
    "trimwrite": "trimwrite",
    "randtrimwrite": "randtrimwrite",
}
# Which directions each rw mode issues.
_RW_DIRECTIONS = {
    "read": ("read",),
    "randread": ("read",),
    "write": ("write",),
    "randwrite": ("write",),
    "trim": ("trim",),
    "randtrim": ("trim",),
    "rw": ("read", "write"),
    "randrw": ("read", "write"),
    "trimwrite": ("trim", "write"),
    "randtrimwrite": ("trim", "write"),
}


@dataclass(frozen=True)
class FioJobSpec:
    """One fio job, as a job file (or a json result's option lists) defines it.

    Sizes are bytes, times seconds. `options` holds every option, global ones merged under the
    job's own (lower-case names; value None for a flag given without a value).
    """

    name: str
    rw: str  # normalized: readwrite -> rw; the ':N' suffix is dropped
    bs_read: int = DEFAULT_BS
    bs_write: int = DEFAULT_BS
    bs_trim: int = DEFAULT_BS
    iodepth: int = 1
    numjobs: int = 1
    rwmixread: float = 50.0  # percent of reads in mixed (rw/randrw) jobs
    size: int | None = None  # bytes, None if not given or given as a percentage
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
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: os.environ.get(m.group(1), m.group(0)), value)


def spec_from_options(name: str, opts: dict[str, str | None], source: str) -> FioJobSpec:  # noqa: C901 (one branch per fio option it maps)
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
    rw = "read"  # fio's default
    if key:
        raw = need_value(key, val).split(":", 1)[0].strip().lower()
        if raw not in _RW_ALIASES:
            raise ValueError(f"{key}={val!r} is not a fio I/O pattern (one of {', '.join(sorted(_RW_ALIASES))})")
        rw = _RW_ALIASES[raw]

    bs = (DEFAULT_BS,) * 3
    key, val = get("bs", "blocksize")
    if key:
        try:
            bs = parse_bs(need_value(key, val), kb_base, bs)
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
            return parse_bool(val)
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

    return FioJobSpec(
        name=name,
        rw=rw,
        bs_read=bs[0],
        bs_write=bs[1],
        bs_trim=bs[2],
        iodepth=iodepth,
        numjobs=numjobs,
        rwmixread=rwmixread,
        size=size,
        size_percent=size_percent,
        runtime=runtime,
        ramp_time=ramp_time,
        time_based=time_based,
        direct=direct,
        ioengine=ioengine,
        filename=filename,
        kb_base=kb_base,
        options=dict(opts),
        source=source,
    )


_SECTION_RE = re.compile(r"^\[(.*)\]\s*$")
_INCLUDE_RE = re.compile(r"^include\s+(\S.*?)\s*$")


def _jobfile_lines(path: Path, depth: int = 0) -> list[str]:
    """The job file's lines, stripped, with ``include`` directives expanded."""
    if depth > 8:
        raise FioParseError(path, "include nesting deeper than 8 (an include loop?)")
    text = read_text(path, "a fio job file")
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()  # fio ignores indentation; configparser would not
        m = _INCLUDE_RE.match(line)
        if m:
            inc = Path(_expand_env(m.group(1)))
            out.extend(_jobfile_lines(inc if inc.is_absolute() else path.parent / inc, depth + 1))
        else:
            out.append(line)
    return out


def override(base: dict[str, str | None], new: dict[str, str | None]) -> dict[str, str | None]:
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
    parser = configparser.ConfigParser(
        allow_no_value=True,
        interpolation=None,
        strict=False,
        delimiters=("=",),
        comment_prefixes=(";", "#"),
        inline_comment_prefixes=(";", "#"),
        default_section="\x00no default section\x00",
    )
    parser.optionxform = lambda s: s.strip().lower()  # type: ignore[method-assign]
    try:
        parser.read_string("\n".join(numbered) + "\n", source=str(path))
    except configparser.MissingSectionHeaderError as e:
        raise FioParseError(
            path, f"line {e.lineno}: option {e.line.strip()!r} before the first [section] header"
        ) from None
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
            override(globals_, opts)
            continue
        merged = override(dict(globals_), opts)
        try:
            specs.append(spec_from_options(name, merged, str(path)))
        except ValueError as e:
            raise FioParseError(path, f"job [{name}]: {e}") from None
    if not specs:
        raise FioParseError(path, "no job sections (only [global] or nothing at all)")
    return specs
