import math

import pytest

from lsmsim.sim.sharing import Flow, solve


def test_processor_sharing_when_threads_exceed_cores():
    flows = [Flow(f"j{i}", 0, 1, cpu=1.0, dev=0.0) for i in range(3)]
    solve(flows, cores=2, switch_overhead=0.1)
    for f in flows:
        assert f.rate == pytest.approx(2 * 0.9 / 3)


def test_one_thread_uses_at_most_one_core():
    f = Flow("j", 0, 1, cpu=0.5, dev=0.0)
    solve([f], cores=4, switch_overhead=0.0)
    assert f.rate == pytest.approx(2.0)


def test_device_priority_classes():
    hi = Flow("flush", 0, 1, cpu=0.0, dev=0.8)  # wants 1/0.8 units/s = all of the device and more
    lo = Flow("compaction", 1, 1, cpu=0.0, dev=0.5)
    hi.cap = 1.0  # uses 0.8 of the device
    util = solve([hi, lo], cores=2, switch_overhead=0.0).util
    assert hi.rate == pytest.approx(1.0)
    assert lo.rate == pytest.approx(0.2 / 0.5)
    assert util == pytest.approx(1.0)


def test_max_min_fair_within_class():
    a = Flow("a", 0, 1, cpu=0.0, dev=1.0)
    b = Flow("b", 0, 1, cpu=0.0, dev=1.0, cap=0.2)
    c = Flow("c", 0, 1, cpu=0.0, dev=1.0)
    solve([a, b, c], cores=2, switch_overhead=0.0)
    assert b.rate == pytest.approx(0.2)
    assert a.rate == pytest.approx(0.4) and c.rate == pytest.approx(0.4)


def test_device_bound_flow_leaves_cpu_to_others():
    io = Flow("io", 0, 1, cpu=0.1, dev=1.0)  # device-bound: 1 unit/s, 0.1 core
    cpu = [Flow(f"c{i}", 1, 1, cpu=1.0, dev=0.0) for i in range(2)]
    solve([io] + cpu, cores=2, switch_overhead=0.0)
    assert io.rate == pytest.approx(1.0)
    for f in cpu:
        assert f.rate == pytest.approx(0.95, rel=1e-3)


def test_closed_loop_sync_io():
    # 4 threads, each op: 10us CPU + 90us synchronous I/O wait: 4 / 100us = 40K ops/s
    f = Flow("clients", 3, 4, cpu=10e-6, dev=0.0, sync=90e-6)
    solve([f], cores=4, switch_overhead=0.0)
    assert f.rate == pytest.approx(40_000, rel=1e-6)


def test_zero_cap_flow_gets_nothing():
    f = Flow("stopped", 3, 1, cpu=1e-6, dev=0.0, cap=0.0)
    g = Flow("job", 0, 1, cpu=1.0, dev=0.0)
    solve([f, g], cores=1, switch_overhead=0.0)
    assert f.rate == 0.0 and g.rate == pytest.approx(1.0)
    assert math.isfinite(g.rate)


def test_thread_group_cannot_exceed_the_cores():
    # 8 threads of 10us CPU per op on 4 cores: at most 4 cores / 10us = 400K ops/s
    f = Flow("clients", 3, 8, cpu=10e-6, dev=0.0)
    solve([f], cores=4, switch_overhead=0.0)
    assert f.rate == pytest.approx(400_000, rel=1e-6)
    assert f.cpu_share == pytest.approx(0.5)


def test_sharing_is_work_conserving_with_io_bound_threads():
    """4 client threads that compute 10% of the time leave the rest of one core to a CPU-bound job."""
    clients = Flow("clients", 3, 4, cpu=10e-6, dev=0.0, sync=90e-6)
    job = Flow("job", 2, 1, cpu=1.0, dev=0.0)
    solve([clients, job], cores=1, switch_overhead=0.0)
    used = clients.rate * clients.cpu + job.rate * job.cpu
    assert used == pytest.approx(1.0, rel=1e-6)  # no idle core
    # the clients keep their duty cycle (0.1 core each) and run at full speed
    assert clients.rate == pytest.approx(40_000, rel=1e-6)
    assert job.rate == pytest.approx(0.6, rel=1e-6)


