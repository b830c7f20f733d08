"""lsmsim: a discrete-event simulator of LSM-tree compaction on modeled CPUs and SSDs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_getattr
from ._version import __version__

if TYPE_CHECKING:
    from .api import load_config, load_results, run, sweep
    from .config import Config

__all__ = ["run", "sweep", "load_results", "load_config", "Config", "__version__"]

# The API is imported on first use (PEP 562), so that `import lsmsim` and `lsmsim --help` do not pay for
# pydantic's models, numba and pandas before anything needs them.
_LAZY = {"run": "api", "sweep": "api", "load_results": "api", "load_config": "api", "Config": "config"}
__getattr__ = lazy_getattr(__name__, _LAZY, globals())
