"""Run a sweep: skip finished points, run the rest on an executor, store each as it finishes.

A point that raises is recorded (failed/<id>.json and a `failed` row) and the others go on. A local
worker process that dies (kill -9, the OOM killer) breaks the process pool: the pool is restarted,
the points it was running are blamed (a marker file names them) and retried once, and the others
are resubmitted. Ctrl-C stops at once; finished points stay, nothing partial is left.
"""

from __future__ import annotations

import shutil
import tempfile
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import LsmsimError
from .executors import Outcome, make_executor
from .spec import Sweep
from .store import Store

MAX_CRASHES = 2  # a point whose worker died this many times is recorded as failed


@dataclass
class SweepRun:
    """What `run_sweep` did: the combined table and the counts."""

    store: Store
    table: pd.DataFrame
    ran: int
    skipped: int
    failed: int

    @property
    def ok(self) -> bool:
        return self.failed == 0


def run_sweep(
    sweep: Sweep,
    out: str | Path | None = None,
    jobs: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    progress: bool = True,
    retry_failed: bool = True,
    cancel=None,
    position: int | None = None,
    pool=None,
) -> SweepRun:
    """Run the points of `sweep` not finished yet into `out` (default results/<name>). `cancel` (a threading.Event)
    stops the run, its workers and the points they run, within half a second of being set (finished points stay).
    `position`: the progress bar's line, when several sweeps run at once. `pool`: an executor (`make_executor`) that
    outlives this sweep, started here if it is not yet, left running when the sweep ends and shut down when it
    fails (`make_figures` runs its sweeps on one: a worker's start-up, imports and numba's first use, is paid once,
    not once a sweep); None: one of `executor` and `jobs` for this sweep alone."""
    store = Store(out or default_out(sweep))
    lock = store.lock()
    try:
        return _run(sweep, store, jobs, executor, scheduler, progress, retry_failed, cancel, position, pool)
    finally:
        lock.close()


def _run(
    sweep, store, jobs, executor, scheduler, progress, retry_failed, cancel=None, position=None, pool=None
) -> SweepRun:
    from tqdm.auto import tqdm

    store.clean_partial()
    store.write_spec(sweep.spec, sweep.scale)
    done = store.done_ids()
    todo = [p for p in sweep.points if p.id not in done]
    if not retry_failed:
        failed_before = {f.stem for f in store.failed.glob("*.json")} if store.failed.is_dir() else set()
        todo = [p for p in todo if p.id not in failed_before]
    skipped = len(sweep.points) - len(todo)
    bar = tqdm(
        total=len(sweep.points),
        initial=skipped,
        disable=not progress,
        unit="pt",
        desc=sweep.name,
        dynamic_ncols=True,
        position=position,
        leave=position is None,
    )
    failed = 0
    ran = 0
    if todo:
        ex = pool if pool is not None else make_executor(executor, jobs, scheduler)
        markers = Path(tempfile.mkdtemp(prefix=".tmp-markers-", dir=store.root)) if ex.may_crash else None
        crashes: dict[str, int] = {}
        completed = False
        try:
            if not ex.started:
                ex.start()
            pending = {ex.submit(p.config_dict, str(markers) if markers else None, p.id): p for p in todo}
            while pending:
                if cancel is not None and cancel.is_set():
                    raise LsmsimError(f"{sweep.name}: cancelled")
                finished = ex.wait(pending, timeout=0.5)
                broken = False
                for fut in finished:
                    point = pending.pop(fut)
                    try:
                        out_ = ex.outcome(fut)
                    except BrokenProcessPool:
                        broken = True
                        pending[fut] = point  # handled below with the rest
                        continue
                    ran += 1
                    failed += _record(store, point, out_)
                    bar.update(1)
                if broken:
                    failed += _recover(ex, pending, markers, crashes, store, bar)
                bar.set_postfix_str(f"running {min(len(pending), ex.jobs)}, failed {failed}", refresh=False)
            completed = True
        finally:
            if pool is None or not completed:  # Ctrl-C or an error: stop the workers at once
                ex.shutdown(cancel=not completed)
            if markers is not None:
                shutil.rmtree(markers, ignore_errors=True)
            bar.close()
            table = _write_tables(store, sweep)
    else:
        bar.close()
        table = _write_tables(store, sweep)
    n_failed = int((table["status"] == "failed").sum()) if "status" in table else 0
    return SweepRun(store=store, table=table, ran=ran, skipped=skipped, failed=n_failed)


def _write_tables(store: Store, sweep: Sweep):
    """results.parquet (a row per point) and, for a sweep with seeds, results_mean.parquet (a row per point less its
    seed: means and 95% confidence intervals over the seeds, `SweepResults.means`)."""
    from ..atomic import atomic_write
    from .results import seed_means

    table = store.write_table([p.id for p in sweep.points])
    if "seed" in table:
        params = list(dict.fromkeys(k for p in sweep.points for k in p.params))
        means = seed_means(table, params)
        atomic_write(store.root / "results_mean.parquet", lambda p: means.to_parquet(p, index=False))
    return table


def default_out(sweep: Sweep) -> Path:
    """results/<sweep name>, or results/<sweep name>-<scale> for a named scale."""
    scaled = sweep.scale and sweep.scale != "default"
    return Path("results") / (f"{sweep.name}-{sweep.scale}" if scaled else sweep.name)


def _record(store: Store, point, out: Outcome) -> int:
    if out.error:
        store.save_failure(point, out.error, out.traceback, out.runtime_s)
        return 1
    store.save_point(point, out.result, out.runtime_s)
    return 0


def _recover(ex, pending: dict, markers: Path | None, crashes: dict, store: Store, bar) -> int:
    """The pool broke: blame the points whose marker is left, restart, resubmit the rest."""
    blamed = {m.name.split(".")[0] for m in markers.iterdir()} if markers else set()
    for m in markers.iterdir() if markers else ():
        m.unlink(missing_ok=True)
    points = list(pending.values())
    pending.clear()
    ex.restart()
    failed = 0
    for p in points:
        if p.id in blamed:
            crashes[p.id] = crashes.get(p.id, 0) + 1
            if crashes[p.id] >= MAX_CRASHES:
                store.save_failure(
                    p,
                    f"worker process died {crashes[p.id]} times while running this point (killed, or out of memory)",
                    "",
                    0.0,
                )
                failed += 1
                bar.update(1)
                continue
        pending[ex.submit(p.config_dict, str(markers) if markers else None, p.id)] = p
    return failed
