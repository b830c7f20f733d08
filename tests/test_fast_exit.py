"""lsmsim.fast_exit: the console script leaves at once (no teardown) only when nothing is left to wait for."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import atexit, sys, threading, time
from lsmsim.fast_exit import leave
atexit.register(lambda: print("teardown ran"))
if sys.argv[1] == "thread":  # a non-daemon thread still working: the usual exit waits for it
    threading.Thread(target=lambda: (time.sleep(0.3), print("thread done"))).start()
print("output", end="")  # unflushed: leave flushes it
leave(3)
"""


def _run(mode: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=60)


def test_leave_skips_the_teardown_but_keeps_output_and_code():
    r = _run("alone")
    assert r.returncode == 3 and r.stdout == "output"  # flushed, and the atexit handler never ran


def test_leave_waits_for_a_thread_still_running():
    r = _run("thread")
    assert r.returncode == 3
    assert r.stdout.startswith("output") and "thread done" in r.stdout and "teardown ran" in r.stdout
