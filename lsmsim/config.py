"""Pydantic models of every YAML section: the one source of defaults and units.

A config has six sections: `machine`, `device`, `lsm`, `policy`, `workload`, `sim` (plus `name` and
`seed`). Sizes, bandwidths, durations and rates are accepted as unit strings (`64MiB`, `100MB/s`,
`12us`, `50K/s`) and stored in SI base units. Defaults follow RocksDB 7.8's options where a RocksDB
option exists (the option keeps RocksDB's name). The `policy:` and `device:` sections are unions of
the options classes that each policy and device model declares beside itself (lsmsim/policies/,
lsmsim/devices/). Reading, overriding and validating a YAML file is `loading.py`'s job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from . import units
from .devices.base import DeviceOptions
from .devices.registry import devices
from .devices.registry import options_union as device_options_union
from .fields import Bandwidth, Bytes, Count, Duration, OpRate, Section
from .policies.base import PolicyOptions
from .policies.registry import options_union, policies
from .workloads.suites import suite_hot_keys, suite_names


# ---------------------------------------------------------------- machine
class ThreadsConfig(Section):
    """Threads by role. `flush` and `compaction` are RocksDB's max_background_flushes/compactions."""

    flush: int = Field(1, ge=1)
    compaction: int = Field(1, ge=1)


class CpuCostConfig(Section):
    """CPU time per unit of RocksDB's work. The defaults are the `epyc-2vcpu-24g` machine preset
    (lsmsim/presets/machines/, which says where each figure comes from): written by
    `scripts/calibrate_cpu.py` against Debian's db_bench 7.8.3 (--threads=1, no compression) on this
    project's 2-vCPU machines. Writes and merges from fillrandom at three entry sizes with and
    without the WAL and the LOG's per-compaction CPU; the read path from readrandom, readmissing and
    seekrandom with 0, 10 and 100 Next at a 1 GiB and an 8 MiB block cache."""

    memtable_insert: Duration = Field(
        units.parse_duration("2.928us"), description="A write without the WAL: the write path and the memtable insert."
    )
    memtable_insert_sequential: Duration = Field(
        units.parse_duration("1.252us"),
        description="A write without the WAL whose key follows the previous one (fillseq: the skiplist's splice hint).",
    )
    wal_append: Duration = Field(
        units.parse_duration("3.258us"),
        description="More for a write with the WAL (its bytes are a sequential device write besides).",
    )
    flush_per_entry: Duration = Field(units.parse_duration("0.5437us"), description="A flush, per entry.")
    flush_per_byte: Duration = Field(units.parse_duration("0.001302us"), description="A flush, per byte written.")
    merge_per_entry: Duration = Field(units.parse_duration("0.6883us"), description="A compaction, per input entry.")
    merge_per_byte: Duration = Field(units.parse_duration("0.001449us"), description="A compaction, per input byte.")
    get_base: Duration = Field(units.parse_duration("0us"), description="A Get, whether or not it finds its key.")
    get_found: Duration = Field(
        units.parse_duration("6.647us"),
        description="More for a Get that finds its key (GetContext, pinning the value).",
    )
    scan_base: Duration = Field(
        units.parse_duration("0us"),
        description="A range scan's fixed cost: NewIterator (one child per run) and the Seek's setup.",
    )
    filter_probe: Duration = Field(units.parse_duration("0.2136us"), description="One bloom-filter probe.")
    index_search: Duration = Field(
        units.parse_duration("1.829us"),
        description="Positioning in one run: the index block's binary search and the data block's seek.",
    )
    block_decode: Duration = Field(
        units.parse_duration("0us"), description="Parsing a data block beyond the first one a seek positions in."
    )
    next_entry: Duration = Field(
        units.parse_duration("0.1336us"),
        description="One Next of the merging iterator, per heap level (log2 runs + 1).",
    )
    block_read: Duration = Field(
        units.parse_duration("0.6823us"),
        description="A block-cache miss: the read call (page cache or device), copy and checksum.",
    )


