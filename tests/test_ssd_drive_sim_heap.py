"""drive_sim's event heap under program suspension: each suspension voids a program's end and leaves it in the heap
(lazy deletion); a long program under a stream of reads piles them past the heap's capacity unless they are
dropped (des.compact). The kernel is checked against itself run as plain Python (numpy's bounds checks)."""

import numpy as np
import pytest

from lsmsim.ssd import des
from lsmsim.ssd import drive_sim as ds
from lsmsim.ssd import flash_units as fu
from lsmsim.ssd.timing import DriveModel

# programs on many units, suspended by reads all the time: void ends pile up past the live events' bound
SUSPENDED = DriveModel(
    units=32,
    program_suspend=True,
    program_first=True,
    program_time=1.4e-3,
    write_bandwidth=1.86e9,
    write_iops=310e3,
    write_stream_bandwidth=3.1e9,
    read_flash_time=50e-6,
    read_stream_bandwidth=278e6,
    host_per_io=2.3e-6,
)
BUFFER = 4 * SUSPENDED.units * SUSPENDED.program_bytes  # fio_job's throttled phase: a full, small buffer
JOB = (4096.0, 4096.0, 0.5, 16, 1, 3000, 300, 2, False)  # size_r, size_w, read share, depth, jobs, ios, warmup, seed


def plain_python(monkeypatch):
    """drive_sim.simulate and the helpers it calls as plain Python functions (bounds-checked indexing). After the
    kernel's own run: numba compiles it against the module's globals as they are when it is first called."""
    for mod, names in (
        (des, ("push", "pop", "compact", "enqueue", "serve_next", "append", "take_head", "take_random")),
        (fu, ("start_program", "unit_next", "read_chunks")),
    ):
        for name in names:
            monkeypatch.setattr(mod, name, getattr(mod, name).py_func)
    for name in dir(ds):
        target = getattr(ds, name)
        if name.startswith("_") and hasattr(target, "py_func") and name != "_command":
            monkeypatch.setattr(ds, name, target.py_func)
    monkeypatch.setattr(fu, "push", des.push)
    monkeypatch.setattr(fu, "append", des.append)
    return ds.simulate.py_func


def test_void_program_ends_never_overflow_the_heap(monkeypatch):
    params = SUSPENDED.params(buffer_full=True, buffer=BUFFER)
    d, lat, win, prog = ds.simulate(params, *JOB)
    reference = plain_python(monkeypatch)
    compactions, compact = [], ds._compact

    def counted(*args):
        compactions.append(args[4])
        return compact(*args)

    monkeypatch.setattr(ds, "_compact", counted)
    d_py, lat_py, win_py, prog_py = reference(params, *JOB)
    assert compactions  # the heap filled with void ends: the case is the one meant
    assert np.array_equal(d, d_py) and np.allclose(lat, lat_py, rtol=1e-12, atol=0.0)
    assert win == pytest.approx(win_py, rel=1e-12) and prog == pytest.approx(prog_py, rel=1e-12)
    # programs were written and suspended: reads waited far less than a whole program
    assert prog > 0 and np.percentile(lat[d == 0], 99) < 0.5 * SUSPENDED.program_time


def test_compact_drops_only_void_events_and_keeps_the_heap_order():
    cap = 64
    ht, hk, ha, hb = np.zeros(cap), np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64)
    ver = np.array([3, 5])
    rng = np.random.default_rng(1)
    n, live = 0, []
    for _ in range(40):
        t, kind, a = float(rng.random()), int(rng.integers(2)), int(rng.integers(2))
        b = int(ver[a]) if rng.random() < 0.5 else int(ver[a]) - 1
        n = des.push(ht, hk, ha, hb, n, t, kind, a, b)
        if not (kind == 1 and b != ver[a]):
            live.append(t)
    n = des.compact(ht, hk, ha, hb, n, 1, ver)
    assert n == len(live)
    popped = []
    while n:
        t, _, _, _, n = des.pop(ht, hk, ha, hb, n)
        popped.append(t)
    assert popped == sorted(live)
