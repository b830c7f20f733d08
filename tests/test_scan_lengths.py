"""Long scans of varying length (lsmsim/workloads/scan_lengths.py, phase.scan_lengths): the distributions against
their closed forms and the generators they stand for, the fluid's few points against the full distribution, and
the fluid's scan percentiles against the op-level mode, which draws each scan's length."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import lsmsim
from lsmsim.errors import ConfigError
from lsmsim.workloads import mixgraph, scan_lengths
from lsmsim.workloads.zipf import gray_rank_cdf


def _quantile(lengths, p, q):
    return lengths[np.searchsorted(np.cumsum(p), q)]


def test_uniform_and_zipfian_are_ycsbs():
    lengths, p = scan_lengths.pmf("uniform", 1, 100)
    assert lengths[0] == 1 and lengths[-1] == 100 and np.allclose(p, 0.01)
    assert scan_lengths.mean("uniform", 5, 10) == pytest.approx(7.5)
    # ZipfianGenerator(1, 50): rank r (length 1 + r) with Gray et al.'s inverse, theta 0.99
    lengths, p = scan_lengths.pmf("zipfian", 1, 50)
    exact = np.diff([gray_rank_cdf(k, 50, 0.99) for k in range(51)])
    assert lengths[0] == 1 and lengths[-1] == 50
    assert np.abs(p - exact).max() < 1e-5  # the u grid's resolution (2^-20)


def test_pareto_is_mixgraphs_seek_length():
    """ceil(ParetoCdfInversion(u)) % max, as db_bench's MixGraph draws it: a plain-Python draw of the formula agrees
    with the pmf in its mean and its quantiles, and the pmf's mean is mixgraph.mean_scan_length's."""
    theta, k, sigma, top = 0.0, 2.517, 14.236, 10000
    lengths, p = scan_lengths.pmf("pareto", 0, top, theta, k, sigma)
    assert scan_lengths.mean("pareto", 0, top, theta, k, sigma) == pytest.approx(
        mixgraph.mean_scan_length(theta, k, sigma, top), rel=1e-9
    )
    u = np.random.default_rng(5).random(400_000)
    draws = np.array([math.ceil(theta + sigma * (x ** (-k) - 1) / k) % top for x in u[:40_000]])
    for q in (0.5, 0.9, 0.99):
        assert _quantile(lengths, p, q) == pytest.approx(np.quantile(draws, q), rel=0.1, abs=1)
    assert float((lengths * p).sum()) == pytest.approx(draws.mean(), rel=0.05)


@pytest.mark.parametrize(
    "args", [("uniform", 1, 100), ("zipfian", 1, 1000), ("pareto", 0, 10000, 0.0, 2.517, 14.236)], ids=str
)
def test_points_keep_the_mean_and_the_quantiles(args):
    lengths, p = scan_lengths.pmf(*args)
    pts, w = scan_lengths.points(*args)
    assert w.sum() == pytest.approx(1.0) and len(pts) <= len(scan_lengths.EDGES) - 1
    assert float((pts * w).sum()) == pytest.approx(float((lengths * p).sum()), rel=1e-9)
    # a quantile on a bin edge lies within the lengths of the bins on either side of it
    edges = np.cumsum(w)
    for q in (0.5, 0.99):
        i = int(np.argmin(np.abs(edges - q)))
        assert pts[i] <= _quantile(lengths, p, q) + 1 and _quantile(lengths, p, q) <= pts[min(i + 1, len(pts) - 1)] + 1


def test_multipliers_keep_the_mean_scan():
    lengths, p = scan_lengths.pmf("zipfian", 1, 200)
    mean = float((lengths * p).sum())
    for share in (0.0, 0.3, 1.0):
        m = scan_lengths.multipliers(lengths, mean, share)
        assert float((m * p).sum()) == pytest.approx(1.0)
    assert np.allclose(scan_lengths.multipliers(lengths, mean, 1.0), 1.0)  # all seek: the length does not matter


UNIFORM = {"distribution": "uniform", "min": 1, "max": 100}


def test_a_phase_takes_the_mean_length_unless_it_gives_one():
    phase = {"name": "s", "operations": 10, "mix": {"long_scan": 1.0}}
    ycsb_e = {**phase, "scan_lengths": {"distribution": "uniform", "min": 1, "max": 99}}
    cfg = lsmsim.load_config({"workload": {"num": 1000, "phases": [ycsb_e]}})
    assert cfg.workload.phases[0].scan_length == 50
    cfg = lsmsim.load_config({"workload": {"num": 1000, "phases": [{**ycsb_e, "scan_length": 40}]}})
    assert cfg.workload.phases[0].scan_length == 40
    with pytest.raises(ConfigError, match="min"):
        lsmsim.load_config(
            {
                "workload": {
                    "num": 1000,
                    "phases": [{**phase, "scan_lengths": {"distribution": "zipfian", "min": 9, "max": 2}}],
                }
            }
        )


def _scans(mode: str, lengths: dict | None = UNIFORM) -> dict:
    cfg = {
        "name": "scan-lengths",
        "seed": 3,
        "machine": {"preset": "default", "cpu_spread": 0, "sched_slice": 0},
        "workload": {
            "num": 100_000,
            "key_size": 16,
            "value_size": 100,
            "phases": [
                {"name": "load", "operations": 100_000, "mix": {"insert": 1.0}, "measure": False},
                {
                    "name": "run",
                    "operations": 10_000,
                    "mix": {"long_scan": 0.5, "get": 0.5},
                    "scan_lengths": lengths,
                    "scan_length": 50,
                },
            ],
        },
        "lsm": {"write_buffer_size": "2MiB"},
        "sim": {"mode": mode},
    }
    return lsmsim.run(copy.deepcopy(cfg)).latency.set_index("op").loc["long_scan"].to_dict()


def test_the_fluids_scan_percentiles_follow_the_op_level_reference():
    """With no CPU spread, a long scan's latency is its seek plus its length's share of the rest: the fluid's
    percentiles (a few points of the lengths) against the op-level mode's (each scan draws its length)."""
    fluid, op = _scans("fluid"), _scans("op")
    assert fluid["mean_s"] == pytest.approx(op["mean_s"], rel=0.02)
    for q in ("p50_s", "p99_s"):
        assert fluid[q] == pytest.approx(op[q], rel=0.1), q
    # against scans all of the mean length: the same mean, a longer P99 than such a scan takes (their P50: their
    # own tail is the block cache's cold start, whose first scans read more), by at most the longest one's 100 / 50
    fixed = _scans("fluid", None)
    assert fixed["mean_s"] == pytest.approx(fluid["mean_s"], rel=0.02)
    assert 1.1 * fixed["p50_s"] < fluid["p99_s"] < 2.0 * fixed["max_s"]
