"""db_bench's mixgraph (workloads/mixgraph.py): its keys, sizes, shares and sine rate against their closed forms, an
exact enumeration, and real db_bench."""

from __future__ import annotations

import copy
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lsmsim
from lsmsim.formats.dbbench_args import dbbench_config
from lsmsim.workloads import mixgraph
from lsmsim.workloads.keys import make_sampler

# Cao et al. FAST'20's fit, as RocksDB's wiki runs mixgraph with it
POWER = {"key_dist_a": 0.002312, "key_dist_b": 0.3467}
RANGES = {**POWER, "keyrange_dist": (14.18, -2.917, 0.0164, -0.08082), "keyrange_num": 30}


def test_query_shares_round_each_type_up_to_thousandths():
    assert mixgraph.query_shares(0.85, 0.14, 0.01) == pytest.approx((0.85, 0.14, 0.01))
    assert mixgraph.query_shares(1, 1, 1) == pytest.approx((1 / 3, 1 / 3, 1 / 3))  # 334 each of 1002
    assert mixgraph.query_shares(0.5, 0.3, 0.0) == pytest.approx((625 / 1000, 375 / 1000, 0.0))
    # over rand_v in [0, num): R = 1003 bands (301, 601, 101); 20,000 = 19 x 1003 + 943 leaves residues 943..1002 short
    assert mixgraph.query_shares(0.3, 0.6, 0.1, num=20_000) == pytest.approx(
        ((301 * 20) / 20_000, (601 * 20) / 20_000, (41 * 20 + 60 * 19) / 20_000)
    )
    assert mixgraph.query_shares(0.3, 0.6, 0.1, num=1003 * 7) == pytest.approx(mixgraph.query_shares(0.3, 0.6, 0.1))


def test_mean_value_size_is_the_generalized_paretos_mean():
    # theta = 100 keeps every size above the 10 B floor, and the tail past 1 KiB is below 1e-9: the mean is
    # theta + sigma / (1 - k), plus 1/2 for db_bench's ceil
    assert mixgraph.mean_value_size(100, 0.2615, 25.45, 1 << 20) == pytest.approx(100 + 25.45 / 0.7385 + 0.5, rel=2e-3)
    # k = 0 is the exponential: theta - sigma ln u
    assert mixgraph.mean_value_size(50, 0.0, 20, 1 << 20) == pytest.approx(50 + 20 + 0.5, rel=2e-3)
    assert mixgraph.mean_value_size(0, 0.2615, 25.45, 16) < 16  # modulo the largest value


@pytest.mark.parametrize("params", [POWER, RANGES], ids=["power", "key-ranges"])
def test_hot_fraction_matches_the_exact_distribution(params):
    """A mixgraph key is a function of one uniform integer of [0, num): enumerating all of them is the exact
    distribution, which hot_fraction (the block cache's popularity curve) must follow."""
    num = 200_000
    s = make_sampler("mixgraph", num, **params)
    ini = np.arange(num, dtype=np.uint64)
    keys = np.empty_like(ini)
    mixgraph.mixgraph_keys(ini, s.num, s.a, s.b, s.starts, s.size, s.rand_max, keys)
    counts = np.sort(np.bincount(keys.astype(np.int64), minlength=num))[::-1]
    for f in (1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.3, 0.6):
        assert s.hot_fraction(f) == pytest.approx(counts[: int(f * num)].sum() / num, abs=0.045), f
    drawn = s.draw(np.random.default_rng(1), 10_000)
    assert drawn.max() < num and np.array_equal(drawn, s.draw(np.random.default_rng(1), 10_000))


def test_without_key_dist_the_keys_are_uniform_as_in_db_bench():
    s = make_sampler("mixgraph", 1000, keyrange_dist=(14.18, -2.917, 0.0164, -0.08082), keyrange_num=30)
    assert s.uniform and s.hot_fraction(0.3) == 0.3
    assert np.array_equal(s.draw(np.random.default_rng(2), 50), np.random.default_rng(2).integers(0, 1000, 50))


