"""The fast tier (`bash scripts/test.sh --fast`): the tests a developer runs while working.

The full suite records each test's time (setup + call + teardown) into `tests/durations.json` with
`--record-durations`, together with the host it ran on. `--fast` then keeps, cheapest first, the tests that fit in
a budget of recorded seconds, plus the cheapest test of every test file the budget left out, so that every file (and
so every module it imports) still runs. Tests the record does not know (new ones) are kept: they run until the next
recording prices them. Times are judged only against a record from the same kind of run, never as pass or fail.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

DURATIONS = Path(__file__).with_name("durations.json")
BUDGET_S = 100.0  # recorded seconds; the rest of the 3 minutes is set-up, collection and imports


def host_cpu() -> str:
    """The CPU model, as the calibration's presets name hosts (/proc/cpuinfo's model name)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def select_fast(nodeids: list[str], durations: dict[str, float], budget: float = BUDGET_S) -> set[str]:
    """The node ids the fast tier runs: unknown ones, the cheapest known ones within `budget`, and the cheapest
    test of every file the budget left without one."""
    keep = {n for n in nodeids if n not in durations}
    spent = 0.0
    for n in sorted((n for n in nodeids if n in durations), key=lambda n: (durations[n], n)):
        if spent + durations[n] > budget:
            break
        keep.add(n)
        spent += durations[n]
    files: dict[str, str] = {}
    for n in nodeids:
        f = n.split("::", 1)[0]
        if f not in files or durations.get(n, 0.0) < durations.get(files[f], 0.0):
            files[f] = n
    covered = {n.split("::", 1)[0] for n in keep}
    keep |= {n for f, n in files.items() if f not in covered}
    return keep


def read_durations(path: Path = DURATIONS) -> dict[str, float]:
    """The recorded per-test seconds, or {} when nothing is recorded yet."""
    try:
        return {k: float(v) for k, v in json.loads(path.read_text())["durations"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def write_durations(durations: dict[str, float], commit: str, path: Path = DURATIONS) -> None:
    """Record a full run's per-test seconds with the host and commit it ran on (atomically)."""
    data = {
        "host": host_cpu(),
        "commit": commit,
        "total_s": round(sum(durations.values()), 1),
        "durations": {k: round(v, 3) for k, v in sorted(durations.items())},
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)
