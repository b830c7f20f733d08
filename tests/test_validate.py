"""lsmsim validate: real RocksDB and the simulator side by side, and the policy driver that runs a
lsmsim policy on a real DB through CompactFiles."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lsmsim.errors import LsmsimError
from lsmsim.loading import load_config
from tests.conftest import LARGE_FILES_POLICY

rocksdb = pytest.importorskip("lsmsim.rocksdb")
try:
    rocksdb.lib.load()
except rocksdb.LibraryNotFoundError:  # pragma: no cover - set-up installs librocksdb-dev
    pytest.skip("librocksdb is not installed", allow_module_level=True)

from lsmsim.validation.validate import validate  # noqa: E402

pytestmark = pytest.mark.serial  # real RocksDB: its compactions' timing moves with a busy CPU

BASE = {
    "name": "v",
    "seed": 1,
    "machine": {"cores": 2, "threads": {"flush": 1, "compaction": 1}},
    "lsm": {"write_buffer_size": "1MiB", "bloom_bits_per_key": 10},
    "workload": {"preset": "fillrandom", "num": "200K", "key_size": "16B", "value_size": "100B"},
}


EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def cfg(**over):
    return {**BASE, **over}


def row(table, metric):
    return table.set_index("metric").loc[metric]


def test_leveled_agrees_with_rocksdb(tmp_path):
    v = validate(
        cfg(policy={"name": "leveled", "max_bytes_for_level_base": "4MiB", "target_file_size_base": "1MiB"}),
        out=tmp_path / "out",
        db_dir=tmp_path,
    )
    t = v.table
    assert row(t, "flushes").real == row(t, "flushes").sim
    assert row(t, "flush_bytes").rel_err == pytest.approx(0, abs=0.03)
    assert row(t, "write_amp").real > 2.0
    assert abs(row(t, "write_amp").rel_err) < 0.25  # see the closing note: the sim compacts more at L1->L2
    assert abs(row(t, "compactions").sim - row(t, "compactions").real) <= 0.3 * row(t, "compactions").real
    for f in ("comparison.parquet", "runs.png", "real/timeseries.parquet", "sim/summary.json"):
        assert (tmp_path / "out" / f).exists(), f
    assert not list(tmp_path.glob("lsmsim-validate-*"))  # the real DB is removed


def test_universal_agrees_with_rocksdb(tmp_path):
    v = validate(cfg(policy={"name": "universal"}), db_dir=tmp_path)
    t = v.table
    assert abs(row(t, "write_amp").rel_err) < 0.05
    assert row(t, "compactions").real == row(t, "compactions").sim
    assert row(t, "sorted_runs_end").real == row(t, "sorted_runs_end").sim


def _at_cpu_speed(config, speed: float):
    data = config.model_dump(mode="json")
    data["machine"]["cpu_speed"] = speed
    return load_config(data, [])


def test_large_files_hold_space_as_rocksdb_does(tmp_path):
    """Spooky Fig. 15(A)'s setting, scaled: T = 5 leveling, files 1.6% of the data, 15 compaction threads. Real
    RocksDB keeps the inputs of finished compactions while a running job's version holds them; the simulator
    does too (sim/versions.py): both peaks agree. Deleting inputs at once, as lsmsim did before, gives 0.

    How much is held grows with how long compactions run, and on this VM they run far longer than the machine
    preset says: its speed moves from day to day (`lsmsim calibrate --check`) and the Python client takes a
    core of two. So the peaks are compared where the simulator's compactions last as long as the real ones
    (the CPU speed found for it), and the simulator runs on this host's 2 cores."""
    from lsmsim.api import run
    from lsmsim.validation.validate import at_real_rate

    phases = [
        {"name": "fill", "operations": "120K", "mix": {"insert": 1.0}, "keys": {"distribution": "shuffled"}},
        {"name": "update", "operations": "120K", "mix": {"update": 1.0}},
    ]
    c = cfg(
        machine={"cores": 2, "threads": {"flush": 1, "compaction": 15}},
        lsm={"write_buffer_size": "64KiB"},
        policy=LARGE_FILES_POLICY,
        workload={"num": "120K", "key_size": "16B", "value_size": "512B", "phases": phases},
    )
    v = validate(c, db_dir=tmp_path)
    held, took = row(v.table, "obsolete_bytes_peak"), row(v.table, "compaction_time_mean_s")
    assert held.real > 0.02 * 120_000 * 528  # more than a file's worth held at once
    assert held.sim > 0.02 * 120_000 * 528

    # The CPU speed at which the simulated compactions take the real mean time: the time grows faster than
    # 1/speed once 16 jobs queue for 2 cores (from the preset's speed to the match, time ~ speed^-1.17; near the
    # match ~ speed^-2.5), hence the first step's and the later steps' exponents. Then five runs around it.
    base = at_real_rate(load_config(c, []), v.real)
    speed, near = (took.sim / took.real) ** 0.86, []
    for _ in range(8):
        s = run(_at_cpu_speed(base, speed)).summary
        ratio = s["compaction_latency_mean_s"] / took.real
        if abs(ratio - 1) < 0.1:
            near.append(s)
            speed *= 1 + 0.03 * (-1) ** len(near)
        else:
            speed *= ratio**0.4
        if len(near) == 5:
            break
    assert len(near) == 5, "no CPU speed gives the simulator the real compactions' mean time"
    sim_held = float(np.median([s["obsolete_bytes_peak"] for s in near]))
    sim_physical = float(np.median([s["physical_bytes_peak"] for s in near]))
    # Both peaks are of a timing-dependent process. Recorded on this host (AMD EPYC x 2, 2026-11-29), the median
    # of such runs against the real peak: 1.04-1.47 over 4 real runs (real 6.1-7.9 MB, single simulated runs
    # 6.7-14.9 MB); the real peak over 16 runs 6.1-11.0 MB.
    assert 0.5 < sim_held / held.real < 2.0, (sim_held, held.real)
    assert abs(sim_physical / row(v.table, "physical_bytes_peak").real - 1) < 0.15
    # Not asserted, a gap not yet explained: the held bytes averaged over the run (obsolete_bytes_mean) are
    # 0.71-0.82 MB real against 0.22-0.41 MB simulated. Candidates, not yet told apart by experiment: what is
    # matched (COMPACTION_TIME) leaves out a job's time before and after its key-value work, which holds its
    # version too; flushes hold versions too, and take 3-4 ms real here against 0.43 ms simulated (the fixed costs
    # of cpu.flush_per_job and device.sync_per_*, 0 in the committed presets).


