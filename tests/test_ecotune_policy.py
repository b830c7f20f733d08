"""EcoTune's three-level policy in the simulator: it follows the DP's schedule (SIGMOD'25 §4.2-4.3)."""

import pytest

import lsmsim
from lsmsim.policies.ecotune import Schedule
from lsmsim.sim.kernel import Simulation
from tests.conftest import small_config

ECO = {
    "name": "ecotune",
    "R": 8,
    "C": 3,
    "alg": 2,
    "unit_run_size": "2MiB",
    "T_w": 1.0,
    "T_c": 0.2,
    "beta": 0.5,
    "r": 0.5,
}


def _run(policy=ECO, ops=400_000):
    cfg = small_config(
        policy=policy,
        lsm={"write_buffer_size": "1MiB", "range_filter_fpr": 0.01},
        phases=[{"operations": ops, "mix": {"insert": 1.0}, "writers": {"mode": "rate", "rate": "2MB/s"}}],
        machine={"cores": 4, "threads": {"flush": 1, "compaction": 3}},
        workload={"num": 200_000},
    )
    sim = Simulation(lsmsim.load_config(cfg))
    return sim, sim.run()


def test_main_level_follows_the_solved_schedule():
    sim, r = _run()
    p = sim.policy
    assert len(p.rounds) >= 3
    for rd in p.rounds[:2]:
        expected = Schedule.from_merges(8, rd["merges"])
        seen = [layout for rnd, _, layout in p.layouts if rnd == rd["round"]]
        # MLCs here finish well within T_w, so each TMC finds the layout the DP planned
        assert seen == [step.before for step in expected.steps], rd
    c = r.compactions
    mlcs = c[c.reason.str.startswith("MLC")]
    assert len(mlcs) >= len(p.rounds[0]["merges"]) + len(p.rounds[1]["merges"])


def test_global_compaction_every_r_tmcs():
    sim, r = _run()
    c = r.compactions
    tmcs = c[c.reason.str.startswith("TMC")]
    glob = c[c.reason.str.startswith("global")]
    assert len(glob) == len(tmcs) // 8
    assert (glob.output_level == 2).all()
    # later rounds use measured T_w and T_c, not the options' guesses
    assert sim.policy.rounds[1]["T_w"] != pytest.approx(1.0, rel=1e-6)


def test_summary_reports_the_last_rounds_schedule():
    """The run summary carries the last round's DP inputs and MLCs (ecotune-tables5-8 reads them from sweeps)."""
    sim, r = _run()
    last = sim.policy.rounds[-1]
    s = r.summary
    assert s["policy_rounds"] == len(sim.policy.rounds) >= 3
    assert s["policy_last_round_T_w"] == pytest.approx(last["T_w"]) and s["policy_last_round_beta"] == last["beta"]
    merges = [tuple(int(x) for x in m.replace(":", "-").split("-")) for m in s["policy_last_round_merges"].split(";")]
    assert merges == last["merges"] and merges


def test_lower_long_scan_ratio_means_a_lazier_schedule():
    merged = {}
    for r in (0.1, 0.9):
        sim, _ = _run({**ECO, "r": r, "T_c": 0.4}, ops=60_000)
        merged[r] = sum(hi - lo + 1 for _, lo, hi in sim.policy.rounds[0]["merges"])
    assert merged[0.1] < merged[0.9]


def test_beta_is_measured_and_idle_mlc_threads_serve_queries():
    policy = {**ECO, "mlc_threads": 2, "tmc_threads": 1, "r": None}
    cfg = small_config(
        policy=policy,
        lsm={"write_buffer_size": "1MiB", "range_filter_fpr": 0.01},
        phases=[
            {
                "duration": 20.0,
                "mix": {"insert": 0.5, "long_scan": 0.5},
                "writers": {"mode": "rate", "rate": "2MB/s"},
                "queries": {"mode": "closed", "threads": 1},
            }
        ],
        machine={"cores": 2, "threads": {"flush": 1, "compaction": 3}},
        workload={"num": 200_000},
    )
    sim = Simulation(lsmsim.load_config(cfg))
    sim.run()
    p = sim.policy
    assert p.rounds[0]["beta"] == 0.5
    assert 0.0 < p.rounds[1]["beta"] < 1.0  # queries slow down while an MLC runs
    assert p.rounds[0]["r"] == pytest.approx(1.0)  # all reads of the mix are long scans
    p._running["mlc"] = None
    assert p.extra_query_threads() == 2


def test_idle_mlc_threads_also_serve_open_loop_queries():
    """Open arrivals (Fig. 9) are served by the query threads plus the MLC threads while no MLC
    runs: the queueing model sees more servers between MLCs than during them."""
    policy = {**ECO, "mlc_threads": 2, "tmc_threads": 1, "r": None}
    cfg = small_config(
        policy=policy,
        lsm={"write_buffer_size": "1MiB", "range_filter_fpr": 0.01},
        phases=[
            {
                "duration": 20.0,
                "mix": {"insert": 0.5, "long_scan": 0.5},
                "writers": {"mode": "rate", "rate": "2MB/s"},
                "queries": {"mode": "open", "threads": 1, "arrival_rate": 200},
            }
        ],
        machine={"cores": 2, "threads": {"flush": 1, "compaction": 3}},
        workload={"num": 200_000},
    )
    sim = Simulation(lsmsim.load_config(cfg))
    sim.run()
    servers = {seg[3] for seg in sim.rec.open_segments}
    assert servers == {1, 3}


def test_a_cancelled_compaction_is_picked_again():
    """A phase's `flush` (a reopen) cancels the compactions that run (Background.cancel_compactions): EcoTune hears
    of it (on_compaction_cancelled), forgets it and picks the same unit run or merge again, rather than wait forever
    for a TMC, MLC or global compaction that will never finish."""
    phases = [
        {
            "name": f"p{i}",
            "operations": 100_000,
            "mix": {"insert": 1.0},
            "flush": True,
            "writers": {"mode": "rate", "rate": "2MB/s"},
        }
        for i in range(4)
    ]
    cfg = small_config(
        policy=ECO,
        lsm={"write_buffer_size": "1MiB", "range_filter_fpr": 0.01},
        phases=phases,
        # slow merges: a compaction is running at each reopen
        machine={"cores": 4, "threads": {"flush": 1, "compaction": 3}, "cpu": {"merge_per_entry": "20us"}},
        workload={"num": 200_000},
        sim={"drain": False},
    )
    sim = Simulation(lsmsim.load_config(cfg))
    policy = sim.policy
    cancelled = []
    cancel = policy.on_compaction_cancelled

    def spy(view, c):
        issued = policy.issued
        cancel(view, c)
        assert all(v is not c for v in policy._running.values()) and id(c) not in policy._started
        cancelled.append((c.reason, issued - policy.issued))

    policy.on_compaction_cancelled = spy
    res = sim.run()
    assert cancelled, "the reopens cancelled no compaction: the test tests nothing"
    # a cancelled TMC gives its issue back (its unit run will be merged again), in the round it was issued in
    assert all(back == 1 for reason, back in cancelled if reason.startswith("TMC")) or not any(
        reason.startswith("TMC") for reason, _ in cancelled
    )
    jobs = res.compactions
    last = sim.rec.phases[-1]
    later = jobs[(jobs["kind"] == "compaction") & (jobs["start"] >= last["start"] - 1e-9)]
    assert len(later) > 0, "no compaction after the last reopen: the policy waits for a cancelled one"
