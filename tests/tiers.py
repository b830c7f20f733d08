"""The fast tier (`bash scripts/test.sh --fast`): the tests a developer runs while working.

The full suite records each test's time into `tests/durations.json` with `--record-durations`, together with the
host it ran on. A module- or session-scoped fixture (a figure run that several tests read) is set up by whichever
of its tests runs first, so it is priced apart: each fixture's setup is recorded once, each test lists the shared
fixtures it uses, and a selection pays for a fixture once. `--fast` then keeps, cheapest first, the tests that fit
in a budget of recorded seconds, plus the cheapest test of every test file the budget left out, so that every file
(and so every module it imports) still runs. Tests the record does not know (new ones) are kept: they run until the
next recording prices them. Times are judged only against a record from the same kind of run, never pass or fail.
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


def select_fast(
    nodeids: list[str],
    durations: dict[str, float],
    budget: float = BUDGET_S,
    uses: dict[str, list[str]] | None = None,
    fixtures: dict[str, float] | None = None,
) -> set[str]:
    """The node ids the fast tier runs: unknown ones, the cheapest known ones within `budget` (each shared fixture
    they `uses` paid once, at its recorded cost in `fixtures`), and the cheapest test of every file left out."""
    uses, fixtures = uses or {}, fixtures or {}

    def cost(n: str, paid: set[str]) -> float:
        return durations[n] + sum(fixtures.get(f, 0.0) for f in uses.get(n, ()) if f not in paid)

    keep = {n for n in nodeids if n not in durations}
    paid: set[str] = set()
    spent = 0.0
    for n in sorted((n for n in nodeids if n in durations), key=lambda n: (cost(n, set()), n)):
        c = cost(n, paid)
        if spent + c > budget:
            continue
        keep.add(n)
        spent += c
        paid.update(uses.get(n, ()))
    files: dict[str, str] = {}
    for n in nodeids:
        f = n.split("::", 1)[0]
        if n in durations and (f not in files or cost(n, paid) < cost(files[f], paid)):
            files[f] = n
    covered = {n.split("::", 1)[0] for n in keep}
    keep |= {n for f, n in files.items() if f not in covered}
    return keep


def heaviest_files_first(
    nodeids: list[str],
    durations: dict[str, float],
    uses: dict[str, list[str]] | None = None,
    fixtures: dict[str, float] | None = None,
) -> list[str]:
    """`nodeids` with their files ordered by recorded cost, the dearest first (each file's tests and the shared
    fixtures they use, each paid once; a file the record does not know costs nothing), the tests of a file kept
    together and in their order. pytest-xdist (`--dist loadfile --no-loadscope-reorder`) hands files out in this
    order, so the long figure files start at once; by test count (xdist's own order) they started last, and the last
    of them ran on for minutes after the other core had run out of files."""
    uses, fixtures = uses or {}, fixtures or {}
    by_file: dict[str, list[str]] = {}
    for n in nodeids:
        by_file.setdefault(n.split("::", 1)[0], []).append(n)

    def cost(ids: list[str]) -> float:
        shared = {f for n in ids for f in uses.get(n, ())}
        return sum(durations.get(n, 0.0) for n in ids) + sum(fixtures.get(f, 0.0) for f in shared)

    order = sorted(by_file, key=lambda f: -cost(by_file[f]))  # stable: equal costs keep the collection's order
    return [n for f in order for n in by_file[f]]


def read_record(path: Path = DURATIONS) -> tuple[dict[str, float], dict[str, list[str]], dict[str, float]]:
    """(per-test seconds, the shared fixtures each test uses, each shared fixture's setup seconds); empty when
    nothing is recorded yet."""
    try:
        data = json.loads(path.read_text())
        durations = {k: float(v) for k, v in data["durations"].items()}
        return durations, dict(data.get("uses", {})), {k: float(v) for k, v in data.get("fixtures", {}).items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}, {}, {}


def split_setup(times: dict[str, dict[str, float]], uses: dict[str, list[str]]) -> tuple[dict, dict]:
    """From each test's {setup, call, teardown} seconds, in the order they ran: (per-test seconds, shared fixture
    seconds). A shared fixture is set up by the first test that uses it, so that test's setup is the fixture's
    cost; a test that sets up no shared fixture keeps its setup."""
    fixtures: dict[str, float] = {}
    durations = {}
    for n, t in times.items():
        setup = t.get("setup", 0.0)
        new = [f for f in uses.get(n, []) if f not in fixtures]
        for f in new:
            fixtures[f] = setup
        durations[n] = t.get("call", 0.0) + t.get("teardown", 0.0) + (0.0 if new else setup)
    return durations, fixtures


def write_record(times: dict[str, dict[str, float]], uses: dict[str, list[str]], commit: str, path=DURATIONS) -> None:
    """Record a run's times with the host and commit it ran on (atomically). A run of some tests updates theirs and
    keeps the rest, when the record is from the same host; another host's record is replaced, never mixed."""
    durations, fixtures = split_setup(times, uses)
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        old = {}
    if isinstance(old, dict) and old.get("host") == host_cpu():
        durations = {**old.get("durations", {}), **durations}
        fixtures = {**old.get("fixtures", {}), **fixtures}
        uses = {**old.get("uses", {}), **uses}
    data = {
        "host": host_cpu(),
        "commit": commit,
        "total_s": round(sum(durations.values()) + sum(fixtures.values()), 1),
        "fixtures": {k: round(v, 3) for k, v in sorted(fixtures.items())},
        "uses": {k: v for k, v in sorted(uses.items()) if v},
        "durations": {k: round(v, 3) for k, v in sorted(durations.items())},
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)