def test_multi_thread_job_splits_its_work():
    one = Flow("j1", 1, 1, cpu=1.0, dev=0.0)
    two = Flow("j2", 1, 2, cpu=1.0, dev=0.0)  # the same work over two threads (subcompactions)
    solve([one], cores=4, switch_overhead=0.0)
    solve([two], cores=4, switch_overhead=0.0)
    assert two.rate == pytest.approx(2 * one.rate)
    assert two.cpu_share == pytest.approx(1.0)


def test_reserved_cores_are_pinned_to_their_roles():
    """EcoTune §5.2: 2 of 10 cores for the writer, flush and TMC threads. A reserved writer keeps
    its cores however many query threads compete; the others share only the rest."""
    writer = Flow("writers", 0, 1, cpu=1.0, dev=0.0, reserved=True)
    queries = Flow("queries", 3, 16, cpu=1.0, dev=0.0)
    solve([writer, queries], 4, 0.0, reserved_cores=1)
    assert writer.rate == pytest.approx(1.0)
    assert queries.rate == pytest.approx(3.0)
    solve([writer, queries], 4, 0.0)  # one pool: the writer gets 4/17 of the cores
    assert writer.rate == pytest.approx(4 / 17)


def test_idle_reserved_cores_are_not_lent():
    writer = Flow("writers", 0, 1, cpu=1.0, dev=0.0, cap=0.25, reserved=True)
    queries = Flow("queries", 3, 16, cpu=1.0, dev=0.0)
    solve([writer, queries], 4, 0.0, reserved_cores=2)
    assert writer.rate == pytest.approx(0.25)
    assert queries.rate == pytest.approx(2.0)  # pinned: the reserved pool's idle 1.75 cores stay idle


def test_solver_reports_whether_it_reached_its_fixed_point():
    """A capped flow frees the CPU it cannot use only in the second round: one round is not the fixed point,
    and the solver says so (the kernel counts such steps in `sharing_unconverged_steps`)."""

    def flows():
        return [Flow("w", 0, 1, cpu=1.0, dev=0.0, cap=0.3)] + [Flow(f"c{i}", 0, 1, cpu=1.0, dev=0.0) for i in range(2)]

    full = solve(flows(), cores=1, switch_overhead=0.0)
    assert full.converged and full.rounds == 2
    cut = solve(flows(), cores=1, switch_overhead=0.0, iterations=1)
    assert not cut.converged and cut.rounds == 1
    assert solve([], cores=2, switch_overhead=0.0) == (0.0, True, 0)


def test_read_latency_fixed_point_settles_a_read_bound_closed_loop():
    """One closed-loop reader: per operation c s of CPU, d s of device time and k synchronous reads of
    L0 / (1 - u) each (M/M/1). Two rounds from an idle device swing it from saturated (u = 1, a short wait) to
    starved (a 50x wait); the fixed point is the root of u = d / (c + k L0 / (1 - u)), a quadratic."""
    from lsmsim.sim.foreground import read_latency_fixed_point

    c, d, k, l0 = 10e-6, 1.04e-3, 1.83, 0.5e-3
    calls = []

    def evaluate(u):
        calls.append(u)
        rate = min(1.0 / d, 1.0 / (c + k * l0 / max(0.02, 1.0 - u)))
        return rate * d, True

    u, ok = read_latency_fixed_point(evaluate, 0.0)
    # u (c (1 - u) + k l0) = d (1 - u)  ->  c u^2 - (c + k l0 + d) u + d = 0, the root in [0, 1]
    a, b = c, -(c + k * l0 + d)
    root = (-b - math.sqrt(b * b - 4 * a * d)) / (2 * a)
    assert ok and u == pytest.approx(root, abs=1e-3) and 0.4 < root < 0.6
    # near the fixed point already: the two rounds agree, nothing more is evaluated
    calls.clear()
    u2, _ = read_latency_fixed_point(evaluate, root)
    assert len(calls) == 2 and u2 == pytest.approx(root, abs=1e-3)


