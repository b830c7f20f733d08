"""The notebooks in notebooks/: each is a jupytext pair (`0X-name.py` in the `percent` format, the source,
and `0X-name.ipynb`, committed stripped), the two halves of a pair hold the same cells, and each executes
without error (nbclient, the `python3` kernel of this interpreter's environment, cwd = notebooks/) and
produces rich output."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import jupytext  # the `test` extra of pyproject.toml: jupytext, nbclient, nbformat, ipykernel
import nbclient
import nbformat
import pytest
from jupytext.config import load_jupytext_config

NB_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NAMES = ["01-quickstart", "02-comparing-policies", "03-ssd-garbage-collection", "04-ecotune-dp"]
NOTEBOOKS = [f"{n}.ipynb" for n in NAMES]
SCRIPTS = [f"{n}.py" for n in NAMES]
CELL_TIMEOUT_S = 300
SYNC_HINT = "edit either file, then run: jupytext --sync notebooks/*.py"


def execute(nb, env_out: Path, monkeypatch) -> nbformat.NotebookNode:
    """Run `nb` in place as Jupyter would from notebooks/; outputs go to `env_out`."""
    # The kernel inherits this environment: send the notebooks' outputs to a temporary folder, and let
    # ipykernel choose its inline matplotlib backend (a backend forced by the caller would hide figures).
    monkeypatch.setenv("LSMSIM_NOTEBOOK_OUT", str(env_out))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(NB_DIR)}}
    )
    client.execute()
    return nb


def test_every_notebook_is_listed():
    assert sorted(p.name for p in NB_DIR.glob("*.ipynb")) == sorted(NOTEBOOKS)
    assert sorted(p.name for p in NB_DIR.glob("*.py")) == sorted(SCRIPTS)


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_paired_with_its_script(name):
    """notebooks/jupytext.toml pairs every .ipynb with a percent-format .py, so Jupyter (with jupytext)
    and `jupytext --sync` update both halves."""
    config = load_jupytext_config(str(NB_DIR))
    assert config is not None, "notebooks/jupytext.toml is missing"
    assert config.default_formats(str(NB_DIR / f"{name}.ipynb")) == "ipynb,py:percent"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_committed_without_outputs(name):
    nb = nbformat.read(NB_DIR / name, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    for i, cell in enumerate(code):
        assert cell.get("outputs") == [], f"code cell {i} has outputs: clear them and save (or {SYNC_HINT})"
        assert cell.get("execution_count") is None, f"code cell {i} has an execution count"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_matches_its_script(name):
    """The .ipynb and the .py of a pair hold the same cells (type and source) and kernel: editing one
    without syncing the other fails here."""
    script = jupytext.read(NB_DIR / f"{name}.py")
    nb = nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)
    assert script.metadata.get("kernelspec") == nb.metadata.get("kernelspec"), SYNC_HINT
    py_cells = [(c.cell_type, c.source) for c in script.cells]
    nb_cells = [(c.cell_type, c.source) for c in nb.cells]
    assert len(py_cells) == len(nb_cells), f".py: {len(py_cells)} cells, .ipynb: {len(nb_cells)}. {SYNC_HINT}"
    for i, (a, b) in enumerate(zip(py_cells, nb_cells)):
        assert a == b, f"cell {i} differs:\n.py:    {a}\n.ipynb: {b}\n{SYNC_HINT}"


def test_kernel_runs_this_environment(tmp_path, monkeypatch):
    """nbclient's `python3` kernel must be this interpreter's environment (where lsmsim is installed),
    not some other Python that happens to have a kernelspec."""
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("import os, sys, lsmsim\nprint(sys.prefix)\nprint(os.getcwd())")]
    )
    execute(nb, tmp_path, monkeypatch)
    prefix, cwd = nb.cells[0].outputs[0]["text"].split()
    assert Path(prefix).resolve() == Path(sys.prefix).resolve()
    assert Path(cwd).resolve() == NB_DIR


@pytest.mark.parametrize("name", NAMES)
def test_notebook_executes(name, tmp_path, monkeypatch):
    nb = jupytext.read(NB_DIR / f"{name}.py")  # the source; test_notebook_matches_its_script covers the .ipynb
    t0 = time.perf_counter()
    execute(nb, tmp_path / "out", monkeypatch)  # raises CellExecutionError, naming the cell, on any error
    took = time.perf_counter() - t0
    print(f"{name}: {took:.1f} s")
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    rich = [o for o in outputs if o.output_type in ("display_data", "execute_result")]
    assert rich, "no cell displayed anything (a figure or a table was expected)"
    assert any("image/png" in o.get("data", {}) for o in rich), "no figure was displayed"
    # nothing was written into the repository's notebooks/ folder (outputs go to LSMSIM_NOTEBOOK_OUT)
    assert sorted(p.name for p in NB_DIR.iterdir() if not p.name.startswith((".", "__"))) == sorted(
        [*NOTEBOOKS, *SCRIPTS, "README.md", "jupytext.toml"]
    )
    if os.environ.get("LSMSIM_NOTEBOOK_SAVE"):  # debugging aid: keep the executed copy
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