class MachineConfig(Section):
    """The machine: cores, memory and the CPU cost of RocksDB's work on them. `preset` loads one from
    lsmsim/presets/machines/ (fields given here override it; `scripts/calibrate_cpu.py` writes one)."""

    preset: str | None = None
    source: str = Field("", description="Where the numbers come from (a calibration run, a datasheet).")
    memory: Bytes | None = Field(
        None,
        gt=0,
        description="RAM. What the block cache and memtables leave of it is the OS page cache, which serves "
        "block-cache misses unless lsm.use_direct_reads. None: no page cache (every miss reads the device).",
    )
    cpu: CpuCostConfig = CpuCostConfig()
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
    open_files_limit: int | None = Field(
        None,
        ge=16,
        description="The OS's limit on open files (RLIMIT_NOFILE; Spooky's runs had 1024). RocksDB with "
        "max_open_files = -1 keeps every table file open, so a tree whose files, outputs in flight and WALs "
        "exceed it ends the run (summary ended_by: open_files_limit), as Spooky's X = L-4 run crashed. "
        "None: no limit.",
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


# ---------------------------------------------------------------- LSM tree
AUTO_SAMPLES_PER_MEMTABLE = 128  # the sample floors of entries_per_sample: auto (docs/design.md, "Sampling")
AUTO_SAMPLES_PER_KEY_SPACE = 1 << 16


def auto_entries_per_sample(num_keys: int, entries_per_memtable: float) -> int:
    """The largest power of two e with num_keys / e >= AUTO_SAMPLES_PER_KEY_SPACE and entries_per_memtable / e
    >= AUTO_SAMPLES_PER_MEMTABLE (1 when either is already below its floor)."""
    limit = min(entries_per_memtable / AUTO_SAMPLES_PER_MEMTABLE, num_keys / AUTO_SAMPLES_PER_KEY_SPACE)
    e = 1
    while e * 2 <= limit:
        e *= 2
    return e


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
    cache_index_and_filter_blocks: bool = Field(
        False,
        description="RocksDB's table option: filter and index blocks live in the block cache (loaded when a file "
        "is opened, evicted like data blocks), not pinned in memory; their misses read the device (lsm/costs.py).",
    )
    # Latency percentiles come from a mixture of discrete latencies (k synchronous reads for k = 0, 1, ...): a
    # percentile that falls where one atom ends and the next begins jumps between them when the mass moves by
    # a hair. On the quickstart, long-scan p99 is 361 us at 1 entry per sample and 387 us at 4 because the
    # 99th percentile sits between p98.8 (361 us) and p99.2 (387 us) in both; the mean moves 0.5 %.
    entries_per_sample: Literal["auto"] | int = Field(
        1,
        description="Real entries one key sample stands for (1 = exact). Byte counts stay exact; a percentile "
        "that sits on the boundary between two latency levels may jump between them. auto: the largest power "
        "of two that keeps >= 128 samples per memtable and >= 65,536 over the key space (docs/design.md, "
        "'Sampling'); the run's config and summary record the value chosen.",
    )
    wal: bool = True
    use_direct_reads: bool = Field(
        False,
        description="RocksDB's use_direct_reads: block-cache misses bypass the OS page cache (machine.memory).",
    )
    use_direct_io_for_flush_and_compaction: bool = Field(
        False,
        description="RocksDB's option of that name: flush and compaction outputs do not enter the OS page cache.",
    )
    level0_slowdown_writes_trigger: int = Field(20, ge=1)
    level0_stop_writes_trigger: int = Field(36, ge=1)
    soft_pending_compaction_bytes_limit: Bytes = units.parse_size("64GiB")
    hard_pending_compaction_bytes_limit: Bytes = units.parse_size("256GiB")
    delayed_write_rate: Bandwidth = units.parse_bandwidth("16MiB/s")

    @model_validator(mode="after")
    def _eps_positive(self):
        if self.entries_per_sample != "auto" and int(self.entries_per_sample) < 1:
            raise ValueError("entries_per_sample must be auto or an integer >= 1")
        return self

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


# ---------------------------------------------------------------- device
# Each device model declares its options class beside itself (lsmsim/devices/); the union is the registry's.
if TYPE_CHECKING:
    DeviceConfig = DeviceOptions
else:
    DeviceConfig = device_options_union()
DEFAULT_DEVICE = "simple"  # `device.model` when a config names none


# ---------------------------------------------------------------- workload
class KeysConfig(Section):
    distribution: Literal["uniform", "sequential", "zipfian", "latest", "prefix_zipf", "normal", "shuffled"] = Field(
        "uniform",
        description="uniform: with replacement (db_bench); shuffled: each key once, random order; prefix_zipf: "
        "zipfian key ranges, uniform within (Sarkar et al.'s PrefixZipf)",
    )
    theta: float = Field(
        0.99,
        ge=0,
        le=10,
        description="Zipf skew: Gray et al.'s inverse below 1 (YCSB's), rejection-inversion from 1 on (Zipf with "
        "s = 1, the design space's and Spooky's).",
    )
    prefixes: int = Field(1024, ge=1, description="prefix_zipf: ranges of the key space (zipfian over them).")
    mean: float = Field(0.5, ge=0, le=1)
    stddev: float = Field(0.1, gt=0)
    hot_keys: Count | None = Field(
        None,
        gt=0,
        description="Draw from this many hot keys only, spread evenly over the key space (ARCE's multi-version case).",
    )
    scramble: int = Field(
        0,
        ge=0,
        description="zipfian: which scatter of the ranks over the key space (0 is YCSB's); phases with different "
        "values move the hot set (Spooky's Zipfian updates, PVLDB'22 §6).",
    )

    deletes: Literal["drawn", "existing"] = Field(
        "drawn",
        description="drawn: a delete takes the distribution's next key, as any write; existing: deletes pick "
        "uniformly among the keys this order has inserted so far and inserts take the order's keys alone "
        "(shuffled, sequential; the design space's deletes of existing keys, Sarkar et al. §5.2.4).",
    )

    @model_validator(mode="after")
    def _scramble_is_zipfian(self):
        if self.scramble and self.distribution != "zipfian":
            raise ValueError(f"scramble moves a zipfian hot set; distribution is {self.distribution!r}")
        if self.deletes == "existing" and (self.distribution not in ("shuffled", "sequential") or self.hot_keys):
            raise ValueError(
                f"deletes: existing needs an insert order (shuffled or sequential, without hot_keys); distribution "
                f"is {self.distribution!r}"
            )
        return self


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
    scan_selectivity: float | None = Field(
        None,
        gt=0,
        le=1,
        description="Long scans' length as a share of the key space `num` (Sarkar et al.'s range-lookup "
        "selectivity); sets scan_length.",
    )
    short_scan_length: int = Field(5, ge=1)
    measure: bool = Field(True, description="Count this phase in throughput and latency (false for loads).")
    wait_for_compactions: bool = Field(
        False,
        description="When the phase ends, let pending flushes and compactions finish before the next phase "
        "(db_bench's waitforcompaction); the wait counts in no phase. Fluid mode only.",
    )

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
        for p in self.phases:
            if p.scan_selectivity is not None:
                p.scan_length = max(1, round(p.scan_selectivity * self.num))
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
    device: DeviceConfig = devices()[DEFAULT_DEVICE].Options(model=DEFAULT_DEVICE)

    @model_validator(mode="before")
    @classmethod
    def _device_model(cls, data):
        """`device.model` defaults to simple (`loading.expand_presets` has filled an SSD from `device.preset`)."""
        if isinstance(data, dict) and isinstance(data.get("device"), dict) and "model" not in data["device"]:
            data = {**data, "device": {**data["device"], "model": DEFAULT_DEVICE}}
        return data

    lsm: LsmConfig = LsmConfig()

    @model_validator(mode="before")
    @classmethod
    def _cpu_moved(cls, data):
        """`lsm.cpu` (before issue 13) is now `machine.cpu`: move it there."""
        if isinstance(data, dict) and isinstance(data.get("lsm"), dict) and "cpu" in data["lsm"]:
            lsm = dict(data["lsm"])
            machine = dict(data.get("machine") or {})
            machine["cpu"] = {**lsm.pop("cpu"), **(machine.get("cpu") or {})}
            data = {**data, "lsm": lsm, "machine": machine}
        return data

    policy: PolicyConfig = Field(default_factory=_default_policy)
    workload: WorkloadConfig
    sim: SimConfig = SimConfig()

    @model_validator(mode="after")
    def _waits_in_fluid_mode(self):
        if self.sim.mode == "op" and any(p.wait_for_compactions for p in self.workload.phases):
            raise ValueError("workload.phases.*.wait_for_compactions needs sim.mode: fluid")
        return self

    @model_validator(mode="after")
    def _resolve_sampling(self):
        """`lsm.entries_per_sample: auto` becomes the number it stands for (it needs the workload's sizes)."""
        if self.lsm.entries_per_sample == "auto":
            w = self.workload
            entry = w.key_size + w.value_size + self.lsm.memtable_entry_overhead
            self.lsm.entries_per_sample = auto_entries_per_sample(w.num, self.lsm.write_buffer_size / entry)
        return self

    @model_validator(mode="after")
    def _complete_policy(self):
        """Policy options whose defaults depend on other sections (EcoTune's MLC threads)."""
        self.policy.complete(self)
        return self
