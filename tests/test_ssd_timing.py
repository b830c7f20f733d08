"""The SSD timing model and its calibration from fio results."""

import glob
from pathlib import Path

import pytest

from lsmsim.ssd.calibrate import fit
from lsmsim.ssd.fio import load_result
from lsmsim.ssd.timing import Direction, SSDTiming

TRACES = sorted(glob.glob(str(Path(__file__).parent.parent / "experiments/ssd/fio/traces/*.json")))
KIB4, MIB = 4096, 2**20


def nvme() -> SSDTiming:
    return SSDTiming(Direction(80e-6, 1.5e9, 6.5e9, 580e3), Direction(15e-6, 0.75e9, 1.5e9, 70e3), 2e-6)


def test_queue_depth_one_is_one_request_alone():
    t = nvme()
    p = t.perf(KIB4, 1, 1.0)
    assert p.read_lat == pytest.approx(80e-6)
    assert p.read_iops == pytest.approx(1 / 80e-6)
    p = t.perf(MIB, 1, 1.0)
    assert p.read_lat == pytest.approx(80e-6 + (MIB - KIB4) / 1.5e9)


def test_throughput_rises_with_queue_depth_to_the_bottleneck():
    t = nvme()
    iops = [t.perf(KIB4, q, 1.0).read_iops for q in (1, 2, 8, 32, 256, 4096)]
    assert all(a < b for a, b in zip(iops, iops[1:]))
    assert iops[-1] == pytest.approx(1 / max(1 / 580e3, 2e-6), rel=0.01)  # the busiest centre
    bw = t.perf(MIB, 256, 1.0).read_bw
    assert bw == pytest.approx(6.5e9, rel=0.01)


def test_littles_law_holds():
    t = nvme()
    for q in (1, 4, 64):
        p = t.perf(16384, q, 0.7)
        x = p.read_iops + p.write_iops
        lat = (p.read_iops * p.read_lat + p.write_iops * p.write_lat) / x
        assert q == pytest.approx(x * lat, rel=1e-6)


def test_read_write_interference():
    t = nvme()
    alone = t.perf(KIB4, 64, 1.0).read_iops
    mixed = t.perf(KIB4, 64, 0.7)
    assert mixed.read_iops < 0.7 * alone  # writes take device time from reads
    assert mixed.write_iops == pytest.approx(mixed.read_iops * 0.3 / 0.7)


def _synthetic(t: SSDTiming):
    """fio-like results generated from a known model (parameter recovery)."""
    from types import SimpleNamespace as NS

    from lsmsim.ssd.fio import FioJobSpec

    out = []
    for name, rw, bs, qd, mix in [
        ("rr1", "randread", KIB4, 1, 100),
        ("rr8", "randread", KIB4, 8, 100),
        ("rr32", "randread", KIB4, 32, 100),
        ("sr1", "read", MIB, 1, 100),
        ("sr32", "read", MIB, 32, 100),
        ("rw32", "randwrite", KIB4, 32, 0),
        ("rw1", "randwrite", KIB4, 1, 0),
        ("sw1", "write", MIB, 1, 0),
        ("sw32", "write", MIB, 32, 0),
        ("mix", "randrw", KIB4, 32, 70),
    ]:
        spec = FioJobSpec(name=name, rw=rw, bs_read=bs, bs_write=bs, iodepth=qd, rwmixread=mix)
        p = t.perf(bs, qd, spec.read_fraction)
        dirs = {}
        for d, bw, lat in (("read", p.read_bw, p.read_lat), ("write", p.write_bw, p.write_lat)):
            if bw > 0:
                lat_stats = NS(
                    mean=lat,
                    percentiles={50.0: lat, 99.0: 2 * lat},
                    percentile=lambda q, l=lat: {50.0: l, 99.0: 2 * l}[q],
                )
                dirs[d] = NS(
                    bandwidth=bw,
                    iops=bw / bs,
                    total_ios=1000,
                    lat=lat_stats,
                    clat=lat_stats,
                    lat_mean=lat,
                    clat_mean=lat,
                    slat_mean=0.0,
                )
        out.append(NS(name=name, spec=spec, directions=dirs))
    return out


def test_fit_recovers_known_parameters():
    truth = nvme()
    profile, rows = fit(_synthetic(truth))
    for row in rows:
        assert row["bw_model"] == pytest.approx(row["bw_measured"], rel=0.02), row["job"]
        assert row["p50_model"] == pytest.approx(row["p50_measured"], rel=0.02), row["job"]
    assert profile.read.iops == pytest.approx(truth.read.iops, rel=0.05)
    assert profile.write.bandwidth == pytest.approx(truth.write.bandwidth, rel=0.05)


