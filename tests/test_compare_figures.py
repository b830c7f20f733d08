"""scripts/compare_figures.py: what moved between two runs of the registered figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).parent.parent / "scripts" / "compare_figures.py"


def test_moves_are_found_per_metric_and_labelled_by_row(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    b = pd.DataFrame({"policy": ["A", "B", "C"], "threads": [1, 1, 4], "ops_per_s": [100.0, 200.0, 300.0]})
    b.assign(write_amp=[5.0, 6.0, 7.0]).to_csv(before / "fig.csv", index=False)
    a = b.assign(ops_per_s=[100.0, 150.0, 330.0], write_amp=[5.0, 6.0, 7.0])
    a.to_csv(after / "fig.csv", index=False)
    b.to_csv(before / "gone.csv", index=False)
    b.to_csv(before / "same.csv", index=False)
    b.to_csv(after / "same.csv", index=False)
    r = subprocess.run(
        [sys.executable, str(SCRIPT), str(before), str(after), "--markdown", str(tmp_path / "out.md")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "out.md").read_text()
    assert "ops_per_s 10.0% (max 25.0%)" in md  # median of 0, 25 and 10 %; write_amp unchanged labels the rows
    assert "ops_per_s [policy=B, threads=1, write_amp=6.0]: 200 -> 150 (-25.0%)" in md
    assert "**gone**: only before" in md
    assert "**same**: unchanged (every value equal)" in md  # not "no metric in common"
    bad = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "nope"), str(after)], capture_output=True)
    assert bad.returncode == 2 and b"not a folder" in bad.stderr
