"""lsmsim: a discrete-event simulator of LSM-tree compaction on modeled CPUs and SSDs."""
__version__ = "0.1.0"

from .api import load_config, load_results, run, sweep  # noqa: E402
from .config import Config  # noqa: E402

__all__ = ["run", "sweep", "load_results", "load_config", "Config", "__version__"]
