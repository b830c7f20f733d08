"""Pydantic models of every YAML section: the one source of defaults and units.

A config has six sections: `machine`, `device`, `lsm`, `policy`, `workload`, `sim` (plus `name` and
`seed`). Sizes, bandwidths, durations and rates are accepted as unit strings (`64MiB`, `100MB/s`,
`12us`, `50K/s`) and stored in SI base units. Defaults follow RocksDB 7.8's options where a RocksDB
option exists (the option keeps RocksDB's name).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import Field, ValidationError, model_validator

from . import units
from .errors import ConfigError
from .fields import Bandwidth, Bytes, Count, Duration, OpRate, Section
from .policies.base import PolicyOptions
from .policies.registry import options_union, policies
from .workloads.catalog import suite_hot_keys, suite_names


# ---------------------------------------------------------------- machine and device
class ThreadsConfig(Section):
    """Threads by role. `flush` and `compaction` are RocksDB's max_background_flushes/compactions."""

    flush: int = Field(1, ge=1)
    compaction: int = Field(1, ge=1)


class MachineConfig(Section):
    cores: int = Field(4, ge=1, description="CPU cores shared by all threads (processor sharing).")
    threads: ThreadsConfig = ThreadsConfig()
    context_switch_overhead: float = Field(
        0.02, ge=0, lt=1, description="Fraction of CPU lost to switching when runnable threads exceed cores."
    )
    reserved_cores: float = Field(
        0.0,
        ge=0,
        description="Cores pinned to the roles in `reserved_for` (EcoTune §5.2 keeps 2 cores for the "
        "writer, flush and TMC threads); all other threads share the rest. 0: one pool.",
    )
    reserved_for: list[Literal["writers", "flush", "compaction_l0"]] = Field(
        ["writers", "flush", "compaction_l0"],
        description="Roles on the reserved cores: fixed-rate and closed-loop writers, flushes, and L0 compactions "
        "(RocksDB's L0->L1, EcoTune's TMCs).",
    )
    io_priority: list[Literal["flush", "compaction_l0", "compaction", "foreground"]] = Field(
        ["flush", "compaction_l0", "compaction", "foreground"],
        description="Device priority classes, highest first; max-min fairness within a class.",
    )

    @model_validator(mode="after")
    def _all_classes(self):
        if self.reserved_cores >= self.cores:
            raise ValueError(f"reserved_cores ({self.reserved_cores:g}) must leave some of the {self.cores} cores")
        need = {"flush", "compaction_l0", "compaction", "foreground"}
        if set(self.io_priority) != need or len(self.io_priority) != len(need):
            raise ValueError("io_priority must list each of flush, compaction_l0, compaction, foreground once")
        return self


class DeviceConfig(Section):
    """The simple device: bandwidth and random-read latency, no garbage collection."""

    model: Literal["simple"] = "simple"
    capacity: Bytes = units.parse_size("960GB")
    read_bandwidth: Bandwidth = units.parse_bandwidth("3GB/s")
    write_bandwidth: Bandwidth = units.parse_bandwidth("1.5GB/s")
    read_latency: Duration = units.parse_duration("80us")
    write_latency: Duration = units.parse_duration("20us")
    max_read_iops: OpRate = Field(
        units.parse_op_rate("500K/s"), gt=0, description="4KiB random-read IOPS with enough outstanding requests."
    )


class DirectionConfig(Section):
    """One direction of the SSD timing model (lsmsim/ssd/timing.py)."""

    latency: Duration = Field(gt=0, description="Unloaded latency of one 4KiB request (queue depth 1).")
    stream_bandwidth: Bandwidth = Field(description="Transfer rate of one request once started.")
    bandwidth: Bandwidth = Field(description="Maximum throughput for large requests.")
    iops: OpRate | None = Field(
        None,
        gt=0,
        description="Maximum 4KiB request rate with enough requests "
        "outstanding; omitted: channels x dies_per_channel / flash_time.",
    )
    flash_time: Duration | None = Field(None, gt=0, description="One flash page read (tR) or program (tPROG).")


