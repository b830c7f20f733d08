"""Shared fixtures: small configs that run in well under a second."""

from __future__ import annotations

import copy
import os

import pytest

# the tests' figures must not depend on the host they run on: a config without machine.preset keeps the built-in
# costs here (a user's run takes this host's calibrated preset; tests/test_calibrate.py tests that choice)
os.environ["LSMSIM_MACHINE_PRESET"] = "default"


def small_config(policy: dict | None = None, phases: list | None = None, **sections) -> dict:
    cfg = {
        "name": "test",
        "seed": 7,
        "machine": {"cores": 2},
        "lsm": {"write_buffer_size": "256KiB", "block_cache_size": "1MiB", "wal": True},
        "policy": policy or {"name": "leveled", "max_bytes_for_level_base": "1MiB", "target_file_size_base": "256KiB"},
        "workload": {
            "num": 50_000,
            "key_size": 16,
            "value_size": 100,
            "phases": phases or [{"operations": 60_000, "mix": {"insert": 1.0}}],
        },
        "sim": {"check_invariants": True},
    }
    for k, v in sections.items():
        cfg[k] = {**cfg.get(k, {}), **v}
    return copy.deepcopy(cfg)


# Spooky Fig. 15(A)'s Partial Merge, scaled (experiments/spooky/fig15.yaml): T = 5 leveling with dynamic level bytes
# and large files (1 MB: 1.6-2% of the tests' data), so long compactions overlap others
LARGE_FILES_POLICY = {
    "name": "leveled",
    "level_compaction_dynamic_level_bytes": True,
    "max_bytes_for_level_multiplier": 5,
    "max_bytes_for_level_base": "256KiB",
    "target_file_size_base": "1MB",
}


@pytest.fixture
def small():
    return small_config


@pytest.fixture(scope="module")
def quick(tmp_path_factory, request):
    """A paper's figures drawn at quick scale, once per test file that sets `PAPER` (tests/figure_checks.py): (root,
    files written)."""
    from tests.figure_checks import draw_quick

    return draw_quick(tmp_path_factory, request.module.PAPER)


# ---------------------------------------------------------------- the fast tier (tests/tiers.py)
def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true", help="the fast tier: the cheapest recorded tests (tests/tiers.py)")
    parser.addoption(
        "--record-durations", action="store_true", help="write each test's time to tests/durations.json (full runs)"
    )


def _shared_fixtures(item) -> list[str]:
    """The module- and session-scoped fixtures `item` uses (module ones keyed by their file)."""
    info = getattr(item, "_fixtureinfo", None)
    out = []
    for name, defs in info.name2fixturedefs.items() if info else ():
        scope = getattr(defs[-1], "scope", "function")
        if scope == "module":
            out.append(f"{item.nodeid.split('::', 1)[0]}::{name}")
        elif scope in ("session", "package"):
            out.append(name)
    return sorted(out)


_TIMES: dict[str, dict[str, float]] = {}
_USES: dict[str, list[str]] = {}


def pytest_collection_modifyitems(config, items):
    _USES.update({i.nodeid: _shared_fixtures(i) for i in items})
    from tests.tiers import heaviest_files_first, read_record, select_fast

    durations, uses, fixtures = read_record()
    uses = {**uses, **_USES}
    position = {n: k for k, n in enumerate(heaviest_files_first([i.nodeid for i in items], durations, uses, fixtures))}
    items.sort(key=lambda i: position[i.nodeid])
    if not config.getoption("--fast"):
        return
    keep = select_fast([i.nodeid for i in items], durations, uses=uses, fixtures=fixtures)
    config.hook.pytest_deselected(items=[i for i in items if i.nodeid not in keep])
    items[:] = [i for i in items if i.nodeid in keep]


def pytest_runtest_logreport(report):
    _TIMES.setdefault(report.nodeid, {})[report.when] = report.duration


class _WorkerUses:
    """Under pytest-xdist the controller collects nothing: each worker sends the shared fixtures its tests use."""

    @staticmethod
    def pytest_testnodedown(node, error):
        _USES.update(getattr(node, "workeroutput", {}).get("lsmsim_uses", {}))


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_WorkerUses(), "lsmsim-worker-uses")


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if not config.getoption("--record-durations") or exitstatus != 0 or config.getoption("--fast"):
        return
    if hasattr(config, "workerinput"):  # an xdist worker: the controller records, from every worker's reports
        config.workeroutput["lsmsim_uses"] = dict(_USES)
        return
    import subprocess

    from tests.tiers import write_record

    commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True).stdout.strip()
    write_record(_TIMES, {n: _USES.get(n, []) for n in _TIMES}, commit)
