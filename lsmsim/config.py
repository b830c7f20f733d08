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
from .cpu_config import NOT_TIMES, CpuCostConfig
from .devices.base import DeviceOptions
from .devices.registry import devices
from .devices.registry import options_union as device_options_union
from .fields import Bandwidth, Bytes, Duration, Section
from .policies.base import PolicyOptions
from .policies.registry import options_union, policies
from .workloads.config import (  # noqa: F401 (the workload section's models, re-exported with the others)
    KeysConfig,
    MixConfig,
    PhaseConfig,
    QueriesConfig,
    SuiteConfig,
    WorkloadConfig,
    WritersConfig,
)


# ---------------------------------------------------------------- machine
class ThreadsConfig(Section):
    """Threads by role. `flush` and `compaction` are RocksDB's max_background_flushes/compactions."""

    flush: int = Field(1, ge=1)
    compaction: int = Field(1, ge=1)


class HostConfig(Section):
    """The host a machine preset was calibrated on (`lsmsim calibrate` fills it): a config without
    `machine.preset` takes the preset whose host has this host's CPU model and cores."""

    cpu: str = Field("", description="/proc/cpuinfo's model name.")
    cores: int = Field(0, ge=0)
    date: str = Field("", description="When the calibration ran (ISO date).")


IO_CLASSES = ("flush", "compaction_l0", "compaction", "foreground")
IoClass = Literal["flush", "compaction_l0", "compaction", "foreground"]


class MachineConfig(Section):
    """The machine: cores, memory and the CPU cost of RocksDB's work on them. `preset` loads one from
    lsmsim/presets/machines/ (fields given here override it; `lsmsim calibrate` writes one for the host it
    runs on). Without `preset` (or with `preset: host`) a config takes the preset calibrated on this host,
    when there is one (`loading.expand_presets`); `preset: default` keeps the built-in costs below."""

    preset: str | None = None
    host: HostConfig = HostConfig()
    source: str = Field("", description="Where the numbers come from (a calibration run, a datasheet).")
    memory: Bytes | None = Field(
        None,
        gt=0,
        description="RAM. What the block cache and memtables leave of it is the OS page cache, which serves "
        "block-cache misses unless lsm.use_direct_reads. None: no page cache (every miss reads the device).",
    )
    cpu: CpuCostConfig = CpuCostConfig()
    cpu_speed: float = Field(
        1.0,
        gt=0,
        description="This machine's CPU speed against the host `cpu` was measured on: every `cpu` time is divided "
        "by it (a validated config holds the divided times and 1 here). One measured ratio describes a paper's "
        "machine (EcoTune's Table 2: experiments/ecotune/base.yaml).",
    )
    dirty_expire: Duration = Field(
        30.0,
        description="Linux's vm.dirty_expire_centisecs / 100: the flusher writes back a file's dirty pages once they "
        "are this old; a WAL deleted sooner never reaches the drive (sim/wal.py).",
    )
    dirty_writeback: Duration = Field(
        5.0, description="Linux's vm.dirty_writeback_centisecs / 100: how often the flusher threads wake up."
    )
    cores: int = Field(4, ge=1, description="CPU cores shared by all threads (processor sharing).")
    threads: ThreadsConfig = ThreadsConfig()
    cpu_spread: float = Field(
        0.45,
        ge=0,
        le=3,
        description="Log-deviation of one operation's CPU time about its mean (a lognormal): the spread of "
        "latency percentiles below the tail. db_bench fillrandom's write histogram on this project's hosts has "
        "P75 / P50 = 1.36 (ln 1.36 / 0.674 = 0.45). 0: every operation takes its mean.",
    )
    speed_spread: float = Field(
        0.0,
        ge=0,
        le=2,
        description="The host's own run-to-run spread: the log-deviation of identical db_bench runs' time per "
        "operation about their mean, minutes apart (`lsmsim calibrate` pools its repeats: validation/host_speed.py; "
        "0.168 on the 2-vCPU Xeon VM, 0.063 on the EPYC VM). A simulation does not move with it; `lsmsim tune` runs "
        "each candidate at host speeds spread by it (tuning/search.py, speed_points) and gives ranges that reach 95% "
        "of single real runs, exp(+-1.96 s). 0: not measured.",
    )
    sched_slice: Duration = Field(
        units.parse_duration("1.5ms"),
        ge=0,
        description="The OS scheduler's time slice: a thread that holds less than a core (more runnable threads "
        "than cores) runs slices this long and waits between them, so a few operations wait whole slices (the "
        "P99.9 tail) while most wait none. Linux's EEVDF: sysctl_sched_base_slice 0.75 ms x (1 + log2 CPUs) "
        "(kernel/sched/fair.c, update_sysctl), 1.5 ms on 2 CPUs. 0: every operation waits its mean share.",
    )
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
    io_priority: list[IoClass | list[IoClass]] = Field(
        ["flush", "compaction_l0", "compaction", "foreground"],
        description="Device priority tiers, highest first; max-min fairness within a tier. A tier is one class or "
        "a list of classes that share it (EcoTune §3.1: flush first, then compactions and queries share what is "
        "left: [flush, compaction_l0, [compaction, foreground]]).",
    )

    @model_validator(mode="before")
    @classmethod
    def _cpu_speed(cls, data):
        """Divide the `cpu` times by `cpu_speed` once, so that a dumped config reloads to the same costs."""
        speed = data.get("cpu_speed") if isinstance(data, dict) else None
        if isinstance(speed, str):  # pydantic's lax mode would take "2.5" as the field's value: divide by it too
            try:
                speed = float(speed)
            except ValueError:
                return data
        if not isinstance(speed, int | float) or isinstance(speed, bool) or not 0 < speed < float("inf") or speed == 1:
            return data  # absent, 1, or invalid: the field's own validation reports the last
        try:
            cpu = CpuCostConfig.model_validate(data.get("cpu") or {}).model_dump()
        except ValueError:
            return data  # the cpu section's own errors are reported at their paths
        times = {k: v / speed for k, v in cpu.items() if k not in NOT_TIMES and v is not None}
        return {**data, "cpu": {**cpu, **times}, "cpu_speed": 1.0}

    @model_validator(mode="after")
    def _all_classes(self):
        if self.reserved_cores >= self.cores:
            raise ValueError(f"reserved_cores ({self.reserved_cores:g}) must leave some of the {self.cores} cores")
        classes = [c for _, c in self._tiers()]
        if sorted(classes) != sorted(IO_CLASSES) or [] in self.io_priority:
            raise ValueError("io_priority must list each of flush, compaction_l0, compaction, foreground once")
        return self

    def _tiers(self):
        """(tier, class) for every class in io_priority, tier 0 the highest."""
        for i, tier in enumerate(self.io_priority):
            for c in [tier] if isinstance(tier, str) else tier:
                yield i, c

    def io_rank(self) -> dict[str, int]:
        """Each I/O class's priority tier (0 the highest)."""
        return {c: i for i, c in self._tiers()}


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