class FtlConfig(Section):
    """Page-mapped FTL with erase-unit garbage collection (lsmsim/ssd/ftl/)."""

    enabled: bool = Field(True, description="false: no GC at all (in-place media such as Optane).")
    mapping_unit: Bytes = Field(4096, gt=0, description="Bytes per mapped logical page.")
    erase_unit: Bytes = Field(units.parse_size("4MiB"), gt=0, description="Bytes per erase block.")
    over_provisioning: float = Field(0.07, ge=0, lt=10)
    op_definition: Literal["ratio", "spare_factor"] = Field(
        "ratio",
        description="ratio: (physical - logical) / logical, the industry's 7%/28%; "
        "spare_factor: (physical - logical) / physical, as MQSim and SimpleSSD.",
    )
    frontiers: int = Field(1, ge=1, le=64, description="Open write frontiers (erase blocks being filled).")
    frontier_by: Literal["none", "level"] = Field(
        "none",
        description="none: all host writes share frontier 0 in arrival order; level: an LSM "
        "level's files go to frontier min(level, frontiers - 1) (multi-stream SSD).",
    )
    victim: Literal["greedy", "cost_benefit"] = "greedy"
    gc_free_low: int | None = Field(None, ge=1, description="Foreground GC below this many free blocks.")
    gc_free_high: int | None = Field(None, ge=1, description="Background GC, when idle, up to this many.")
    background_gc: bool = True
    trim: Literal["immediate", "periodic", "none"] = Field(
        "immediate",
        description="When deleted files' pages are discarded: at once (discard mount "
        "option), by a periodic fstrim, or never (LBAs are invalidated only "
        "when reused).",
    )
    fstrim_period: Duration = Field(units.parse_duration("1h"), gt=0)


class SSDDeviceConfig(Section):
    """An SSD: the timing model of lsmsim/ssd/timing.py and an FTL. `preset` loads a device from
    lsmsim/presets/devices/ (fields given here override it)."""

    model: Literal["ssd"]
    preset: str | None = None
    source: str = Field("", description="Where the numbers come from (datasheet, fio traces).")
    capacity: Bytes = Field(units.parse_size("960GB"), gt=0, description="Logical capacity.")
    channels: int = Field(8, ge=1)
    dies_per_channel: int = Field(4, ge=1)
    read: DirectionConfig
    write: DirectionConfig
    ftl: FtlConfig = FtlConfig()
    host_per_io: Duration = Field(0.0, description="Host CPU time per request (block layer, driver).")
    latency_shape: dict[str, dict[float, float]] | None = Field(
        None, description="Calibrated profiles: latency percentile / mean per direction at queue depth 1."
    )

    @model_validator(mode="after")
    def _iops_from_parallelism(self):
        """Internal parallelism: with every die busy, a device serves channels x dies pages per
        flash operation time (Agrawal et al., USENIX ATC'08 §3)."""
        for name in ("read", "write"):
            d = getattr(self, name)
            if d.iops is None:
                if d.flash_time is None:
                    raise ValueError(f"{name}: give 'iops', or 'flash_time' to derive it from channels x dies")
                d.iops = self.channels * self.dies_per_channel / d.flash_time
        return self


# ---------------------------------------------------------------- LSM tree
class CpuCostConfig(Section):
    """CPU time per unit of work. Calibrated on this machine kind against Debian's RocksDB 7.8.3
    db_bench (fillrandom, no compression, 2 MiB write buffers, one compaction thread):
    - writes (16B keys, 100B values): a median of 7.0 us/op over six runs with the WAL (6.4 to 8.1)
      and 4.95 us/op without (so 4.95 us for the memtable insert and write path, 2.05 us WAL append);
    - compactions, CompMergeCPU per input key at three entry sizes: 1.24 us at 122 B per entry
      (100B values), 1.68 us at 422 B (400B values), 2.95-3.58 us at 1,040 B (1,000B values, two
      runs); a least-squares line gives 0.87 us per entry + 2.27 ns per byte;
    - flushes: 0.7 us per entry at 122 B (1.38 s for 1.97M entries) and 2.4 us at 1,040 B (0.96 s
      for 400K): 0.47 us per entry + 1.85 ns per byte.
    Read-path constants are RocksDB's typical costs on a 2-3 GHz core (filter probe, index binary
    search, block decode) and are not calibrated yet."""

    memtable_insert: Duration = units.parse_duration("4.95us")
    wal_append: Duration = units.parse_duration("2.05us")
    flush_per_entry: Duration = units.parse_duration("0.47us")
    flush_per_byte: Duration = units.parse_duration("1.85ns")
    merge_per_entry: Duration = units.parse_duration("0.87us")
    merge_per_byte: Duration = units.parse_duration("2.27ns")
    filter_probe: Duration = units.parse_duration("0.15us")
    index_search: Duration = units.parse_duration("0.4us")
    block_decode: Duration = units.parse_duration("1.5us")
    next_entry: Duration = units.parse_duration("0.05us")
    get_base: Duration = units.parse_duration("1.0us")