def test_sine_rate_is_set_at_each_interval():
    assert mixgraph.sine_rate(0.99, 1000, 0.5, 0, 20000, 1.0) == math.inf  # before db_bench's first re-set
    assert mixgraph.sine_rate(2.5, 1000, 0.5, 0, 20000, 1.0) == pytest.approx(1000 * math.sin(1.0) + 20000)
    noisy = [mixgraph.sine_rate(3.0, 1000, 0.5, 0, 20000, 1.0, 0.5, (7, k)) for k in range(20)]
    base = 1000 * math.sin(1.5) + 20000
    assert all(abs(r - base) <= 250 for r in noisy) and len(set(noisy)) > 1


LINE = (
    "--benchmarks=mixgraph --num=200000 --reads=3000000 --mix_get_ratio=0.85 --mix_put_ratio=0.14 "
    "--mix_seek_ratio=0.01 --sine_mix_rate --sine_a=1000 --sine_b=0.5 --sine_d=20000 "
    "--sine_mix_rate_interval_milliseconds=1000 --compression_type=none"
)


def test_a_mixgraph_line_maps_to_its_phase():
    cfg, unsupported = dbbench_config(LINE + " --key_dist_a=0.002312 --key_dist_b=0.3467")
    (p,) = cfg["workload"]["phases"]
    assert p["keys"] == {"distribution": "mixgraph", **POWER}
    assert p["mix"]["insert"] == pytest.approx(0.14) and p["mix"]["get_empty"] == pytest.approx(0.85)
    _, put, seek = mixgraph.query_bands(0.85, 0.14, 0.01)
    assert p["value_size"] == round(mixgraph.mean_value_size(0, 0.2615, 25.45, 1024, 200_000, put))
    assert p["scan_length"] == round(mixgraph.mean_scan_length(0, 2.517, 14.236, 10000, 200_000, seek))
    assert p["sine_rate"] == {"a": 1000.0, "b": 0.5, "c": 0.0, "d": 20000.0, "interval": 1.0, "noise": 0.0}
    assert p["operations"] == 3_000_000 and not [u for u in unsupported if u[0] != "--compression_type"]
    _, unsupported = dbbench_config("--benchmarks=mixgraph --keyrange_dist_a=14.18 --keyrange_num=30")
    assert any(u[0] == "--keyrange_dist_*" for u in unsupported)  # db_bench ignores them without key_dist


def test_the_clients_follow_the_sine_rate():
    cfg, _ = dbbench_config(LINE)
    r = lsmsim.run(cfg)
    ts = r.timeseries
    ops = ts[[c for c in ts.columns if c.endswith("_ops_per_s")]].sum(axis=1)
    for t in (2.0, 3.0):  # each sample covers the second before it: the rate set at t - 1
        got = float(ops[np.isclose(ts["time"], t)].iloc[0])
        assert got == pytest.approx(1000 * math.sin(0.5 * (t - 1)) + 20000, rel=1e-6)
    assert float(ops[np.isclose(ts["time"], 1.0)].iloc[0]) > 50_000  # unlimited before the first re-set


