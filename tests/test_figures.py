"""The figure registry as a whole. Each paper's figures are drawn and checked at quick scale by its own file,
tests/test_figures_<paper>.py (one file each, so that pytest-xdist spreads their sweeps over the workers)."""

import subprocess
import sys

import pytest

from lsmsim.errors import LsmsimError
from lsmsim.figures import all_figures, make_figures
from lsmsim.figures.paper_values import PAPER_VALUES, PLOTS_ONLY
from tests.figure_checks import PAPERS, ids_of


def test_every_registered_figure_belongs_to_a_papers_test_file():
    """A figure whose id names no paper would be drawn by no test file."""
    from pathlib import Path

    figs = set(all_figures())
    assert len(figs) >= 6 and figs == {f for p in PAPERS for f in ids_of(p)}
    for p in PAPERS:
        assert (Path(__file__).parent / f"test_figures_{p.replace('-', '_')}.py").is_file(), p


def test_every_figure_is_audited_for_the_papers_numbers():
    """Issue 37: each registered figure puts the paper's printed numbers beside ours, or says why it has none."""
    figs = set(all_figures())
    assert set(PAPER_VALUES) <= figs and set(PLOTS_ONLY) <= figs
    assert not set(PAPER_VALUES) & set(PLOTS_ONLY)
    assert figs == set(PAPER_VALUES) | set(PLOTS_ONLY), figs - set(PAPER_VALUES) - set(PLOTS_ONLY)


def test_unknown_figure_and_list():
    with pytest.raises(LsmsimError, match="available: .*ecotune-fig7"):
        make_figures(only=["nope"], progress=False)
    r = subprocess.run([sys.executable, "-m", "lsmsim.cli", "figures", "--list"], capture_output=True, text=True)
    assert r.returncode == 0 and "ecotune-fig9" in r.stdout and "spooky-gc" in r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "lsmsim.cli", "figures", "--only", "nope"], capture_output=True, text=True
    )
    assert r.returncode == 2 and "unknown figure nope" in r.stderr and "Traceback" not in r.stderr