class LsmConfig(Section):
    write_buffer_size: Bytes = Field(units.parse_size("64MiB"), gt=0)
    max_write_buffer_number: int = Field(2, ge=2)
    entry_overhead: Bytes = Field(
        6,
        description="SST bytes per entry beyond key + value: 8-byte seqno/type trailer and length "
        "varints less key-prefix compression; measured: db_bench fillrandom 16B/100B "
        "flushes 3,398,016 B for 27,821 entries = 122.1 B/entry on RocksDB 7.8.3.",
    )
    memtable_entry_overhead: Bytes = Field(
        34,
        description="Memtable bytes per entry beyond key + value (skiplist node, arena). RocksDB 7.8.3, "
        "16B/100B entries, 4MiB memtables: db_bench flushed 27,821 entries in one memtable "
        "(150.8 B/entry), and lsmsim validate's runs flush 71 times for 2M puts, 35 for 1M "
        "and 44 for 1.25M: 27,778 < entries per memtable <= 28,169, so 148.9-151.0 B/entry; "
        "34 (150 B) fits all of them, 35 (151 B) is one entry short of the lower bound.",
    )
    block_size: Bytes = Field(4096, gt=0)
    bloom_bits_per_key: float = Field(10.0, ge=0)
    range_filter_fpr: float | None = Field(
        None,
        ge=0,
        le=1,
        description="A range filter per run (EcoTune's SNARF): a scan seeks only runs "
        "holding keys of its range, plus false positives at this rate.",
    )
    block_cache_size: Bytes = units.parse_size("8MiB")
    entries_per_sample: int = Field(1, ge=1, description="Real entries one key sample stands for (1 = exact).")
    wal: bool = True
    level0_slowdown_writes_trigger: int = Field(20, ge=1)
    level0_stop_writes_trigger: int = Field(36, ge=1)
    soft_pending_compaction_bytes_limit: Bytes = units.parse_size("64GiB")
    hard_pending_compaction_bytes_limit: Bytes = units.parse_size("256GiB")
    delayed_write_rate: Bandwidth = units.parse_bandwidth("16MiB/s")
    cpu: CpuCostConfig = CpuCostConfig()

    @model_validator(mode="after")
    def _stop_above_slowdown(self):
        if self.level0_stop_writes_trigger < self.level0_slowdown_writes_trigger:
            raise ValueError("level0_stop_writes_trigger must be >= level0_slowdown_writes_trigger")
        return self


# ---------------------------------------------------------------- policies
# Each policy declares its options class beside itself (lsmsim/policies/); the union is the registry's.
if TYPE_CHECKING:
    PolicyConfig = PolicyOptions
else:
    PolicyConfig = options_union()


def _default_policy():
    return policies()["leveled"].Options(name="leveled")


# ---------------------------------------------------------------- workload
class KeysConfig(Section):
    distribution: Literal["uniform", "sequential", "zipfian", "latest", "normal", "shuffled"] = Field(
        "uniform", description="uniform: with replacement (db_bench); shuffled: each key once, random order"
    )
    theta: float = Field(0.99, ge=0, lt=1, description="Zipf skew; Gray et al.'s generator needs theta < 1.")
    mean: float = Field(0.5, ge=0, le=1)
    stddev: float = Field(0.1, gt=0)
    hot_keys: Count | None = Field(
        None,
        gt=0,
        description="Draw from this many hot keys only, spread evenly over the key space (ARCE's multi-version case).",
    )


