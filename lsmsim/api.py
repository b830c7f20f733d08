"""What notebooks and the CLI call: `load_config`, `run`, `sweep` and `load_results`."""

from __future__ import annotations

from pathlib import Path

from .config import Config
from .loading import load_config
from .result import Result
from .sim import simulate


class _Progress:
    """A tqdm bar over the operations of the phases (falls back to nothing when disabled)."""

    def __init__(self, cfg: Config, enabled: bool):
        if enabled:
            from tqdm.auto import tqdm
        else:  # tqdm.auto warns in Jupyter without ipywidgets even for a disabled bar
            from tqdm import tqdm
        self.bar = tqdm(
            total=1.0,
            disable=not enabled,
            unit="run",
            leave=False,
            mininterval=0.5,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| sim {postfix}",
        )
        self._last = 0.0

    def set_description(self, text: str) -> None:
        self.bar.set_description_str(text)

    def update_to(self, sim) -> None:
        frac = sim.cursor.fraction(sim.env.now)
        if frac - self._last >= 0.005 or frac >= 1:
            self.bar.n = round(frac, 3)
            self.bar.set_postfix_str(f"{sim.env.now:.1f}s {sim.tree.describe()}", refresh=False)
            self.bar.refresh()
            self._last = frac

    def close(self) -> None:
        self.bar.close()


def run(
    config: str | Path | dict | Config, overrides: list[str] = (), out: str | Path | None = None, progress: bool = False
) -> Result:
    """Run one simulation. `config` is a YAML path, a dict or a `Config`; `overrides` are
    `path=value` strings like the CLI's --set; with `out`, results are saved there."""
    cfg = load_config(config, list(overrides))
    bar = _Progress(cfg, progress)
    try:
        result = simulate(cfg, progress=bar)
    finally:
        bar.close()
    if out is not None:
        result.save(out)
        result.plot_tree(Path(out) / "tree.png")
    return result


def sweep(
    spec: str | Path | dict,
    scale: str | None = None,
    out: str | Path | None = None,
    jobs: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    progress: bool = False,
):
    """Run a sweep YAML (or dict with a `sweep:` section); finished points are skipped. Returns
    `SweepResults` (`.table` has one row per point). `executor`: local or dask; `jobs`: workers
    (default: all cores); `scheduler`: a Dask scheduler address (default: a LocalCluster)."""
    from .sweeps import SweepResults, load_sweep, run_sweep

    sw = load_sweep(spec, scale)
    done = run_sweep(sw, out=out, jobs=jobs, executor=executor, scheduler=scheduler, progress=progress)
    params = list(dict.fromkeys(k for p in sw.points for k in p.params))
    res = SweepResults(done.store.root, done.table, params)
    res.ran, res.skipped = done.ran, done.skipped
    return res


def load_results(root: str | Path):
    """The results of a sweep folder (results/<sweep>) as `SweepResults`."""
    from .sweeps import SweepResults

    if not Path(root).is_dir():
        from .errors import LsmsimError

        raise LsmsimError(f"{root}: no such results folder")
    return SweepResults(root)


__all__ = ["run", "load_config", "sweep", "load_results"]
