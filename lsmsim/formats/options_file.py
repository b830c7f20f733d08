"""RocksDB's OPTIONS files (the `OPTIONS-NNNNNN` every database directory holds) in and out of lsmsim configs.

The format is RocksDB's own (options/options_parser.cc `RocksDBOptionsParser::Parse`): `#` comments,
`[Version]`, `[DBOptions]`, `[CFOptions "name"]` and `[TableOptions/BlockBasedTable "name"]` sections of
`name=value` lines, enums spelled `kCompactionStyleLevel`, nested structs as `{a=1;b=2;}`. Only the
`default` column family is read (lsmsim models one tree).

`to_config` maps what lsmsim models onto a config and reports every other option: `ignored` when lsmsim has
nothing it would change (logging, paths, checks, or a value that is the one lsmsim assumes, such as
`compression=kNoCompression`), `unsupported` when it is set to something lsmsim does not model (a warning each).
`from_config` writes a file that RocksDB loads (`db_bench --options_file`); options it leaves out keep RocksDB's
defaults. The thread counts follow `DBImpl::GetBGJobLimits` (db/db_impl/db_impl_compaction_flush.cc): with
`max_background_flushes` and `max_background_compactions` both -1, a quarter of `max_background_jobs` (at
least one) flushes and the rest compact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..loading import read_config_text
from ..sweeps.spec import set_path

ROCKSDB_VERSION = "7.8.3"  # Debian's librocksdb / rocksdb-tools, whose db_bench the tests load exported files with

DB, CF, TABLE = "DBOptions", 'CFOptions "default"', 'TableOptions/BlockBasedTable "default"'

COMPACTION_PRI = {
    "kByCompensatedSize": "by_compensated_size",
    "kOldestLargestSeqFirst": "oldest_largest_seq_first",
    "kOldestSmallestSeqFirst": "oldest_smallest_seq_first",
    "kMinOverlappingRatio": "min_overlapping_ratio",
    "kRoundRobin": "round_robin",
}

# (section, RocksDB option) -> lsmsim path; the policy's own options are in LEVELED and UNIVERSAL
LSM = {
    (DB, "use_direct_reads"): "lsm.use_direct_reads",
    (DB, "use_direct_io_for_flush_and_compaction"): "lsm.use_direct_io_for_flush_and_compaction",
    (DB, "delayed_write_rate"): "lsm.delayed_write_rate",
    (DB, "wal_bytes_per_sync"): "lsm.wal_bytes_per_sync",
    (DB, "manual_wal_flush"): "lsm.manual_wal_flush",
    (CF, "write_buffer_size"): "lsm.write_buffer_size",
    (CF, "max_write_buffer_number"): "lsm.max_write_buffer_number",
    (CF, "level0_slowdown_writes_trigger"): "lsm.level0_slowdown_writes_trigger",
    (CF, "level0_stop_writes_trigger"): "lsm.level0_stop_writes_trigger",
    (CF, "soft_pending_compaction_bytes_limit"): "lsm.soft_pending_compaction_bytes_limit",
    (CF, "hard_pending_compaction_bytes_limit"): "lsm.hard_pending_compaction_bytes_limit",
    (TABLE, "block_size"): "lsm.block_size",
    (TABLE, "cache_index_and_filter_blocks"): "lsm.cache_index_and_filter_blocks",
}
LEVELED = (
    "num_levels",
    "level0_file_num_compaction_trigger",
    "max_bytes_for_level_base",
    "max_bytes_for_level_multiplier",
    "target_file_size_base",
    "target_file_size_multiplier",
    "level_compaction_dynamic_level_bytes",
    "level_compaction_dynamic_file_size",
    "max_compaction_bytes",
)
UNIVERSAL = ("size_ratio", "min_merge_width", "max_merge_width", "max_size_amplification_percent")
THREADS = ("max_background_jobs", "max_background_flushes", "max_background_compactions")

# options lsmsim does not model, at values that change nothing it models: ignored at these, unsupported otherwise
NEUTRAL = {
    (CF, "compression"): {"kNoCompression"},
    (CF, "bottommost_compression"): {"kNoCompression", "kDisableCompressionOption"},
    (CF, "compression_per_level"): {""},
    (CF, "enable_blob_files"): {"false"},
    (CF, "disable_auto_compactions"): {"false"},
    (CF, "compaction_filter"): {"nullptr"},
    (CF, "compaction_filter_factory"): {"nullptr"},
    (CF, "merge_operator"): {"nullptr"},
    (CF, "memtable_factory"): {"SkipListFactory"},
    (CF, "table_factory"): {"BlockBasedTable"},
    (CF, "prefix_extractor"): {"nullptr"},
    (CF, "optimize_filters_for_hits"): {"false"},
    (CF, "max_bytes_for_level_multiplier_additional"): {"1:1:1:1:1:1:1", ""},
    (CF, "inplace_update_support"): {"false"},
    (DB, "max_subcompactions"): {"1"},
    (DB, "allow_mmap_reads"): {"false"},
    (DB, "allow_mmap_writes"): {"false"},
    (DB, "unordered_write"): {"false"},
    (DB, "two_write_queues"): {"false"},
    (TABLE, "index_type"): {"kBinarySearch"},
    (TABLE, "partition_filters"): {"false"},
    (TABLE, "whole_key_filtering"): {"true"},
    (TABLE, "no_block_cache"): {"false"},
}


@dataclass
class OptionsFile:
    """A parsed OPTIONS file: {section: {option: value text}} and where it came from."""

    path: str
    sections: dict[str, dict[str, str]]

    def get(self, section: str, name: str) -> str | None:
        return self.sections.get(section, {}).get(name)


@dataclass
class ImportReport:
    """What `to_config` did with each option: (RocksDB section and name, value, lsmsim path or why)."""

    mapped: list[tuple[str, str, str]] = field(default_factory=list)
    ignored: list[tuple[str, str]] = field(default_factory=list)
    unsupported: list[tuple[str, str, str]] = field(default_factory=list)


_SECTION = re.compile(r"^\[(?P<name>[A-Za-z/]+)(?:\s+\"(?P<arg>[^\"]*)\")?\]$")


def parse_options(text: str, path: str = "<OPTIONS>") -> OptionsFile:
    """Parse an OPTIONS file's text (RocksDBOptionsParser::Parse's rules: one `name=value` per line, `#` starts a
    comment, sections in brackets)."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        m = _SECTION.match(line)
        if m:
            name = m["name"] + (f' "{m["arg"]}"' if m["arg"] is not None else "")
            current = sections.setdefault(name, {})
            continue
        if current is None or "=" not in line:
            raise ConfigError(path, [(f"line {n}", f"not a RocksDB OPTIONS line: {raw.strip()[:80]!r}")])
        k, v = line.split("=", 1)
        current[k.strip()] = v.strip()
    if "Version" not in sections or CF not in sections:
        raise ConfigError(path, [("(file)", 'not a RocksDB OPTIONS file: needs [Version] and [CFOptions "default"]')])
    return OptionsFile(path, sections)


