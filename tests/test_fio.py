"""fio parsing (lsmsim.ssd.fio) against the traces recorded by experiments/ssd/fio/record.sh."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lsmsim.ssd.fio import (
    FioParseError,
    LatencyStats,
    load_log,
    load_result,
    parse_fio_size,
    parse_fio_time,
    parse_jobfile,
)

FIO_DIR = Path(__file__).resolve().parents[1] / "experiments" / "ssd" / "fio"
TRACES = FIO_DIR / "traces"
WORKLOADS = [
    "seqwrite-1m-qd1",
    "seqwrite-1m-qd32",
    "seqread-1m-qd1",
    "seqread-1m-qd32",
    "randread-4k-qd1",
    "randread-4k-qd8",
    "randread-4k-qd32",
    "randwrite-4k-qd32",
    "randrw70-4k-qd32",
]
JSON_FILES = sorted(TRACES.glob("*.json"))
# Real NVMe drives' fio json from public repositories (see its PROVENANCE.md); kept beside the repo.
REAL_TRACES = Path(__file__).resolve().parents[2] / "shared" / "data" / "fio-real"
JOB_FILES = sorted(FIO_DIR.glob("*.fio"))
LOG_KINDS = ("bw", "iops", "lat", "clat", "slat")


def _result(name: str):
    (job,) = load_result(TRACES / f"{name}.json")
    return job


def _rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


# --------------------------------------------------------------------------------------------
# the recorded set is complete and small
# --------------------------------------------------------------------------------------------


def test_recorded_set_is_complete_and_small():
    for name in WORKLOADS:
        assert (FIO_DIR / f"{name}.fio").is_file(), name
        assert (TRACES / f"{name}.json").is_file(), name
        for kind in LOG_KINDS:
            assert (TRACES / f"{name}_{kind}.1.log").is_file(), (name, kind)
    assert (TRACES / "layout.json").is_file()
    total = sum(p.stat().st_size for p in TRACES.rglob("*") if p.is_file())
    assert total < 5_000_000, f"traces take {total} bytes"


# --------------------------------------------------------------------------------------------
# json / json+ results
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: p.stem)
def test_trace_parses_and_is_consistent(path):
    jobs = load_result(path)
    assert len(jobs) == 1
    job = jobs[0]
    assert job.name == path.stem
    assert job.error == 0
    assert job.fio_version.startswith("fio-3")
    assert set(job.directions) == set(job.spec.directions), "directions with I/O != the job's rw"
    assert job.spec.direct and job.spec.ioengine == "libaio"
    for ddir, d in job.directions.items():
        bs = job.spec.block_size(ddir)
        assert d.total_ios > 0 and d.runtime > 1.0
        assert _rel(d.bandwidth, d.iops * bs) < 0.01, (ddir, d.bandwidth, d.iops, bs)
        assert _rel(d.io_bytes, d.bandwidth * d.runtime) < 0.01
        # io_bytes and total_ios are counted at slightly different points at QD>1
        assert d.mean_block_size == pytest.approx(bs, rel=0.01)
        for s in (d.slat, d.clat, d.lat):
            assert 0 < s.min <= s.mean <= s.max < 10.0  # seconds, not ns
            assert abs(s.n - d.total_ios) <= job.spec.iodepth  # I/Os in flight at the end
        # libaio: total latency = submission + completion
        assert d.lat_mean == pytest.approx(d.slat_mean + d.clat_mean, rel=0.01)


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: p.stem)
def test_percentiles_increase(path):
    (job,) = load_result(path)
    for d in job.directions.values():
        stats = [d.clat] + ([d.lat] if d.lat.percentiles else [])
        for s in stats:
            pcts = list(s.percentiles)
            assert pcts == sorted(pcts)
            assert {1.0, 50.0, 99.0, 99.9, 99.99} <= set(pcts)
            values = [s.percentiles[p] for p in pcts]
            assert all(b >= a for a, b in zip(values, values[1:])), values
            assert values[-1] > values[0]
            # fio reports bucket values: within one histogram bucket (1/64) of the true extremes
            assert s.min * (1 - 1 / 32) <= values[0] and values[-1] <= s.max * (1 + 1 / 32)
        assert d.clat_percentiles[50.0] == d.clat.percentile(50)


@pytest.mark.parametrize("name", WORKLOADS)
def test_json_plus_bins_match_percentiles(name):
    job = _result(name)
    assert job.json_plus
    for d in job.directions.values():
        assert d.lat.percentiles, "job files set lat_percentiles=1"
        for s in (d.clat, d.lat):
            lat, cnt = s.bin_latency, s.bin_count
            assert lat is not None and len(lat) == len(cnt) > 10
            assert np.all(np.diff(lat) > 0) and np.all(cnt > 0)
            assert int(cnt.sum()) == s.n
            # fio computes its percentiles from the same histogram
            for p, v in s.percentiles.items():
                assert s.bin_percentile(p) == pytest.approx(v, rel=1e-9), p
        values, counts = d.clat_bins
        assert np.average(values, weights=counts) == pytest.approx(d.clat_mean, rel=0.02)


def test_plain_json_has_no_bins():
    (job,) = load_result(TRACES / "layout.json")
    assert not job.json_plus
    w = job.write
    assert job.read is None and job.trim is None
    assert w.clat.bin_latency is None and w.clat_bins is None
    assert w.clat.percentiles and not w.lat.percentiles  # layout does not set lat_percentiles
    assert w.io_bytes == job.spec.size == 4 * 2**30
    with pytest.raises(ValueError, match="json\\+"):
        w.clat.bin_percentile(50)


def test_bin_percentile_uses_fios_rule():
    # fio: the first bucket whose cumulative count reaches pct% of the I/Os
    s = LatencyStats(
        min=1e-6,
        max=3e-6,
        mean=2.25e-6,
        stddev=0.0,
        n=4,
        bin_latency=np.array([1e-6, 2e-6, 3e-6]),
        bin_count=np.array([1, 1, 2]),
    )
    assert [s.bin_percentile(p) for p in (10, 25, 50, 50.1, 100)] == [1e-6, 1e-6, 2e-6, 3e-6, 3e-6]


def test_plain_json_derived_from_json_plus_parses_the_same(tmp_path):
    data = json.loads((TRACES / "randrw70-4k-qd32.json").read_text())
    for ddir in ("read", "write"):
        for key in ("clat_ns", "lat_ns"):
            stats = data["jobs"][0][ddir][key]
            stats.pop("bins")
            stats["percentile"] = dict(reversed(list(stats["percentile"].items())))  # order-proof
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(data))
    (a,) = load_result(plain)
    b = _result("randrw70-4k-qd32")
    assert not a.json_plus and b.json_plus
    for ddir in ("read", "write"):
        assert a.directions[ddir].bandwidth == b.directions[ddir].bandwidth
        assert a.directions[ddir].clat_percentiles == b.directions[ddir].clat_percentiles
        assert a.directions[ddir].clat_bins is None
        assert list(a.directions[ddir].clat_percentiles) == sorted(b.directions[ddir].clat_percentiles)


def test_non_json_preamble_is_skipped(tmp_path):
    src = (TRACES / "randread-4k-qd8.json").read_text()
    noisy = tmp_path / "noisy.json"
    noisy.write_text(
        "note: both iodepth >= 1 and synchronous I/O engine are selected\n"
        "fio: {weird} line\n" + src + "\nfio: file hash not empty on exit\n"
    )
    (a,) = load_result(noisy)
    b = _result("randread-4k-qd8")
    assert a.read.bandwidth == b.read.bandwidth
    assert a.read.clat_percentiles == b.read.clat_percentiles
    assert np.array_equal(a.read.clat.bin_count, b.read.clat.bin_count)


def test_device_orderings():
    seq1, seq32 = _result("seqread-1m-qd1"), _result("seqread-1m-qd32")
    assert seq32.read.bandwidth >= seq1.read.bandwidth
    iops = [_result(f"randread-4k-qd{qd}").read.iops for qd in (1, 8, 32)]
    assert iops == sorted(iops) and iops[0] < iops[-1]
    # Little's law at QD1: one I/O in flight, so IOPS ~ 1 / mean latency
    qd1 = _result("randread-4k-qd1").read
    assert qd1.iops * qd1.lat_mean == pytest.approx(1.0, rel=0.15)


def test_mixed_job_split():
    job = _result("randrw70-4k-qd32")
    assert job.spec.rw == "randrw" and job.spec.rwmixread == 70 and job.spec.read_fraction == 0.7
    share = job.read.total_ios / (job.read.total_ios + job.write.total_ios)
    assert share == pytest.approx(0.70, abs=0.02)
    assert job.bandwidth == pytest.approx(job.read.bandwidth + job.write.bandwidth)


@pytest.mark.skipif(not REAL_TRACES.is_dir(), reason=f"no real-drive fio traces at {REAL_TRACES}")
def test_real_drive_results_parse():
    # fio 3.x json written by other people's setups (.txt files there are fio json too)
    paths = sorted(p for p in REAL_TRACES.rglob("*") if p.suffix in (".json", ".txt"))
    assert paths
    for path in paths:
        for job in load_result(path):
            assert job.directions, path
            for ddir, d in job.directions.items():
                assert _rel(d.bandwidth, d.iops * job.spec.block_size(ddir)) < 0.02, (path, ddir)
                assert d.clat is not None and d.clat.percentile(50) > 0, (path, ddir)


# --------------------------------------------------------------------------------------------
# logs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", WORKLOADS)
def test_logs_agree_with_json(name):
    job = _result(name)
    ref = {
        "bw": lambda d: d.bandwidth,
        "iops": lambda d: d.iops,
        "lat": lambda d: d.lat_mean,
        "clat": lambda d: d.clat_mean,
        "slat": lambda d: d.slat_mean,
    }
    for kind in LOG_KINDS:
        df = load_log(TRACES / f"{name}_{kind}.1.log")
        assert df.attrs["kind"] == kind
        assert list(df.columns[:4]) == ["time_s", "value", "direction", "block_size"]
        assert set(df["direction"]) == set(job.directions)
        assert (df["block_size"] == 0).all()  # windowed logs (log_avg_msec)
        assert df["time_s"].is_monotonic_increasing
        assert 0 < df["time_s"].max() <= job.spec.runtime + 1
        for ddir, d in job.directions.items():
            vals = df.loc[df["direction"] == ddir, "value"]
            assert len(vals) >= 40  # ~4 samples/s for 15 s
            assert _rel(vals.mean(), ref[kind](d)) < 0.15, (kind, ddir, vals.mean(), ref[kind](d))


def test_log_formats(tmp_path):
    six = tmp_path / "x_clat.1.log"  # log_offset=1
    six.write_text("0, 12353, 0, 4096, 0, 0\n1, 441, 1, 4096, 45056, 0\n")
    df = load_log(six)
    assert list(df.columns) == ["time_s", "value", "direction", "block_size", "offset", "priority"]
    assert df["value"].tolist() == pytest.approx([12353e-9, 441e-9])
    assert df["direction"].tolist() == ["read", "write"]
    assert df["offset"].tolist() == [0, 45056] and df["time_s"].tolist() == [0.0, 0.001]

    five = tmp_path / "y_bw.log"  # per_job_logs=0 name, 5 columns
    five.write_text("250, 1000, 2, 4096, 0\n\n500, 2000, 2, 4096, 0\n")
    df = load_log(five)
    assert "offset" not in df.columns and df["priority"].tolist() == [0, 0]
    assert df["value"].tolist() == [1000 * 1024.0, 2000 * 1024.0] and set(df["direction"]) == {"trim"}

    four = tmp_path / "whatever.txt"  # old fio, no priority; kind given
    four.write_text("250, 7, 0, 512\n")
    df = load_log(four, kind="iops")
    assert df["value"].tolist() == [7.0] and "priority" not in df.columns

    empty = tmp_path / "e_iops.1.log"
    empty.write_text("")
    assert load_log(empty).empty


# --------------------------------------------------------------------------------------------
# job files
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", JOB_FILES, ids=lambda p: p.stem)
def test_jobfiles_match_their_traces(path, monkeypatch):
    monkeypatch.setenv("LSMSIM_FIO_FILE", "/some/where/test.dat")
    (spec,) = parse_jobfile(path)
    assert spec.filename == "/some/where/test.dat"  # ${LSMSIM_FIO_FILE} expanded
    trace = TRACES / ("layout.json" if spec.name == "layout" else f"{path.stem}.json")
    assert spec.name == trace.stem
    (job,) = load_result(trace)
    for attr in (
        "rw",
        "bs_read",
        "bs_write",
        "iodepth",
        "numjobs",
        "rwmixread",
        "size",
        "runtime",
        "ramp_time",
        "direct",
        "ioengine",
    ):
        assert getattr(spec, attr) == getattr(job.spec, attr), attr
    assert spec.direct and spec.ioengine == "libaio" and spec.size == 4 * 2**30
    assert spec.time_based == (spec.name != "layout")
    if spec.time_based:
        assert spec.runtime == 15 and spec.ramp_time == 2
        assert spec.options["time_based"] is None and spec.options["group_reporting"] is None


def test_jobfile_semantics(tmp_path, monkeypatch):
    monkeypatch.setenv("FIO_TEST_DIR", "/mnt/x")
    (tmp_path / "common.fio").write_text("[global]\nioengine=io_uring\n")
    f = tmp_path / "jobs.fio"
    f.write_text(
        "; comment\n# another\n"
        "[global]\n  direct\n  bs=8k\n  size=50%\n  runtime=2m\n"
        "include common.fio\n"
        "[a]\nreadwrite=randrw\n    rwmixwrite=20\n\tiodepth=16   ; inline comment\nfilename=${FIO_TEST_DIR}/f\n"
        "[global]\nbs=4k,64k\nbuffered=1\nkb_base=1000\nsize=4KiB\n"
        "[b]\nrw=randread:8\ndirect=0\nnumjobs=4\nramp_time=500ms\ntime_based\nstonewall\n"
        "[c]\nrw=write\nblocksize=1m,\nsize=1k\n"
    )
    a, b, c = parse_jobfile(f)
    assert (a.name, a.rw, a.rwmixread, a.iodepth) == ("a", "randrw", 80.0, 16)
    assert (a.bs_read, a.bs_write, a.bs_trim) == (8192, 8192, 8192)
    assert a.direct and a.ioengine == "io_uring" and a.runtime == 120.0 and not a.time_based
    assert a.size is None and a.size_percent == 50.0 and a.filename == "/mnt/x/f"
    assert (b.rw, b.numjobs, b.ramp_time, b.time_based, b.direct) == ("randread", 4, 0.5, True, False)
    assert (b.bs_read, b.bs_write, b.bs_trim) == (4000, 64000, 64000)  # kb_base=1000: k is 1000
    assert b.size == 4096 and b.kb_base == 1000 and b.options["stonewall"] is None
    assert not c.direct  # buffered=1 from the second global
    assert (c.bs_read, c.bs_write, c.bs_trim, c.size) == (1_000_000, 4096, 4096, 1000)
    assert c.bs == 4096 and c.directions == ("write",) and not c.random


@pytest.mark.parametrize(
    "text,kb_base,expected",
    [
        ("4096", 1024, 4096),
        ("4k", 1024, 4096),
        ("4K", 1024, 4096),
        ("4kb", 1024, 4096),
        ("4KiB", 1024, 4000),
        ("1m", 1024, 2**20),
        ("1mib", 1024, 10**6),
        ("4g", 1024, 4 * 2**30),
        ("2t", 1024, 2 * 2**40),
        ("0x1000", 1024, 4096),
        ("512b", 1024, 512),
        ("4k", 1000, 4000),
        ("4KiB", 1000, 4096),
        ("1GB", 1000, 10**9),
        ("1gib", 1000, 2**30),
    ],
)
def test_fio_sizes(text, kb_base, expected):
    assert parse_fio_size(text, kb_base) == expected


@pytest.mark.parametrize("bad", ["", "1.5k", "4q", "k", "-1", "0x10k"])
def test_fio_size_rejects(bad):
    with pytest.raises(ValueError):
        parse_fio_size(bad)


def test_fio_times():
    assert [parse_fio_time(t) for t in ("15", "500ms", "2m", "100us", "1h", "1d", "3s")] == pytest.approx(
        [15, 0.5, 120, 1e-4, 3600, 86400, 3]
    )
    with pytest.raises(ValueError):
        parse_fio_time("5 parsecs")


# --------------------------------------------------------------------------------------------
# malformed input
# --------------------------------------------------------------------------------------------

_GOOD = json.loads((TRACES / "seqread-1m-qd1.json").read_text()) if JSON_FILES else {}


def _mutate(fn):
    data = json.loads(json.dumps(_GOOD))
    fn(data)
    return json.dumps(data)


BAD_RESULTS = {
    "empty": ("", "no JSON object"),
    "text": ("fio: failed parsing size=${X}\nfio: job global dropped\n", "no JSON object"),
    "truncated": (json.dumps(_GOOD)[:2000], "invalid JSON"),
    "list": ("[1, 2]\n", "no JSON object"),
    "no_jobs": ('{"fio version": "fio-3.33"}', "no 'jobs'"),
    "zero_jobs": ('{"jobs": []}', "'jobs' is empty"),
    "no_name": (_mutate(lambda d: d["jobs"][0].pop("jobname")), "jobname"),
    "no_total_ios": (_mutate(lambda d: d["jobs"][0]["read"].pop("total_ios")), "total_ios"),
    "string_iops": (_mutate(lambda d: d["jobs"][0]["read"].__setitem__("iops", "fast")), "not a number"),
    "bad_bins": (_mutate(lambda d: d["jobs"][0]["read"]["clat_ns"]["bins"].__setitem__("x", 1)), "bins"),
    "bad_rw": (_mutate(lambda d: d["jobs"][0]["job options"].__setitem__("rw", "sideways")), "sideways"),
}


@pytest.mark.parametrize("case", list(BAD_RESULTS))
def test_malformed_results(tmp_path, case):
    text, reason = BAD_RESULTS[case]
    path = tmp_path / f"{case}.json"
    path.write_text(text)
    with pytest.raises(FioParseError, match=reason) as err:
        load_result(path)
    assert str(path) in str(err.value) and isinstance(err.value, ValueError)


BAD_JOBFILES = {
    "before_section": ("bs=4k\n[a]\nrw=read\n", "before the first"),
    "no_jobs": ("[global]\nbs=4k\n", "no job sections"),
    "bad_rw": ("[a]\nrw=sideways\n", "sideways"),
    "bad_size": ("[a]\nsize=4q\n", "size"),
    "bad_bs": ("[a]\nbs=4k,8k,16k,32k\n", "bs"),
    "bad_depth": ("[a]\niodepth=0\n", "iodepth"),
    "bad_mix": ("[a]\nrwmixread=120\n", "rwmixread"),
    "bad_bool": ("[a]\ndirect=maybe\n", "direct"),
    "bad_runtime": ("[a]\nruntime=10 parsecs\n", "runtime"),
    "no_value": ("[a]\nbs\n", "needs a value"),
    "bad_header": ("[a\nrw=read\n", "before the first"),
    "bad_kb_base": ("[a]\nkb_base=999\n", "kb_base"),
    "include_loop": ("include include_loop.fio\n[a]\n", "include"),
}


@pytest.mark.parametrize("case", list(BAD_JOBFILES))
def test_malformed_jobfiles(tmp_path, case):
    text, reason = BAD_JOBFILES[case]
    path = tmp_path / f"{case}.fio"
    path.write_text(text)
    with pytest.raises(FioParseError, match=reason) as err:
        parse_jobfile(path)
    assert str(path) in str(err.value)


BAD_LOGS = {
    "x_bw.1.log": ("250, 1000, 0, 0, 0\n500, lots, 0, 0, 0\n", "line 2: non-numeric"),
    "y_lat.1.log": ("250, 1000, 0, 0, 0\n500, 1000, 0, 0\n", "line 2: 4 columns"),
    "z_iops.1.log": ("250, 1000\n", "2 columns"),
    "w_slat.1.log": ("250, 1000, 0, 0, 0\n500, 1000, 7, 0, 0\n", "line 2: data direction 7"),
    "v_clat.1.log": ("250, nan, 0, 0, 0\n", "non-finite"),
    "no_kind.log": ("250, 1000, 0, 0, 0\n", "log kind"),
    "bin_bw.1.log": (b"\xff\xfe\x00\x01", "not a text file"),
}


@pytest.mark.parametrize("name", list(BAD_LOGS))
def test_malformed_logs(tmp_path, name):
    content, reason = BAD_LOGS[name]
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(FioParseError, match=reason) as err:
        load_log(path)
    assert str(path) in str(err.value)


def test_missing_files_and_directories(tmp_path):
    folder = tmp_path / "d_bw.1.log"
    folder.mkdir()
    for fn in (load_result, load_log, parse_jobfile):
        missing = tmp_path / "missing_bw.1.log"
        with pytest.raises(FioParseError, match="no such file") as err:
            fn(missing)
        assert str(missing) in str(err.value)
        with pytest.raises(FioParseError, match="directory"):
            fn(folder)
    with pytest.raises(FioParseError, match="unknown log kind"):
        load_log(TRACES / "seqread-1m-qd1_bw.1.log", kind="hist")
