"""ARCE's and YCSB's workload suites (lsmsim/workloads/suites.py) and hot-key sampling."""

import numpy as np
import pytest

from lsmsim.api import run
from lsmsim.config import KeysConfig, PhaseConfig
from lsmsim.errors import ConfigError
from lsmsim.loading import load_config
from lsmsim.workloads.generator import WriteStream, sampler_for
from lsmsim.workloads.presets import resolve_phases
from lsmsim.workloads.suites import suite_names

# ArceKV PVLDB'26 Table 2, copied independently of the module: (range %, update %, point %)
PAPER_TABLE2 = {
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


def phases(suite: dict, num: int = 2_000_000) -> list[PhaseConfig]:
    cfg = load_config({"workload": {"num": num, "preload": True, "suite": suite}})
    ph = resolve_phases(cfg.workload)
    assert ph[0].name == "load" and not ph[0].measure  # the preload comes first
    return ph[1:]


def fractions(p: PhaseConfig) -> dict[str, float]:
    m = p.mix
    total = m.writes() + m.reads()
    return {
        op: getattr(m, op) / total
        for op in ("insert", "update", "delete", "get", "get_empty", "short_scan", "long_scan")
        if getattr(m, op) > 0
    }


@pytest.mark.parametrize("name", suite_names())
def test_every_suite_builds_valid_phases(name):
    ph = phases({"name": name, "threads": 3})
    assert ph
    for p in ph:
        PhaseConfig.model_validate(p.model_dump())  # still a valid phase on its own
        assert p.measure and p.operations > 0 and p.name
        assert p.writers.mode == "closed" and p.writers.threads == 3
        assert p.queries.mode == "with_writers"


def test_suite_names_are_unique_and_unknown_names_fail():
    names = suite_names()
    assert len(names) == len(set(names))
    assert {"arce-I", "arce-II", "arce-III", "arce-gradient", "arce-hotkey", "ycsb-a", "ycsb-f"} <= set(names)
    with pytest.raises(ConfigError, match="unknown suite"):
        load_config({"workload": {"suite": {"name": "arce-Z"}}})


@pytest.mark.parametrize("letter", list(PAPER_TABLE2))
def test_table2_mixes_match_the_paper(letter):
    (p,) = phases({"name": f"arce-mix-{letter}"})
    r, u, q = PAPER_TABLE2[letter]
    f = fractions(p)
    assert set(f) <= {"long_scan", "update", "get"}
    assert f["long_scan"] == pytest.approx(r / (r + u + q))
    assert f["update"] == pytest.approx(u / (r + u + q))
    assert f["get"] == pytest.approx(q / (r + u + q))
    assert p.name == letter and p.keys.distribution == "uniform" and p.keys.hot_keys is None
    assert p.scan_length == 16  # MooseLSM tools/dynamic_test.cc range_lookup_len


@pytest.mark.parametrize(
    "name,letters,count",
    [("arce-I", "ABDJCE", 40_960_000), ("arce-II", "JEBFDC", 40_960_000), ("arce-III", "GHI", 20_480_000)],
)
def test_compound_workloads_sequences_and_counts(name, letters, count):
    ph = phases({"name": name})
    assert [p.name for p in ph] == list(letters)
    assert [p.operations for p in ph] == [count] * len(letters)
    for p in ph:
        r, u, q = PAPER_TABLE2[p.name]
        assert fractions(p)["update"] == pytest.approx(u / (r + u + q))
    small = phases({"name": name, "operations": 1234, "scan_length": 7})
    assert [p.operations for p in small] == [1234] * len(letters)
    assert all(p.scan_length == 7 for p in small)


def test_gradient_write_ratios_go_up_and_down():
    ph = phases({"name": "arce-gradient"})
    w = [fractions(p)["update"] for p in ph]
    expect = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    assert w == pytest.approx(expect)
    for p in ph:
        f = fractions(p)
        assert f["get"] == pytest.approx(f["long_scan"]) and f["get"] + f["long_scan"] + f["update"] == pytest.approx(1)
    assert all(p.operations == 500_000 for p in ph)
    assert len({p.name for p in ph}) == 17  # the way up and down stay apart
    assert [p.operations for p in phases({"name": "arce-gradient", "operations": 10})] == [10] * 17


@pytest.mark.parametrize(
    "name,dist,mix",
    [
        ("ycsb-a", "uniform", {"get": 0.5, "update": 0.5}),
        ("ycsb-b", "zipfian", {"get": 0.95, "update": 0.05}),
        ("ycsb-c", "zipfian", {"get": 1.0}),
        ("ycsb-d", "latest", {"get": 0.95, "insert": 0.05}),
        ("ycsb-e", "uniform", {"long_scan": 0.95, "insert": 0.05}),
        ("ycsb-f", "uniform", {"get": 2 / 3, "update": 1 / 3}),  # read + read-modify-write (get + update)
    ],
)
def test_ycsb_mixes_and_distributions(name, dist, mix):
    (p,) = phases({"name": name})
    assert p.keys.distribution == dist
    assert fractions(p) == pytest.approx(mix)
    # 1M YCSB ops; F's RMW counts a get and an update
    assert p.operations == (1_500_000 if name == "ycsb-f" else 1_000_000)
    if name == "ycsb-e":
        assert p.scan_length == 50


def test_hotkey_suite_uses_hot_keys_and_thirds_of_the_operations():
    ph = phases({"name": "arce-hotkey"})
    assert [p.name for p in ph] == ["G", "H", "I"]
    assert sum(p.operations for p in ph) == 100_000_000
    assert all(p.keys.hot_keys == 1_000_000 and p.keys.distribution == "uniform" for p in ph)
    small = phases({"name": "arce-hotkey", "hot_keys": 50, "operations": 300}, num=2000)
    assert [(p.keys.hot_keys, p.operations) for p in small] == [(50, 300)] * 3
    with pytest.raises(ConfigError) as e:  # the default 1M hot keys exceed num: a config error naming the path
        phases({"name": "arce-hotkey"}, num=1000)
    assert "suite.hot_keys" in str(e.value) and "1000" in str(e.value)


@pytest.mark.parametrize("dist", ["uniform", "zipfian", "sequential"])
def test_hot_keys_draw_only_and_all_of_the_hot_set(dist):
    num, hot = 10_500, 100  # stride num // hot = 105
    phase = PhaseConfig(operations=1, mix={"update": 1}, keys=KeysConfig(distribution=dist, hot_keys=hot))
    s = sampler_for(phase, num)
    keys = s.draw(np.random.default_rng(1), 50_000, 10)
    assert keys.dtype == np.uint64
    assert np.all(keys % 105 == 0) and keys.max() < num
    hot_set = set(range(0, 105 * hot, 105))
    if dist == "zipfian":  # the scrambling hash collides on some ranks: most hot keys, none else
        assert set(keys.tolist()) <= hot_set and len(set(keys.tolist())) > hot // 2
    else:
        assert set(keys.tolist()) == hot_set  # covers the hot set
    again = sampler_for(phase, num).draw(np.random.default_rng(1), 50_000, 10)
    assert np.array_equal(keys, again)  # deterministic
    if dist == "uniform":
        assert s.hot_fraction(0.005) == pytest.approx(0.525)  # 52.5 keys' worth of cache of 100 hot keys
        assert s.hot_fraction(0.5) == 1.0


def test_hot_keys_beyond_the_key_space_fail_clearly():
    phase = PhaseConfig(operations=1, mix={"update": 1}, keys=KeysConfig(hot_keys=101))
    with pytest.raises(ValueError, match=r"keys\.hot_keys \(101\)"):
        sampler_for(phase, 100)
    assert sampler_for(phase.model_copy(update={"keys": KeysConfig(hot_keys=100)}), 100).num == 100


def test_write_stream_of_a_hot_phase_writes_hot_keys():
    p = phases({"name": "arce-hotkey", "hot_keys": 40, "operations": 100}, num=2000)[0]
    ws = WriteStream(p, 2000, 100, 1, np.random.default_rng(0))
    samples, _, _ = ws.draw(5000, 1, 2000)
    keys = np.unique(samples.keys)
    assert np.all(keys % 50 == 0) and len(keys) == 40


TINY = {
    "workload": {"num": 2000, "key_size": 24, "value_size": 1000, "preload": True},
    "lsm": {"write_buffer_size": "256KiB"},
    "policy": {"name": "leveled"},
    "sim": {"sample_interval": 0.005},
}  # phases of 3000 ops last well under a second


@pytest.mark.parametrize(
    "suite,names",
    [
        ({"name": "arce-III", "operations": 3000}, {"G", "H", "I"}),
        ({"name": "arce-hotkey", "operations": 2000, "hot_keys": 100}, {"G", "H", "I"}),
    ],
)
def test_suite_runs_and_records_its_phases(suite, names):
    cfg = {**TINY, "workload": {**TINY["workload"], "suite": suite}}
    r = run(cfg)
    assert names <= set(r.timeseries["phase"])
    for n in names:
        assert r.summary[f"phase_{n}_ops_per_s"] > 0
