"""A seeded generator of bad configs, and a harness that runs each one the way a user would (issue 18).

Each case starts from a small valid config of one policy, and sets one to three of its leaf fields (found by
walking the resolved config) to a value a user might mistype: zero, negative, tiny, huge, infinite, NaN, a
string, a list, a mapping. `classify` runs the case in process under a wall-clock alarm and says what
happened: `ok` (it ran), `clear` (a ConfigError naming a YAML path), `traceback` (any other exception), or
`hang` (the alarm fired).
"""

from __future__ import annotations

import copy
import math
import signal
from dataclasses import dataclass

import numpy as np

BAD_VALUES = (
    0,
    1,
    2,
    -1,
    1e15,
    1e-12,
    1e30,
    2**70,
    "1e400",
    math.inf,
    -math.inf,
    math.nan,
    "",
    "abc",
    [],
    {},
    True,
)

POLICIES = (
    {"name": "leveled", "max_bytes_for_level_base": "1MiB", "target_file_size_base": "256KiB"},
    {"name": "universal"},
    {"name": "tiering", "size_ratio": 4},
    {"name": "lazy_leveling", "size_ratio": 4},
    {"name": "full_leveling", "size_ratio": 4},
    {"name": "moose"},
    {"name": "spooky", "size_ratio": 4},
    {"name": "ecotune"},
    {"name": "arce"},
)


def base_config(policy: dict) -> dict:
    """A valid config that runs in a fraction of a second: 3,000 writes and lookups."""
    return {
        "name": "fuzz",
        "seed": 1,
        "machine": {"cores": 2},
        "lsm": {"write_buffer_size": "64KiB", "block_cache_size": "256KiB"},
        "policy": dict(policy),
        "workload": {
            "num": 3000,
            "key_size": 16,
            "value_size": 100,
            "phases": [
                {"name": "load", "operations": 3000, "mix": {"insert": 1.0}},
                {"name": "mixed", "operations": 2000, "mix": {"update": 0.5, "get": 0.5}},
            ],
        },
        "sim": {"max_time": "10s"},  # valid but huge mutations (1e15 operations) end here
    }


def _leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(node, list) and node and all(isinstance(x, dict) for x in node):
        for i, v in enumerate(node):
            yield from _leaves(v, (*path, i))
    else:
        yield path


def _set(data, path, value) -> None:
    node = data
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value


@dataclass
class Case:
    config: dict
    changes: list  # (path, value)


def cases(n: int, seed: int = 0):
    """`n` bad configs, the same ones for the same seed."""
    from .loading import load_config

    resolved = [load_config(base_config(p)).model_dump(mode="json") for p in POLICIES]
    leaves = [[p for p in _leaves(r) if p and p[0] not in ("name",)] for r in resolved]
    rng = np.random.default_rng(seed)
    for _ in range(n):
        i = int(rng.integers(len(POLICIES)))
        data = copy.deepcopy(resolved[i])
        changes = []
        for _ in range(int(rng.integers(1, 4))):
            path = leaves[i][int(rng.integers(len(leaves[i])))]
            value = copy.deepcopy(BAD_VALUES[int(rng.integers(len(BAD_VALUES)))])
            _set(data, path, value)
            changes.append((".".join(map(str, path)), value))
        yield Case(data, changes)


# what issue 18's trial found: (policy index in POLICIES, {dotted path: value}); each must be `clear` or `ok`
KNOWN = (
    (0, {"lsm.write_buffer_size": "1e400"}),
    (0, {"sim.max_time": "1e400s"}),
    (0, {"device.write_bandwidth": "1e400MB/s"}),
    (0, {"lsm.bloom_bits_per_key": math.inf}),
    (0, {"workload.phases.0.mix.insert": math.inf}),
    (
        0,
        {
            f"machine.cpu.{k}": 0
            for k in ("memtable_insert", "wal_append", "flush_per_entry", "flush_per_byte", "merge_per_entry")
            + ("merge_per_byte", "get_base", "filter_probe", "block_read")
        },
    ),
    (0, {"workload.phases.1.queries": {"mode": "open", "arrival_rate": "1000G/s"}}),
    (1, {"policy.target_file_size": 0}),
    (2, {"policy.target_file_size": 0}),
    (3, {"policy.target_file_size": 0}),
    (4, {"policy.target_file_size": 0}),
    (5, {"policy.target_file_size": 0}),
    (0, {"sim.sample_interval": "1ns"}),
    (8, {"policy.compaction_block_time": 1e30}),
    (7, {"policy.T_c": math.inf}),
    (7, {"policy.T_c": 1e9, "policy.R": 4}),  # MergeScore looped once per T_w period of the MLC: 111 s
    (8, {"policy.I_w": math.inf}),
    (1, {"policy.min_merge_width": 10, "policy.max_merge_width": 4}),
    (0, {"sim.sample_interval": 1e-12}),
)


def known_cases():
    """Issue 18's cases, as `Case`s."""
    for i, changes in KNOWN:
        data = base_config(POLICIES[i])
        for path, value in changes.items():
            node = data
            keys = [int(k) if k.isdigit() else k for k in path.split(".")]
            for k in keys[:-1]:
                node = node.setdefault(k, {}) if isinstance(node, dict) else node[k]
            node[keys[-1]] = value
        yield Case(data, list(changes.items()))


class _Hang(BaseException):
    """The alarm fired: a BaseException so that no `except Exception` in the simulator swallows it."""


def classify(case: Case, timeout_s: int = 20) -> tuple[str, str]:
    """Run one case: (`ok` | `clear` | `traceback` | `hang`, detail)."""
    from .api import run
    from .errors import ConfigError, LsmsimError

    def alarm(*_):
        raise _Hang

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(timeout_s)
    try:
        run(case.config)
        return "ok", ""
    except ConfigError as e:
        named = bool(e.errors) and all(path for path, _ in e.errors)
        return ("clear" if named else "traceback"), str(e)
    except LsmsimError as e:  # a run-time error of ours: clear only if it names the YAML path
        return ("clear" if "." in str(e).split(":")[0] else "traceback"), f"{type(e).__name__}: {e}"
    except _Hang:
        return "hang", ""
    except Exception as e:
        return "traceback", f"{type(e).__name__}: {e}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
