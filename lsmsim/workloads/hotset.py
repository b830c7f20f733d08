"""Hot-set restriction of a key sampler: only ``hot`` keys, spread evenly over the key space
(ArceKV, PVLDB'26 Sec. 5.3, "Read Amplification under MVCC": 1 million hot keys)."""

from __future__ import annotations

import numpy as np

from .keys import KeySampler, _check_fraction

__all__ = ["HotSetSampler"]


class HotSetSampler(KeySampler):
    """Only `inner.num` hot keys, spread evenly over [0, num): the hot index h comes from `inner`
    (any distribution over [0, hot)) and maps to key h * (num // hot).

    hot_fraction treats the hot set as the hottest hot/num of the data, as if its keys were
    stored together; spread out, each hot key may sit in its own block, so for caching this is
    optimistic (by up to block size / entry size), like the scrambled zipfian's hash scatter.
    """

    name = "hot"

    def __init__(self, inner: KeySampler, num: int):
        super().__init__(num)
        if inner.num > self.num:
            raise ValueError(f"keys.hot_keys ({inner.num}) must not exceed the key space workload.num ({self.num})")
        self.inner = inner
        self.hot = inner.num
        self.stride = np.uint64(self.num // self.hot)

    def draw(self, rng, n, cursor=0):
        keys = self.inner.draw(rng, n, cursor)
        keys *= self.stride
        return keys

    def hot_fraction(self, fraction):
        f = _check_fraction(fraction)
        return self.inner.hot_fraction(min(1.0, f * self.num / self.hot))

    def __repr__(self):
        return f"HotSetSampler({self.inner!r}, num={self.num})"
