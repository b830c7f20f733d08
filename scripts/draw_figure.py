"""Draw a registered figure from a sweep folder whose points are already stored, without running anything.

    python scripts/draw_figure.py spooky-gc results/paper-spooky/gc --out docs/paper-scale

`lsmsim figures` looks for a sweep's points under the ids the current code gives them, and a point's id hashes
its whole resolved config: once a release adds a config field, points stored before it are not found and would
run again. This reads the folder's own table instead and writes <id>.png, <id>.pdf and <id>.csv.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lsmsim.api import load_results
from lsmsim.figures.registry import all_figures
from lsmsim.figures.runner import draw


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("figure", help="a registered figure id (lsmsim figures --list)")
    ap.add_argument("results", type=Path, help="the sweep's results folder (with points/)")
    ap.add_argument("--out", type=Path, default=Path("figures"))
    ap.add_argument("--scale", default="paper", help="the scale named in the figure's title")
    a = ap.parse_args(argv)
    figs = all_figures()
    if a.figure not in figs:
        print(f"unknown figure {a.figure}; available: {', '.join(figs)}", file=sys.stderr)
        return 2
    if not (a.results / "points").is_dir():
        print(f"{a.results}: not a sweep results folder (no points/)", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    res = load_results(a.results)
    draw(figs[a.figure], res, a.out, a.scale)
    print(f"{a.figure}: wrote {a.out}/{a.figure}.png, .pdf, .csv from {len(res.table)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
