"""A CAMAL tuning as lsmsim configuration, and one measured sample of it on a small store.

CAMAL runs on RocksDB with the tuned size ratio, compaction policy, Bloom bits and memory split (Yu et al.,
SIGMOD'25, Sec. 6); ArceKV runs the model's recommendation for its workloads' average composition (ArceKV PVLDB'26,
Sec. 5.1). Here the structure is lsmsim's Moose framework, which ArceKV's other baselines use: L + 1 levels
(Monkey's L of `cost.levels`, level 0 for the flushes) of size ratio T, one run per level under leveling and up
to T - 1 under tiering. RocksDB's L0 slowdown and stop triggers (20 and 36) are raised to 2 and 3 times a
tiered level 0's run limit: CAMAL's RocksDB could not tier with T - 1 > 20 runs at L0 otherwise (ours).
"""

from __future__ import annotations

from typing import Any

from ...config import Config
from .cost import Mix, Store, Tuning, levels


def store_of(cfg: Config) -> Store:
    """The store a config describes: its keys, entry size, and memory for buffer + filters + block cache."""
    lsm, w = cfg.lsm, cfg.workload
    M = lsm.write_buffer_size + lsm.bloom_bits_per_key * w.num / 8 + lsm.block_cache_size
    phases = [p for p in _phases(cfg) if p.measure and p.mix.reads() > 0]
    scan = phases[0].scan_length if phases else 16
    return Store(float(w.num), float(w.key_size + w.value_size), float(M), float(scan), float(lsm.block_size))


def average_mix(cfg: Config) -> Mix:
    """The composition of the config's measured phases, weighted by their operations (ArceKV gives CAMAL its
    workloads' average composition)."""
    tot = [0.0, 0.0, 0.0, 0.0]
    for p in _phases(cfg):
        if not p.measure or p.operations is None:
            continue
        m, n = p.mix, p.operations / (p.mix.reads() + p.mix.writes())
        for i, x in enumerate((m.get_empty, m.get, m.short_scan + m.long_scan, m.writes())):
            tot[i] += x * n
    return Mix(*tot)


def _phases(cfg: Config):
    from ...workloads.presets import resolve_phases

    return resolve_phases(cfg.workload)


def overrides(t: Tuning, store: Store) -> dict[str, Any]:
    """The tuning as a sweep variant: `path -> value` (the policy section whole, the lsm fields one by one)."""
    B, _, C = store.split(t)
    L = levels(store.N, store.E, B, t.T)
    K = 1 if t.policy == "leveling" else t.T - 1
    return {
        "policy": {"name": "moose", "size_ratios": [t.T] * L, "runs_per_level": [K] * (L + 1)},
        "lsm.write_buffer_size": int(B),
        "lsm.bloom_bits_per_key": float(t.h),
        "lsm.block_cache_size": int(C),
        "lsm.level0_slowdown_writes_trigger": max(20, 2 * K),
        "lsm.level0_stop_writes_trigger": max(36, 3 * K),
    }


def apply(data: dict, over: dict[str, Any]) -> dict:
    """A config dict with `overrides` applied (dotted paths set one field)."""
    for path, v in over.items():
        node = data
        *parents, leaf = path.split(".")
        for k in parents:
            node = node.setdefault(k, {})
        node[leaf] = v
    return data


class SimRunner:
    """Measures a tuning on `n` keys with `n` operations of one mix, the rest of the config as `base` has it
    (CAMAL trains on a small store and extrapolates, Sec. 5). The memory (machine.memory and M) shrinks with
    the data, so the cache and page cache hold the same share of it. Returns the mean latency per operation
    of the one closed-loop client."""

    def __init__(self, base: Config, n: int):
        self.base, self.n = base, n
        full = store_of(base)
        scale = n / full.N
        self.store = Store(float(n), full.E, full.M * scale, full.scan_length, full.block_size)
        self.memory = int(base.machine.memory * scale) if base.machine.memory else None

    def config(self, t: Tuning, mix: Mix) -> Config:
        from ...loading import load_config

        d = self.base.model_dump(mode="json")
        w = d["workload"]
        d["workload"] = {"num": self.n, "key_size": w["key_size"], "value_size": w["value_size"], "preload": True}
        d["workload"]["phases"] = [
            {
                "name": "train",
                "operations": self.n,
                "mix": {"get_empty": mix.z0, "get": mix.z1, "long_scan": mix.q, "update": mix.w},
                "scan_length": int(self.store.scan_length),
            }
        ]
        if self.memory:
            d["machine"]["memory"] = self.memory
        return load_config(apply(d, overrides(t, self.store)))

    def __call__(self, t: Tuning, mix: Mix) -> float:
        from ...sim import simulate

        s = simulate(self.config(t, mix)).summary
        return 1.0 / s["phase_train_ops_per_s"]
