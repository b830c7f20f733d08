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
    for name, rw, bs, qd, mix in [("rr1", "randread", KIB4, 1, 100), ("rr8", "randread", KIB4, 8, 100),
                                  ("rr32", "randread", KIB4, 32, 100), ("sr1", "read", MIB, 1, 100),
                                  ("sr32", "read", MIB, 32, 100), ("rw32", "randwrite", KIB4, 32, 0),
                                  ("rw1", "randwrite", KIB4, 1, 0), ("sw1", "write", MIB, 1, 0),
                                  ("sw32", "write", MIB, 32, 0), ("mix", "randrw", KIB4, 32, 70)]:
        spec = FioJobSpec(name=name, rw=rw, bs_read=bs, bs_write=bs, iodepth=qd, rwmixread=mix)
        p = t.perf(bs, qd, spec.read_fraction)
        dirs = {}
        for d, bw, lat in (("read", p.read_bw, p.read_lat), ("write", p.write_bw, p.write_lat)):
            if bw > 0:
                lat_stats = NS(mean=lat, percentiles={50.0: lat, 99.0: 2 * lat}, percentile=lambda q, l=lat: {50.0: l, 99.0: 2 * l}[q])
                dirs[d] = NS(bandwidth=bw, iops=bw / bs, total_ios=1000, lat=lat_stats, clat=lat_stats,
                             lat_mean=lat, clat_mean=lat, slat_mean=0.0)
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
    """The recorded traces come from a virtio disk whose writes are absorbed by the host cache
    (1MiB writes are faster at QD1 than at QD32), which no SSD model reproduces; the bound here
    is what the model reaches on them (see the closing note), so a regression shows."""
    results = [r for f in TRACES for r in load_result(f) if r.name != "layout"]
    _, rows = fit(results)
    bw_err = sorted(abs(r["bw_model"] / r["bw_measured"] - 1) for r in rows)
    p50_err = sorted(abs(r["p50_model"] / r["p50_measured"] - 1) for r in rows)
    assert len(rows) == 10
    assert sum(e <= 0.10 for e in bw_err) >= 6
    assert sum(e <= 0.10 for e in p50_err) >= 6
    assert max(bw_err) < 0.30


def test_iops_from_channels_and_dies():
    from lsmsim.config import SSDDeviceConfig
    d = SSDDeviceConfig.model_validate({
        "model": "ssd", "channels": 8, "dies_per_channel": 4,
        "read": {"latency": "80us", "stream_bandwidth": "1GB/s", "bandwidth": "3GB/s", "flash_time": "50us"},
        "write": {"latency": "20us", "stream_bandwidth": "1GB/s", "bandwidth": "1GB/s", "iops": "100K/s"}})
    assert d.read.iops == pytest.approx(32 / 50e-6)
    assert d.write.iops == 100e3
