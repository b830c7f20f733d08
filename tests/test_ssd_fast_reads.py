"""Fast flash reads (data in the drive's SLC region): two modes at depth 1, the units' capacity from the mean flash
read, the parameters opt-in to the fit (a drive without them has none) and recovered when asked."""

from dataclasses import replace

import pytest

from lsmsim.ssd.calibrate import fit
from lsmsim.ssd.timing import Job, fio_job
from tests.test_ssd_timing import JOBS, KIB4, _synthetic, quiet

FAST = dict(fast_read_fraction=0.3, fast_read_time=5e-6)


def test_a_share_of_reads_at_depth_one_take_the_fast_flash_read():
    """No spread, no retries: each read takes the lone read's latency with its flash read, fast or not; the fast
    ones are a binomial share of the 20000 (3 standard deviations: 1%)."""
    m = quiet(read_flash_time=60e-6, **FAST)
    slow = m.read_overhead + m.host_per_io + 60e-6 + KIB4 / m.read_stream_bandwidth + KIB4 / m.read_bandwidth
    fast = slow - 60e-6 + 5e-6
    r = fio_job(m, Job(KIB4, KIB4, 1.0, 1), 20000)
    p = r.percentiles["read"]
    assert p[10.0] == pytest.approx(fast, rel=1e-6) and p[50.0] == pytest.approx(slow, rel=1e-6)
    share = (slow - r.mean["read"]) / (slow - fast)  # the mean is the modes' mixture
    assert share == pytest.approx(0.3, abs=0.01)


def test_the_units_capacity_counts_the_mean_flash_read():
    m = quiet(units=8, read_overhead=0.0, read_bandwidth=1e12, read_flash_time=60e-6, **FAST)
    assert m.read_service(KIB4) == pytest.approx(0.7 * 60e-6 + 0.3 * 5e-6 + KIB4 / m.read_stream_bandwidth)
    r = fio_job(m, Job(KIB4, KIB4, 1.0, 1024), 40000)  # every unit busy: X = units / mean service
    assert r.iops["read"] == pytest.approx(m.read_iops, rel=0.02)


def test_fast_reads_are_opt_in_to_the_fit():
    """Not asked for, the fit leaves a drive without fast reads (the parameters' bounds exclude 0, their scale is
    not a default); asked for, it finds them. IOPS, p50 and p99 see the share and the time only through the mean
    flash read (a larger share of slower fast reads gives the same mean): that is what it recovers."""
    truth = replace(quiet(units=16, read_flash_time=60e-6, read_overhead=12e-6, read_sigma=0.05), **FAST)
    traces = _synthetic(truth, JOBS)
    plain = fit(traces, units=(16,))
    assert plain.model.fast_read_fraction == 0.0
    asked = fit(traces, units=(16,), also=("fast_read_fraction", "fast_read_time"))
    assert asked.model.fast_read_fraction > 0.05
    assert asked.model.mean_flash_read() == pytest.approx(truth.mean_flash_read(), rel=0.1)
    assert asked.cost < plain.cost