def test_without_synchronous_reads_one_round_is_the_fixed_point(tmp_path):
    """No flow waits read_latency(u) (a fill): `reads=False` evaluates once and returns that round, where two rounds
    would give the same; and a write-only simulation evaluates once per step, with every summary number equal to
    two rounds' (the kernel's own first round, with the second forced)."""
    import lsmsim.sim.foreground as fg
    import lsmsim.sim.kernel as kernel
    from lsmsim import load_config
    from lsmsim.sim.foreground import read_latency_fixed_point
    from tests.conftest import small_config

    calls = []

    def evaluate(u):
        calls.append(u)
        return 0.37, True

    assert read_latency_fixed_point(evaluate, 0.9, reads=False) == (0.37, True) and calls == [0.9]
    cfg = load_config(small_config())  # inserts only
    seen: list[bool] = []
    real = fg.read_latency_fixed_point

    def spy(evaluate, u0, tol=0.02, reads=True):
        seen.append(reads)
        return real(evaluate, u0, tol, reads)

    def both_rounds(evaluate, u0, tol=0.02, reads=True):
        return real(evaluate, u0, tol, True)

    try:
        kernel.read_latency_fixed_point = spy
        one = kernel.Simulation(cfg).run().summary
        kernel.read_latency_fixed_point = both_rounds
        two = kernel.Simulation(cfg).run().summary
    finally:
        kernel.read_latency_fixed_point = real
    assert seen and not any(seen)
    numbers = [k for k, v in one.items() if isinstance(v, float) and not math.isnan(v)]
    assert len(numbers) > 20 and all(one[k] == two[k] for k in numbers)


def _random_flows(rng, n):
    flows = []
    for i in range(n):
        kind = rng.integers(4)
        cpu = 0.0 if kind == 0 else float(rng.choice([1e-6, 3e-6, rng.uniform(1e-7, 1e-2)]))
        dev = 0.0 if kind == 1 else float(rng.choice([0.0, rng.uniform(1e-7, 1e-2)]))
        sync = float(rng.choice([0.0, 0.0, rng.uniform(1e-6, 1e-2)]))
        cap = float(rng.choice([math.inf, math.inf, rng.uniform(0.0, 2e5), 0.0]))
        f = Flow(f"f{i}", int(rng.integers(3)), int(rng.integers(1, 17)), cpu, dev, sync, cap)
        f.reserved = bool(rng.integers(2))
        f.held = bool(rng.integers(2))  # left as it was for a flow without CPU work
        flows.append(f)
    return flows


@pytest.mark.parametrize("seed", range(40))
def test_kernel_matches_the_plain_python_solver_bit_for_bit(seed):
    """The numba kernel (_sharing_kernel.solve_nb) behind `solve` against its plain-Python transcription
    (tests/sharing_reference.py) on random flows: CPU-bound, device-bound, synchronous, capped, idle (cap 0),
    in up to three I/O classes, one or two pools of cores, few or many rounds. Equal to the last bit."""
    import copy

    import numpy as np

    from tests.sharing_reference import solve_reference

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 20))
    a = _random_flows(rng, n)
    b = copy.deepcopy(a)
    cores = float(rng.choice([1, 2, 4, 16]))
    reserved = float(rng.choice([0.0, 0.0, 1.0])) if cores > 1 else 0.0
    overhead, rounds = float(rng.choice([0.0, 0.02, 0.1])), int(rng.choice([1, 2, 8]))
    got = solve(a, cores, overhead, iterations=rounds, reserved_cores=reserved)
    want = solve_reference(b, cores, overhead, iterations=rounds, reserved_cores=reserved)
    assert (got.util, got.converged, got.rounds) == (want.util, want.converged, want.rounds)
    for x, y in zip(a, b):
        assert (x.rate, x.cpu_share, x.held, x.reserved) == (y.rate, y.cpu_share, y.held, y.reserved), x.name
