"""The controller stage reads' and programs' data share (lsmsim/ssd/stages.py): its rates cap pure reads and pure
writes, a mix it limits splits it in the harmonic proportion (R / Rs + W / Ws = 1), a read at depth 1 crosses it
once, the configuration maps to it, and the kernel matches itself run as plain Python."""

from dataclasses import replace

import numpy as np
import pytest

from lsmsim.devices.ssd import SSDOptions, drive_model
from lsmsim.ssd import drive_sim as ds
from lsmsim.ssd.timing import Job, fio_job
from tests.test_ssd_drive_sim_heap import plain_python
from tests.test_ssd_timing import quiet

KIB128 = 131072.0
RS, WS = 1.2e9, 0.8e9  # the stage's rates, below everything else's
# fast units and links: the stage is the only limit (flash reads 20 us on 16 units: 13 GB/s of 128 KiB reads;
# programs 4 GB/s over the units)
FAST = dict(
    units=16,
    read_flash_time=20e-6,
    read_stream_bandwidth=4e9,
    page=KIB128,
    read_bandwidth=7e9,
    read_overhead=10e-6,
    write_stream_bandwidth=7e9,
    write_iops=1e6,
    write_bandwidth=4e9,
    program_time=500e-6,
    write_buffer=64e6,
)
STAGE = quiet(**FAST, shared_read_bandwidth=RS, shared_write_bandwidth=WS)


def test_the_stage_caps_pure_reads_and_pure_writes():
    r = fio_job(STAGE, Job(KIB128, KIB128, 1.0, 64), 20000)
    assert r.bandwidth["read"] == pytest.approx(RS, rel=0.01)
    w = fio_job(STAGE, Job(KIB128, KIB128, 0.0, 64, runtime=1e6), 20000)  # long: the buffer full, writes throttled
    assert w.bandwidth["write"] == pytest.approx(WS, rel=0.02)
    without = fio_job(quiet(**FAST), Job(KIB128, KIB128, 1.0, 64), 20000)
    assert without.bandwidth["read"] > 3 * RS  # the units alone carry far more: the stage is what capped them


@pytest.mark.parametrize("read_share", [0.5, 0.7])
def test_a_mix_splits_the_stage_in_the_harmonic_proportion(read_share):
    """Both directions through one FCFS server: its busy share R / Rs + W / Ws is 1 when it is the bottleneck,
    where separate limits would let the mix move R = Rs and W = Ws at once."""
    r = fio_job(STAGE, Job(KIB128, KIB128, read_share, 64, runtime=1e6), 20000)
    busy = r.bandwidth["read"] / RS + r.bandwidth["write"] / WS
    assert busy == pytest.approx(1.0, abs=0.03)
    assert r.bandwidth["read"] / r.bandwidth["write"] == pytest.approx(read_share / (1 - read_share), rel=0.05)


def test_a_lone_read_crosses_the_stage_once_and_the_kernel_sees_its_rates():
    r = fio_job(STAGE, Job(KIB128, KIB128, 1.0, 1), 2000)
    assert r.mean["read"] == pytest.approx(STAGE.read_latency_alone(KIB128), rel=1e-9)
    assert STAGE.read_latency_alone(KIB128) - quiet(**FAST).read_latency_alone(KIB128) == pytest.approx(KIB128 / RS)
    assert STAGE.sequential_read_bandwidth == RS and STAGE.program_rate == WS
    assert STAGE.seconds(RS, WS, 0.0) == pytest.approx(2.0)  # the LSM kernel's device seconds: the stage's busy time


def test_the_device_section_maps_to_the_stage():
    base = dict(model="ssd", read={"latency": "80us", "stream_bandwidth": "400MB/s", "bandwidth": "3GB/s"})
    cfg = SSDOptions.model_validate(
        {
            **base,
            "read": {**base["read"], "flash_time": "50us", "shared_bandwidth": "1.3GB/s"},
            "write": {
                "latency": "20us",
                "stream_bandwidth": "2GB/s",
                "bandwidth": "1GB/s",
                "shared_bandwidth": "0.9GB/s",
            },
        }
    )
    m = drive_model(cfg)
    assert (m.shared_read_bandwidth, m.shared_write_bandwidth) == (1.3e9, 0.9e9)
    assert m.read_latency_alone(4096) == pytest.approx(80e-6)  # the overhead leaves room for the stage
    write = {"latency": "20us", "stream_bandwidth": "2GB/s", "bandwidth": "1GB/s"}
    plain = drive_model(
        SSDOptions.model_validate({**base, "read": {**base["read"], "flash_time": "50us"}, "write": write})
    )
    assert plain.shared_read_bandwidth == 0.0 and plain.params()[ds.P_SHARED_R] == 0.0


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the keyed draws' uint64 hash, by design
def test_the_kernel_matches_plain_python(monkeypatch):
    """A mix with programs waiting on the stage and reads crossing it (a small buffer: programs all the time)."""
    m = replace(STAGE, read_sigma=0.1, write_sigma=0.2, read_retry_fraction=0.01)
    params = m.params(buffer_full=True, buffer=4 * m.units * m.program_bytes)
    job = (KIB128, KIB128, 0.5, 16, 1, 3000, 300, 3, False)
    d, lat, win, prog = ds.simulate(params, *job)
    d_py, lat_py, win_py, prog_py = plain_python(monkeypatch)(params, *job)
    assert np.array_equal(d, d_py) and np.allclose(lat, lat_py, rtol=1e-12, atol=0.0)
    assert prog == pytest.approx(prog_py, rel=1e-12) and prog > 0
