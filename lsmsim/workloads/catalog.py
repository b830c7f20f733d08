"""The workload suites' names and the papers' tables behind them (suites.py builds their phases).

A leaf (it imports nothing of lsmsim), so that config validation can check suite names and hot-key
counts without resolving phases.
"""

from __future__ import annotations

#: Table 2 (Sec. 4-5): sub-workload -> (range %, update %, point %).
TABLE2: dict[str, tuple[int, int, int]] = {
    "A": (98, 1, 1),
    "B": (1, 98, 1),
    "C": (1, 1, 98),
    "D": (49, 2, 49),
    "E": (2, 49, 49),
    "F": (49, 49, 2),
    "G": (40, 40, 20),
    "H": (40, 20, 40),
    "I": (20, 40, 40),
    "J": (33, 33, 33),
}
#: Compound workloads (Sec. 5): sub-workload sequence and operations per sub-workload.
COMPOUND: dict[str, tuple[str, int]] = {
    "arce-I": ("ABDJCE", 40_960_000),
    "arce-II": ("JEBFDC", 40_960_000),
    "arce-III": ("GHI", 20_480_000),
}
ARCE_SCAN_LENGTH = 16  # MooseLSM tools/dynamic_test.cc:20, range_lookup_len
YCSB_OPERATIONS = 1_000_000  # our choice
YCSB_SCAN_LENGTH = 50  # mean of YCSB-E's uniform 1..100 scan length
#: YCSB core workloads: mix (per YCSB op), key distribution (ArceKV Sec. 5.1), primitive ops per YCSB op.
YCSB: dict[str, tuple[dict[str, float], str, float]] = {
    "a": ({"get": 0.5, "update": 0.5}, "uniform", 1.0),
    "b": ({"get": 0.95, "update": 0.05}, "zipfian", 1.0),
    "c": ({"get": 1.0}, "zipfian", 1.0),
    "d": ({"get": 0.95, "insert": 0.05}, "latest", 1.0),
    "e": ({"long_scan": 0.95, "insert": 0.05}, "uniform", 1.0),
    "f": ({"get": 1.0, "update": 0.5}, "uniform", 1.5),
}
GRADIENT_WRITE_RATIOS = [p / 100 for p in (*range(10, 100, 10), *range(80, 0, -10))]
GRADIENT_OPERATIONS = 500_000  # "about 500,000" per ratio (Sec. 5.3)
HOTKEY_KEYS = 1_000_000  # Sec. 5.3
HOTKEY_OPERATIONS = 100_000_000  # in all, a third per G, H, I phase


def suite_names() -> list[str]:
    """Every suite `workload.suite.name` accepts."""
    return (
        [f"arce-mix-{x}" for x in TABLE2]
        + list(COMPOUND)
        + [f"ycsb-{x}" for x in YCSB]
        + ["arce-gradient", "arce-hotkey"]
    )


def suite_hot_keys(name: str, override: int | None) -> int | None:
    """Hot keys the suite draws from (`suite.hot_keys` overrides the paper's), None for suites without."""
    return (override or HOTKEY_KEYS) if name == "arce-hotkey" else None
