"""The figure registry: each paper figure or table id maps to its sweep YAML and a plot function.

A plot function takes the sweep's `SweepResults` and returns (matplotlib Figure, DataFrame): the
figure and the data behind it, written as <id>.png, <id>.pdf and <id>.csv. Modules register their
figures with `@figure(...)`; `lsmsim figures` runs what is missing and draws them all.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import LsmsimError


@dataclass(frozen=True)
class FigureSpec:
    id: str
    title: str
    sweep: str  # path under experiments/
    plot: Callable
    paper: str = ""  # where it is in the paper


FIGURES: dict[str, FigureSpec] = {}


def figure(id: str, title: str, sweep: str, paper: str = ""):
    """Register `plot` as figure `id`, drawn from the results of `sweep` (relative to experiments/)."""

    def deco(fn):
        if id in FIGURES:
            raise ValueError(f"figure {id!r} registered twice")
        FIGURES[id] = FigureSpec(id, title, sweep, fn, paper)
        return fn

    return deco


def experiments_dir() -> Path:
    """experiments/ of the source tree (or $LSMSIM_EXPERIMENTS): the sweeps live there."""
    env = os.environ.get("LSMSIM_EXPERIMENTS")
    d = Path(env) if env else Path(__file__).resolve().parents[2] / "experiments"
    if not d.is_dir():
        raise LsmsimError(
            f"{d}: experiments folder not found; set LSMSIM_EXPERIMENTS to the repository's "
            "experiments/ (the figure sweeps are there, not in the installed package)"
        )
    return d


def all_figures() -> dict[str, FigureSpec]:
    """Every registered figure by id; the first call imports the figure modules of this package (each
    registers its figures with `@figure`), so a new figure module needs no list to be added to."""
    pkg = importlib.import_module(__package__)
    for m in pkgutil.iter_modules(pkg.__path__):
        if m.name not in ("registry", "runner") and not m.name.startswith("_"):
            importlib.import_module(f"{__package__}.{m.name}")
    return dict(sorted(FIGURES.items()))
