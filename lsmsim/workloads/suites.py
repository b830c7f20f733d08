"""Named multi-phase workloads of ArceKV (Liu, Xie and Luo, "ArceKV", PVLDB'26, Section 5) and YCSB.

Every phase runs `suite.threads` closed-loop client threads, each issuing the whole mix (one unified
handler thread per client: "point lookups, range queries, and updates issued in random order ...
using a unified handler thread", Sec. 5), and is measured (`measure: true`). Suites assume
`workload.preload: true`: the paper preloads "by sequentially writing 40GiB of data (about 40 million
entries)" before every test (Sec. 5), so all reads find existing keys. Phases are named by their
sub-workload letter ("A", "G", ...; YCSB's "A"-"F"; the gradient's "NN-wXX"), so per-phase results
group by name (Fig. 9's table).

ARCE's sub-workloads (`arce-mix-A` ... `arce-mix-J`; not `arce-A`, since `arce-I` would name both
sub-workload I and Workload I), Table 2 "Operation Ratios Composition" as
(range %, update %, point %): A 98/1/1, B 1/98/1, C 1/1/98, D 49/2/49, E 2/49/49, F 49/49/2,
G 40/40/20, H 40/20/40, I 20/40/40, J 33/33/33. Range lookup -> `long_scan`, update -> `update`,
point lookup -> `get`; keys uniform over the loaded keys [0, num). Run alone, a sub-workload has
40,960,000 operations, Workload I/II's count per sub-workload.

Compound workloads (Sec. 5, "Dynamic Workload Generation"):
- `arce-I`: A, B, D, J, C, E, 40,960,000 operations each (245,760,000 in all);
- `arce-II`: J, E, B, F, D, C, 40,960,000 each. This is the text's list; Fig. 9's table heads the
  Workload II columns J, E, B, F, J, C -- J twice, a typo (the text says D, and J is already first);
- `arce-III`: G, H, I, 20,480,000 each (the multi-threaded and industrial-store runs).
`suite.operations` overrides the count per sub-workload (quick runs use far fewer).

Range-lookup length: 16 entries, the default of ArceKV's benchmark driver, which the paper
implements its baselines on (Sec. 5, footnote 4, MooseLSM): NTU-Siqiang-Group/MooseLSM
tools/dynamic_test.cc line 20 (commit 05be300), `DEFINE_int32(range_lookup_len, 16, "range lookup
length")`, passed to `WorkloadManager` (tools/dynamic_test_util.h, default `range_lookup_len = 16`),
whose `do_range_lookup` does Seek + 16 Next. `suite.scan_length` overrides it.

YCSB core workloads (`ycsb-a` ... `ycsb-f`, Cooper et al., SoCC'10), with the key distributions the
ArceKV paper lists (Sec. 5.1, the Table 3 paragraph): "YCSB-C and YCSB-B follow a Zipfian
distribution, YCSB-D focuses on the most recent insertions, while YCSB-A, YCSB-E, and YCSB-F use a
uniform distribution":
- A: 50% read / 50% update, uniform;       B: 95% read / 5% update, zipfian;
- C: 100% read, zipfian;                    D: 95% read / 5% insert, latest;
- E: 95% scan / 5% insert, uniform; YCSB draws scan lengths uniformly from 1..100: the throughput takes
  50 as `scan_length`, the latency percentiles the lengths (`scan_lengths`);
- F: 50% read / 50% read-modify-write, uniform. A RMW is a read plus an update, so one YCSB op is on
  average get 1.0 + update 0.5 primitive ops: the mix is get 2/3, update 1/3, and the phase runs
  1.5 x `operations` primitive ops (= `operations` YCSB ops). Throughput counts primitive ops.
Default: 1,000,000 operations per YCSB workload (our choice; the paper gives no count).
Approximation: lsmsim draws every write of a phase from the phase's one key distribution over the
fixed key space [0, num) (the kernel's `inserts` cursor counts all writes and only positions the
`sequential`/`latest` samplers; keys never exceed num). So YCSB's inserts of new keys become
overwrites of existing keys -- in D of the most recent keys (`latest`: key num-1-rank), in E of
uniform keys -- and the data set does not grow by the inserted 5%.

`arce-gradient` (Sec. 5.3, "Continuously Changing Workload"): the write ratio goes "from 10% to 90%
and back to 10%" -- 10, 20, ..., 90, 80, ..., 10% (17 phases, named "01-w10" ... "17-w10") with
"about 500,000 mixed read and write operations" at each ratio. Writes are updates; the read
remainder is split evenly between point and range lookups (our choice: the paper does not say);
uniform keys.

`arce-hotkey` (Sec. 5.3, "Read Amplification under MVCC"): "1 million hot keys over 100 million
operations, following Workload III (updates, point, and range lookups)": phases G, H, I with a third
of the 100,000,000 operations each, updates and lookups drawn uniformly from the hot keys
(`keys.hot_keys`, spread evenly over [0, num)). `suite.hot_keys` overrides the hot-key count,
`suite.operations` the per-phase count; at quick scale scale both down (hot_keys <= num).

This module is a leaf (it imports nothing of lsmsim), so config validation can check suite names and
hot-key counts without resolving phases: `suite_specs` returns each phase as a plain dict of
`PhaseConfig` fields, which `workloads.presets.resolve_phases` validates. A new suite is a new branch of
`suite_specs` and its name in `suite_names`.
"""

from __future__ import annotations

from typing import Any

