"""A sweep on a real Dask cluster: a scheduler and two workers started as separate processes with the `dask`
command (as on machines of a cluster), the sweep sent to it with --scheduler, one worker killed with -9 while points
run. No point is lost and the results equal a local run's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

import lsmsim
from tests.test_sweep import _wait_for

DASK = Path(sys.executable).with_name("dask")
SWEEP = {
    "name": "cluster",
    "seed": 3,
    "machine": {"cores": 2},
    "workload": {"num": "400K", "phases": [{"name": "load", "operations": "400K", "mix": {"insert": 1.0}}]},
    "sweep": {"seeds": list(range(1, 11))},  # ~1.5 s each: the kill after the first always finds work left
}


def _start(*args: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([str(DASK), *args], stdout=log.open("w"), stderr=subprocess.STDOUT)


@pytest.mark.skipif(not DASK.exists(), reason="the `dask` command is not installed beside this Python")
def test_a_sweep_on_a_real_cluster_loses_no_point_when_a_worker_is_killed(tmp_path):
    f = tmp_path / "sweep.yaml"
    f.write_text(yaml.safe_dump(SWEEP))
    local = lsmsim.sweep(f, out=tmp_path / "local", jobs=2)

    sched_file = tmp_path / "scheduler.json"
    procs = [
        _start(
            "scheduler", "--scheduler-file", str(sched_file), "--port", "0", "--no-dashboard", log=tmp_path / "s.log"
        )
    ]
    try:
        assert _wait_for(lambda: sched_file.exists() and sched_file.stat().st_size > 0), (
            tmp_path / "s.log"
        ).read_text()
        address = json.loads(sched_file.read_text())["address"]
        for i in range(2):  # no nanny: a killed worker stays dead, as when its machine goes
            procs.append(
                _start(
                    "worker", "--scheduler-file", str(sched_file), "--nthreads", "1", "--no-nanny",
                    "--no-dashboard", "--name", f"w{i}", log=tmp_path / f"w{i}.log",
                )
            )  # fmt: skip
        from distributed import Client

        with Client(address, timeout="30s") as c:
            assert _wait_for(lambda: len(c.scheduler_info()["workers"]) == 2)
        out = tmp_path / "cluster"
        sweep = subprocess.Popen(
            [sys.executable, "-m", "lsmsim.cli", "sweep", str(f), "-q", "-o", str(out), "--executor", "dask"]
            + ["--scheduler", address],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        points = out / "points"

        def finished() -> int:
            return sum(not p.name.startswith(".") for p in points.iterdir()) if points.is_dir() else 0

        assert _wait_for(lambda: finished() >= 1, 120)
        os.kill(procs[1].pid, signal.SIGKILL)  # worker w0, mid-sweep
        assert finished() < len(SWEEP["sweep"]["seeds"])  # the rest run on w1 alone
        output, _ = sweep.communicate(timeout=600)
        assert sweep.returncode == 0, output
        assert procs[1].wait(timeout=10) == -signal.SIGKILL
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()

    res = pd.read_parquet(out / "results.parquet")
    assert len(res) == 10 and (res.status == "ok").all()
    cols = ["point_id", "seed", "write_amp", "throughput_ops_per_s", "space_amp"]
    pd.testing.assert_frame_equal(
        local.table[cols].sort_values("point_id", ignore_index=True),
        res[cols].sort_values("point_id", ignore_index=True),
    )
