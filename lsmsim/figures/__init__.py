"""Paper figures: a registry of plot functions over sweep results, and the runner behind
`lsmsim figures`."""

from .registry import FIGURES, FigureSpec, all_figures, figure
from .runner import make_figures

__all__ = ["FIGURES", "FigureSpec", "all_figures", "figure", "make_figures"]
