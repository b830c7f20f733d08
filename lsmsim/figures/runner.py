"""Run what a figure needs (its sweep, resuming) and write <id>.png, <id>.pdf and <id>.csv."""

from __future__ import annotations

import os
import queue
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..atomic import atomic_write
from ..errors import LsmsimError
from ..plots import palette
from ..sweeps import SweepResults, load_sweep, run_sweep
from ..sweeps.executors import make_executor
from .paper_values import caption, compare
from .registry import all_figures, experiments_dir


def draw(spec, res: SweepResults, out: Path, scale: str) -> list[Path]:
    """Draw figure `spec` from stored results `res`: <id>.png, .pdf and .csv in `out`, and <id>-paper.csv with
    the paper's numbers beside ours (paper_values) where the paper prints any, summarised under the figure."""
    out = Path(out)
    written = []
    # colour-blind-safe colours for every figure; C0, C1, ... resolve when a figure is saved, so save inside too
    with palette():
        fig, data = spec.plot(res)
        paper = compare(spec.id, data)
        text = caption(spec.id, paper)
        if text:
            fig.text(0.5, 0.0, textwrap.fill(text, 180), ha="center", va="top", fontsize=7, style="italic")
        fig.suptitle(f"{spec.title}  [lsmsim, {scale} scale]", fontsize=9)
        fig.tight_layout(rect=(0, 0, 1, 0.93))
        for ext in ("png", "pdf"):
            path = out / f"{spec.id}.{ext}"
            atomic_write(path, lambda p, ext=ext: fig.savefig(p, format=ext, dpi=110, bbox_inches="tight"))
            written.append(path)
    for path, table in ((out / f"{spec.id}.csv", data), (out / f"{spec.id}-paper.csv", paper)):
        if table is paper and paper.empty:
            continue
        atomic_write(path, lambda p, table=table: table.to_csv(p, index=False))
        written.append(path)
    return written


def _sweep_for(spec, scale: str):
    sw = load_sweep(experiments_dir() / spec.sweep, None)
    raw = sw.spec.get("sweep", {})
    if scale != "default" and scale in (raw.get("scales") or {}):
        sw = load_sweep(experiments_dir() / spec.sweep, scale)
    return sw


def make_figures(
    only: list[str] | None = None,
    out: str | Path = "figures",
    scale: str = "quick",
    results: str | Path = "results",
    jobs: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    progress: bool = True,
    log=print,
) -> list[Path]:
    """Draw the registered figures (`only`: some ids). Each figure's sweep runs at `scale` (quick,
    default or paper; a sweep without that scale runs as it is) into <results>/<sweep>-<scale>/,
    skipping finished points. Returns the files written.

    Locally with several jobs, the sweeps run side by side, up to `jobs` at a time with the workers split between
    them: most sweeps have a few points of unequal length, and one at a time left workers idle at each one's end
    (the quick scale's figures: 499 s of worker time took 529 s on two workers). A figure is drawn once its sweep
    is done."""
    figs = all_figures()
    unknown = [i for i in only or [] if i not in figs]
    if unknown:
        raise LsmsimError(f"unknown figure {', '.join(unknown)}; available: {', '.join(figs)}")
    out = Path(out)
    sweeps: dict[Path, tuple] = {}  # the figures drawn from each sweep, in the registry's order
    for fid, spec in figs.items():
        if only and fid not in only:
            continue
        sw = _sweep_for(spec, scale)
        root = Path(results) / f"{sw.name}-{scale}"
        sweeps.setdefault(root, (sw, []))[1].append(spec)
    workers = jobs or os.cpu_count() or 1
    side_by_side = executor == "local" and workers > 1 and len(sweeps) > 1
    at_once = min(workers, len(sweeps))
    cancel = threading.Event()
    lines: queue.SimpleQueue[int] = queue.SimpleQueue()  # the progress bars' free lines, one per running sweep
    for i in range(workers):
        lines.put(i)

    # one after another, the sweeps share one executor: its workers start (imports, numba's first use) once
    shared = None if side_by_side else make_executor(executor, jobs, scheduler)

    def run(root: Path, sw):
        for spec in sweeps[root][1]:
            log(f"{spec.id}: {spec.title} ({len(sw.points)} points -> {root}/)")
        line = lines.get() if side_by_side else None
        try:
            return run_sweep(
                sw,
                out=root,
                jobs=workers // at_once if side_by_side else jobs,
                executor=executor,
                scheduler=scheduler,
                progress=progress,
                cancel=cancel,
                position=line,
                pool=shared,
            )
        finally:
            if line is not None:
                lines.put(line)

    written: list[Path] = []
    failed = []
    pool = ThreadPoolExecutor(at_once) if side_by_side else None
    try:
        runs = {root: pool.submit(run, root, sw) for root, (sw, _) in sweeps.items()} if pool else {}
        for root, (sw, specs) in sweeps.items():
            done = runs[root].result() if pool else run(root, sw)
            if done.failed:
                failed += [s.id for s in specs]
                log(f"{', '.join(s.id for s in specs)}: {done.failed} point(s) failed (see {root}/failed/); not drawn")
                continue
            params = list(dict.fromkeys(k for p in sw.points for k in p.params))
            for spec in specs:
                written += draw(spec, SweepResults(root, done.table, params), out, scale)
                log(f"{spec.id}: wrote {out}/{spec.id}.png, .pdf, .csv")
    finally:
        cancel.set()  # on an error or Ctrl-C: the other sweeps stop too (their finished points stay)
        if pool:
            pool.shutdown(wait=True, cancel_futures=True)
        if shared is not None and shared.started:
            shared.shutdown()
    if failed:
        raise LsmsimError(f"figures not drawn because points failed: {', '.join(failed)}")
    return written
