"""The WAL through the page cache (sim/wal.py): what reaches the drive, and that no writer waits for it."""

from __future__ import annotations

import pytest

import lsmsim
from lsmsim.sim.wal import written_back_share
from tests.conftest import small_config

SLOW = {"model": "simple", "write_bandwidth": "8MB/s", "read_bandwidth": "16MB/s"}


def test_written_back_share_closed_forms():
    # deleted before the flusher's first pass (expire 30 s + half its 5 s period): nothing reaches the drive
    assert written_back_share(0.0, 10.0, 32.4, 30.0, 5.0) == 0.0
    # appends ended before the first pass: all of them
    assert written_back_share(0.0, 10.0, 32.5, 30.0, 5.0) == 1.0
    # appended over 100 s, deleted at 101 s: passes at 32.5, 65 and 97.5 s took the first 97.5 s of appends
    assert written_back_share(0.0, 100.0, 101.0, 30.0, 5.0) == pytest.approx(0.975)
    assert written_back_share(5.0, 5.0, 5.0, 0.0, 0.0) == 1.0  # no expiry: written at once


def _run(**lsm):
    machine = lsm.pop("machine", {})
    cfg = small_config(lsm=lsm, machine={"cpu": {"wal_append": 0.0}, **machine}, device=SLOW)
    return lsmsim.run(cfg).summary


@pytest.mark.parametrize(
    "lsm, share",
    [
        ({}, (0.0, 0.0)),  # the default: every WAL is deleted within seconds, before the flusher's first pass
        ({"wal_bytes_per_sync": "1MiB"}, (1.0, 1.0)),  # the writer's range syncs send every byte
        ({"wal_sync": True}, (1.0, 1.0)),
        ({"machine": {"dirty_expire": 0.0, "dirty_writeback": 0.0}}, (0.5, 1.0)),  # all deleted WALs' bytes
    ],
)
def test_the_drive_writes_the_wal_bytes_that_are_written_back(lsm, share):
    s = _run(**lsm)
    assert s["wal_bytes"] > 0
    assert share[0] <= s["wal_device_bytes"] / s["wal_bytes"] <= share[1]
    assert s["device_host_write_bytes"] == pytest.approx(
        s["flush_bytes"] + s["compaction_write_bytes"] + s["wal_device_bytes"]
    )


def test_a_writer_does_not_wait_for_the_unsynced_wal():
    """On a slow drive a write's WAL bytes are not its device time: without a writeback (the default) the run is the
    WAL-less run; when the writer's range syncs send the WAL to the drive, it takes the drive's time from flushes
    and compactions, and the writers (held by them) slow."""
    off, on = _run(wal=False), _run()
    assert on["throughput_ops_per_s"] == pytest.approx(off["throughput_ops_per_s"], rel=1e-9)
    assert on["wal_device_bytes"] == 0.0
    synced = _run(wal_bytes_per_sync="1MiB")
    assert synced["throughput_ops_per_s"] < 0.97 * on["throughput_ops_per_s"]


def test_manual_wal_flush_pays_the_buffered_records_cpu():
    from lsmsim.config import CpuCostConfig, LsmConfig
    from lsmsim.lsm.costs import BUFFERED_WAL_SHARE, wal_cpu

    cpu = CpuCostConfig(wal_append=2e-6)
    assert wal_cpu(cpu, LsmConfig()) == 2e-6
    assert wal_cpu(cpu, LsmConfig(wal=False, manual_wal_flush=True)) == 0.0
    assert wal_cpu(cpu, LsmConfig(manual_wal_flush=True)) == pytest.approx(BUFFERED_WAL_SHARE * 2e-6)
    measured = CpuCostConfig(wal_append=2e-6, wal_append_buffered=0.5e-6)
    assert wal_cpu(measured, LsmConfig(manual_wal_flush=True)) == 0.5e-6
    # a CPU-bound fill runs faster by the CPU it saves
    base = {"cpu": {"wal_append": 2e-6, "wal_append_buffered": 0.5e-6}}
    plain = lsmsim.run(small_config(machine=base)).summary
    buffered = lsmsim.run(small_config(machine=base, lsm={"manual_wal_flush": True})).summary
    assert buffered["throughput_ops_per_s"] > 1.05 * plain["throughput_ops_per_s"]


def test_db_bench_and_options_files_carry_the_wal_options():
    from lsmsim.config import Config
    from lsmsim.formats.dbbench_args import dbbench_config
    from lsmsim.formats.options_file import from_config

    cfg, unsupported = dbbench_config("--benchmarks=fillrandom --manual_wal_flush --wal_bytes_per_sync=1048576")
    assert cfg["lsm"]["manual_wal_flush"] is True and cfg["lsm"]["wal_bytes_per_sync"] == 1048576
    assert not [u for u in unsupported if "wal" in u[0]]
    text = from_config(Config.model_validate(cfg))
    assert "manual_wal_flush=true" in text and "wal_bytes_per_sync=1048576" in text