def read_options(path: str | Path) -> OptionsFile:
    return parse_options(read_config_text(path, "RocksDB OPTIONS"), str(path))


def _struct(text: str) -> dict[str, str]:
    """`{a=1;b=2;}` -> {'a': '1', 'b': '2'} (RocksDB's nested option syntax)."""
    body = text.strip().removeprefix("{").removesuffix("}")
    return dict(p.split("=", 1) for p in body.split(";") if "=" in p)


def option_value(text: str) -> Any:
    """An option's text as the number or boolean lsmsim takes (ValueError otherwise): RocksDB's OPTIONS files and
    db_bench's flags spell them alike."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return float(text)


def _value(opts: OptionsFile, section: str, name: str, text: str) -> Any:
    try:
        return option_value(text)
    except ValueError:
        raise ConfigError(
            opts.path, [(f"[{section}] {name}", f"expected a number or true/false, got {text!r}")]
        ) from None


def bg_job_limits(jobs: int, flushes: int, compactions: int) -> tuple[int, int]:
    """(flush, compaction) threads of RocksDB's DBImpl::GetBGJobLimits (db/db_impl/db_impl_compaction_flush.cc):
    with max_background_flushes and max_background_compactions both -1, a quarter of max_background_jobs (at
    least one) flushes and the rest compact; otherwise each as given, at least one."""
    if flushes == -1 and compactions == -1:
        flushes = max(1, jobs // 4)
        compactions = max(1, jobs - flushes)
    return max(1, flushes), max(1, compactions)


def _bloom_bits(opts: OptionsFile, text: str) -> float:
    """filter_policy: `nullptr` (no filter: 0 bits), `bloomfilter:10:false`, `ribbonfilter:10` (lsmsim models
    either as a Bloom filter of that many bits per key)."""
    if text in ("nullptr", ""):
        return 0.0
    m = re.match(r"^(?:rocksdb\.)?(?:bloomfilter|BloomFilter|ribbonfilter|RibbonFilter)[:.](?P<bits>[0-9.]+)", text)
    if not m:
        raise ConfigError(opts.path, [(f"[{TABLE}] filter_policy", f"unknown filter policy {text!r}")])
    return float(m["bits"])


class _Importer:
    """One import: the config being built, what was used, and the report."""

    def __init__(self, opts: OptionsFile):
        self.opts, self.rep = opts, ImportReport()
        self.cfg: dict[str, Any] = {"name": Path(opts.path).name or "imported"}
        self.used: set[tuple[str, str]] = set()

    def put(self, path: str, value: Any, section: str, name: str, shown: str | None = None) -> None:
        set_path(self.cfg, path, value)
        text = shown if shown is not None else self.opts.get(section, name) or ""
        self.rep.mapped.append((f"[{section}] {name}", text, path))
        self.used.add((section, name.split(".")[0]))

    def copy(self, section: str, name: str, path: str) -> None:
        text = self.opts.get(section, name)
        if text is not None:
            self.put(path, _value(self.opts, section, name, text), section, name)

    def lsm(self) -> None:
        for (section, name), path in LSM.items():
            self.copy(section, name, path)
        text = self.opts.get(TABLE, "filter_policy")
        if text is not None:
            self.put("lsm.bloom_bits_per_key", _bloom_bits(self.opts, text), TABLE, "filter_policy")

    def threads(self) -> None:
        opts = self.opts
        jobs, flushes, compactions = (int(_value(opts, DB, k, opts.get(DB, k) or "-1")) for k in THREADS)
        flushes, compactions = bg_job_limits(max(jobs, 1), flushes, compactions)
        threads = {"flush": flushes, "compaction": compactions}
        self.put(
            "machine.threads", threads, DB, "max_background_jobs", f"{jobs} ({flushes} flush, {compactions} compaction)"
        )
        self.used.update((DB, k) for k in THREADS)

    def leveled(self) -> None:
        self.cfg["policy"] = {"name": "leveled"}
        for name in LEVELED:
            text = self.opts.get(CF, name)
            if text is not None:
                v = _value(self.opts, CF, name, text)
                # RocksDB's max_compaction_bytes 0 means 25 x target_file_size_base, lsmsim's default (None)
                self.put(f"policy.{name}", None if name == "max_compaction_bytes" and v == 0 else v, CF, name)
        pri = self.opts.get(CF, "compaction_pri")
        if pri is not None:
            if pri not in COMPACTION_PRI:
                allowed = ", ".join(COMPACTION_PRI)
                raise ConfigError(self.opts.path, [(f"[{CF}] compaction_pri", f"unknown {pri!r}; allowed: {allowed}")])
            self.put("policy.compaction_pri", COMPACTION_PRI[pri], CF, "compaction_pri")

    def universal(self) -> None:
        self.cfg["policy"] = {"name": "universal"}
        for name in ("num_levels", "level0_file_num_compaction_trigger"):
            self.copy(CF, name, f"policy.{name}")
        # universal cuts its outputs at MaxFileSizeForLevel too (options/cf_options.cc)
        self.copy(CF, "target_file_size_base", "policy.target_file_size")
        uni = _struct(self.opts.get(CF, "compaction_options_universal") or "{}")
        for name in UNIVERSAL:
            if name in uni:
                full = f"compaction_options_universal.{name}"
                self.put(f"policy.{name}", _value(self.opts, CF, full, uni[name]), CF, full, uni[name])
        if uni.get("allow_trivial_move") == "true":
            self.rep.unsupported.append(
                (f"[{CF}] compaction_options_universal.allow_trivial_move", "true", "not modelled")
            )
        self.used.add((CF, "compaction_options_universal"))

    def rest(self) -> None:
        """Every option not mapped: ignored, or unsupported when set to something lsmsim does not model."""
        for section, values in self.opts.sections.items():
            if section not in (DB, CF, TABLE):
                if section != "Version":
                    self.rep.unsupported.append((f"[{section}]", "", "only the default column family is read"))
                continue
            for name, text in values.items():
                if (section, name) in self.used:
                    continue
                neutral = NEUTRAL.get((section, name))
                if neutral is not None and text not in neutral:
                    self.rep.unsupported.append((f"[{section}] {name}", text, "lsmsim does not model it"))
                else:
                    self.rep.ignored.append((f"[{section}] {name}", text))


def to_config(opts: OptionsFile, workload: dict | None = None) -> tuple[dict, ImportReport]:
    """An lsmsim config (a dict, validated by `lsmsim.load_config`) from `opts`, and what became of each option.
    The workload is not in an OPTIONS file: `workload` (default db_bench's fillrandom of 1M keys) stands in."""
    imp = _Importer(opts)
    imp.lsm()
    imp.threads()
    style = opts.get(CF, "compaction_style") or "kCompactionStyleLevel"
    imp.used.add((CF, "compaction_style"))
    if style == "kCompactionStyleLevel":
        imp.leveled()
    elif style == "kCompactionStyleUniversal":
        imp.universal()
    else:
        why = f"{style} has no lsmsim policy; lsmsim imports kCompactionStyleLevel and kCompactionStyleUniversal"
        raise ConfigError(opts.path, [(f"[{CF}] compaction_style", why)])
    imp.rest()
    imp.cfg["workload"] = workload or {"preset": "fillrandom", "num": 1_000_000}
    return imp.cfg, imp.rep


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6f}" if v != int(v) or abs(v) < 1e15 else str(int(v))
    return str(v)


