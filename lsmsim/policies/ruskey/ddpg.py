"""The learner of RusKey's level-1 policy: DDPG (Lillicrap et al., ICLR'16), as RusKey uses it (Mo et al.,
SIGMOD'24 §5.1: an actor-critic pair of 3-layer, 128-neuron networks; docs/ruskey-readings.md R3).

Plain numpy: one decision per mission (tens of thousands of operations) makes the learner's cost negligible
beside the simulation, so neither a deep-learning framework nor numba would pay for itself.

- Actor mu(s) -> a, clipped to [-1, 1]; critic Q(s, a). Both: input -> 128 -> ReLU -> 128 -> ReLU -> 1. The
  actor's bound is kept by inverting gradients (Hausknecht and Stone, ICLR'16): a tanh output saturated at the
  bound where the last phase left it, and its vanishing gradient kept K there after the workload shifted.
- Target networks follow by soft updates (tau); the critic's target is r + gamma Q'(s', mu'(s')).
- Replay: every (s, a, r, s') is kept (a run makes a few thousand decisions at most); each mission trains
  `updates` minibatches once `batch` transitions are stored.
- Exploration: Gaussian noise on the action, its scale decaying per decision to a floor, so that a later
  workload shift can still be explored (R3).
- Adam (Kingma and Ba, ICLR'15) on every network. All randomness comes from one seeded generator.
- Training runs with one BLAS thread: these 64 x 128 products gain nothing from more, and OpenBLAS's spinning
  threads cost 3x the CPU on a shared 2-vCPU machine (measured: 1.8 against 5.5 ms per decision).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import ThreadpoolController

_BLAS = ThreadpoolController()


class Adam:
    """Adam over a list of parameter arrays (updated in place)."""

    def __init__(self, params: list[np.ndarray], lr: float, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8):
        self.params, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        c1, c2 = 1 - self.b1**self.t, 1 - self.b2**self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            p -= self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


class MLP:
    """input -> hidden -> ReLU -> hidden -> ReLU -> 1 (linear)."""

    def __init__(self, n_in: int, hidden: int, rng: np.random.Generator, out_scale: float = 3e-3):
        def layer(i, o, lim):
            return rng.uniform(-lim, lim, (i, o)), np.zeros(o)

        # fan-in initialisation for the hidden layers and a small output layer (DDPG's Sec. 7)
        w1, b1 = layer(n_in, hidden, 1 / np.sqrt(n_in))
        w2, b2 = layer(hidden, hidden, 1 / np.sqrt(hidden))
        w3, b3 = layer(hidden, 1, out_scale)
        self.params = [w1, b1, w2, b2, w3, b3]

    def copy_from(self, other: MLP, tau: float = 1.0) -> None:
        for p, q in zip(self.params, other.params, strict=True):
            p *= 1 - tau
            p += tau * q

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, tuple]:
        w1, b1, w2, b2, w3, b3 = self.params
        h1 = np.maximum(x @ w1 + b1, 0.0)
        h2 = np.maximum(h1 @ w2 + b2, 0.0)
        return h2 @ w3 + b3, (x, h1, h2)

    def backward(self, dy: np.ndarray, cache: tuple) -> tuple[list[np.ndarray], np.ndarray]:
        """Gradients of sum(dy * y) with respect to the parameters, and to the input."""
        x, h1, h2 = cache
        w1, _, w2, _, w3, _ = self.params
        g3 = h2.T @ dy
        d2 = (dy @ w3.T) * (h2 > 0)
        g2 = h1.T @ d2
        d1 = (d2 @ w2.T) * (h1 > 0)
        g1 = x.T @ d1
        return [g1, d1.sum(0), g2, d2.sum(0), g3, dy.sum(0)], d1 @ w1.T


@dataclass
class DDPGSettings:
    """Hyper-parameters. RusKey's are not public beyond the network size (R3); these are DDPG's published
    defaults where they fit a one-decision-per-mission learner, and stated where they do not."""

    hidden: int = 128
    actor_lr: float = 1e-3  # DDPG's 1e-4 learned too slowly for the few hundred decisions of a phase
    critic_lr: float = 1e-3
    gamma: float = 0.5  # a decision's effect is felt within a few missions: close to a contextual bandit
    tau: float = 0.01
    batch: int = 64
    updates: int = 1  # minibatches per decision
    noise: float = 0.5  # Gaussian exploration on a in [-1, 1]: a step needs |a| > 1/3 (k_step), so 0.5 explores often
    noise_decay: float = 0.99
    noise_floor: float = 0.2
    epsilon: float = 0.5  # chance of a uniform action instead (a saturated actor's noise never leaves its bound)
    epsilon_decay: float = 0.99
    epsilon_floor: float = 0.2


@dataclass
class DDPG:
    """One DDPG agent over states of `n_state` features and one action in [-1, 1]."""

    n_state: int
    seed: int = 0
    settings: DDPGSettings = field(default_factory=DDPGSettings)

    def __post_init__(self):
        s = self.settings
        self.rng = np.random.default_rng(self.seed)
        self.actor = MLP(self.n_state, s.hidden, self.rng)
        self.critic = MLP(self.n_state + 1, s.hidden, self.rng)
        self.actor_t = MLP(self.n_state, s.hidden, self.rng)
        self.critic_t = MLP(self.n_state + 1, s.hidden, self.rng)
        self.actor_t.copy_from(self.actor)
        self.critic_t.copy_from(self.critic)
        self.actor_opt = Adam(self.actor.params, s.actor_lr)
        self.critic_opt = Adam(self.critic.params, s.critic_lr)
        self.noise, self.epsilon = s.noise, s.epsilon
        self.replay: list[tuple[np.ndarray, float, float, np.ndarray]] = []
        self.trained = 0

    def act(self, state: np.ndarray, explore: bool = True) -> float:
        """The action for `state`: mu(s), plus exploration noise while learning, clipped to [-1, 1]."""
        a = float(np.clip(self.actor.forward(np.asarray(state, float)[None, :])[0][0, 0], -1.0, 1.0))
        if explore:
            st = self.settings
            if self.rng.random() < self.epsilon:
                a = float(self.rng.uniform(-1.0, 1.0))
            else:
                a += self.noise * float(self.rng.standard_normal())
            self.noise = max(st.noise_floor, self.noise * st.noise_decay)
            self.epsilon = max(st.epsilon_floor, self.epsilon * st.epsilon_decay)
        return min(1.0, max(-1.0, a))

    def observe(self, s: np.ndarray, a: float, r: float, s2: np.ndarray) -> None:
        """Store a transition and train on `updates` minibatches once enough are stored."""
        self.replay.append((np.asarray(s, float), float(a), float(r), np.asarray(s2, float)))
        if len(self.replay) >= self.settings.batch:
            with _BLAS.limit(limits=1, user_api="blas"):
                for _ in range(self.settings.updates):
                    self._train()

    def _train(self) -> None:
        st = self.settings
        idx = self.rng.integers(0, len(self.replay), st.batch)
        s = np.array([self.replay[i][0] for i in idx])
        a = np.array([self.replay[i][1] for i in idx])[:, None]
        r = np.array([self.replay[i][2] for i in idx])[:, None]
        s2 = np.array([self.replay[i][3] for i in idx])
        # critic: minimise (Q(s, a) - (r + gamma Q'(s', mu'(s'))))^2
        a2 = np.clip(self.actor_t.forward(s2)[0], -1.0, 1.0)
        y = r + st.gamma * self.critic_t.forward(np.hstack([s2, a2]))[0]
        q, cache = self.critic.forward(np.hstack([s, a]))
        grads, _ = self.critic.backward(2 * (q - y) / st.batch, cache)
        self.critic_opt.step(grads)
        # actor: ascend Q(s, mu(s)), through the critic's input gradient with respect to the action
        mu, acache = self.actor.forward(s)
        _, qcache = self.critic.forward(np.hstack([s, np.clip(mu, -1.0, 1.0)]))
        _, dx = self.critic.backward(np.ones((st.batch, 1)), qcache)
        dq = dx[:, -1:]  # dQ/da; inverting gradients keep the actor inside [-1, 1] without a saturating tanh
        dq = np.where(dq > 0, dq * (1 - mu) / 2, dq * (mu + 1) / 2)
        agrads, _ = self.actor.backward(-dq / st.batch, acache)
        self.actor_opt.step(agrads)
        self.actor_t.copy_from(self.actor, st.tau)
        self.critic_t.copy_from(self.critic, st.tau)
        self.trained += 1
