"""CAMAL (SIGMOD'25) over lsmsim: its cost terms against their closed forms, the regression and the decoupled
active learning against a system whose optimum is known by brute force, and the tuning as lsmsim runs it
(docs/camal-readings.md)."""

import itertools
import math

import numpy as np
import pytest
import yaml

from lsmsim.cli import main
from lsmsim.loading import load_config
from lsmsim.tuning.camal.cost import POLICIES, PRIOR, Mix, Store, Tuning, bloom_fpr, feasible, features, levels
from lsmsim.tuning.camal.learner import RHO_GRID, TRAINING_MIXES, Model, Sample, active_learning
from lsmsim.tuning.camal.sample import SimRunner, apply, average_mix, overrides, store_of

STORE = Store(N=1e6, E=1024, M=10e6)


# ---------------------------------------------------------------- the cost model's closed forms
def test_level_count_is_monkeys():
    # L = ceil(log_T(N E / B * (T - 1) / T)): 1,000 buffers at T = 10 hold 900 * T/(T-1)... -> 3 levels
    assert levels(1000, 1, 1, 10) == 3
    assert levels(10_000, 1, 1, 10) == 4  # 9,000 -> log10 3.95
    assert levels(1000 * 9 / 10 * 10 / 9, 1, 1, 10) == 3  # exactly T^3 * T/(T-1) buffers: no fourth level
    assert levels(100, 1, 1, 2) == math.ceil(math.log2(50))
    assert levels(5, 1, 10, 10) == 1  # smaller than a buffer: one level


def test_bloom_fpr_is_the_optimal_filters():
    assert bloom_fpr(10) == pytest.approx(0.00819, rel=1e-3)  # 10 bits per key: 0.82%
    assert bloom_fpr(0) == 1.0


def test_memory_split_gives_the_filters_their_bits_first():
    t = Tuning("leveling", 10, 8.0, 0.25)
    B, F, C = STORE.split(t)
    assert F == 1e6  # 8 bits x 1M keys
    assert B + F + C == pytest.approx(STORE.M) and B == pytest.approx(0.25 * 9e6)
    assert not feasible(Tuning("leveling", 10, 80.0, 0.5), STORE, 1.0)  # 10 MB of filters: no room


def test_tiering_has_t_minus_1_runs_per_level_in_its_terms():
    mix = Mix(1, 0, 0, 0)
    lv, ti = (features(Tuning(p, 8, 10.0, 0.5), mix, STORE) for p in POLICIES)
    assert ti[2] == pytest.approx(7 * lv[2])  # zero-result lookups probe R = L (T - 1) runs, not L
    w = Mix(0, 0, 0, 1)
    lw, tw = (features(Tuning(p, 8, 10.0, 0.5), w, STORE)[-1] for p in POLICIES)
    assert lw == pytest.approx(tw * 8 / 2)  # an entry is rewritten T/2 times a level under leveling, once under tiering


# ---------------------------------------------------------------- the regression and the learning loop
def _true_cost(weights):
    """A system whose latency is the cost model with known weights: the learning's optimum is known by brute force."""

    def run(t, mix):
        return float(features(t, mix, SMALL) @ weights[t.policy])

    return run


SMALL = Store(N=20_000, E=1024, M=400_000)
TRUE = {"leveling": PRIOR * np.linspace(0.5, 2.0, len(PRIOR)), "tiering": PRIOR * np.linspace(2.0, 0.5, len(PRIOR))}


def test_fit_recovers_the_latency_of_a_linear_system():
    rng = np.random.default_rng(1)
    run = _true_cost(TRUE)
    samples = []
    for _ in range(120):
        t = Tuning(
            POLICIES[rng.integers(2)], int(rng.integers(2, 30)), float(rng.integers(0, 16)), 0.1 + 0.8 * rng.random()
        )
        mix = Mix(*rng.dirichlet(np.ones(4)))
        samples.append(Sample(t.policy, t.T, t.h, t.rho, *mix.as_tuple(), SMALL.N, SMALL.E, SMALL.M, run(t, mix)))
    m = Model().fit(samples, reg=1e-4)
    for s in samples[:30]:
        assert m.predict(s.tuning, s.mix, SMALL) == pytest.approx(s.latency_s, rel=0.02)


def test_active_learning_finds_the_brute_force_optimum_of_a_known_system():
    run = _true_cost(TRUE)
    mixes = TRAINING_MIXES[:6]
    model, samples = active_learning(run, SMALL, mixes, start=Tuning("leveling", 10, 10.0, 0.1), seed=3)
    assert len({s.key() for s in samples}) == len(samples) <= 2 * len(mixes) * 13
    for z in [(0.0, 0.385, 0.307, 0.308), (0.1, 0.1, 0.1, 0.7), (0.0, 0.9, 0.05, 0.05)]:
        mix = Mix(*z)
        got = model.recommend(mix, SMALL, min_buffer=8 * SMALL.E)
        grid = [Tuning(p, T, h, r) for p, T, h, r in itertools.product(POLICIES, range(2, 41), range(17), RHO_GRID)]
        best = min((run(t, mix), t) for t in grid if feasible(t, SMALL, 8 * SMALL.E))
        assert run(got, mix) <= best[0] * 1.02, (got, best)