def test_table_overhead_of_spooky_entries(tmp_path):
    """Spooky's entries (16 B keys, 512 B values) take 12 B of table overhead each on RocksDB (seqno and type,
    length varints, index and filter shares less shared key prefixes): the `lsm.entry_overhead` that
    experiments/spooky/fig14d.yaml and fig15.yaml set, where the room on the device decides the outcome."""
    import yaml

    from lsmsim.rocksdb import Options, RocksDB
    from lsmsim.validation.validate import _Keys

    setups = [yaml.safe_load((EXPERIMENTS / "spooky" / f).read_text()) for f in ("fig14d.yaml", "fig15.yaml")]
    keys, n = _Keys(16, 512, 1), 40_000
    opts = Options(write_buffer_size=64 << 20, compression="none", bloom_bits_per_key=10.0, disable_wal=True)
    with RocksDB.open(str(tmp_path / "db"), opts) as db:
        for k in np.random.default_rng(1).permutation(n).tolist():
            db.put(keys.key(k), keys.value(k))
        db.flush(wait=True)
        per_entry = sum(f.size for f in db.live_files()) / n
    for setup in setups:
        assert (setup["workload"]["key_size"], setup["workload"]["value_size"]) == ("16B", "512B")
        assert per_entry - 528 == pytest.approx(setup["lsm"]["entry_overhead"], abs=0.5)


def test_tiering_runs_on_rocksdb_through_the_driver(tmp_path):
    """The lsmsim tiering picker, executed by CompactFiles on a real DB: the same compactions and
    write-amp as the simulator (tiering's write-amp is the number of levels a key passes)."""
    v = validate(cfg(policy={"name": "tiering", "size_ratio": 3}), db_dir=tmp_path)
    t = v.table
    assert v.real.summary["driver_compactions"] == row(t, "compactions").real > 3
    assert row(t, "compactions").real == row(t, "compactions").sim
    assert abs(row(t, "write_amp").rel_err) < 0.05
    assert row(t, "sorted_runs_end").real == row(t, "sorted_runs_end").sim


def test_full_leveling_runs_on_rocksdb_through_the_driver(tmp_path):
    """Whole-level merges with preemption; the driver runs each merge at once while the simulator's
    overlaps the next flushes, so a merge can fall on the other side of a flush (one more or less)."""
    v = validate(cfg(policy={"name": "full_leveling", "size_ratio": 4}), db_dir=tmp_path)
    t = v.table
    assert row(t, "compactions").real > 10
    assert abs(row(t, "compactions").real - row(t, "compactions").sim) <= 1
    assert abs(row(t, "write_amp").rel_err) < 0.05