#: Table 2 (Sec. 4-5): sub-workload -> (range %, update %, point %).
TABLE2: dict[str, tuple[int, int, int]] = {
    "A": (98, 1, 1),
    "B": (1, 98, 1),
    "C": (1, 1, 98),
    "D": (49, 2, 49),
    "E": (2, 49, 49),
    "F": (49, 49, 2),
    "G": (40, 40, 20),
    "H": (40, 20, 40),
    "I": (20, 40, 40),
    "J": (33, 33, 33),
}
#: Compound workloads (Sec. 5): sub-workload sequence and operations per sub-workload.
COMPOUND: dict[str, tuple[str, int]] = {
    "arce-I": ("ABDJCE", 40_960_000),
    "arce-II": ("JEBFDC", 40_960_000),
    "arce-III": ("GHI", 20_480_000),
}
ARCE_SCAN_LENGTH = 16  # MooseLSM tools/dynamic_test.cc:20, range_lookup_len
YCSB_OPERATIONS = 1_000_000  # our choice
YCSB_SCAN_LENGTH = 50  # mean of YCSB-E's uniform 1..100 scan length
#: YCSB core workloads: mix (per YCSB op), key distribution (ArceKV Sec. 5.1), primitive ops per YCSB op.
YCSB: dict[str, tuple[dict[str, float], str, float]] = {
    "a": ({"get": 0.5, "update": 0.5}, "uniform", 1.0),
    "b": ({"get": 0.95, "update": 0.05}, "zipfian", 1.0),
    "c": ({"get": 1.0}, "zipfian", 1.0),
    "d": ({"get": 0.95, "insert": 0.05}, "latest", 1.0),
    "e": ({"long_scan": 0.95, "insert": 0.05}, "uniform", 1.0),
    "f": ({"get": 1.0, "update": 0.5}, "uniform", 1.5),
}
GRADIENT_WRITE_RATIOS = [p / 100 for p in (*range(10, 100, 10), *range(80, 0, -10))]
GRADIENT_OPERATIONS = 500_000  # "about 500,000" per ratio (Sec. 5.3)
HOTKEY_KEYS = 1_000_000  # Sec. 5.3
HOTKEY_OPERATIONS = 100_000_000  # in all, a third per G, H, I phase


def suite_names() -> list[str]:
    """Every suite `workload.suite.name` accepts."""
    return (
        [f"arce-mix-{x}" for x in TABLE2]
        + list(COMPOUND)
        + [f"ycsb-{x}" for x in YCSB]
        + ["arce-gradient", "arce-hotkey"]
    )


def suite_hot_keys(name: str, override: int | None) -> int | None:
    """Hot keys the suite draws from (`suite.hot_keys` overrides the paper's), None for suites without."""
    return (override or HOTKEY_KEYS) if name == "arce-hotkey" else None


def _phase(
    s: Any,
    name: str,
    ops: int,
    mix: dict[str, float],
    scan_length: int,
    distribution: str = "uniform",
    hot_keys: int | None = None,
) -> dict:
    """One measured phase of `s.threads` closed-loop clients running the whole mix (`s`: the suite options)."""
    return {
        "name": name,
        "operations": ops,
        "mix": mix,
        "keys": {"distribution": distribution, "hot_keys": hot_keys},
        "writers": {"mode": "closed", "threads": s.threads},
        "queries": {"mode": "with_writers"},
        "scan_length": s.scan_length or scan_length,
        "measure": True,
    }


def _table2(letter: str) -> dict[str, float]:
    r, u, p = TABLE2[letter]
    return {"long_scan": r / 100, "update": u / 100, "get": p / 100}


def suite_specs(s: Any) -> list[dict]:
    """The phases of suite `s.name` as `PhaseConfig` fields (`s`: the `workload.suite` options; see the module
    docstring for each suite's source)."""
    name = s.name
    if name in COMPOUND or (name.startswith("arce-mix-") and name[9:] in TABLE2):
        letters, ops = COMPOUND.get(name, (name[9:], COMPOUND["arce-I"][1]))
        return [_phase(s, x, s.operations or ops, _table2(x), ARCE_SCAN_LENGTH) for x in letters]
    if name.startswith("ycsb-") and name[5:] in YCSB:
        mix, dist, per_op = YCSB[name[5:]]
        ops = round((s.operations or YCSB_OPERATIONS) * per_op)
        phase = _phase(s, name[5:].upper(), ops, mix, YCSB_SCAN_LENGTH, dist)
        if "long_scan" in mix and not s.scan_length:  # YCSB-E's lengths, 1..100 uniformly, about their mean
            phase["scan_lengths"] = {"distribution": "uniform", "min": 1, "max": 2 * YCSB_SCAN_LENGTH}
        return [phase]
    if name == "arce-gradient":
        return [
            _phase(
                s,
                f"{i + 1:02d}-w{round(x * 100)}",
                s.operations or GRADIENT_OPERATIONS,
                {"update": x, "get": (1 - x) / 2, "long_scan": (1 - x) / 2},
                ARCE_SCAN_LENGTH,
            )
            for i, x in enumerate(GRADIENT_WRITE_RATIOS)
        ]
    if name == "arce-hotkey":
        hot = suite_hot_keys(name, s.hot_keys)  # WorkloadConfig checks hot_keys <= num
        third, extra = divmod(HOTKEY_OPERATIONS, 3)
        return [
            _phase(s, x, s.operations or third + (i < extra), _table2(x), ARCE_SCAN_LENGTH, hot_keys=hot)
            for i, x in enumerate("GHI")
        ]
    raise ValueError(f"unknown suite {name!r}; available: {', '.join(suite_names())}")