@pytest.mark.skipif(not TRACES, reason="no recorded fio traces")
def test_fit_on_recorded_traces():
    """Every trace within 10% in bandwidth and median latency, except the two 1MiB sequential
    write traces: the recorded virtio disk writes faster at QD1 (2693 MB/s) than at QD32
    (1736 MB/s), host write-back caching that no model whose throughput grows with queue depth
    can follow. The best such a model can do is the geometric mean, -19.7% / +24.5%; the fit
    must come within a point of that."""
    results = [r for f in TRACES for r in load_result(f) if r.name != "layout"]
    _, rows = fit(results)
    assert len(rows) == 10
    for r in rows:
        bw, p50 = r["bw_model"] / r["bw_measured"] - 1, r["p50_model"] / r["p50_measured"] - 1
        if r["job"].startswith("seqwrite"):
            assert abs(bw) < 0.26 and abs(p50) < 0.26, r["job"]
        else:
            assert abs(bw) <= 0.10 and abs(p50) <= 0.10, (r["job"], r["direction"], bw, p50)
    qd1, qd32 = (next(r for r in rows if r["job"] == j) for j in ("seqwrite-1m-qd1", "seqwrite-1m-qd32"))
    assert qd1["bw_measured"] > qd32["bw_measured"] * 1.5  # the anomaly this test works around
    assert qd1["bw_model"] <= qd32["bw_model"] * 1.001  # the model is monotone in queue depth


def test_parallel_units_collide_so_iops_rise_smoothly():
    """Requests that land on one of K units by address collide: with K units of flash time t, a
    closed loop of n requests and no other delay has X(n) = n / (n + K - 1) x K / t (the balanced
    network's exact MVA solution), half the maximum at n = K - 1, not a sharp knee at n = K."""
    t = 100e-6
    for k in (4, 16):
        timing = SSDTiming(Direction(t, 1e9, 1e10, k / t), Direction(t, 1e9, 1e10, k / t), 0.0, k)
        assert timing.groups(KIB4, 1.0) == pytest.approx(k)
        for n in (1, 2, k, 4 * k):
            assert timing.perf(KIB4, n, 1.0).read_iops == pytest.approx(n / (n + k - 1) * k / t, rel=1e-9)
    single = SSDTiming(Direction(t, 1e9, 1e10, 4 / t), Direction(t, 1e9, 1e10, 4 / t), 0.0, 1)
    four = SSDTiming(Direction(t, 1e9, 1e10, 4 / t), Direction(t, 1e9, 1e10, 4 / t), 0.0, 4)
    assert four.perf(KIB4, 4, 1.0).read_iops < 0.8 * single.perf(KIB4, 4, 1.0).read_iops


def test_parallel_units_are_bounded_by_latency_times_iops():
    """A large request spans every unit (one group); and the datasheet's latency x IOPS caps how
    many requests can be in flight, however many dies the preset lists (Little's law)."""
    t = SSDTiming(Direction(5e-6, 3.6e9, 7.2e9, 1.5e6), Direction(5e-6, 3.1e9, 6.2e9, 1.5e6), 0.0, 128)
    assert t.groups(KIB4, 1.0) == pytest.approx(5e-6 * 1.5e6)
    assert t.groups(MIB, 1.0) == 2.0  # 64 pages of 16KiB: half of the 128 units
    assert t.groups(4 * MIB, 1.0) == 1.0
    assert t.perf(KIB4, 1, 1.0).read_lat == pytest.approx(5e-6)
    assert t.perf(KIB4, 4096, 1.0).read_iops == pytest.approx(1.5e6, rel=0.01)


def test_fit_recovers_parallel_units():
    truth = SSDTiming(Direction(80e-6, 1.5e9, 6.5e9, 400e3), Direction(15e-6, 0.75e9, 1.5e9, 70e3), 1e-6, 16)
    profile, rows = fit(_synthetic(truth))
    assert profile.parallel_units == 16
    for row in rows:
        assert row["bw_model"] == pytest.approx(row["bw_measured"], rel=0.02), row["job"]


def test_iops_from_channels_and_dies():
    from lsmsim.devices.ssd import SSDOptions

    d = SSDOptions.model_validate(
        {
            "model": "ssd",
            "channels": 8,
            "dies_per_channel": 4,
            "read": {"latency": "80us", "stream_bandwidth": "1GB/s", "bandwidth": "3GB/s", "flash_time": "50us"},
            "write": {"latency": "20us", "stream_bandwidth": "1GB/s", "bandwidth": "1GB/s", "iops": "100K/s"},
        }
    )
    assert d.read.iops == pytest.approx(32 / 50e-6)
    assert d.write.iops == 100e3
