"""Files a compaction removed stay on the device while a running job's version holds them, as RocksDB keeps
them (lsmsim/sim/versions.py); transient space counts them."""

from types import SimpleNamespace

import pytest

import lsmsim
from lsmsim.sim.kernel import Simulation
from lsmsim.sim.versions import ObsoleteFiles
from tests.conftest import LARGE_FILES_POLICY, small_config


class _Device:
    def __init__(self):
        self.deleted = []

    def file_deleted(self, file_id, nbytes):
        self.deleted.append(file_id)


def _job(id, version, kind="compaction"):
    return SimpleNamespace(id=id, version=version, kind=kind)


def _file(id, installed, nbytes=100):
    return SimpleNamespace(id=id, installed=installed, bytes=nbytes)


def test_a_file_lives_until_the_last_job_whose_version_holds_it_ends():
    dev = _Device()
    obs = ObsoleteFiles(dev)
    older = _job(1, version=2)  # started before the file was installed: its version lacks the file
    holders = [_job(2, version=3), _job(3, version=5, kind="flush")]
    search = _job(4, version=6, kind="search")  # a policy's CPU-only work holds no version
    f, g = _file(10, installed=3), _file(11, installed=6, nbytes=50)
    obs.retire([f, g], [older, *holders, search])
    assert dev.deleted == [11]  # no running flush or compaction started from a version holding g
    assert (obs.bytes, obs.count) == (100, 1)
    obs.release(older)
    obs.release(holders[0])
    assert dev.deleted == [11] and obs.bytes == 100
    obs.release(holders[1])
    assert dev.deleted == [11, 10] and (obs.bytes, obs.count) == (0, 0)
    obs.release(holders[1])  # a job releases once; a second call finds nothing
    assert dev.deleted == [11, 10]


def _large_files_config():
    """T = 5 leveling with files 2% of the data and many compaction threads: long compactions overlap others."""
    policy = LARGE_FILES_POLICY
    phases = [
        {"operations": 100_000, "mix": {"insert": 1.0}, "keys": {"distribution": "shuffled"}},
        {"operations": 100_000, "mix": {"update": 1.0}},
    ]
    cfg = small_config(
        policy=policy,
        phases=phases,
        machine={"cores": 16, "threads": {"flush": 1, "compaction": 15}},
        device={"model": "ssd", "preset": "samsung-pm9a3-960gb", "capacity": "200MB", "ftl": {"erase_unit": "1MiB"}},
    )
    sets = ["workload.num=100000", "workload.value_size=512", "lsm.write_buffer_size=64KiB", "sim.sample_interval=0.02"]
    # RocksDB's pending-compaction limits scaled to the 53 MB of data as Spooky's Fig. 15 scales them (10.7% and 42.7%):
    # the back-pressure that keeps a store of files this large within its device
    sets += ["lsm.soft_pending_compaction_bytes_limit=5.6MB", "lsm.hard_pending_compaction_bytes_limit=22.5MB"]
    sets.append("sim.check_invariants=false")  # 21 s of its 25 with a thousand small files; other tests check them
    return lsmsim.load_config(cfg, sets)


def test_held_files_count_in_transient_space_and_are_all_freed():
    sim = Simulation(_large_files_config())
    res = sim.run()
    s, ts = res.summary, res.timeseries
    assert s["completed"]
    assert s["obsolete_bytes_peak"] > 0.02 * s["logical_bytes"]  # files 2% of the data, several held at once
    assert (ts.transient_bytes >= ts.obsolete_bytes).all() and ts.obsolete_bytes.max() > 0
    assert s["physical_bytes_peak"] >= ts.physical_bytes.max()
    assert s["space_amp_peak"] * s["logical_bytes"] == pytest.approx(s["physical_bytes_peak"])
    # the mean over time: the timeseries samples it every 20 ms (a sample's value holds until the next step)
    assert 0 < s["obsolete_bytes_mean"] < s["obsolete_bytes_peak"]
    assert s["obsolete_bytes_mean"] == pytest.approx(ts.obsolete_bytes.mean(), rel=0.15)
    # drained: nothing is held any more, and the device keeps exactly the tree's table files
    assert not sim.jobs and (sim.obsolete.bytes, sim.obsolete.count) == (0, 0)
    on_device = {i for i in sim.device._chunks if i >= 0}  # negative ids are WALs
    assert on_device == {f.id for lvl in sim.tree.levels for r in lvl.runs for f in r.files}
