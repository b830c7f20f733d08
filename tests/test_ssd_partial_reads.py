"""Partial-page reads: a read of one 4 KiB mapping unit alone takes `partial_read_time` on the flash, any larger
chunk a whole page's `read_flash_time` (the 980 PRO at depth 1: 60 us for 512 B-4 KiB, 110-119 us for 8-16 KiB).
Closed forms at depth 1 and with every unit busy, the off switch, the profile's round trip and the fit's opt-in."""

from dataclasses import replace

import pytest

from lsmsim.ssd.calibrate import fit
from lsmsim.ssd.timing import DriveModel, Job, fio_job
from tests.test_ssd_timing import JOBS, KIB4, _synthetic, quiet

PARTIAL = dict(read_flash_time=100e-6, partial_read_time=45e-6)


def _alone(m: DriveModel, size: float, flash: float) -> float:
    """One read at depth 1 without spread: host, overhead, the flash read, its transfer, the link."""
    chunk = min(size, m.page)
    return m.host_per_io + m.read_overhead + flash + chunk / m.read_stream_bandwidth + size / m.read_bandwidth


@pytest.mark.parametrize("size, partial", [(512.0, True), (KIB4, True), (8192.0, False), (16384.0, False)])
def test_depth_one_reads_take_the_partial_read_only_within_one_4k_unit(size, partial):
    m = quiet(**PARTIAL)
    r = fio_job(m, Job(size, size, 1.0, 1), 3000)
    want = _alone(m, max(size, KIB4), 45e-6 if partial else 100e-6) - max(size, KIB4) / m.read_bandwidth
    want += size / m.read_bandwidth
    assert r.mean["read"] == pytest.approx(want, rel=1e-9)
    assert m.read_latency_alone(size) == pytest.approx(want, rel=1e-9)


def test_without_a_partial_read_every_chunk_reads_a_page():
    m = quiet(read_flash_time=100e-6)
    r = fio_job(m, Job(KIB4, KIB4, 1.0, 1), 3000)
    assert r.mean["read"] == pytest.approx(_alone(m, KIB4, 100e-6), rel=1e-9)


def test_every_unit_busy_serves_units_over_the_chunks_service():
    """Deep enough that every unit is busy: IOPS = units / (flash read + transfer), partial for 4 KiB only."""
    m = quiet(units=8, read_overhead=0.0, read_bandwidth=1e12, **PARTIAL)
    for size, flash in ((KIB4, 45e-6), (16384.0, 100e-6)):
        r = fio_job(m, Job(size, size, 1.0, 1024), 40000)
        assert r.iops["read"] == pytest.approx(8 / (flash + size / m.read_stream_bandwidth), rel=0.02)
        assert m.read_service(size) == pytest.approx(flash + size / m.read_stream_bandwidth)


def test_a_profile_gives_back_the_model_with_partial_and_fast_reads():
    """The profile's read latency is a 4 KiB read's: its mean flash read has the partial and the SLC reads in it, so
    the overhead read back is the model's (it was clamped for the 980 PRO before: 0.5 us for 2.8 us)."""
    from lsmsim.devices.ssd import drive_model
    from lsmsim.ssd.profile import device_options, to_device

    for kw in (
        {},
        PARTIAL,
        {"fast_read_fraction": 0.2, "fast_read_time": 14e-6},
        {**PARTIAL, "fast_read_fraction": 0.2},
    ):
        model = replace(DriveModel(units=8, read_overhead=3e-6), **kw)
        back = drive_model(device_options(to_device(model, "test", 256e9), "test"))
        assert back.read_overhead == pytest.approx(model.read_overhead, rel=1e-3)
        assert back.partial_read_time == pytest.approx(model.partial_read_time, abs=1e-12)
        assert back.read_latency_alone(16384.0) == pytest.approx(model.read_latency_alone(16384.0), rel=1e-3)


def test_partial_reads_are_opt_in_to_the_fit():
    """Fitted on 4, 8 and 16 KiB reads, a drive whose 4 KiB reads read part of a page: asked for, the fit finds the
    partial read's time; not asked for, it has none (the parameter's bounds exclude 0) and explains them worse (with
    the page held: alone, the fit would run it to its bound)."""
    truth = quiet(units=16, read_overhead=12e-6, read_sigma=0.05, read_stream_bandwidth=1.2e9, **PARTIAL)
    # three sizes: 8 and 16 KiB tell the page's flash read from the transfer, 4 KiB then the partial read
    jobs = JOBS[:4] + [
        (f"rr{b // 1024:.0f}k{q}", "randread", b, q, 100) for b in (8192.0, 16384.0) for q in (1, 16, 64)
    ]
    traces = _synthetic(truth, jobs)
    page = {"page": 16384.0}  # without partial reads the fit runs the page to its bound to explain them
    plain = fit(traces, units=(16,), fixed=page)
    assert plain.model.partial_read_time == 0.0
    asked = fit(traces, units=(16,), fixed=page, also=("partial_read_time",))
    assert asked.model.partial_read_time == pytest.approx(45e-6, rel=0.15)
    assert asked.model.read_flash_time == pytest.approx(100e-6, rel=0.15)
    assert asked.cost < 0.5 * plain.cost
