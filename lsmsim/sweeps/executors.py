"""Where sweep points run: local worker processes or a Dask cluster (the launcher, apart from the
sweeper that decides what to run, as in Hydra).

Workers only simulate: `run_point` takes a resolved config (a plain dict, so it travels to any
machine) and returns the `Result`; the sweep process writes it. A Dask cluster therefore needs no
shared file system, and only one process ever writes the store.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from ..loading import load_config
from ..sim import simulate


@dataclass
class Outcome:
    result: object = None  # Result
    runtime_s: float = 0.0
    error: str = ""
    traceback: str = ""


def run_point(config: dict, marker_dir: str | None = None, point_id: str = "") -> Outcome:
    """Simulate one point. Exceptions come back as an Outcome (the sweep records them and goes on);
    `marker_dir` gets a file naming this process while it runs, so a worker that dies is blamed on
    the point it was running."""
    global _marker
    marker = None
    if marker_dir:
        marker = _marker = Path(marker_dir) / f"{point_id}.{os.getpid()}"
        marker.touch()
    t = time.perf_counter()
    try:
        return Outcome(result=simulate(load_config(config)), runtime_s=time.perf_counter() - t)
    except Exception as e:  # noqa: BLE001 - a failing point is data, not a crash of the sweep
        return Outcome(
            error=f"{type(e).__name__}: {e}", traceback=traceback.format_exc(), runtime_s=time.perf_counter() - t
        )
    finally:
        if marker is not None:
            marker.unlink(missing_ok=True)
            _marker = None


_marker: Path | None = None  # the running point's marker (run_point), for the SIGTERM handler


def _terminated(*_):
    """SIGTERM: remove the running point's marker (only the point whose worker died is blamed) and exit at once.
    Not sys.exit: a SystemExit raised while the worker blocks sending a result back is caught by
    concurrent.futures' _sendback_result, which blocks again on the full pipe of a pool that is being torn down,
    and the worker never exits (a sweep whose worker was killed then hung at exit)."""
    m = _marker
    if m is not None:
        m.unlink(missing_ok=True)
    os._exit(143)


def _die_with_parent(parent: int | None = None) -> None:
    """A worker ends when the sweep process does, even by kill -9 (which runs none of the sweep's clean-up):
    Linux's parent-death signal (prctl PR_SET_PDEATHSIG: SIGKILL, which needs no Python handler to run, so a
    worker deep in a long native call ends too; its point's marker is left for the next run to clean), and a
    thread that watches the parent pid once a second where prctl is missing or the parent died before it was
    set. `parent`: the pid the worker was started by (a sweep process killed while its worker was still starting
    has already handed the worker to pid 1, which the worker must not take for its parent)."""
    import ctypes
    import signal
    import threading
    import time

    parent = parent or os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # not Linux: the watch alone
        pass
    if os.getppid() != parent:  # it died before the signal was set
        _terminated()

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        _terminated()

    threading.Thread(target=watch, name="lsmsim-parent-watch", daemon=True).start()


def _warm(parent: int | None = None):
    """Import the simulator once per worker, before points arrive; Ctrl-C is the sweep process's
    to handle (it stops the workers), so workers ignore SIGINT. `parent`: the sweep process's pid."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the pool SIGTERMs the survivors when one worker dies: they leave at once, their markers removed
    signal.signal(signal.SIGTERM, _terminated)
    _die_with_parent(parent)
    import lsmsim.sim.kernel  # noqa: F401


class LocalExecutor:
    """A pool of `jobs` spawned worker processes (spawn: no state forked from the parent's threads)."""

    name = "local"
    may_crash = True  # a worker can die (OOM killer, kill -9): BrokenProcessPool, see runner

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        self._pool = None

    @property
    def started(self) -> bool:
        return self._pool is not None

    def start(self):
        self._pool = cf.ProcessPoolExecutor(
            self.jobs, mp_context=mp.get_context("spawn"), initializer=_warm, initargs=(os.getpid(),)
        )

    def submit(self, config: dict, marker_dir: str | None, point_id: str):
        return self._pool.submit(run_point, config, marker_dir, point_id)

    def wait(self, futures, timeout: float):
        done, _ = cf.wait(futures, timeout=timeout, return_when=cf.FIRST_COMPLETED)
        return done

    @staticmethod
    def outcome(future) -> Outcome:
        return future.result()

    def restart(self):
        self.shutdown(cancel=True)
        self.start()

    def shutdown(self, cancel: bool = False):
        if self._pool is not None:
            if cancel:
                for p in list(getattr(self._pool, "_processes", {}).values()):
                    if p.is_alive():
                        p.terminate()
            self._pool.shutdown(wait=not cancel, cancel_futures=cancel)
            self._pool = None


class DaskExecutor:
    """Dask distributed: an existing scheduler (`tcp://host:port`) or a LocalCluster of `jobs`
    single-threaded worker processes. Dask itself retries points whose worker died and gives up
    with KilledWorker, which the sweep records as that point's failure."""

    name = "dask"
    may_crash = False

    def __init__(self, jobs: int, scheduler: str | None = None):
        self.jobs = max(1, jobs)
        self.scheduler = scheduler
        self.client = self.cluster = None

    @property
    def started(self) -> bool:
        return self.client is not None

    def start(self):
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:  # pragma: no cover - a dependency of the package
            raise RuntimeError("the dask executor needs the `distributed` package") from e
        if self.scheduler:
            self.client = Client(self.scheduler, timeout="30s")
        else:
            self.cluster = LocalCluster(
                n_workers=self.jobs, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
            )
            self.client = Client(self.cluster)
        self.client.run(_warm)

    def submit(self, config: dict, marker_dir: str | None, point_id: str):
        return self.client.submit(run_point, config, None, point_id, key=f"lsmsim-point-{point_id}", pure=False)

    def wait(self, futures, timeout: float):
        from distributed import wait

        try:
            done, _ = wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set()
        return done

    @staticmethod
    def outcome(future) -> Outcome:
        try:
            return future.result()
        except Exception as e:  # noqa: BLE001 - KilledWorker and the like
            return Outcome(error=f"{type(e).__name__}: {e}", traceback=traceback.format_exc())

    def shutdown(self, cancel: bool = False):
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        self.client = self.cluster = None


def make_executor(kind: str, jobs: int | None, scheduler: str | None):
    jobs = jobs or os.cpu_count() or 1
    if kind == "local":
        return LocalExecutor(jobs)
    if kind == "dask":
        return DaskExecutor(jobs, scheduler)
    raise ValueError(f"unknown executor {kind!r}; allowed: local, dask")