def from_config(config) -> str:
    """The text of an OPTIONS file for `config` (a validated `lsmsim.Config`): the options lsmsim maps, RocksDB's
    defaults for the rest. Only leveled and universal policies have a RocksDB equivalent."""
    p, lsm, th = config.policy, config.lsm, config.machine.threads
    if p.name not in ("leveled", "universal"):
        raise ConfigError(
            "policy",
            [("policy.name", f"{p.name!r} has no RocksDB compaction style; export takes leveled and universal")],
        )
    db = {
        "max_background_jobs": th.flush + th.compaction,
        "max_background_flushes": th.flush,
        "max_background_compactions": th.compaction,
    }
    cf: dict[str, Any] = {}
    table: dict[str, Any] = {}
    for (section, name), path in LSM.items():
        v = getattr(lsm, path.split(".", 1)[1])
        {DB: db, CF: cf, TABLE: table}[section][name] = int(v) if isinstance(v, float) and v == int(v) else v
    bits = lsm.bloom_bits_per_key
    table["filter_policy"] = "nullptr" if bits == 0 else f"bloomfilter:{_fmt(float(bits))}:false"
    cf["table_factory"] = "BlockBasedTable"
    cf["compression"] = "kNoCompression"
    if p.name == "leveled":
        cf["compaction_style"] = "kCompactionStyleLevel"
        for name in LEVELED:
            v = getattr(p, name)
            cf[name] = 0 if v is None else v
        cf["target_file_size_multiplier"] = int(p.target_file_size_multiplier)  # an int in RocksDB
        if cf["target_file_size_multiplier"] != p.target_file_size_multiplier:
            raise ConfigError("policy", [("policy.target_file_size_multiplier", "RocksDB takes a whole number")])
        cf["compaction_pri"] = {v: k for k, v in COMPACTION_PRI.items()}.get(p.compaction_pri)
        if cf["compaction_pri"] is None:
            raise ConfigError("policy", [("policy.compaction_pri", f"{p.compaction_pri!r} is not in RocksDB")])
    else:
        cf["compaction_style"] = "kCompactionStyleUniversal"
        cf["num_levels"] = p.num_levels
        cf["level0_file_num_compaction_trigger"] = p.level0_file_num_compaction_trigger
        if p.target_file_size is not None:
            cf["target_file_size_base"] = p.target_file_size
        uni = {name: getattr(p, name) for name in UNIVERSAL}
        uni["max_merge_width"] = min(int(uni["max_merge_width"]), 2**32 - 1)  # an unsigned int in RocksDB
        cf["compaction_options_universal"] = "{" + "".join(f"{k}={_fmt(v)};" for k, v in uni.items()) + "}"
    lines = [
        f"# RocksDB options written by lsmsim export from config {config.name!r}: the options lsmsim models;",
        "# every other option keeps RocksDB's default.",
        "",
        "[Version]",
        f"  rocksdb_version={ROCKSDB_VERSION}",
        "  options_file_version=1.1",
        "",
    ]
    for section, values in ((DB, db), (CF, cf), (TABLE, table)):
        lines.append(f"[{section}]")
        lines += [f"  {k}={_fmt(v)}" for k, v in values.items()]
        lines.append("")
    return "\n".join(lines)


__all__ = [
    "OptionsFile",
    "ImportReport",
    "parse_options",
    "read_options",
    "to_config",
    "from_config",
    "option_value",
    "bg_job_limits",
]
