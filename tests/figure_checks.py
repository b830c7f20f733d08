"""Shared by the figure test files (one per paper, so that pytest-xdist spreads the papers' sweeps over the workers):
draw a paper's registered figures at quick scale and check what every figure must write. A paper's file sets
`PAPER` and imports the `test_*` functions below, which pytest then runs as that file's own; their `quick` is the
fixture of tests/conftest.py, which draws `PAPER`'s figures once per file."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from lsmsim.figures import all_figures, make_figures
from lsmsim.figures.paper_values import PAPER_VALUES, caption

PAPERS = ("arce", "design-space", "ecotune", "spooky")  # the id prefixes; tests/test_figures_<paper>.py each


def ids_of(paper: str) -> list[str]:
    return [f for f in all_figures() if f.startswith(f"{paper}-")]


def sweep_jobs() -> int:
    """One sweep worker per test worker under pytest-xdist (the other test worker has the other core), two alone."""
    return 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2


def draw_quick(tmp_path_factory, paper: str):
    """Draw `paper`'s figures at quick scale: (root, files written), root/figures and root/results."""
    root = tmp_path_factory.mktemp(f"{paper}-figures")
    written = make_figures(
        only=ids_of(paper),
        out=root / "figures",
        results=root / "results",
        scale="quick",
        jobs=sweep_jobs(),
        progress=False,
        log=lambda *a: None,
    )
    return root, written


def check_written(root, written, ids: list[str]) -> None:
    """Each figure wrote its png, pdf and csv, and those with the paper's printed numbers <id>-paper.csv."""
    for fid in ids:
        for ext in ("png", "pdf", "csv"):
            f = root / "figures" / f"{fid}.{ext}"
            assert f.stat().st_size > 500, f
    assert len(written) == 3 * len(ids) + len([f for f in ids if f in PAPER_VALUES])


def check_paper_numbers(root, ids: list[str]) -> None:
    """<id>-paper.csv: one row per printed number, ours computed from the figure's own data, the ratio and the 2x
    mark consistent with them, and the caption under the figure naming every far one."""
    for fid in [f for f in ids if f in PAPER_VALUES]:
        t = pd.read_csv(root / "figures" / f"{fid}-paper.csv")
        assert t.ours.notna().any(), fid
        fin = t[np.isfinite(t.ratio)]
        assert ((fin.ratio - fin.ours / fin.paper).abs() < 1e-9).all(), fid
        bound = fin.bound.astype(object).where(fin.bound.notna(), "")  # an all-NaN column is float
        met = ((bound == "over") & (fin.ratio >= 1)) | ((bound == "under") & (fin.ratio <= 1))
        assert (fin.far == (~met & (np.maximum(fin.ratio, 1 / fin.ratio) > 2))).all(), fid
        text = caption(fid, t)
        assert text and ("!" in text) == bool(t.far.any()), fid


def check_sweeps_load(ids: list[str]) -> None:
    """Each figure's sweep loads at quick scale (every point's config validates), and no two of its points vary the
    same way (a grid that repeats a point would draw it twice)."""
    import json

    from lsmsim.figures.runner import _sweep_for

    for fid in ids:
        points = _sweep_for(all_figures()[fid], "quick").points
        params = [json.dumps(p.params, sort_keys=True, default=str) for p in points]
        assert points and len(set(params)) == len(params), fid


# ---------------------------------------------------------------- run in each paper's file (its PAPER; conftest's
# `quick` fixture draws the paper's figures)
def test_every_figures_sweep_loads_at_quick_scale(request):
    check_sweeps_load(ids_of(request.module.PAPER))


def test_every_figure_is_written(quick, request):
    ids = ids_of(request.module.PAPER)
    assert len(ids) >= 3
    check_written(*quick, ids)


def test_the_papers_numbers_beside_ours(quick, request):
    check_paper_numbers(quick[0], ids_of(request.module.PAPER))