class MixConfig(Section):
    """Fractions of operations by type; they are normalised to sum to 1."""

    insert: float = Field(0, ge=0)
    update: float = Field(0, ge=0)
    delete: float = Field(0, ge=0)
    get: float = Field(0, ge=0)
    get_empty: float = Field(0, ge=0)
    short_scan: float = Field(0, ge=0)
    long_scan: float = Field(0, ge=0)

    def writes(self) -> float:
        return self.insert + self.update + self.delete

    def reads(self) -> float:
        return self.get + self.get_empty + self.short_scan + self.long_scan


class WritersConfig(Section):
    """Write side: `closed` N client threads (db_bench, ARCE) or a fixed `rate` in bytes/s (EcoTune).
    The phase's write operations are drawn in proportion to insert/update/delete."""

    mode: Literal["closed", "rate"] = "closed"
    threads: int = Field(1, ge=1, le=100_000)
    rate: Bandwidth | None = None

    @model_validator(mode="after")
    def _rate_given(self):
        if self.mode == "rate" and self.rate is None:
            raise ValueError("mode 'rate' needs 'rate', e.g. rate: 20MB/s")
        return self


class QueriesConfig(Section):
    """Read side. `with_writers`: the closed-loop writer threads run the whole mix (db_bench, YCSB,
    ARCE); `closed`: N dedicated query threads; `open`: arrivals (Poisson or bursty) served by N
    query threads, latency including queueing (EcoTune)."""

    mode: Literal["with_writers", "closed", "open"] = "with_writers"
    threads: int = Field(1, ge=1, le=100_000)
    arrival_rate: OpRate | None = None
    arrival: Literal["poisson", "bursty"] = "poisson"
    burst_factor: float = Field(3.0, ge=1)
    burst_period: Duration = 10.0
    burst_duty: float = Field(0.2, gt=0, lt=1)

    @model_validator(mode="after")
    def _rate_given(self):
        if self.mode == "open" and not self.arrival_rate:
            raise ValueError("mode 'open' needs 'arrival_rate', e.g. arrival_rate: 20K/s")
        if self.arrival == "bursty" and self.burst_factor * self.burst_duty > 1:
            raise ValueError(
                "bursty arrivals need burst_factor x burst_duty <= 1 (the bursts alone would exceed the mean rate)"
            )
        return self


class PhaseConfig(Section):
    """One phase of a workload; it ends after `operations` or `duration`, whichever comes first."""

    name: str = ""
    operations: Count | None = None
    duration: Duration | None = None
    mix: MixConfig = MixConfig(insert=1.0)
    keys: KeysConfig = KeysConfig()
    writers: WritersConfig = WritersConfig()
    queries: QueriesConfig = QueriesConfig()
    scan_length: int = Field(100, ge=1, description="K of Seek + K Next for long scans.")
    short_scan_length: int = Field(5, ge=1)
    measure: bool = Field(True, description="Count this phase in throughput and latency (false for loads).")

    @model_validator(mode="after")
    def _ends(self):
        if self.operations is None and self.duration is None:
            raise ValueError("a phase needs 'operations' or 'duration'")
        if self.mix.writes() + self.mix.reads() <= 0:
            raise ValueError("'mix' needs at least one operation type with a positive fraction")
        if self.mix.reads() > 0 and self.queries.mode == "with_writers" and self.writers.mode == "rate":
            raise ValueError("reads with writers.mode 'rate' need queries.mode 'closed' or 'open'")
        return self


