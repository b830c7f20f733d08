"""RocksDB OPTIONS files in and out (lsmsim/formats/options_file.py, `lsmsim import` / `lsmsim export`), with
Debian's db_bench as the referee: its own OPTIONS files are imported, and the exported ones load in it."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import lsmsim
from lsmsim.errors import ConfigError
from lsmsim.formats.options_file import from_config, parse_options, read_options, to_config

needs_db_bench = pytest.mark.skipif(shutil.which("db_bench") is None, reason="db_bench (rocksdb-tools) not installed")


def cli(*args):
    return subprocess.run([sys.executable, "-m", "lsmsim.cli", *args], capture_output=True, text=True, timeout=300)


def db_bench(db: Path, *flags: str) -> subprocess.CompletedProcess:
    r = subprocess.run(
        ["db_bench", "--benchmarks=fillrandom", "--num=20000", f"--db={db}", "--compression_type=none", *flags],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return r


def options_of(db: Path) -> Path:
    return max(db.glob("OPTIONS-*"))


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """db_bench's own OPTIONS files: leveled with non-default options, and universal."""
    root = tmp_path_factory.mktemp("options")
    if shutil.which("db_bench") is None:
        pytest.skip("db_bench (rocksdb-tools) not installed")
    db_bench(
        root / "leveled",
        "--write_buffer_size=1048576",
        "--max_bytes_for_level_base=4194304",
        "--target_file_size_base=524288",
        "--bloom_bits=10",
        "--block_size=8192",
        "--max_background_jobs=4",
        "--cache_index_and_filter_blocks=true",
        "--level0_file_num_compaction_trigger=2",
        "--compaction_pri=2",  # kOldestSmallestSeqFirst (CompactionPri: 0 kByCompensatedSize .. 4 kRoundRobin)
    )
    db_bench(root / "universal", "--compaction_style=1", "--universal_size_ratio=5", "--write_buffer_size=2097152")
    return root


def test_db_bench_options_map_onto_a_config(real):
    cfg, rep = to_config(read_options(options_of(real / "leveled")))
    c = lsmsim.load_config(cfg)
    assert c.lsm.write_buffer_size == 1 << 20 and c.lsm.block_size == 8192 and c.lsm.bloom_bits_per_key == 10
    assert c.lsm.cache_index_and_filter_blocks
    assert c.policy.name == "leveled" and c.policy.max_bytes_for_level_base == 4 << 20
    assert c.policy.target_file_size_base == 512 << 10 and c.policy.level0_file_num_compaction_trigger == 2
    assert c.policy.compaction_pri == "oldest_smallest_seq_first"
    # DBImpl::GetBGJobLimits: a quarter of max_background_jobs flushes
    assert (c.machine.threads.flush, c.machine.threads.compaction) == (1, 3)
    assert len(rep.mapped) >= 20 and len(rep.ignored) > 100 and rep.unsupported == []
    cfg, _ = to_config(read_options(options_of(real / "universal")))
    c = lsmsim.load_config(cfg)
    assert c.policy.name == "universal" and c.policy.size_ratio == 5 and c.lsm.write_buffer_size == 2 << 20


@needs_db_bench
def test_round_trip_through_db_bench(real, tmp_path):
    """db_bench's OPTIONS -> lsmsim import -> run -> lsmsim export -> db_bench --options_file runs with it, and
    the OPTIONS file db_bench then writes imports to the same config."""
    for kind in ("leveled", "universal"):
        conf = tmp_path / f"{kind}.yaml"
        r = cli("import", str(options_of(real / kind)), "-o", str(conf))
        assert r.returncode == 0, r.stderr
        # issue 37, finding 9: without -v the report is its counts, so a warning is not buried under ~150 names
        assert "ignored, 0 unsupported" in r.stdout and "paranoid_checks" not in r.stdout and len(r.stdout) < 500
        r = cli("import", str(options_of(real / kind)), "-o", str(conf), "-v")
        assert 'mapped       [CFOptions "default"] write_buffer_size' in r.stdout
        assert "ignored      " in r.stdout and "paranoid_checks" in r.stdout  # with -v each ignored option named
        r = cli("run", str(conf), "--set", "workload.num=20000", "-q")
        assert r.returncode == 0 and "compactions" in r.stdout, r.stderr
        exported = tmp_path / f"{kind}.ini"
        r = cli("export", str(conf), "-o", str(exported))
        assert r.returncode == 0 and "--cache_size=" in r.stderr, r.stderr  # OPTIONS files hold no cache size
        out = db_bench(tmp_path / f"again-{kind}", f"--options_file={exported}")
        assert "Initializing RocksDB Options from the specified file" in out.stdout + out.stderr
        first = yaml.safe_load(conf.read_text())
        again, _ = to_config(read_options(options_of(tmp_path / f"again-{kind}")))
        for section in ("lsm", "machine", "policy"):
            assert again[section] == first[section], section