@pytest.mark.skipif(shutil.which("db_bench") is None, reason="db_bench (rocksdb-tools) not installed")
def test_db_bench_mixgraph_draws_the_sizes_and_shares_lsmsim_models(tmp_path):
    """db_bench reports its mixgraph's mean value size and counts by type: lsmsim's means and shares must sit within
    the sampling spread of what it drew (4 standard errors)."""
    n = 40_000
    out = subprocess.run(
        ["db_bench", f"--db={tmp_path / 'db'}", "--benchmarks=mixgraph", "--num=20000", f"--reads={n}"]
        + ["--mix_get_ratio=0.3", "--mix_put_ratio=0.6", "--mix_seek_ratio=0.1", "--compression_type=none"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    m = re.search(r"Gets:(\d+) Puts:(\d+) Seek:(\d+).*avg size: ([\d.]+) value", out)
    assert m, out[-2000:]
    counts = np.array([int(m.group(i)) for i in (1, 2, 3)])
    shares = np.array(mixgraph.query_shares(0.3, 0.6, 0.1, num=20_000))  # the residues of rand_v < num
    assert np.all(np.abs(counts - n * shares) <= 4 * np.sqrt(n * shares * (1 - shares)))
    # the Puts see u = rand / num of the rand whose residue mod 1000 is a Put's: their sizes' spread gives the error
    lo, hi, r = mixgraph.query_bands(0.3, 0.6, 0.1)[1]
    rand = np.arange(20_000)
    u = rand[(rand % r >= lo) & (rand % r < hi)] / 20_000
    sizes = pd.Series(np.ceil(25.45 * (u**-0.2615 - 1) / 0.2615)).clip(lower=10) % 1024
    mean = mixgraph.mean_value_size(0, 0.2615, 25.45, 1024, 20_000, (lo, hi, r))
    assert mean == pytest.approx(sizes.mean())
    assert abs(float(m.group(4)) - mean) <= 4 * sizes.std() / math.sqrt(counts[1])


FOUND_LINE = "--benchmarks=fillrandom,mixgraph --num=50000 --reads=40000 --mix_get_ratio=0.95 --mix_put_ratio=0.05 "
FOUND_LINE += "--mix_seek_ratio=0 --key_dist_a=0.002312 --key_dist_b=0.3467 --compression_type=none"
KEYRANGES = " --keyrange_dist_a=14.18 --keyrange_dist_b=-2.917 --keyrange_dist_c=0.0164 --keyrange_dist_d=-0.08082"


def _gets_found(cfg: dict) -> float:
    p = cfg["workload"]["phases"][-1]
    return p["mix"].get("get", 0.0) / (p["mix"].get("get", 0.0) + p["mix"].get("get_empty", 0.0))


def test_power_keys_reach_half_the_key_space():
    """The power model alone casts the key's hash to int64 (key_space_share): half its Gets miss whatever was
    written; with key ranges, or uniform keys, every key lies in [0, num). After a --duration fill the split follows
    the live keys at that reach."""
    live = 1 - math.exp(-1)  # one fill of num uniform writes
    assert _gets_found(dbbench_config(FOUND_LINE)[0]) == pytest.approx(0.5 * live)
    assert _gets_found(dbbench_config(FOUND_LINE + KEYRANGES + " --keyrange_num=30")[0]) == pytest.approx(live)
    uniform = FOUND_LINE.replace("--key_dist_a=0.002312 ", "")
    assert _gets_found(dbbench_config(uniform)[0]) == pytest.approx(live)
    (_, p) = dbbench_config(FOUND_LINE + " --duration=5")[0]["workload"]["phases"]
    assert p["found"] == "live" and p["found_reach"] == 0.5


def test_found_reach_scales_the_live_split():
    """A run's Gets under found: live with found_reach r find their keys r times as often as at reach 1; the
    misses past the key space skip every run (no Bloom filters here), so the empty Gets cost less on average."""
    cfg, _ = dbbench_config(FOUND_LINE + " --duration=1 --write_buffer_size=1048576")
    shares, empty = [], []
    for reach in (1.0, 0.5):
        c = copy.deepcopy(cfg)
        c["workload"]["phases"][-1]["found_reach"] = reach
        s = lsmsim.run(c).summary
        shares.append(s["ops_get"] / (s["ops_get"] + s["ops_get_empty"]))
        empty.append(s["latency_get_empty_mean_s"])
    assert 0.3 < shares[0] < 1 and shares[1] == pytest.approx(0.5 * shares[0], abs=0.01)
    assert empty[1] < 0.8 * empty[0]


@pytest.mark.skipif(shutil.which("db_bench") is None, reason="db_bench (rocksdb-tools) not installed")
def test_db_bench_mixgraph_finds_the_share_of_keys_lsmsim_models(tmp_path):
    """db_bench counts the Gets that found their key. With the power model alone it finds half the live share
    (0.318-0.327 over runs of this line, where one fill of num keys leaves 0.632 live). Three runs with their own
    seeds give db_bench's spread: lsmsim's split must sit within it, widened below by 0.02 (a Put of a negative key
    makes it findable later, which lsmsim leaves out: about +0.007) and above by 4 sampling errors. Before
    found_reach lsmsim modelled 0.632."""
    found = []
    for seed in (1, 2, 3):
        db = tmp_path / f"db{seed}"
        args = ["db_bench", f"--db={db}", f"--seed={seed}", *FOUND_LINE.split()]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        m = re.search(r"Gets:(\d+) Puts:\d+ Seek:0, reads (\d+) in (\d+) found", out)
        assert m and m.group(1) == m.group(3), out[-2000:]
        found.append((int(m.group(2)) / int(m.group(3)), int(m.group(3))))
    modelled = _gets_found(dbbench_config(FOUND_LINE)[0])
    lo, hi = min(f for f, _ in found), max(f for f, _ in found)
    err = max(math.sqrt(f * (1 - f) / n) for f, n in found)
    assert lo - 0.02 <= modelled <= hi + 4 * err, (modelled, found)


RECORDS = sorted((Path(__file__).resolve().parents[1] / "benchmarks" / "validation" / "hosts").glob("*-mixgraph.json"))


@pytest.mark.parametrize("path", RECORDS, ids=[p.name for p in RECORDS])
def test_lsmsim_runs_mixgraph_within_the_recorded_db_bench_runs(path):
    """benchmarks/mixgraph_vs_dbbench.py's record, on the preset of its host: mixgraph's ops/s within db_bench's
    range over its runs (widened by 15%), its Puts' mean value size within 3%, its Seeks' mean length within 15% of
    db_bench's, their P99 latency within db_bench's range widened by 25% (the issue's P99 budget) and their P50 below a
    fifth of their mean, as db_bench's heavy-tailed lengths make it (0.15-0.16 of the mean over the runs; a Seek of
    the mean length has its P50 near its mean). Not judged (docs/design.md, 'Workloads'): mixgraph's Put latency
    (db_bench's is twice its fillrandom's: 11.0 against 5.0 us; the client's key draw, machine.cpu.mixgraph_key,
    is 2.8 us of it, the rest not found) and the Seeks' P50 itself (lsmsim 35 us against
    db_bench's 46-67: a Seek of the median 27 Nexts costs more in db_bench than its fixed-length seekrandom says)."""
    import json

    rec = json.loads(path.read_text())
    cfg, _ = dbbench_config(rec["line"])
    cfg["machine"] = {"preset": rec["preset"]}
    s = lsmsim.run(cfg).summary
    ops = [r["ops"]["mixgraph"] for r in rec["db_bench"]]
    assert 0.85 * min(ops) <= s["phase_mixgraph_ops_per_s"] <= 1.15 * max(ops)
    (p,) = [p for p in cfg["workload"]["phases"] if p["name"] == "mixgraph"]
    assert p["value_size"] == pytest.approx(np.mean([r["value"] for r in rec["db_bench"]]), rel=0.03)
    assert p["scan_length"] == pytest.approx(np.mean([r["scan"] for r in rec["db_bench"]]), rel=0.15)
    alone = copy.deepcopy(cfg)
    alone["workload"]["phases"][0]["measure"] = False  # the fill's latencies out, as db_bench's mixgraph histogram
    seek = lsmsim.run(alone).latency.set_index("op").loc["long_scan"]
    theirs = [r["hists"]["mixgraph"]["seek"] for r in rec["db_bench"]]
    p99 = [h["P99"] * 1e-6 for h in theirs]
    assert 0.75 * min(p99) <= seek["p99_s"] <= 1.25 * max(p99), (seek["p99_s"], p99)
    assert max(h["P50"] / h["Average"] for h in theirs) < 0.2 and seek["p50_s"] < 0.2 * seek["mean_s"]
