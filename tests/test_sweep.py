"""Sweeps: expansion, the result store, resume after crashes, failure isolation, executors."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

import lsmsim
from lsmsim.errors import ConfigError
from lsmsim.sweeps import load_sweep, run_sweep
from lsmsim.sweeps.spec import derive_seeds

BASE = {
    "name": "t",
    "seed": 3,
    "machine": {"cores": 2},
    "workload": {"num": "20K", "phases": [{"name": "load", "operations": "20K", "mix": {"insert": 1.0}}]},
}


def spec(**sweep) -> dict:
    return {**BASE, "sweep": sweep}


def write(tmp_path, data, name="sweep.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data))
    return p


def cli(*args, cwd=None, **kw):
    return subprocess.run(
        [sys.executable, "-m", "lsmsim.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=600, **kw
    )


# ------------------------------------------------------------------ expansion
def test_variants_grid_and_seeds_form_a_product():
    sw = load_sweep(
        spec(
            variants={"lev": {"policy": {"name": "leveled"}}, "tier": {"policy": {"name": "tiering"}}},
            grid={"lsm.write_buffer_size": ["1MiB", "2MiB"], "workload.num": ["20K", "30K"]},
            seeds=3,
        )
    )
    assert len(sw.points) == 2 * 2 * 2 * 3
    assert len({p.id for p in sw.points}) == len(sw.points)
    tbl = sw.table()
    assert set(tbl.columns) == {"point_id", "variant", "lsm.write_buffer_size", "workload.num", "seed"}
    p = next(p for p in sw.points if p.params["variant"] == "tier" and p.params["lsm.write_buffer_size"] == "2MiB")
    assert p.config.policy.name == "tiering"
    assert p.config.lsm.write_buffer_size == 2 * 2**20
    assert sorted(set(tbl.seed)) == sorted(derive_seeds(3, 3))


def test_zip_pairs_values_and_labels_only_label():
    sw = load_sweep(spec(zip={"r": [0.1, 0.5], "lsm.write_buffer_size": ["1MiB", "4MiB"]}))
    assert [(p.params["r"], p.config.lsm.write_buffer_size) for p in sw.points] == [(0.1, 2**20), (0.5, 4 * 2**20)]


def test_seeds_are_derived_deterministically_and_differ():
    assert derive_seeds(7, 4) == derive_seeds(7, 4)
    assert len(set(derive_seeds(7, 4))) == 4
    assert derive_seeds(7, 2) != derive_seeds(8, 2)
    sw = load_sweep(spec(seeds=[5, 9]))
    assert [p.config.seed for p in sw.points] == [5, 9]


def test_point_id_is_the_resolved_config_hash():
    a = load_sweep(spec(grid={"lsm.write_buffer_size": ["1MiB"]})).points[0]
    b = load_sweep(spec(grid={"lsm.write_buffer_size": [1048576]})).points[0]  # same config, other spelling
    c = load_sweep(spec(grid={"lsm.write_buffer_size": ["2MiB"]})).points[0]
    assert a.id == b.id != c.id


def test_scales_replace_axes_and_add_settings():
    sw = load_sweep(
        spec(
            grid={"workload.num": ["20K", "30K", "40K"]},
            scales={"quick": {"grid": {"workload.num": ["10K"]}, "set": {"lsm.write_buffer_size": "1MiB"}}},
        )
    )
    assert len(sw.points) == 3
    q = load_sweep(
        spec(
            grid={"workload.num": ["20K", "30K", "40K"]},
            scales={"quick": {"grid": {"workload.num": ["10K"]}, "set": {"lsm.write_buffer_size": "1MiB"}}},
        ),
        scale="quick",
    )
    assert len(q.points) == 1 and q.points[0].config.lsm.write_buffer_size == 2**20


def test_base_file_is_extended(tmp_path):
    write(tmp_path, BASE, "base.yaml")
    sw = load_sweep(
        write(tmp_path, {"lsm": {"write_buffer_size": "2MiB"}, "sweep": {"base": "base.yaml", "seeds": [1]}})
    )
    assert sw.points[0].config.lsm.write_buffer_size == 2 * 2**20
    assert sw.points[0].config.workload.num == 20000


@pytest.mark.parametrize(
    "sweep, where, what",
    [
        (None, "sweep", "missing"),
        ({"zip": {"a.b": [1, 2], "lsm.x": [1]}}, "sweep.zip", "equal lengths"),
        ({"grid": {"lsm.write_buffer_size": []}}, "sweep.grid", "at least one value"),
        ({"seeds": 0}, "sweep.seeds", ">= 1"),
        ({"bogus": 1}, "sweep.bogus", "unknown field"),
        ({"grid": {"lsm.write_buffer_size": ["lots"]}}, "lsm.write_buffer_size", "lsm.write_buffer_size=lots"),
        ({"variants": {"v": {"polcy.name": "tiering"}}}, "polcy.name", "not a config path"),
    ],
)
def test_bad_sweeps_name_the_path(tmp_path, sweep, where, what):
    data = dict(BASE) if sweep is None else spec(**sweep)
    f = write(tmp_path, data)
    with pytest.raises(ConfigError) as e:
        load_sweep(f)
    assert where in str(e.value) and what in str(e.value), str(e.value)
    r = cli("sweep", str(f), "--dry-run")
    assert r.returncode == 2 and "Traceback" not in r.stderr and where in r.stderr


def test_unknown_scale_lists_the_allowed(tmp_path):
    r = cli("sweep", str(write(tmp_path, spec(seeds=[1], scales={"quick": {}}))), "--scale", "huge", "--dry-run")
    assert r.returncode == 2 and "allowed: default, quick" in r.stderr


@pytest.mark.parametrize(
    "sweep", [{"seeds": 50_000_000}, {"grid": {"seed": list(range(2000)), "workload.num": list(range(1, 2000))}}]
)
def test_huge_expansions_are_refused_before_expanding(tmp_path, sweep):
    t = time.time()
    r = cli("sweep", str(write(tmp_path, spec(**sweep))), "--dry-run")
    assert r.returncode == 2 and "more than 100,000" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert time.time() - t < 30


def test_dry_run_lists_points(tmp_path):
    r = cli("sweep", str(write(tmp_path, spec(grid={"lsm.write_buffer_size": ["1MiB", "2MiB"]}))), "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "2 points" in r.stdout and "1MiB" in r.stdout and "2MiB" in r.stdout
    assert not (tmp_path / "results").exists()


# ------------------------------------------------------------------ running and the store
def test_sweep_runs_stores_and_resumes(tmp_path):
    f = write(
        tmp_path,
        spec(variants={"lev": {"policy": {"name": "leveled"}}, "tier": {"policy": {"name": "tiering"}}}, seeds=[1, 2]),
    )
    out = tmp_path / "res"
    res = lsmsim.sweep(f, out=out, jobs=2)
    assert len(res.table) == 4 and (res.table.status == "ok").all()
    combined = pd.read_parquet(out / "results.parquet")
    assert list(combined.point_id) == list(res.table.point_id)
    assert {"variant", "seed", "write_amp", "throughput_ops_per_s", "runtime_s"} <= set(combined.columns)
    for pid in combined.point_id:
        d = out / "points" / pid
        assert {
            "summary.json",
            "timeseries.parquet",
            "config.yaml",
            "provenance.json",
            "point.json",
            "row.parquet",
        } <= {p.name for p in d.iterdir()}
    # the same point run alone gives the same numbers (determinism across processes)
    one = load_sweep(f).points[0]
    alone = lsmsim.run(one.config)
    row = combined.set_index("point_id").loc[one.id]
    assert row["write_amp"] == alone.summary["write_amp"]
    # resume: nothing to do, nothing rewritten
    stamp = {pid: (out / "points" / pid / "summary.json").stat().st_mtime_ns for pid in combined.point_id}
    done = run_sweep(load_sweep(f), out=out, jobs=2, progress=False)
    assert done.ran == 0 and done.skipped == 4
    assert stamp == {pid: (out / "points" / pid / "summary.json").stat().st_mtime_ns for pid in combined.point_id}
    # one more seed: only the new points run
    done = run_sweep(
        load_sweep(
            write(
                tmp_path,
                spec(
                    variants={"lev": {"policy": {"name": "leveled"}}, "tier": {"policy": {"name": "tiering"}}},
                    seeds=[1, 2, 3],
                ),
            )
        ),
        out=out,
        jobs=2,
        progress=False,
    )
    assert done.ran == 2 and done.skipped == 4 and len(done.table) == 6
    loaded = lsmsim.load_results(out)
    assert len(loaded) == 6 and set(loaded.params) >= {"variant", "seed"}
    assert "variant" in loaded._repr_html_()
    assert loaded.point(one.id)["summary"]["write_amp"] == alone.summary["write_amp"]


def test_a_cancelled_sweep_stops_and_resumes(tmp_path):
    """`cancel` (what `lsmsim figures` sets when one of the sweeps it runs side by side fails or is interrupted)
    stops a sweep: it raises, its workers go, no point is half-written, and the next run does every point."""
    import threading

    from lsmsim.errors import LsmsimError

    f = write(tmp_path, spec(variants={"lev": {"policy": {"name": "leveled"}}}, seeds=[1, 2, 3]))
    out, cancel = tmp_path / "res", threading.Event()
    cancel.set()
    with pytest.raises(LsmsimError, match="cancelled"):
        run_sweep(load_sweep(f), out=out, jobs=1, progress=False, cancel=cancel)
    assert not list((out / "points").glob("*/summary.json.tmp*"))
    done = run_sweep(load_sweep(f), out=out, jobs=1, progress=False)
    assert done.ran + done.skipped == 3 and done.ran >= 2 and (done.table.status == "ok").all()


def test_sweeps_share_a_pool_whose_workers_start_once(tmp_path):
    """`pool`: sweeps run one after another on one executor (as `lsmsim figures` runs its sweeps) use the same
    worker processes, started by the first sweep that has points to run, and give the numbers a pool of their own
    gives; a sweep that fails (here: cancelled) shuts the shared pool down."""
    import threading

    from lsmsim.errors import LsmsimError
    from lsmsim.sweeps.executors import make_executor

    a = load_sweep(write(tmp_path, spec(variants={"lev": {"policy": {"name": "leveled"}}}, seeds=[1, 2]), "a.yaml"))
    b = load_sweep(write(tmp_path, spec(variants={"tier": {"policy": {"name": "tiering"}}}, seeds=[1]), "b.yaml"))
    pool = make_executor("local", 1, None)
    assert not pool.started
    ra = run_sweep(a, out=tmp_path / "a", jobs=1, progress=False, pool=pool)
    assert pool.started
    workers = set(pool._pool._processes)
    rb = run_sweep(b, out=tmp_path / "b", jobs=1, progress=False, pool=pool)
    assert pool.started and set(pool._pool._processes) == workers and len(workers) == 1
    assert ra.ran == 2 and rb.ran == 1 and (ra.table.status == "ok").all() and (rb.table.status == "ok").all()
    alone = run_sweep(b, out=tmp_path / "b-alone", jobs=1, progress=False)
    assert alone.table.write_amp.tolist() == rb.table.write_amp.tolist()
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LsmsimError, match="cancelled"):
        run_sweep(b, out=tmp_path / "c", jobs=1, progress=False, pool=pool, cancel=cancel)
    assert not pool.started


def test_a_failing_point_is_recorded_and_the_others_finish(tmp_path):
    f = write(
        tmp_path,
        spec(
            grid={
                "device": [{"model": "simple"}, {"model": "ssd", "preset": "samsung-pm9a3-960gb", "capacity": "2MiB"}]
            }
        ),
    )
    out = tmp_path / "res"
    r = cli("sweep", str(f), "-j", "2", "-q", "-o", str(out))
    assert r.returncode == 1, r.stderr
    assert "1 failed" in r.stdout and "Traceback" not in r.stderr
    tbl = pd.read_parquet(out / "results.parquet")
    assert sorted(tbl.status) == ["failed", "ok"]
    bad = tbl[tbl.status == "failed"].iloc[0]
    assert "over_provisioning" in bad.error
    rec = json.loads((out / "failed" / f"{bad.point_id}.json").read_text())
    assert "Traceback" in rec["traceback"] and rec["config"]["device"]["model"] == "ssd"
    # a re-run retries the failure (it fails again) and keeps the good point
    r2 = cli("sweep", str(f), "-j", "1", "-q", "-o", str(out))
    assert r2.returncode == 1 and "1 run, 1 already done" in r2.stdout


SLOW = {**BASE, "workload": {"num": "6M", "phases": [{"name": "load", "operations": "6M", "mix": {"insert": 1.0}}]}}


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _gone(pid: int) -> bool:
    """The process has exited (a zombie until its parent, here killed, would reap it)."""
    psutil = pytest.importorskip("psutil")
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_for(cond, timeout=120.0):
    t = time.time()
    while time.time() - t < timeout:
        if cond():
            return True
        time.sleep(0.1)
    return False


def test_killed_sweep_loses_nothing_and_resumes(tmp_path):
    """kill -9 of the sweep process (and its workers) mid-run: finished points stay whole, no
    partial point is visible, and the next run does only what is left."""
    f = write(tmp_path, {**SLOW, "sweep": {"seeds": [1, 2, 3, 4, 5, 6]}})
    out = tmp_path / "res"
    proc = subprocess.Popen(
        [sys.executable, "-m", "lsmsim.cli", "sweep", str(f), "-j", "2", "-q", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    points = out / "points"
    assert _wait_for(lambda: points.is_dir() and len([p for p in points.iterdir() if not p.name.startswith(".")]) >= 1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = {p.name for p in points.iterdir() if not p.name.startswith(".")}
    assert 1 <= len(finished) < 6
    for pid in finished:  # whole
        assert (points / pid / "row.parquet").exists() and (points / pid / "summary.json").exists()
    r = cli("sweep", str(f), "-j", "2", "-q", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert f"{len(finished)} already done" in r.stdout and f"{6 - len(finished)} run" in r.stdout
    assert not [p for p in points.iterdir() if p.name.startswith(".")]  # leftovers cleaned
    assert len(pd.read_parquet(out / "results.parquet")) == 6


def test_workers_die_with_the_sweep_process(tmp_path):
    """kill -9 of the sweep process alone (no clean-up runs): its workers end within seconds rather than running
    on under pid 1 (the parent-death signal and the parent watch, executors._die_with_parent)."""
    psutil = pytest.importorskip("psutil")
    f = write(tmp_path, {**SLOW, "sweep": {"seeds": [1, 2, 3, 4]}})
    out = tmp_path / "res"
    proc = subprocess.Popen(
        [sys.executable, "-m", "lsmsim.cli", "sweep", str(f), "-j", "2", "-q", "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    markers = lambda: [m for d in out.glob(".tmp-markers-*") for m in d.iterdir()]  # noqa: E731
    assert _wait_for(lambda: out.is_dir() and len(markers()) >= 1)
    workers = [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
    assert workers
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    assert _wait_for(lambda: all(_gone(p) for p in workers), timeout=20), [p for p in workers if not _gone(p)]


def test_dask_workers_die_with_the_sweep_process(tmp_path):
    """The same under the Dask executor (issue 18 found orphans under the local pool only; this keeps it so): a
    LocalCluster's nannies live in the sweep process and its worker processes are the sweep process's children.
    distributed's worker processes leave when their pipe to the parent closes, and `_warm` (run on every worker)
    ties them to it besides: kill -9 of the sweep process takes them, and multiprocessing's resource tracker."""
    psutil = pytest.importorskip("psutil")
    f = write(tmp_path, {**BASE, "sweep": {"seeds": list(range(1, 200))}})
    out = tmp_path / "res"
    proc = subprocess.Popen(
        [sys.executable, "-m", "lsmsim.cli", "sweep", str(f), "-j", "2", "-q", "-o", str(out), "--executor", "dask"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    points = out / "points"
    assert _wait_for(lambda: points.is_dir() and any(not p.name.startswith(".") for p in points.iterdir()))
    family = [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
    assert len(family) >= 3  # two workers and the resource tracker
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    assert _wait_for(lambda: all(_gone(p) for p in family), timeout=20), [p for p in family if not _gone(p)]


def test_a_killed_worker_is_replaced_and_its_point_retried(tmp_path):
    f = write(tmp_path, {**SLOW, "sweep": {"seeds": [1, 2, 3, 4]}})
    out = tmp_path / "res"
    proc = subprocess.Popen(
        [sys.executable, "-m", "lsmsim.cli", "sweep", str(f), "-j", "2", "-q", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    markers = lambda: [m for d in out.glob(".tmp-markers-*") for m in d.iterdir()]  # noqa: E731
    assert _wait_for(lambda: out.is_dir() and len(markers()) >= 1)
    victim = int(markers()[0].name.split(".")[1])
    os.kill(victim, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr
    assert "4 run" in stdout and "0 failed" in stdout
    tbl = pd.read_parquet(out / "results.parquet")
    assert len(tbl) == 4 and (tbl.status == "ok").all()


def _blocked_sender(conn, marker):
    """A sweep worker whose result does not fit the pipe to a pool being torn down: concurrent.futures'
    _sendback_result retries the put after any BaseException, so a SIGTERM that raised SystemExit would only
    block it again."""
    from lsmsim.sweeps import executors

    executors._warm()
    executors._marker = Path(marker)
    Path(marker).touch()
    big = b"x" * (1 << 24)  # far beyond a pipe's buffer; nobody reads
    try:
        conn.send_bytes(big)
    except BaseException:
        conn.send_bytes(big)


def test_a_worker_blocked_sending_its_result_exits_on_sigterm(tmp_path):
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    reader, writer = ctx.Pipe(duplex=False)
    marker = tmp_path / "p.123"
    proc = ctx.Process(target=_blocked_sender, args=(writer, str(marker)))
    proc.start()
    assert _wait_for(lambda: marker.exists())
    time.sleep(0.5)  # let it block in the write
    proc.terminate()
    proc.join(timeout=20)
    try:
        assert proc.exitcode == 143 and not marker.exists()
    finally:
        if proc.is_alive():
            proc.kill()
        reader.close()


def test_dask_executor_matches_local(tmp_path):
    f = write(
        tmp_path, spec(variants={"lev": {"policy": {"name": "leveled"}}, "tier": {"policy": {"name": "tiering"}}})
    )
    local = lsmsim.sweep(f, out=tmp_path / "local", jobs=1)
    dask = lsmsim.sweep(f, out=tmp_path / "dask", jobs=2, executor="dask")
    cols = ["point_id", "write_amp", "throughput_ops_per_s", "space_amp"]
    pd.testing.assert_frame_equal(local.table[cols].reset_index(drop=True), dask.table[cols].reset_index(drop=True))
    assert (dask.table.status == "ok").all()


def test_sweep_results_plot(tmp_path):
    res = lsmsim.sweep(
        spec(
            variants={"lev": {"policy": {"name": "leveled"}}, "tier": {"policy": {"name": "tiering"}}},
            grid={"lsm.write_buffer_size": [1048576, 2097152]},
        ),
        out=tmp_path / "r",
        jobs=2,
    )
    fig = res.plot("lsm.write_buffer_size", "write_amp", path=tmp_path / "wa.png")
    assert len(fig.axes[0].lines) == 2 and (tmp_path / "wa.png").stat().st_size > 1000
    with pytest.raises(KeyError, match="no column"):
        res.plot("nope", "write_amp")


def test_zip_groups_cross_and_variants_from_a_file(tmp_path):
    (tmp_path / "pol.yaml").write_text(
        yaml.safe_dump({"lev": {"policy": {"name": "leveled"}}, "tier": {"policy": {"name": "tiering"}}})
    )
    f = write(
        tmp_path,
        spec(
            variants="pol.yaml",
            zip=[
                {"machine.cores": [2, 4], "machine.threads.compaction": [1, 3]},
                {"r": [0.1, 0.5, 0.9], "lsm.write_buffer_size": ["1MiB", "2MiB", "3MiB"]},
            ],
        ),
    )
    sw = load_sweep(f)
    assert len(sw.points) == 2 * 2 * 3
    pairs = {(p.config.machine.cores, p.config.machine.threads.compaction) for p in sw.points}
    assert pairs == {(2, 1), (4, 3)}
    assert {(p.params["r"], p.config.lsm.write_buffer_size) for p in sw.points} == {
        (0.1, 2**20),
        (0.5, 2 * 2**20),
        (0.9, 3 * 2**20),
    }
    assert {p.config.policy.name for p in sw.points} == {"leveled", "tiering"}


def test_skip_variants_leaves_variants_of_a_shared_file_out_at_every_scale(tmp_path):
    (tmp_path / "pol.yaml").write_text(
        yaml.safe_dump({"lev": {"policy": {"name": "leveled"}}, "tier": {"policy": {"name": "tiering"}}})
    )
    f = write(tmp_path, spec(variants="pol.yaml", skip_variants=["tier"], scales={"quick": {"variants": "pol.yaml"}}))
    for scale in (None, "quick"):
        assert [p.params["variant"] for p in load_sweep(f, scale).points] == ["lev"]
    f = write(tmp_path, spec(variants="pol.yaml", skip_variants=["tiers"]))
    with pytest.raises(ConfigError) as e:
        load_sweep(f)
    assert "sweep.skip_variants" in str(e.value) and "allowed: lev, tier" in str(e.value)


def test_ctrl_c_stops_keeps_finished_points_and_leaves_nothing_partial(tmp_path):
    # 48 points of ~1.5 s on two workers: Ctrl-C after the first finds points to stop on any host
    f = write(tmp_path, {**SLOW, "sweep": {"seeds": list(range(1, 49))}})
    out = tmp_path / "res"
    # Ctrl-C as at a terminal: the sweep starts with SIGINT's default action. A command started with `&` by a
    # non-interactive shell (a CI script run in the background) inherits SIGINT ignored, and Python then leaves it
    # ignored, so the sweep would rightly run to the end (this test's old flake: exit 0, every point done).
    reset = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "os.execv(sys.executable, [sys.executable, '-m', 'lsmsim.cli', *sys.argv[1:]])"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", reset, "sweep", str(f), "-j", "2", "-q", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    points = out / "points"
    assert _wait_for(lambda: points.is_dir() and any(not p.name.startswith(".") for p in points.iterdir()))
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    finished = [p for p in points.iterdir() if not p.name.startswith(".")]
    assert 1 <= len(finished) < 48
    assert not [p for p in points.iterdir() if p.name.startswith(".")]
    assert not list(out.glob(".tmp-*"))
    tbl = pd.read_parquet(out / "results.parquet")  # written on the way out: the finished points
    assert set(tbl.point_id) == {p.name for p in finished}


def test_mixed_value_types_and_bad_paths(tmp_path):
    res = lsmsim.sweep(spec(grid={"lsm.write_buffer_size": ["1MiB", 2097152]}), out=tmp_path / "r", jobs=1)
    assert len(res.table) == 2 and (tmp_path / "r" / "results.parquet").exists()
    listed = {**BASE, "machine": {"cores": 2, "io_priority": ["flush", "compaction_l0", "compaction", "foreground"]}}
    with pytest.raises(ConfigError, match="is a value, not a section"):
        load_sweep({**listed, "sweep": {"grid": {"machine.io_priority.0.x": [1]}}})
    with pytest.raises(ConfigError, match="seed"):
        load_sweep({**BASE, "seed": "abc", "sweep": {"seeds": 2}})


def test_saved_sweep_reruns_from_anywhere_and_points_are_ordinary_folders(tmp_path):
    """results/<sweep>/sweep.yaml has the base merged and variant files inlined, so it re-runs elsewhere to the
    same points; finished point folders get the umask's permissions, not mkdtemp's 0700."""
    (tmp_path / "src").mkdir()
    write(tmp_path / "src", BASE, "base.yaml")
    write(tmp_path / "src", {"lev": {"policy": {"name": "leveled"}}, "tier": {"policy": {"name": "tiering"}}}, "v.yaml")
    f = write(
        tmp_path / "src",
        {
            "name": "saved",
            "sweep": {"base": "base.yaml", "variants": "v.yaml", "scales": {"quick": {"set": {"workload.num": "10K"}}}},
        },
    )
    sw = load_sweep(f, scale="quick")
    run = run_sweep(sw, out=tmp_path / "out", jobs=1, progress=False)
    assert run.ok and run.ran == 2
    saved = tmp_path / "out" / "sweep.yaml"
    assert "scale quick" in saved.read_text().splitlines()[0]
    again = load_sweep(saved, scale="quick")
    assert sorted(p.id for p in again.points) == sorted(p.id for p in sw.points)
    mask = os.umask(0)
    os.umask(mask)
    for d in (tmp_path / "out" / "points").iterdir():
        assert d.stat().st_mode & 0o777 == 0o777 & ~mask


def test_a_second_sweep_into_the_same_folder_is_refused(tmp_path):
    from lsmsim.errors import LsmsimError
    from lsmsim.sweeps.store import Store

    sw = load_sweep(spec(zip={"workload.num": ["10K"]}))
    held = Store(tmp_path / "out").lock()
    try:
        with pytest.raises(LsmsimError, match="another lsmsim sweep"):
            run_sweep(sw, out=tmp_path / "out", jobs=1, progress=False)
    finally:
        held.close()
    assert run_sweep(sw, out=tmp_path / "out", jobs=1, progress=False).ok  # released: it runs


def test_paper_scale_report_lists_finished_points(tmp_path):
    """scripts/paper_scale_report.py: one CSV row per finished point with its parameters, runtime and commit."""
    f = write(
        tmp_path, spec(variants={"lev": {"policy": {"name": "leveled"}}, "tier": {"policy": {"name": "tiering"}}})
    )
    out = tmp_path / "res"
    res = lsmsim.sweep(f, out=out, jobs=1)
    script = Path(__file__).parent.parent / "scripts" / "paper_scale_report.py"
    r = subprocess.run(
        [sys.executable, str(script), str(out), "--out", str(tmp_path / "doc")], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    # dtype: a 10-digit hash prefix can be all digits (3071728379 was)
    df = pd.read_csv(tmp_path / "doc" / "res-points.csv", dtype={"commit": str})
    assert sorted(df["variant"]) == ["lev", "tier"]
    assert (df["runtime_s"] > 0).all() and df["commit"].str.len().min() >= 10
    assert sorted(df["write_amp"]) == pytest.approx(sorted(res.table["write_amp"]))
    (tmp_path / "empty").mkdir()
    bad = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "empty"), "--out", str(tmp_path / "doc")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "not a sweep result folder" in bad.stderr


def test_seeds_give_means_and_confidence_intervals(tmp_path):
    """seeds: 4 over two write buffers: results_mean.parquet has a row per buffer with the mean over its 4 seeds and
    the 95% confidence interval's half-width (Student's t), and SweepResults.plot draws it as error bars."""
    from scipy import stats

    data = {
        **BASE,
        "workload": {
            "num": "20K",
            "phases": [{"name": "load", "operations": "20K", "mix": {"update": 0.7, "get": 0.3}}],
        },
        "lsm": {"write_buffer_size": "64KiB"},
        "sweep": {"grid": {"lsm.write_buffer_size": ["64KiB", "128KiB"]}, "seeds": 4},
    }
    res = lsmsim.sweep(write(tmp_path, data), out=tmp_path / "res", jobs=2)
    means = pd.read_parquet(tmp_path / "res" / "results_mean.parquet")
    assert len(means) == 2 and (means.seeds == 4).all()
    pd.testing.assert_frame_equal(means, res.means())
    for _, row in means.iterrows():
        runs = res.table[res.table["lsm.write_buffer_size"] == row["lsm.write_buffer_size"]].throughput_ops_per_s
        assert len(runs) == 4 and runs.std() > 0  # the seeds differ
        lo, hi = stats.t.interval(0.95, len(runs) - 1, loc=runs.mean(), scale=stats.sem(runs))
        assert row.throughput_ops_per_s == pytest.approx(runs.mean())
        assert row.throughput_ops_per_s_ci == pytest.approx((hi - lo) / 2)
    fig = res.plot("lsm.write_buffer_size", "throughput_ops_per_s", hue=None)
    bars = [c for c in fig.axes[0].containers if getattr(c, "has_yerr", False)]
    assert bars and len(bars[0].lines[2][0].get_segments()) == 2  # an error bar at each buffer size