def test_export_then_import_is_the_identity():
    base = {"workload": {"preset": "fillrandom", "num": 1000}}
    cases = [
        {
            "lsm": {"write_buffer_size": "8MiB", "block_size": "16KiB", "bloom_bits_per_key": 7.5, "wal": True},
            "machine": {"threads": {"flush": 2, "compaction": 5}},
            "policy": {
                "name": "leveled",
                "num_levels": 5,
                "compaction_pri": "oldest_largest_seq_first",
                "level_compaction_dynamic_level_bytes": True,
                "max_bytes_for_level_multiplier": 8,
            },
        },
        {
            "policy": {
                "name": "universal",
                "size_ratio": 3,
                "max_size_amplification_percent": 150,
                "target_file_size": "32MiB",
            }
        },
    ]
    for case in cases:
        c = lsmsim.load_config({**base, **case})
        back, rep = to_config(parse_options(from_config(c)), base["workload"])
        c2 = lsmsim.load_config(back)
        assert c2.policy == c.policy and c2.machine.threads == c.machine.threads
        for k in ("write_buffer_size", "block_size", "bloom_bits_per_key", "cache_index_and_filter_blocks"):
            assert getattr(c2.lsm, k) == getattr(c.lsm, k), k
        assert rep.unsupported == []


def test_options_lsmsim_does_not_model_are_warned_about(tmp_path):
    text = (
        "[Version]\n  rocksdb_version=7.8.3\n[DBOptions]\n  max_subcompactions=4\n"
        '[CFOptions "default"]\n  compression=kSnappyCompression\n  write_buffer_size=4194304\n'
        '[TableOptions/BlockBasedTable "default"]\n  block_size=4096\n'
    )
    f = tmp_path / "OPTIONS-000001"
    f.write_text(text)
    r = cli("import", str(f))
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert "compression = kSnappyCompression" in r.stderr and "max_subcompactions = 4" in r.stderr
    assert "write_buffer_size: 4194304" in r.stdout


@pytest.mark.parametrize(
    "text, where",
    [
        (
            '[Version]\n  rocksdb_version=7.8.3\n[CFOptions "default"]\n  compaction_style=kCompactionStyleFIFO\n',
            "compaction_style",
        ),
        ('[Version]\n[CFOptions "default"]\n  write_buffer_size=lots\n', "write_buffer_size"),
        ("[Version]\nthis is not an option\n", "line 2"),
        ("just text\n", "line 1"),
        ("[DBOptions]\n  max_open_files=-1\n", "needs [Version]"),
        ('[Version]\n[CFOptions "default"]\n  compaction_pri=kSomethingElse\n', "compaction_pri"),
    ],
)
def test_bad_options_files_are_one_line_errors(tmp_path, text, where):
    f = tmp_path / "OPTIONS-000009"
    f.write_text(text)
    with pytest.raises(ConfigError, match="OPTIONS-000009") as e:
        to_config(read_options(f))
    assert where in str(e.value)
    r = cli("import", str(f))
    assert r.returncode == 2 and "Traceback" not in r.stderr and where in r.stderr


def test_export_refuses_a_policy_rocksdb_does_not_have(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(yaml.safe_dump({"policy": {"name": "tiering"}, "workload": {"preset": "fillrandom"}}))
    r = cli("export", str(f))
    assert r.returncode == 2 and "policy.name" in r.stderr and "Traceback" not in r.stderr
    r = cli("import", str(tmp_path / "missing"))
    assert r.returncode == 2 and "No such file" in r.stderr


def test_import_to_stdout_is_yaml_alone(tmp_path):
    """`lsmsim import X > c.yaml`: the report goes to stderr, so the redirected file is the config."""
    opts = tmp_path / "OPTIONS"
    opts.write_text(from_config(lsmsim.load_config({"workload": {"preset": "fillrandom", "num": 1000}})))
    r = cli("import", str(opts))
    assert r.returncode == 0, r.stderr
    assert lsmsim.load_config(yaml.safe_load(r.stdout)).lsm.write_buffer_size == 64 << 20
    assert "mapped," in r.stderr
