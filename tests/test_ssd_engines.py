"""The host's cost per fio ioengine (lsmsim/ssd/engines.py, DriveModel.for_engine): one drive, each engine its own CPU
per request and fixed parts. Closed forms at depth 1 and for one thread's IOPS cap, the profile's round trip, which
engine the drive is fitted on, and the fit's recovery of an engine's cost with the drive held."""

from dataclasses import replace
from types import SimpleNamespace as NS

import pytest

from lsmsim.ssd import engines
from lsmsim.ssd.calibrate import BoundHit
from lsmsim.ssd.fio import FioJobSpec
from lsmsim.ssd.timing import DriveModel, Job, fio_job
from tests.test_ssd_timing import KIB4, quiet

SPDK = ("spdk", 0.8e-6, 2e-6, 3e-6)  # (engine, host_per_io, read_overhead, write_overhead)


def _model(**kw) -> DriveModel:
    return replace(
        quiet(**{"host_per_io": 3e-6, "read_overhead": 12e-6, "write_overhead": 9e-6, **kw}), engine="io_uring"
    )


def test_a_job_of_another_engine_takes_that_engines_host_cost_at_depth_one():
    m = replace(_model(), engines=(SPDK,))
    spdk = m.for_engine("spdk")
    assert (spdk.host_per_io, spdk.read_overhead, spdk.write_overhead) == SPDK[1:] and spdk.engines == ()
    for engine, want in (("io_uring", m), ("spdk", spdk), ("libaio", m)):  # an engine the model lacks: its own
        r = fio_job(m, Job(KIB4, KIB4, 1.0, 1, engine=engine), 3000)
        assert r.mean["read"] == pytest.approx(want.read_latency_alone(KIB4), rel=1e-9)
        w = fio_job(m, Job(KIB4, KIB4, 0.0, 1, engine=engine), 3000)
        assert w.mean["write"] == pytest.approx(want.write_latency_alone(KIB4), rel=1e-9)
    # io_uring's depth-1 read is the drive's same service plus 10.2 us more of host and fixed parts
    gap = m.read_latency_alone(KIB4) - spdk.read_latency_alone(KIB4)
    assert gap == pytest.approx(3e-6 + 12e-6 - 0.8e-6 - 2e-6, rel=1e-9)


def test_one_thread_of_an_engine_is_capped_at_one_over_its_cpu_per_request():
    """A drive far faster than the host: one submitting thread does 1 / host_per_io requests a second, per engine
    (drive_sim's host: one FCFS server per fio job); two threads twice that."""
    m = replace(_model(units=128, read_bandwidth=1e12, read_flash_time=1e-6, read_overhead=1e-6), engines=(SPDK,))
    for engine, host in (("io_uring", 3e-6), ("spdk", 0.8e-6)):
        for jobs in (1, 2):
            r = fio_job(m, Job(KIB4, KIB4, 1.0, 64, jobs, engine=engine), 20000)
            assert r.iops["read"] == pytest.approx(jobs / host, rel=0.02)


def test_a_profile_gives_back_each_engines_costs():
    from lsmsim.devices.ssd import drive_model
    from lsmsim.ssd.profile import device_options, to_device

    m = replace(DriveModel(units=8, read_overhead=5e-6, write_overhead=7e-6), engine="io_uring", engines=(SPDK,))
    data = to_device(m, "test", 256e9)
    assert data["ioengine"] == "io_uring" and set(data["engines"]) == {"spdk"}
    back = drive_model(device_options(data, "test"))
    assert back.engine == "io_uring" and back.engines[0][0] == "spdk"
    assert back.engines[0][1:] == pytest.approx(SPDK[1:], rel=1e-3)  # the YAML keeps 4 significant digits
    plain = drive_model(device_options(to_device(DriveModel(units=8), "test", 256e9), "test"))
    assert plain.engine == "" and plain.engines == ()


def _results(model: DriveModel, engine: str, depths=(1, 4, 32, 128), n_ios=20000):
    """fio-like results of 4 KiB random reads and writes that `model` itself gives a job of `engine`."""
    out = []
    for rw, frac in (("randread", 1.0), ("randwrite", 0.0)):
        for qd in depths:
            spec = FioJobSpec(name=f"{rw}{qd}", rw=rw, bs_read=4096, bs_write=4096, iodepth=qd, ioengine=engine)
            r = fio_job(model, Job(KIB4, KIB4, frac, qd, engine=engine), n_ios, seed=11)
            dirs = {}
            for d in r.iops:
                pct = dict(r.percentiles[d])
                stats = NS(percentile=lambda q, p=pct: p[float(q)])
                dirs[d] = NS(iops=r.iops[d], total_ios=1000, runtime=30.0, lat=stats, clat=stats, slat_mean=0.0)
            out.append(NS(name=spec.name, source=None, spec=spec, directions=dirs))
    return out


def test_the_drive_is_fitted_on_the_engine_of_most_jobs():
    m = _model()
    uring, spdk = _results(m, "io_uring", (1, 4)), _results(m, "spdk", (1,))
    main, mine, others = engines.split([*spdk, *uring])
    assert main == "io_uring" and mine == uring and others == {"spdk": spdk}
    assert engines.main_engine([*spdk, *_results(m, "libaio", (1,))]) == "libaio"  # a tie: the first by name
    assert engines.main_engine([]) == ""


