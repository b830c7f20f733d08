"""The live-key stores of lsm/live.py: the key space's bitmap and the hash set of the keys written agree with a
plain-Python reference write by write, and the hash set's memory follows the keys written (issue 38)."""

import numpy as np
import pytest

from lsmsim.lsm import live
from lsmsim.lsm.live import LiveKeys


class ReferenceLive:
    """The logical size as a dict of key -> live, in plain Python (what both stores must compute)."""

    def __init__(self, entry_bytes: float):
        self.state: dict[int, bool] = {}
        self.count, self.sized, self.e0 = 0, 0.0, entry_bytes

    def write(self, keys, tombs, e=None):
        e = self.e0 if e is None else e
        mean = self.sized / self.count if self.count else e
        born = over = died = 0
        for k, t in zip(keys.tolist(), tombs.tolist()):
            was = self.state.get(k, False)
            if t:
                died += was
                if was:
                    self.state[k] = False
            elif was:
                over += 1
            else:
                self.state[k] = True
                born += 1
        self.count += born - died
        self.sized = max(0.0, self.sized + born * e + over * (e - mean) - died * mean) if self.count else 0.0


@pytest.mark.parametrize("num", [1_000, 200_000, 2**40])
def test_bitmap_and_hash_set_match_the_reference_write_by_write(num):
    """Random batches with overwrites, deletes, tombstones of keys never written and a size change, through
    several of the hash set's resizes: the same live count and bytes after every batch, in both stores."""
    rng = np.random.default_rng(num)
    ref = ReferenceLive(100.0)
    stores = [LiveKeys(num, 4, 100.0, dense=False)]
    if num <= 2**24:
        stores.append(LiveKeys(num, 4, 100.0, dense=True))
    resizes, size = 0, stores[0].table.shape[0]
    for batch in range(60):
        n = int(rng.integers(1, 6_000))
        keys = rng.integers(0, min(num, 150_000), n).astype(np.uint64) * np.uint64(max(1, num // 150_000))
        tombs = (rng.random(n) < (0.05 if batch < 20 else 0.4)).astype(np.uint8)
        e = None if batch < 40 else 180.0
        ref.write(keys, tombs, e)
        for s in stores:
            s.write(keys, tombs, e)
            assert s.count == ref.count
            assert s.bytes == pytest.approx(ref.sized * 4, rel=1e-12)
        resizes += stores[0].table.shape[0] != size
        size = stores[0].table.shape[0]
    assert ref.count > 0 and resizes >= (2 if num > 1_000 else 0)


def test_the_hash_set_follows_the_keys_written_not_the_key_space():
    """A 4G key space picks the hash set, whose memory grows with the distinct keys written (at most 36 bytes a key
    once past its first table); a 1M key space keeps the 125 KB bitmap."""
    big, small = LiveKeys(2**32, 4, 100.0), LiveKeys(1_000_000, 4, 100.0)
    assert not big.dense and small.dense and small.nbytes == 125_000
    rng = np.random.default_rng(1)
    written = np.unique(rng.integers(0, 2**32, 500_000).astype(np.uint64))
    for part in np.array_split(written, 50):
        big.write(part, np.zeros(part.size, np.uint8))
    assert big.count == written.size
    assert big.nbytes <= 36 * written.size < 2**32 // 8 // 20
    big.write(written[:1000], np.zeros(1000, np.uint8))  # overwrites add no slot
    assert big.used == written.size


@pytest.mark.parametrize("mix", [{"insert": 1.0}, {"update": 0.6, "delete": 0.4}])
def test_a_run_on_the_hash_set_gives_the_bitmaps_logical_size(monkeypatch, mix):
    """The same run with the hash set forced (no bitmap allowed) gives the same logical size at every sample."""
    import lsmsim
    from tests.conftest import small_config

    phases = [{"operations": 40_000, "mix": {"insert": 1.0}}, {"operations": 40_000, "mix": mix}]
    cfg = small_config(phases=phases)
    dense = lsmsim.run(cfg, ["lsm.entries_per_sample=2", "sim.sample_interval=0.02"]).timeseries.logical_bytes
    monkeypatch.setattr(live, "DENSE_LIMIT_BYTES", 0)
    hashed = lsmsim.run(cfg, ["lsm.entries_per_sample=2", "sim.sample_interval=0.02"]).timeseries.logical_bytes
    assert len(dense) > 5 and list(hashed) == list(dense)
