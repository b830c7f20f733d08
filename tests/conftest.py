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
