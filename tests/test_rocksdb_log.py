"""RocksDB's LOG written for a simulated run (lsmsim/formats/log_format.py): read back by the same parsers that read
db_bench's real LOGs (lsmsim/validation/dbbench.py), and laid out as Debian's RocksDB 7.8.3 lays out its own."""

import json
import shutil
import subprocess
import sys

import pytest
import yaml

import lsmsim
from lsmsim.formats.log_format import HEADER, bytes_human, number_human, write_log
from lsmsim.validation.dbbench import parse_log, parse_stdout
from tests.conftest import small_config


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("simlog")
    r = lsmsim.run(small_config(), out=out / "run")
    return r, out / "run" / "LOG"


def events(text: str) -> list[dict]:
    return [json.loads(line.split("EVENT_LOG_v1 ", 1)[1]) for line in text.splitlines() if "EVENT_LOG_v1 " in line]


def test_the_log_parsers_read_the_simulated_run(run):
    r, log = run
    text = log.read_text()
    parsed = parse_log(text)
    s = r.summary
    assert (len(parsed["flushes"]), len(parsed["compactions"]), len(parsed["trivial_moves"])) == (
        s["flushes"],
        s["compactions"],
        s["trivial_moves"],
    )
    c = r.compactions
    work = c[c.kind == "compaction"]
    assert sum(x["input_records"] for x in parsed["compactions"]) == work.input_entries.sum()
    assert sum(x["bytes"] for x in parsed["compactions"]) == work.write_bytes.sum()
    assert sum(x["bytes"] for x in parsed["flushes"]) == s["flush_bytes"]
    assert parsed["level_files"] == {i: s[f"files_L{i}"] for i in parsed["level_files"]}
    _, _, levels, _ = parse_stdout(text)  # the last Compaction Stats block: the end of the run
    assert levels["Sum"]["Comp(cnt)"] == s["flushes"] + s["compactions"]
    assert levels["L0"]["W-Amp"] == 1.0 and levels["Sum"]["W-Amp"] == pytest.approx(s["write_amp_rocksdb"], abs=0.06)
    for i in parsed["level_files"]:
        assert levels[f"L{i}"]["Files"] == s[f"files_L{i}"]


def test_stats_are_dumped_every_period(tmp_path):
    r = lsmsim.run(small_config())
    write_log(r, tmp_path / "LOG", period=0.1)
    text = (tmp_path / "LOG").read_text()
    dumps = text.count("** Compaction Stats [default] **")
    assert dumps == int(r.summary["sim_time_s"] / 0.1) + 1
    uptimes = [float(line.split()[1]) for line in text.splitlines() if line.startswith("Uptime(secs):")]
    assert uptimes == sorted(uptimes) and len(uptimes) == dumps


def test_human_numbers_as_rocksdb_prints_them():
    assert (
        bytes_human(0) == "0.00 KB" and bytes_human(1.61 * 2**20) == "1.61 MB" and bytes_human(3 * 2**30) == "3.00 GB"
    )
    assert number_human(8744) == "8744" and number_human(335_000) == "335K" and number_human(12_000_000) == "12M"


@pytest.mark.skipif(shutil.which("db_bench") is None, reason="db_bench (rocksdb-tools) not installed")
def test_layout_matches_a_log_written_by_rocksdb(run, tmp_path):
    """Against a LOG written by Debian's RocksDB 7.8.3 (db_bench): the same Compaction Stats header, and every
    field of every simulated event is one RocksDB writes for that event."""
    db = tmp_path / "db"
    out = subprocess.run(
        [
            "db_bench",
            "--benchmarks=fillrandom,stats",
            "--num=100000",
            f"--db={db}",
            "--compression_type=none",
            "--write_buffer_size=262144",
            "--max_bytes_for_level_base=1048576",
            "--target_file_size_base=262144",
            "--stats_dump_period_sec=1",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    real = (db / "LOG").read_text()
    # the same DumpCFMapStats table: in the LOG's dumps, and printed by db_bench's `stats` benchmark (whose output
    # does not depend on when the periodic dump first runs)
    assert HEADER in real.splitlines() + out.stdout.splitlines()
    real_fields: dict[str, set] = {}
    for ev in events(real):
        real_fields.setdefault(ev["event"], set()).update(ev)
    sim = events(run[1].read_text())
    kinds = {ev["event"] for ev in sim}
    assert {
        "flush_started",
        "flush_finished",
        "compaction_started",
        "compaction_finished",
        "table_file_creation",
        "table_file_deletion",
    } <= kinds
    for ev in sim:
        if ev["event"] in real_fields:
            extra = set(ev) - real_fields[ev["event"]] - {f for f in ev if f.startswith("files_L")}
            assert not extra, (ev["event"], extra)
    reasons = {ev["compaction_reason"] for ev in sim if ev["event"] == "compaction_started"}
    real_reasons = {ev["compaction_reason"] for ev in events(real) if ev["event"] == "compaction_started"}
    assert reasons <= real_reasons | {"LevelMaxLevelSize"}, reasons


def test_run_out_writes_the_log(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(small_config()))
    r = subprocess.run(
        [sys.executable, "-m", "lsmsim.cli", "run", str(cfg), "-o", str(tmp_path / "out"), "-q"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "LOG" in r.stdout and (tmp_path / "out" / "LOG").stat().st_size > 1000
