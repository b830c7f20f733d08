"""A static tree built from a shape (`lsm.initial_tree`): sorted runs per level, no flush or compaction.

EcoTune SIGMOD'25 §4.1 measures query speed on four static shapes of a 4-level tree (Fig. 2: LSM-bush,
1L, 2L, 3L) loaded from SOSD's books keys, each key once. Here every sampled key of the key space
[0, num) (or, with `keys: normal`, a clustered subset of it) goes to exactly one run, the runs' keys
spread at random over the key space, so a run's share of the entries is its share of every key range.
Deeper levels hold older data (lower sequence numbers), and within a level the later-listed runs are
older, as a tree written from the top holds them.
"""

from __future__ import annotations

import numpy as np

from ..errors import LsmsimError
from ..lsm.sstable import Samples
from ..lsm.tree import Tree
from .generator import sampled_below

NORMAL_MEAN, NORMAL_STDDEV = 0.5, 0.1  # `keys: normal`: the workload keys' normal defaults (KeysConfig)


def _key_pool(keys: np.ndarray, need: int, clustered: bool, rng: np.random.Generator) -> np.ndarray:
    """`need` of the sampled `keys` in random order: all of them, a uniform subset, or a normal-density one."""
    if need >= keys.size:
        return rng.permutation(keys)
    if not clustered:
        return rng.choice(keys, need, replace=False)
    x = keys.astype(np.float64) / max(float(keys[-1]) + 1.0, 1.0)
    w = np.exp(-0.5 * ((x - NORMAL_MEAN) / NORMAL_STDDEV) ** 2)
    return rng.choice(keys, need, replace=False, p=w / w.sum())


def run_samples(spec, num: int, entry_bytes: float, eps: int, available: int) -> list[list[int]]:
    """Key samples of each run, per level (level 0 first): `run_size / entry_bytes` or `run_share x num` entries
    (each sample stands for `eps`), and the level without either shares the `available` samples the others leave."""
    sizes = [lv.entries(num, entry_bytes) for lv in spec.levels]
    sized = [None if e is None else max(0, round(e / eps)) for e in sizes]
    rest = max(0, available - sum(lv.runs * (n or 0) for lv, n in zip(spec.levels, sized)))
    out = []
    for lv, n in zip(spec.levels, sized):
        if n is not None:
            out.append([n] * lv.runs)
        else:  # split the rest as evenly as whole samples allow
            base, extra = divmod(rest, max(lv.runs, 1))
            out.append([base + (1 if i < extra else 0) for i in range(lv.runs)])
    return out


def build_initial_tree(tree: Tree, spec, num: int, value_size: int, seed: int) -> tuple[int, np.ndarray]:
    """Fill the empty `tree` with the runs of `spec` (an `InitialTreeConfig`) over the key space [0, num).
    Returns the next sequence number and the sampled keys written (for the live-key count)."""
    eps = tree.eps
    keys_all = sampled_below(num, eps)
    counts = run_samples(spec, num, tree.key_size + value_size + tree.entry_overhead, eps, keys_all.size)
    rng = np.random.default_rng([seed, 0x5EED])  # its own stream: the run's other draws do not move
    pool = _key_pool(keys_all, sum(map(sum, counts)), spec.keys == "normal", rng)
    if pool.size < sum(map(sum, counts)):  # within the key space's entries, but not its samples (eps > 1)
        raise LsmsimError(
            f"lsm.initial_tree: its runs need {sum(map(sum, counts)):,} key samples of {eps} entries; the key space "
            f"workload.num has {pool.size:,}: make the runs smaller"
        )
    at, seq = 0, 1
    all_keys = []
    for level in reversed(range(len(counts))):  # oldest (deepest) first: lowest seqnos
        runs = []
        for n in reversed(counts[level]):  # a level's later runs are older
            keys = np.sort(pool[at : at + n])
            at += n
            if keys.size == 0:
                continue
            s = Samples(
                keys,
                np.arange(seq, seq + keys.size, dtype=np.uint64),
                np.full(keys.size, value_size, np.uint32),
                np.zeros(keys.size, np.uint8),
            )
            seq += keys.size
            all_keys.append(keys)
            runs.append(tree.new_run(tree.build_files(s, level, int(spec.file_size), 0.0)))
        tree.level(level).runs[:0] = reversed(runs)  # youngest first
    tree.version += 1
    keys = np.concatenate(all_keys) if all_keys else np.empty(0, np.uint64)
    return seq, keys


def start_tree(tree: Tree, live, cfg) -> int:
    """Build `cfg.lsm.initial_tree` (if any) into the empty `tree` and count its keys live (`lsm.live.LiveKeys`).
    Returns the run's first free sequence number."""
    spec, w = cfg.lsm.initial_tree, cfg.workload
    if spec is None:
        return 1
    seq, keys = build_initial_tree(tree, spec, w.num, w.value_size, cfg.seed)
    live.write(keys, np.zeros(keys.size, np.uint8))
    return seq