class SuiteConfig(Section):
    """A named multi-phase workload of lsmsim/workloads/suites.py (ARCE's Table 2 mixes and compound
    Workloads I-III, YCSB A-F, the write gradient and the hot-key case)."""

    name: str = Field(
        description="arce-mix-A ... arce-mix-J (ARCE's Table 2 mixes), arce-I, arce-II, arce-III "
        "(its compound workloads), ycsb-a ... ycsb-f, arce-gradient, arce-hotkey; "
        "see lsmsim/workloads/suites.py."
    )
    operations: Count | None = Field(None, gt=0, description="Operations per sub-workload; default: the paper's.")
    threads: int = Field(1, ge=1, le=100_000, description="Foreground client threads (closed loop).")
    scan_length: int | None = Field(None, ge=1, description="Entries per range lookup; default: the suite's.")
    hot_keys: Count | None = Field(
        None, gt=0, description="Hot-key suite: keys updated and read; default: the suite's."
    )

    @model_validator(mode="after")
    def _known(self):
        if self.name not in suite_names():
            raise ValueError(f"unknown suite {self.name!r}; available: {', '.join(suite_names())}")
        return self


class WorkloadConfig(Section):
    """A db_bench-style `preset` (with `num`), a named `suite`, and/or explicit `phases` (in that order)."""

    preset: Literal["fillrandom", "fillseq", "readrandom", "seekrandom", "overwrite"] | None = None
    suite: SuiteConfig | None = None
    num: Count = Field(1_000_000, gt=0, lt=2**63, description="Key space size (db_bench --num).")
    key_size: Bytes = Field(16, gt=0, le=2**31)
    value_size: Bytes = Field(100, ge=0, le=2**31)
    preload: bool = Field(
        False, description="Load `num` keys sequentially (db_bench fillseq, not measured) before the phases."
    )
    phases: list[PhaseConfig] = []

    @model_validator(mode="after")
    def _has_phases(self):
        if self.preset is None and self.suite is None and not self.phases:
            raise ValueError(
                "give a 'preset' (fillrandom, fillseq, readrandom, seekrandom, overwrite), a 'suite' or 'phases'"
            )
        hot = [("suite.hot_keys", suite_hot_keys(self.suite.name, self.suite.hot_keys))] if self.suite else []
        hot += [(f"phases[{i}].keys.hot_keys", p.keys.hot_keys) for i, p in enumerate(self.phases)]
        for where, h in hot:
            if h is not None and h > self.num:
                raise ValueError(f"{where} ({h}) must not exceed the key space num ({self.num})")
        return self


# ---------------------------------------------------------------- simulation
class SimConfig(Section):
    mode: Literal["fluid", "op"] = Field("fluid", description="'op' makes every operation an event (small runs).")
    drain: bool = Field(True, description="After the last phase, let pending flushes and compactions finish.")
    flush_at_end: bool = Field(False, description="Flush the memtable after the last phase (before draining).")
    max_time: Duration = Field(units.parse_duration("1h"), gt=0)
    sample_interval: Duration = Field(1.0, gt=0)
    check_invariants: bool = False
    latency_samples: int = Field(100_000, ge=0, description="Requests whose latency is recorded.")


class Config(Section):
    name: str = "run"
    seed: int = Field(0, ge=0)
    machine: MachineConfig = MachineConfig()
    device: Annotated[DeviceConfig | SSDDeviceConfig, Field(discriminator="model")] = DeviceConfig()

    @model_validator(mode="before")
    @classmethod
    def _device_model(cls, data):
        """`device.model` defaults to simple; `device.preset` fills an SSD from a preset file."""
        if isinstance(data, dict) and isinstance(data.get("device"), dict) and "model" not in data["device"]:
            data = {**data, "device": {**data["device"], "model": "simple"}}
        return data

    lsm: LsmConfig = LsmConfig()
    policy: PolicyConfig = Field(default_factory=_default_policy)
    workload: WorkloadConfig
    sim: SimConfig = SimConfig()

    @model_validator(mode="after")
    def _complete_policy(self):
        """Policy options whose defaults depend on other sections (EcoTune's MLC threads)."""
        self.policy.complete(self)
        return self


# ---------------------------------------------------------------- loading
def _deep_merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _loc(loc: tuple) -> str:
    parts = []
    for p in loc:
        if isinstance(p, int):
            parts.append(f"[{p}]")
        else:
            parts.append(("." if parts else "") + str(p))
    return "".join(parts) or "(top level)"