def test_the_fit_recovers_an_engines_cost_with_the_drive_held():
    """Recordings of one drive by another engine (less CPU per request, a faster completion): with the drive held as
    it is, the fit finds that engine's three figures from its own jobs, and leaves the main engine's alone."""
    # a drive fast enough (64 units, a 20 GB/s link, 2M write commands a second) that one thread's host cost shows
    drive = dict(units=64, read_sigma=0.1, write_sigma=0.1, read_flash_time=40e-6, read_bandwidth=20e9, write_iops=2e6)
    truth = replace(_model(**drive), engines=(SPDK,))
    held = replace(truth, engines=())
    found, cost = engines.fit_engine(held, "spdk", _results(truth, "spdk"))
    name, host, r_over, w_over = found.engines[0]
    assert name == "spdk" and cost < 2e-3  # the truth's own: 0.9e-3 (the fit simulates fewer requests)
    assert host == pytest.approx(SPDK[1], rel=0.1)
    assert r_over == pytest.approx(SPDK[2], rel=0.15) and w_over == pytest.approx(SPDK[3], rel=0.15)
    assert (found.host_per_io, found.read_overhead) == (held.host_per_io, held.read_overhead)
    # reads only: the write overhead is the main engine's, and an engine without jobs is refused by name
    found, _ = engines.fit_engine(held, "spdk", [r for r in _results(truth, "spdk") if r.spec.rw == "randread"])
    assert found.engines[0][3] == held.write_overhead
    with pytest.raises(ValueError, match="ioengine 'spdk'"):
        engines.fit_engine(held, "spdk", [])
    # an engine whose reads take 0.2 us of host and fixed parts, less than the bounds allow (0.3 + 0.5): refused
    fast = replace(truth, engines=(("spdk", 0.1e-6, 0.1e-6, 3e-6),))
    reads = [r for r in _results(fast, "spdk", (1, 4)) if r.spec.rw == "randread"]
    with pytest.raises(BoundHit, match="ioengine 'spdk': the fit put its .* at a bound"):
        engines.fit_engine(held, "spdk", reads)


def test_a_replay_names_the_jobs_of_an_engine_the_profile_has_no_cost_for():
    m = replace(_model(), engines=(SPDK,))
    assert engines.note(m, ["io_uring", "spdk", ""]) is None  # its own, one it has, and unnamed ones
    text = engines.note(m, ["libaio", "libaio", "psync", "io_uring"])
    assert text and "(2 libaio, 1 psync)" in text and "replayed with io_uring's" in text
    assert engines.note(replace(m, engine=""), ["libaio"]) is None  # a profile that names no engine: any engine's


def _fio(out, engine: str, qd: int, data) -> bool:
    """Record 4 KiB random reads at depth `qd` with fio's `engine` on this machine's disk; False if fio cannot."""
    import subprocess

    cmd = ["fio", f"--name=randread-{engine}-qd{qd}", f"--filename={data}", "--size=64M", "--rw=randread", "--bs=4k"]
    cmd += [f"--iodepth={qd}", f"--ioengine={engine}", "--direct=1", "--runtime=1", "--time_based"]
    cmd += ["--output-format=json", f"--output={out / f'{engine}-qd{qd}.json'}"]
    return subprocess.run(cmd, capture_output=True).returncode == 0


@pytest.mark.serial
def test_calibrate_fits_the_drive_on_one_engine_and_the_other_engines_host_cost(tmp_path):
    """Real fio on this machine's disk with two engines (libaio at depths 1, 4, 16; io_uring at 1, 16): `lsmsim ssd
    calibrate` fits the drive on libaio's jobs, then io_uring's host cost with the drive held, writes both in the
    profile, and the profile read back gives io_uring's jobs that cost (no further from them than libaio's)."""
    import shutil

    import yaml

    from lsmsim.ssd.calibrate import FIT_IOS, _residuals, observations
    from lsmsim.ssd.profile import load_profile, load_traces
    from tests.test_cli import lsmsim

    if not shutil.which("fio"):
        pytest.skip("fio is not installed (scripts/setup.sh installs it)")
    traces = tmp_path / "traces"
    traces.mkdir()
    data = tmp_path / "data.bin"
    for engine, depths in (("libaio", (1, 4, 16)), ("io_uring", (1, 16))):
        for qd in depths:
            if not _fio(traces, engine, qd, data):
                pytest.skip(f"fio cannot run {engine} here")
    prof = tmp_path / "dev.yaml"
    # the drive's links and retries held: the test is of the engines, and the few free parameters keep inside their
    # bounds on any disk with a depth-1 read between 10 us and 0.7 ms
    fix = ["--fix", "read_bandwidth=7e9", "read_stream_bandwidth=2e9", "read_retry_fraction=0.001"]
    r = lsmsim("ssd", "calibrate", str(traces), "-o", str(prof), "--units", "8", "--holdout", "none", *fix)
    assert r.returncode == 0, r.stderr
    assert "the drive fitted on the 3 libaio jobs; then, with it held, the host cost of io_uring (2 jobs)" in r.stderr
    assert "ioengine io_uring: host_per_io " in r.stdout
    written = yaml.safe_load(prof.read_text())
    assert written["ioengine"] == "libaio" and set(written["engines"]) == {"io_uring"}
    assert {"host_per_io", "read_latency"} <= set(written["engines"]["io_uring"])
    model, _ = load_profile(prof)
    uring = observations(load_traces([traces / "io_uring-qd1.json", traces / "io_uring-qd16.json"]))
    with_cost = float((_residuals(model, uring, FIT_IOS) ** 2).sum())
    without = float((_residuals(replace(model, engines=()), uring, FIT_IOS) ** 2).sum())
    assert with_cost <= without * 1.01 + 1e-4  # the fit starts at libaio's cost and only descends (YAML rounding)