def test_driver_keeps_newest_versions_readable(tmp_path):
    """Bands put newer runs above older ones: after many overwrites through tiering merges,
    every key reads its newest value from the real DB."""
    from lsmsim.rocksdb import Options, RocksDB
    from lsmsim.rocksdb.driver import PolicyDriver

    c = load_config(cfg(policy={"name": "tiering", "size_ratio": 3}, lsm={"write_buffer_size": "256KiB"}))
    drv = PolicyDriver(c)
    with RocksDB.open(str(tmp_path / "db"), drv.options(Options(write_buffer_size=256 << 10))) as db:
        for version in range(6):
            for k in range(3000):
                db.put(b"key%06d" % k + b"\0" * 7, b"v%d-" % version + b"x" * 100)
            db.flush()
            drv.poll(db)
        assert drv.stats.compactions >= 2
        levels = [f.level for f in db.live_files()]
        assert max(levels) > 1
        for k in range(0, 3000, 37):
            assert db.get(b"key%06d" % k + b"\0" * 7).startswith(b"v5-")
    mirror = sorted(f.id for f in drv.tree.files())
    assert mirror == sorted(drv.known)


def test_unsupported_policies_are_refused_before_running(tmp_path):
    with pytest.raises(LsmsimError, match="driver supports tiering"):
        validate(cfg(policy={"name": "ecotune"}), db_dir=tmp_path)
    f = tmp_path / "bad.yaml"
    f.write_text("workload: {num: 10K, phases: [{name: p, duration: 1s, mix: {insert: 1}}]}\n")
    r = subprocess.run([sys.executable, "-m", "lsmsim.cli", "validate", str(f)], capture_output=True, text=True)
    assert r.returncode == 2 and "operation count" in r.stderr and "Traceback" not in r.stderr


def test_a_static_shape_is_refused_by_validate(tmp_path):
    """validate starts RocksDB empty: a config with lsm.initial_tree is refused, naming the field."""
    from tests.test_ecotune_shapes import shape_config

    with pytest.raises(LsmsimError, match="lsm.initial_tree"):
        validate(load_config(shape_config()), db_dir=tmp_path)


def test_real_scans_draw_their_lengths_from_the_phase(tmp_path, monkeypatch):
    """With phase.scan_lengths each real long scan reads its own length, drawn from the distribution the simulator
    uses: the lengths RocksDB's iterator is asked for span the range and average its mean."""
    from lsmsim.rocksdb import RocksDB
    from lsmsim.validation.validate import run_real

    asked = []
    scan = RocksDB.scan
    monkeypatch.setattr(RocksDB, "scan", lambda self, start=None, n=100: asked.append(n) or scan(self, start, n))
    phases = [
        {"name": "load", "operations": 20_000, "mix": {"insert": 1.0}, "keys": {"distribution": "shuffled"}},
        {
            "name": "scans",
            "operations": 2_000,
            "mix": {"long_scan": 1.0},
            "scan_lengths": {"distribution": "uniform", "min": 1, "max": 40},
        },
    ]
    c = load_config(cfg(workload={"num": "20K", "key_size": "16B", "value_size": "100B", "phases": phases}))
    run_real(c, db_dir=tmp_path)
    assert len(asked) == 2_000 and min(asked) == 1 and max(asked) == 40
    assert sum(asked) / len(asked) == pytest.approx(20.5, rel=0.05)  # 4 standard errors of the mean: 11.5 / sqrt(2000)


def test_validate_says_what_it_writes_and_refuses_more_than_the_disk(tmp_path):
    """Issue 37, finding 10: validate on a 1 TB config wrote 45 GB to /tmp before it was killed, and a missing
    --db-dir printed a raw errno. Both are refused now before RocksDB opens."""
    path = tmp_path / "c.yaml"
    path.write_text(str(cfg()).replace("'", '"'))

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "lsmsim.cli", "validate", str(path), *args],
                              capture_output=True, text=True, timeout=300)  # fmt: skip

    r = cli("--db-dir", str(tmp_path / "missing"))
    assert r.returncode == 2 and "no such folder" in r.stderr and "Errno" not in r.stderr
    r = cli("--set", "workload.num=100G", "--db-dir", str(tmp_path))
    assert r.returncode == 2 and "more than the" in r.stderr and "GiB free" in r.stderr
    assert not list(tmp_path.glob("lsmsim-validate-*"))  # nothing written