class TreeLevelConfig(Section):
    """One level of `lsm.initial_tree`: its sorted runs, all of one size."""

    runs: int = Field(ge=0, le=100_000)
    run_size: Bytes | None = Field(
        None,
        gt=0,
        description="Bytes of each run. Omit it (and run_share) on one level, usually the last: its runs share the "
        "keys of the key space the other levels leave.",
    )
    run_share: float | None = Field(
        None,
        gt=0,
        le=1,
        description="Each run's share of the key space workload.num, instead of run_size (a shape that scales).",
    )

    @model_validator(mode="after")
    def _one_size(self):
        if self.run_size is not None and self.run_share is not None:
            raise ValueError("give run_size or run_share, not both")
        return self

    def entries(self, num: int, entry_bytes: float) -> int | None:
        """Entries of each run (None: the level takes the rest)."""
        if self.run_share is not None:
            return round(self.run_share * num)
        return None if self.run_size is None else round(self.run_size / entry_bytes)


class InitialTreeConfig(Section):
    """A static tree the run starts from, built before the first phase without flushes or compactions (EcoTune
    SIGMOD'25 §4.1 measures queries on such shapes: `policy.name: static` keeps it as built). Each key is in one
    run; the runs' keys are spread evenly at random over the key space, deeper levels older
    (workloads/initial_tree.py)."""

    levels: list[TreeLevelConfig] = Field(min_length=1, description="Level 0 first.")
    file_size: Bytes = Field(units.parse_size("64MiB"), gt=0, description="Runs are cut into files of this size.")
    keys: Literal["uniform", "normal"] = Field(
        "uniform",
        description="Which keys of the key space `workload.num` the tree holds when its runs hold fewer: uniform, or "
        "clustered with the density of workload keys' normal (mean 0.5, stddev 0.1 of the key space).",
    )


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
    range_filter_point_fpr: float | None = Field(
        None,
        ge=0,
        le=1,
        description="The range filter also answers point gets, at this false-positive rate, in place of the Bloom "
        "filter (SNARF does: a point is a range of length 0, which covers fewer of its bits than a scan's range). "
        "None: gets use the Bloom filter (bloom_bits_per_key).",
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
    wal_sync: bool = Field(
        False,
        description="RocksDB's WriteOptions::sync (db_bench --sync): each write group's leader syncs the WAL after "
        "appending it (db/db_impl/db_impl_write.cc DBImpl::WriteToWAL: log.writer->file()->Sync), and the group's "
        "writers wait for it: device.sync_latency per group (sim/foreground.py group_commit).",
    )
    write_low_pri: bool = Field(
        False,
        description="RocksDB's WriteOptions::low_pri: while compactions need speeding up (writes delayed, L0 at the "
        "speed-up trigger, or pending bytes at a quarter of the soft limit, always when it is 0) writes pass "
        "WriteController's low-priority limiter, 1 MiB/s (sim/write_controller.py). The design space's code sets it.",
    )
    manual_wal_flush: bool = Field(
        False,
        description="RocksDB's DBOptions::manual_wal_flush: WAL records wait in a buffer instead of one write() "
        "each (machine.cpu.wal_append_buffered for wal_append; lsm/costs.py wal_cpu).",
    )
    wal_bytes_per_sync: Bytes = Field(
        0,
        ge=0,
        description="RocksDB's DBOptions::wal_bytes_per_sync: every this many WAL bytes the writer starts their "
        "writeback (sync_file_range), so every WAL byte reaches the drive. 0 (RocksDB's default): the OS writes a "
        "WAL's pages back only once they are machine.dirty_expire old, and a WAL deleted sooner (its memtable "
        "flushed) never reaches the drive (sim/wal.py).",
    )
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
    soft_pending_compaction_bytes_limit: Bytes = Field(
        units.parse_size("64GiB"), description="0: the hard limit (RocksDB's SanitizeOptions); both 0: no limit."
    )
    hard_pending_compaction_bytes_limit: Bytes = Field(units.parse_size("256GiB"), description="0: no limit.")
    delayed_write_rate: Bandwidth = units.parse_bandwidth("16MiB/s")
    rate_limiter_bytes_per_sec: Bandwidth | None = Field(
        None,
        gt=0,
        description="RocksDB's rate limiter on flush and compaction writes (DBOptions::rate_limiter = "
        "NewGenericRateLimiter(rate); db_bench --rate_limiter_bytes_per_sec): flushes first, then compactions, "
        "share this many bytes/s (sim/rate_limiter.py). None: no limiter (RocksDB's default).",
    )
    initial_tree: InitialTreeConfig | None = Field(
        None, description="Start from this static tree instead of an empty one (EcoTune's Fig. 3 shapes)."
    )

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


# ---------------------------------------------------------------- simulation
class SimConfig(Section):
    mode: Literal["fluid", "op"] = Field("fluid", description="'op' makes every operation an event (small runs).")
    drain: bool = Field(True, description="After the last phase, let pending flushes and compactions finish.")
    flush_at_end: bool = Field(False, description="Flush the memtable after the last phase (before draining).")
    max_time: Duration = Field(units.parse_duration("1h"), gt=0)
    sample_interval: Duration = Field(
        1.0,
        ge=1e-3,
        description="Seconds between timeseries rows (at least 1 ms: finer, a run spends its time recording).",
    )
    check_invariants: bool = False
    latency_samples: int = Field(100_000, ge=0, description="Requests whose latency is recorded.")


class Config(Section):
    name: str = Field("run", min_length=1, max_length=200, description="Names the results folder, results/<name>.")
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
        for name in ("wait_for_compactions", "sine_rate"):
            if self.sim.mode == "op" and any(getattr(p, name) for p in self.workload.phases):
                raise ValueError(f"workload.phases.*.{name} needs sim.mode: fluid")
        return self

    @model_validator(mode="after")
    def _memtable_holds_an_entry(self):
        w = self.workload
        entry = w.key_size + w.value_size + self.lsm.memtable_entry_overhead
        if self.lsm.write_buffer_size < entry:
            raise ValueError(
                f"@lsm.write_buffer_size: {self.lsm.write_buffer_size:,} B cannot hold one entry of {entry:,} B (key, "
                "value and the memtable's overhead); RocksDB's smallest is 64 KiB"
            )
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
    def _initial_tree_fits(self):
        """`lsm.initial_tree` holds at most the key space's keys, and at most one level's runs take the rest."""
        t = self.lsm.initial_tree
        if t is None:
            return self
        w = self.workload
        entry = w.key_size + w.value_size + self.lsm.entry_overhead
        rest = [i for i, lv in enumerate(t.levels) if lv.entries(w.num, entry) is None and lv.runs]
        if len(rest) > 1:
            raise ValueError(
                f"lsm.initial_tree.levels[{rest[1]}].run_size: give a size; only one level (levels[{rest[0]}]) "
                "may take the keys the others leave"
            )
        given = sum(lv.runs * (lv.entries(w.num, entry) or 0) for lv in t.levels)
        if given > w.num:
            raise ValueError(
                f"lsm.initial_tree: its runs hold {given:,} entries of {entry} bytes, more than the key space "
                f"workload.num = {w.num:,}"
            )
        return self

    @model_validator(mode="after")
    def _complete_policy(self):
        """Policy options whose defaults depend on other sections (EcoTune's MLC threads)."""
        self.policy.complete(self)
        return self