def test_the_learning_is_deterministic_and_resumes_without_running_again():
    calls = []

    def run(t, mix):
        calls.append(t)
        return _true_cost(TRUE)(t, mix)

    mixes = TRAINING_MIXES[:2]
    _, first = active_learning(run, SMALL, mixes, seed=5)
    n = len(calls)
    _, again = active_learning(run, SMALL, mixes, seed=5)
    assert [s.key() for s in again] == [s.key() for s in first]
    calls.clear()
    _, resumed = active_learning(run, SMALL, mixes, seed=5, samples=first)
    assert calls == [] and len(resumed) == len(first) == n


# ---------------------------------------------------------------- the tuning as lsmsim runs it
def test_arce_workload_i_average_mix_is_table_2s():
    cfg = load_config("experiments/arce/base.yaml")
    mix = average_mix(cfg)  # A B D C E in % (range 98+1+49+1+2, update 1+98+2+1+49, point 1+1+49+98+49), J a third each
    assert [mix.z0, mix.z1, mix.q, mix.w] == pytest.approx(
        [x / 6 for x in (0, 1.98 + 1 / 3, 1.51 + 1 / 3, 1.51 + 1 / 3)], rel=1e-6
    )
    s = store_of(cfg)
    assert s.M == cfg.lsm.write_buffer_size + 10 * 1e6 / 8 + cfg.lsm.block_cache_size


def test_overrides_build_the_structure_and_the_memory_split():
    s = Store(N=1e6, E=1024, M=20e6)
    o = overrides(Tuning("tiering", 30, 6.0, 0.5), s)
    B = 0.5 * (20e6 - 6 * 1e6 / 8)
    assert o["lsm.write_buffer_size"] == int(B) and o["lsm.bloom_bits_per_key"] == 6.0
    L = levels(1e6, 1024, B, 30)
    assert o["policy"]["size_ratios"] == [30] * L and o["policy"]["runs_per_level"] == [29] * (L + 1)
    assert o["lsm.level0_slowdown_writes_trigger"] >= 29  # a tiered L0 of 29 runs must not stall writes
    cfg = load_config(apply(load_config("experiments/arce/base.yaml").model_dump(mode="json"), o))
    assert cfg.policy.name == "moose" and cfg.lsm.block_cache_size == int(B)


def test_a_sample_is_a_real_run_and_more_cache_helps_reads_on_the_device():
    cfg = load_config("experiments/arce/base.yaml", ["machine.memory=null"])  # block-cache misses read the NVMe drive
    run = SimRunner(cfg, 5000)
    assert run.store.N == 5000 and run.store.M == pytest.approx(store_of(cfg).M * 5000 / 1e6)
    reads = Mix(0, 1, 0, 0)
    little, much = run(Tuning("leveling", 10, 10.0, 0.9), reads), run(Tuning("leveling", 10, 10.0, 0.05), reads)
    assert much < little  # 95% of the memory as cache against 10%


def test_cli_trains_resumes_and_prints_a_variant(tmp_path, capsys):
    args = ["camal", "experiments/arce/base.yaml", "--set", "workload.num=20K", "--set", "workload.suite.operations=2K"]
    args += ["--train-keys", "2K", "--mixes", "1", "--samples", "2,1,1", "--out", str(tmp_path), "-q"]
    assert main(args) == 0
    out = capsys.readouterr().out
    variant = yaml.safe_load(out)["CAM"]
    assert variant["policy"]["name"] == "moose"
    rows = (tmp_path / "samples.csv").read_text().splitlines()
    assert 4 <= len(rows) - 1 <= 8  # per policy: 2 size ratios, then a Bloom and a memory sample unless already run
    mtime = (tmp_path / "samples.csv").stat().st_mtime_ns
    assert main(args) == 0  # every sample is there: nothing runs, nothing is rewritten
    assert (tmp_path / "samples.csv").stat().st_mtime_ns == mtime
    assert yaml.safe_load(capsys.readouterr().out)["CAM"] == variant
    assert main(["camal", "experiments/arce/base.yaml", "--no-train", "--out", str(tmp_path)]) == 0  # to 1M keys
    assert "CAM" in yaml.safe_load(capsys.readouterr().out)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--samples", "5,5"], "--samples"),
        (["--train-keys", "2M"], "--train-keys"),
        (["--mixes", "16"], "--mixes"),
        (["--no-train"], "no samples"),
    ],
)
def test_cli_rejects_bad_arguments_in_one_line(tmp_path, capsys, extra, message):
    assert main(["camal", "experiments/arce/base.yaml", "--out", str(tmp_path / "none"), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
