"""CAMAL's decoupled active learning (Yu, Luo, Yu and Cong, SIGMOD'25) over lsmsim runs.

The paper's body was not available to us; its abstract names the method ("decoupled tuning of each parameter",
"coupled with traditional cost models", extrapolation with the data size) and the authors' public code
(NTU-Siqiang-Group/CAMAL) fixes the details we follow (docs/camal-readings.md has each reading):

- one pass per compaction policy (its level and tier scripts), each over the same 15 training workloads;
- per workload, the parameters one at a time: size ratio T, then Bloom bits per key h (T fixed at the model's
  choice), then the memory split (T and h fixed); 5, 5 and 3 samples (its config's `samples: 5`);
- in each step the first sample is the complexity analysis's optimum (`cost.PRIOR`: its "theoretical" T and h),
  the rest are drawn without replacement with probability proportional to 1 / predicted latency (its
  `weight_sampling`), from a generator seeded by the config's seed, so a training is deterministic;
- after every sample the model is refitted on all samples of its policy, and a step's choice is the model's
  best over the whole candidate list, not only the sampled values.

The model is the code's linear one (`cost_lr_uni.py`): per policy, a least-squares fit of the mean latency per
operation on the cost terms (`cost.features`). Ours keeps the weights non-negative and regularises them towards
the prior's, so that a few samples cannot give an unsampled term an arbitrary weight. The code's default is an
XGBoost regressor over the raw parameters; a linear model of the cost terms is what lets a model trained on a
small store extrapolate to a larger one (the store's N enters through the level count and the cache's share of
the data), which is how lsmsim uses it: trained on a scaled-down store, recommending for the full one.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

import numpy as np
from scipy.optimize import nnls

from .cost import POLICIES, PRIOR, Mix, Store, Tuning, feasible, features

#: CAMAL's 15 training workloads (its public code's list): the even mix, each type dominant (97%), each pair
#: (49/49) and each triple (33/33/33), as (z0, z1, q, w).
TRAINING_MIXES: list[tuple[float, ...]] = (
    [(0.25, 0.25, 0.25, 0.25)]
    + [tuple(0.97 if i == j else 0.01 for i in range(4)) for j in range(4)]
    + [tuple(0.49 if i in pair else 0.01 for i in range(4)) for pair in itertools.combinations(range(4), 2)]
    + [tuple(0.33 if i in tri else 0.01 for i in range(4)) for tri in itertools.combinations(range(4), 3)]
)
T_GRID = list(range(2, 41))
H_GRID = [float(h) for h in range(0, 17)]
START = Tuning("leveling", 10, 10.0, 1.0)  # RocksDB's T and bits per key; no block cache, as the code samples T and h
RHO_GRID = [0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


@dataclass(frozen=True)
class Sample:
    """One measured run: the tuning, the mix, the store it ran on, and its mean latency per operation (s)."""

    policy: str
    T: int
    h: float
    rho: float
    z0: float
    z1: float
    q: float
    w: float
    N: float
    E: float
    M: float
    latency_s: float

    @property
    def tuning(self) -> Tuning:
        return Tuning(self.policy, self.T, self.h, self.rho)

    @property
    def mix(self) -> Mix:
        return Mix(self.z0, self.z1, self.q, self.w)

    def key(self) -> tuple:
        return (self.policy, self.T, self.h, self.rho, self.z0, self.z1, self.q, self.w, self.N, self.E, self.M)


class Model:
    """Per compaction policy, non-negative weights (seconds) of the cost terms."""

    def __init__(self, weights: dict[str, np.ndarray] | None = None, scan_length: float = 16, block_size: float = 4096):
        self.weights = weights or {p: PRIOR.copy() for p in POLICIES}
        self.scan_length, self.block_size = scan_length, block_size

    def _store(self, s: Sample) -> Store:
        return Store(s.N, s.E, s.M, self.scan_length, self.block_size)

    def fit(self, samples: Iterable[Sample], reg: float = 0.05) -> Model:
        """Refit each policy's weights on its samples: min ||X w - y||^2 + reg^2 ||w / PRIOR - 1||^2 * mean(y)^2,
        w >= 0 (in microseconds, so the terms are of comparable size)."""
        for p in POLICIES:
            rows = [s for s in samples if s.policy == p]
            if not rows:
                self.weights[p] = PRIOR.copy()
                continue
            X = np.array([features(s.tuning, s.mix, self._store(s)) for s in rows])
            y = np.array([s.latency_s for s in rows]) * 1e6
            lam = reg * float(np.mean(y))
            prior_us = PRIOR * 1e6
            A = np.vstack([X, np.diag(lam / prior_us)])
            b = np.concatenate([y, np.full(len(PRIOR), lam)])
            self.weights[p] = nnls(A, b, maxiter=50 * len(PRIOR))[0] / 1e6
        return self

    def predict(self, t: Tuning, mix: Mix, store: Store) -> float:
        """Predicted mean latency per operation (s)."""
        return float(features(t, mix, store) @ self.weights[t.policy])

    def best(self, candidates: Iterable[Tuning], mix: Mix, store: Store) -> Tuning:
        """The candidate of lowest predicted latency (ties: the first)."""
        return min(candidates, key=lambda t: self.predict(t, mix, store))

    def recommend(self, mix: Mix, store: Store, min_buffer: float) -> Tuning:
        """The tuning of lowest predicted latency over the whole grid (CAMAL's final optimisation)."""
        grid = (Tuning(p, T, h, r) for p in POLICIES for T in T_GRID for h in H_GRID for r in RHO_GRID)
        return self.best((t for t in grid if feasible(t, store, min_buffer)), mix, store)

    def to_dict(self) -> dict:
        return {p: [float(x) for x in w] for p, w in self.weights.items()}


Runner = Callable[[Tuning, Mix], float]


def active_learning(
    run: Runner,
    store: Store,
    mixes: Iterable[tuple[float, ...]] = TRAINING_MIXES,
    start: Tuning = START,
    samples_per_param: tuple[int, int, int] = (5, 5, 3),
    min_buffer: float = 1.0,
    seed: int = 0,
    samples: list[Sample] | None = None,
    on_sample: Callable[[Sample], None] | None = None,
) -> tuple[Model, list[Sample]]:
    """CAMAL's decoupled active learning over `mixes` on a store of `store`'s size (module docstring). `run`
    measures one tuning's mean latency per operation; `samples` already measured (a resumed training) are reused,
    not run again. Returns the fitted model and every sample."""
    model = Model(scan_length=store.scan_length, block_size=store.block_size)
    prior = Model(scan_length=store.scan_length, block_size=store.block_size)
    rng = np.random.default_rng(seed)
    cache = {s.key(): s for s in samples or []}  # a resumed training's samples: replayed in order, not run again
    seq: list[Sample] = []
    seen: set[tuple] = set()  # the keys of seq

    def measure(t: Tuning, mix: Mix) -> None:
        s = Sample(t.policy, t.T, t.h, t.rho, *mix.as_tuple(), store.N, store.E, store.M, 0.0)
        if s.key() in seen:
            return
        if s.key() in cache:
            s = cache[s.key()]
        else:
            s = cache[s.key()] = Sample(**{**asdict(s), "latency_s": float(run(t, mix))})
            if on_sample:
                on_sample(s)
        seq.append(s)
        seen.add(s.key())
        model.fit(seq)

    def step(mix: Mix, candidates: list[Tuning], n: int) -> Tuning:
        """Sample n of the candidates (the complexity analysis's best first, then drawn with probability
        proportional to 1 / predicted latency) and return the refitted model's best of all of them."""
        ok = [t for t in candidates if feasible(t, store, min_buffer)]
        picks = [prior.best(ok, mix, store)]
        rest = [t for t in ok if t != picks[0]]
        if rest and n > 1:
            p = 1 / np.maximum([model.predict(t, mix, store) for t in rest], 1e-12)
            idx = rng.choice(len(rest), size=min(n - 1, len(rest)), replace=False, p=p / p.sum())
            picks += [rest[i] for i in sorted(idx)]
        for t in picks:
            measure(t, mix)
        return model.best(ok, mix, store)

    n_T, n_h, n_rho = samples_per_param
    for p in POLICIES:  # one pass per compaction policy, as CAMAL's level and tier scripts
        for z in mixes:
            mix = Mix(*z)
            t = step(mix, [Tuning(p, T, start.h, start.rho) for T in T_GRID], n_T)  # size ratio
            t = step(mix, [Tuning(p, t.T, h, start.rho) for h in H_GRID], n_h)  # Bloom bits per key
            step(mix, [Tuning(p, t.T, t.h, r) for r in RHO_GRID], n_rho)  # memory: buffer against cache
    every = seq + [s for k, s in cache.items() if k not in seen]
    return model.fit(every), every