def _message(err: Mapping[str, Any]) -> str:
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        return "unknown field (check the spelling; `lsmsim run --help` points to the reference)"
    if err["type"] == "literal_error":
        return msg.replace("Input should be", "must be")
    if err["type"] == "union_tag_invalid":
        return msg.replace("Input tag", "name").replace(
            "does not match any of the expected tags", "is unknown; allowed"
        )
    if err["type"] == "union_tag_not_found":
        return (
            "needs 'name' (policy: leveled, full_leveling, tiering, lazy_leveling, universal, moose, ecotune, arce) "
            "or 'model' (device: simple, ssd)"
        )
    return msg


def _validation_errors(e: ValidationError) -> list[tuple[str, str]]:
    out = []
    for err in e.errors():
        loc = list(err["loc"])
        # a discriminated union puts the tag into the path: policy.leveled.x -> policy.x
        if len(loc) >= 2 and loc[0] == "policy" and isinstance(loc[1], str) and loc[1] in policies():
            del loc[1]
        if len(loc) >= 2 and loc[0] == "device" and loc[1] in ("simple", "ssd"):
            del loc[1]
        out.append((_loc(tuple(loc)), _message(err)))
    return out


def _parse_scalar(text: str) -> Any:
    return yaml.safe_load(text) if text != "" else ""


def apply_override(data: dict, assignment: str) -> None:
    """Apply `a.b.c=value` (value parsed as YAML) to a nested dict in place."""
    if "=" not in assignment:
        raise ConfigError("--set", [(assignment, "expected PATH=VALUE, e.g. lsm.write_buffer_size=64MiB")])
    path, value = assignment.split("=", 1)
    keys = path.strip().split(".")
    node = data
    for i, k in enumerate(keys[:-1]):
        if isinstance(node, list):
            try:
                node = node[int(k)]
                continue
            except (ValueError, IndexError):
                raise ConfigError("--set", [(".".join(keys[: i + 1]), "is not a list index here")]) from None
        node = node.setdefault(k, {})
        if not isinstance(node, (dict, list)):
            raise ConfigError("--set", [(".".join(keys[: i + 1]), "is a value, not a section")])
    last = keys[-1]
    if isinstance(node, list):
        try:
            node[int(last)] = _parse_scalar(value)
        except (ValueError, IndexError):
            raise ConfigError("--set", [(path, "is not a list index here")]) from None
    else:
        node[last] = _parse_scalar(value)


def read_yaml(path: str | Path) -> dict:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise ConfigError(str(p), [("(file)", f"cannot read: {e.strerror}")]) from None
    except UnicodeDecodeError:
        raise ConfigError(str(p), [("(file)", "is not a text (UTF-8) YAML file")]) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(file)"
        raise ConfigError(str(p), [(where, f"not valid YAML: {getattr(e, 'problem', e)}")]) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(
            str(p), [("(top level)", "must be a mapping of sections (machine, device, lsm, policy, workload, sim)")]
        )
    return data


def expand_presets(data: dict, source: str) -> dict:
    """Fill `device` from `device.preset` (the preset's fields, then the config's own on top)."""
    dev = data.get("device")
    if isinstance(dev, dict) and dev.get("preset") is not None:
        from .ssd.presets import load_preset, preset_names

        try:
            base = load_preset(str(dev["preset"]))
        except KeyError:
            raise ConfigError(
                source, [("device.preset", f"unknown preset {dev['preset']!r}; available: {', '.join(preset_names())}")]
            ) from None
        data = {**data, "device": _deep_merge(base, dev)}
    return data


def validate(data: dict, source: str = "<config>") -> Config:
    data = expand_presets(data, source)
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        raise ConfigError(source, _validation_errors(e)) from None


def load_config(path_or_data: str | Path | dict | Config, overrides: Sequence[str] = ()) -> Config:
    """Read, override and validate a config. Errors are `ConfigError` naming the YAML path."""
    if isinstance(path_or_data, Config):
        if not overrides:
            return path_or_data
        data, source = path_or_data.model_dump(mode="json"), "<config>"
    elif isinstance(path_or_data, dict):
        data, source = copy.deepcopy(path_or_data), "<config>"  # overrides must not leak into the caller's dict
    else:
        data, source = read_yaml(path_or_data), str(path_or_data)
    for o in overrides:
        apply_override(data, o)
    return validate(data, source)
