"""RocksDB's scheduler runs one compaction at a time until compactions need speeding up, whatever
max_background_jobs allows (sim/background.py `compaction_slots`; db_impl_compaction_flush.cc DBImpl::GetBGJobLimits,
`parallelize_compactions` = WriteController::NeedSpeedupCompaction)."""

from __future__ import annotations

import lsmsim
from lsmsim.sim.kernel import Simulation
from tests.conftest import small_config

THREADS = {"cores": 4, "threads": {"flush": 1, "compaction": 3}}


def _most_at_once(jobs) -> int:
    """The most compactions (not flushes or moves) that ran at one instant."""
    c = jobs[jobs["kind"] == "compaction"]
    edges = sorted([(t, 1) for t in c["start"]] + [(t, -1) for t in c["end"]], key=lambda e: (e[0], e[1]))
    now = most = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


def test_leveled_runs_one_compaction_at_a_time_while_nothing_presses():
    r = lsmsim.run(small_config(machine=THREADS, phases=[{"operations": 150_000, "mix": {"insert": 1.0}}]))
    assert r.summary["compactions"] > 20
    assert r.timeseries["files_L0"].max() < 8  # below the speed-up trigger: min(2 x 4, 4 + (20 - 4) / 4)
    assert _most_at_once(r.compactions) == 1


def test_leveled_compactions_run_side_by_side_once_l0_backs_up():
    slow = {**THREADS, "cpu": {"merge_per_entry": "8us"}}  # compactions fall behind: L0 reaches 8 files
    cfg = small_config(machine=slow, phases=[{"operations": 150_000, "mix": {"insert": 1.0}}])
    r = lsmsim.run(cfg)
    assert r.timeseries["files_L0"].max() >= 8
    assert _most_at_once(r.compactions) >= 2
    one = lsmsim.run(
        small_config(machine={**slow, "threads": {"flush": 1, "compaction": 1}}, phases=cfg["workload"]["phases"])
    )
    assert _most_at_once(one.compactions) == 1
    assert (
        r.summary["stall_slowdown_s"] + r.summary["stall_stop_s"]
        < one.summary["stall_slowdown_s"] + one.summary["stall_stop_s"]
    )  # the extra threads are what keeps the writes from stalling as long


def test_the_throttle_is_rocksdb_schedulers_only():
    leveled = Simulation(lsmsim.load_config(small_config(machine=THREADS)))
    assert leveled.policy.rocksdb_scheduler and leveled.bg.compaction_slots() == 1
    universal = Simulation(lsmsim.load_config(small_config(policy={"name": "universal"}, machine=THREADS)))
    assert universal.bg.compaction_slots() == 1
    tiering = Simulation(lsmsim.load_config(small_config(policy={"name": "tiering"}, machine=THREADS)))
    assert not tiering.policy.rocksdb_scheduler and tiering.bg.compaction_slots() == 3
