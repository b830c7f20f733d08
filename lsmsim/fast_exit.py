"""Leaving a command without the interpreter's teardown (a leaf: the CLI's console script uses it).

At exit CPython frees every module and object one by one, numba's compiled code included: 0.6-0.7 s after a
`lsmsim run`, a quarter of a small run's wall time (benchmarks/startup.py). Once the output is flushed and nothing
else runs, `os._exit` skips it; with a child process or a non-daemon thread left, the usual exit waits for them.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import NoReturn


def leave(code: int) -> NoReturn:
    """Exit with `code`: at once when the output is flushed and no child process or non-daemon thread is left."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: the usual exit
        sys.exit(code)
    mp = sys.modules.get("multiprocessing")
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if others or (mp is not None and mp.active_children()):
        sys.exit(code)
    os._exit(code)
