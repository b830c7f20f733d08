"""The `workload:` section's models: key distributions, operation mixes, client threads, phases, suites
(re-exported by `lsmsim.config`, the one place a config is assembled)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..fields import Bandwidth, Bytes, Count, Duration, OpRate, Section
from .suites import suite_hot_keys, suite_names


class KeysConfig(Section):
    distribution: Literal[
        "uniform", "sequential", "zipfian", "latest", "prefix_zipf", "normal", "shuffled", "mixgraph"
    ] = Field(
        "uniform",
        description="uniform: with replacement (db_bench); shuffled: each key once, random order; prefix_zipf: "
        "zipfian key ranges, uniform within (Sarkar et al.'s PrefixZipf); mixgraph: db_bench's mixgraph keys "
        "(key_dist_a/b, keyrange_dist, keyrange_num; workloads/mixgraph.py)",
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
    key_dist_a: float = Field(0.0, ge=0, description="mixgraph: a of the keys' power CDF a x^b (0: uniform keys).")
    key_dist_b: float = Field(0.0, ge=0, lt=1, description="mixgraph: b of the keys' power CDF a x^b (0: uniform).")
    keyrange_dist: tuple[float, float, float, float] = Field(
        (0.0, 0.0, 0.0, 0.0),
        description="mixgraph: a, b, c, d of the key ranges' hotness a e^(b x) + c e^(d x) (all 0: one range).",
    )
    keyrange_num: int = Field(1, ge=1, description="mixgraph: key ranges (db_bench --keyrange_num).")
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
    updates: Literal["drawn", "existing"] = Field(
        "drawn",
        description="As deletes, for mix.update: existing makes an update rewrite a key already inserted (Sarkar "
        "et al. §5.2.3's update-to-insert ratio); drawn: updates are writes like inserts.",
    )

    @model_validator(mode="after")
    def _scramble_is_zipfian(self):
        if self.scramble and self.distribution != "zipfian":
            raise ValueError(f"scramble moves a zipfian hot set; distribution is {self.distribution!r}")
        for name in ("deletes", "updates"):
            if getattr(self, name) == "existing" and (
                self.distribution not in ("shuffled", "sequential") or self.hot_keys
            ):
                raise ValueError(
                    f"{name}: existing needs an insert order (shuffled or sequential, without hot_keys); "
                    f"distribution is {self.distribution!r}"
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


class SineRateConfig(Section):
    """db_bench's --sine_mix_rate: the clients' shared rate limiters hold their operations to A sin(B t + C) + D per
    second, t in seconds since the phase began, re-set every `interval` (no limit before the first re-set;
    tools/db_bench_tool.cc Benchmark::MixGraph and SineRate; workloads/mixgraph.py sine_rate)."""

    a: float = 1.0
    b: float = 1.0
    c: float = 0.0
    d: float = 1.0
    interval: Duration = Field(10.0, gt=0, description="db_bench --sine_mix_rate_interval_milliseconds / 1000.")
    noise: float = Field(0.0, ge=0, le=1, description="db_bench --sine_mix_rate_noise: uniform noise of +-A/2 x it.")


class ScanLengthsConfig(Section):
    """Long scans whose length varies from scan to scan (workloads/scan_lengths.py): YCSB's scanlengthdistribution
    (uniform or zipfian over [min, max]) or db_bench mixgraph's Seeks (pareto: ceil of the generalized Pareto of
    theta, k and sigma, modulo max). It sets `scan_length` to the mean; the latency percentiles follow the spread."""

    distribution: Literal["uniform", "zipfian", "pareto"]
    min: int = Field(1, ge=0, description="uniform and zipfian: the shortest length (YCSB minscanlength).")
    max: int = Field(
        ge=1,
        le=2**22,
        description="uniform and zipfian: the longest length (YCSB maxscanlength); pareto: the modulus "
        "(db_bench --mix_max_scan_len). At most 4,194,304: the distribution is tabulated per length.",
    )
    theta: float = Field(0.0, description="pareto: location (db_bench --iter_theta).")
    k: float = Field(0.0, description="pareto: shape (db_bench --iter_k).")
    sigma: float = Field(0.0, ge=0, description="pareto: scale (db_bench --iter_sigma).")

    @model_validator(mode="after")
    def _range(self):
        if self.distribution != "pareto" and self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        return self

    def key(self) -> tuple:
        """The arguments of scan_lengths.pmf, points and mean."""
        return (self.distribution, self.min, self.max, self.theta, self.k, self.sigma)


class PhaseConfig(Section):
    """One phase of a workload; it ends after `operations` or `duration`, whichever comes first."""

    name: str = ""
    operations: Count | None = None
    duration: Duration | None = None
    mix: MixConfig = MixConfig(insert=1.0)
    keys: KeysConfig = KeysConfig()
    writers: WritersConfig = WritersConfig()
    queries: QueriesConfig = QueriesConfig()
    value_size: Bytes | None = Field(
        None, ge=0, le=2**31, description="This phase's writes' value bytes (None: workload.value_size)."
    )
    sine_rate: SineRateConfig | None = Field(
        None, description="A rate limit on the closed-loop clients' operations that follows a sine (fluid mode)."
    )
    scan_length: int = Field(100, ge=1, description="K of Seek + K Next for long scans (their mean with scan_lengths).")
    scan_lengths: ScanLengthsConfig | None = Field(
        None,
        description="Long scans of varying length: the latency percentiles follow their spread; scan_length, "
        "unless given, is set to their mean (None: every long scan is scan_length long).",
    )
    scan_selectivity: float | None = Field(
        None,
        gt=0,
        le=1,
        description="Long scans' length as a share of the key space `num` (Sarkar et al.'s range-lookup "
        "selectivity); sets scan_length.",
    )
    short_scan_length: float = Field(
        5,
        ge=1,
        description="Keys a short scan returns: Seek + (n - 1) Next, or the mean number of keys in a closed range "
        "(EcoTune's short scans over a key range of length 100 hold 1 to 4; fractional means allowed).",
    )
    get_from: Literal["any", "last_level"] = Field(
        "any",
        description="Which run a get finds its key in: any (each run by its share of the entries), or the last "
        "level (EcoTune §4.1's worst case: every filter above it is probed).",
    )
    found: Literal["mix", "live"] = Field(
        "mix",
        description="How a Get finds its key: as the mix's get and get_empty say (mix), or as a read of a uniform "
        "key of the key space does (live: get + get_empty split by the share of the keys live, re-split as the "
        "phase's own writes make more of them live; db_bench's reads after a --duration fill, whose writes no one "
        "knows in advance, and its readrandomwriterandom and readwhilewriting).",
    )
    found_reach: float = Field(
        1.0,
        gt=0,
        le=1,
        description="The share of the Gets' keys that lie among the key space's num keys; the rest lie past every key "
        "written before the phase, are never found, and cost the memtables' walk only (RocksDB skips each file on its "
        "largest key). With found: live, the keys within are found as often as the keys are live; with found: mix, "
        "the mix's get_empty holds the rest. db_bench's mixgraph with key_dist_a/b and no key ranges: 0.5 (it casts "
        "the key's hash to int64 before % num, so half its keys are negative: tools/db_bench_tool.cc, "
        "Benchmark::MixGraph).",
    )
    key_draw: Literal["free", "mixgraph"] = Field(
        "free",
        description="The client's own CPU to draw an operation's key, beside the operation's: free (the machine's "
        "costs hold it: db_bench's other benchmarks step one Random64), or mixgraph (db_bench mixgraph's "
        "power-model keys, machine.cpu.mixgraph_key per operation: a std::mt19937_64 seeded per key). A "
        "`--dbbench` mixgraph line with key_dist_a/b sets it.",
    )
    measure: bool = Field(True, description="Count this phase in throughput and latency (false for loads).")
    flush: bool = Field(
        False,
        description="When the phase ends (after its wait_for_compactions), cancel the compactions that run, flush "
        "its memtables and start the next phase when no memtable is left to flush, with no compaction started in "
        "between (db_bench reopening the DB for its next invocation: Shutdown cancels running compactions, "
        "DBImpl::Open flushes the recovered WAL, then schedules compactions). db_bench's flush benchmark maps here "
        "too, though there RocksDB lets running compactions go on. The wait counts in no phase.",
    )
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
        if self.sine_rate is not None and (self.writers.mode != "closed" or self.queries.mode != "with_writers"):
            raise ValueError("sine_rate limits closed-loop clients: writers.mode closed, queries.mode with_writers")
        if self.scan_lengths is not None:
            if self.scan_selectivity is not None:
                raise ValueError("give scan_lengths or scan_selectivity, not both")
            from . import scan_lengths

            mean = max(1, round(scan_lengths.mean(*self.scan_lengths.key())))
            # a scan_length given too stays the mean (mixgraph's Seeks see their own residues of u: dbbench_args)
            if "scan_length" not in self.model_fields_set and self.scan_length != mean:
                self.scan_length = mean  # the assignment validates the phase again
        return self

    def found_in(self, share: float) -> PhaseConfig:
        """This phase with its Gets split by `share` found (`found: live`; `share` already times found_reach)."""
        g = self.mix.get + self.mix.get_empty
        mix = self.mix.model_copy(update={"get": g * share, "get_empty": g * (1.0 - share)})
        return self.model_copy(update={"mix": mix})


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
