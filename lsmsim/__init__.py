"""lsmsim: a discrete-event simulator of LSM-tree compaction on modeled CPUs and SSDs."""

from ._version import __version__
from .api import load_config, load_results, run, sweep
from .config import Config

__all__ = ["run", "sweep", "load_results", "load_config", "Config", "__version__"]
