"""The foreground: client groups of a phase and the latency of their operations.

A phase's threads form groups (`make_groups`): closed-loop `clients` run the whole mix, `writers` a
fixed-rate write stream, `queries` the read part (closed loop or open arrivals). Each group is one
flow of the sharing solver per step; `op_latencies` turns the solved rate into per-operation latency.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from ..config import PhaseConfig
from ..lsm.costs import CostTable
from ..tolerances import PROB_EPS, REL_EPS, WAIT_EPS
from ..workloads import scan_lengths
from .counters import READ_OPS
from .sharing import Flow, solve, water_fill


@dataclass(eq=False)
class Group:
    """Foreground threads of one kind: `clients` run the whole mix (closed loop), `writers` a
    fixed-rate write stream, `queries` the read part (closed loop or open arrivals)."""

    name: str
    threads: int
    shares: dict[str, float]
    target: float = math.inf  # ops/s cap: a fixed write rate, or an arrival rate
    open: bool = False
    backlog: float = 0.0  # open-loop requests waiting (fluid)
    flow: Flow | None = None
    rate: float = 0.0  # ops/s in this step
    cpu_per_op: float = 0.0  # CPU seconds of an average operation of the group's mix
    sync_reads: float = 0.0  # synchronous block reads of an average operation
    page_s: float = 0.0  # device seconds to transfer one page (block_size)
    sync_transfer: float = 0.0  # seconds an average operation's multi-page reads transfer beyond their first page
    base_threads: int = 0  # threads from the config (policies may lend more, see extra_query_threads)
    per_op: dict[str, float] = field(default_factory=dict)  # latency per op type, without sync reads
    reads: dict[str, float] = field(default_factory=dict)  # mean synchronous reads per op type
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per op type on a core of its own
    cpu_wait: dict[str, float] = field(default_factory=dict)  # mean wait for a core per op (processor sharing)
    write_wait: float = 0.0  # mean wait of a write under the write controller's delayed rate (refill sleeps)
    refill: float = 0.0  # seconds between that limit's credits (write_controller.py): one that finds none sleeps it
    wal_sync: float = 0.0  # seconds a write waits for its write group's WAL sync (lsm.wal_sync)
    serial_cap: float = math.inf  # ops/s the write thread allows the group (serialize_writes)
    commit_wait: float = 0.0  # mean wait of a write for the groups ahead of it in the write thread
    shares_version: int = 0  # bumped when `shares` change within a phase (found: live); op-mode clients redraw
    write_spin: float = 0.0  # CPU seconds a write spins for other threads' write groups (write_thread_spin)
    spin_chance: float = 0.0  # the chance that a write finds another thread's group in the write thread
    spin_latency: float = 0.0  # a write's mean time spinning, stretched as its CPU is (op_latencies)
    # long scans of varying length (phase.scan_lengths): lengths over their mean, as a few points (fluid) and in full
    # (op-level: lengths, cumulative probabilities), and the costs (CPU s, sync reads) of its seek and of a mean scan
    scan_points: tuple[np.ndarray, np.ndarray] | None = None
    scan_pmf: tuple[np.ndarray, np.ndarray] | None = None
    scan_seek: tuple[float, float] = (0.0, 0.0)
    scan_full: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self):
        self.base_threads = self.base_threads or self.threads


def make_groups(p: PhaseConfig, bytes_per_write: float) -> list[Group]:
    """The groups of phase `p`; `bytes_per_write` turns a fixed write rate (bytes/s) into writes/s."""
    mix = p.mix
    total = mix.writes() + mix.reads()
    reads = {op: getattr(mix, op) for op in READ_OPS if getattr(mix, op) > 0}
    wfrac = mix.writes() / total
    groups = []
    if p.writers.mode == "closed":
        shares = {"write": wfrac} if wfrac > 0 else {}
        if p.queries.mode == "with_writers":
            shares.update({op: v / total for op, v in reads.items()})
        else:
            shares = {"write": 1.0} if wfrac > 0 else {}
        if shares:
            s = sum(shares.values())
            groups.append(Group("clients", p.writers.threads, {k: v / s for k, v in shares.items()}))
    elif wfrac > 0:
        rate = p.writers.rate
        assert rate is not None  # WritersConfig requires it for mode: rate
        groups.append(Group("writers", p.writers.threads, {"write": 1.0}, target=rate / bytes_per_write))
    if reads and p.queries.mode != "with_writers":
        r = sum(reads.values())
        g = Group("queries", p.queries.threads, {op: v / r for op, v in reads.items()})
        if p.queries.mode == "open":
            assert p.queries.arrival_rate is not None  # QueriesConfig requires it for mode: open
            g.open = True
            g.target = p.queries.arrival_rate
        groups.append(g)
    if p.scan_lengths is not None:
        key = p.scan_lengths.key()
        mean = scan_lengths.mean(*key)
        for g in groups:
            if "long_scan" in g.shares and mean > 0:
                lengths, prob = scan_lengths.points(*key)
                g.scan_points = (lengths / mean, prob)
                lengths, prob = scan_lengths.pmf(*key)
                g.scan_pmf = (lengths / mean, np.cumsum(prob))
    return groups


def scan_multipliers(g: Group, lengths: np.ndarray, read_latency: float) -> np.ndarray:
    """Long scans' latency over the mean-length scan's, at `lengths` over the mean (scan_lengths.multipliers): the
    seek's share of the mean scan's time is its CPU and synchronous reads over the mean scan's, this step."""
    full = g.scan_full[0] + g.scan_full[1] * read_latency
    seek = g.scan_seek[0] + g.scan_seek[1] * read_latency
    return scan_lengths.multipliers(lengths, 1.0, min(1.0, seek / full) if full > 0 else 1.0)


def group_flow(
    g: Group,
    costs: CostTable,
    dev,
    block_size: int,
    limit,
    wb: float,
    rank: int,
    machine,
    wal_sync: float = 0.0,
) -> Flow:
    """The sharing solver's flow of group `g` this step: CPU per operation of its mix, device time of its block
    reads, its cap (a target rate, an arrival rate with no backlog, the write controller's `limit` in bytes/s of
    `wb`-byte writes). A write's WAL bytes are not the writer's device time: RocksDB appends them to the page cache
    and the OS writes them back (sim/wal.py's flow). `wal_sync`: seconds of the WAL sync a write waits for
    (lsm.wal_sync), a wait without CPU or device time."""
    g.wal_sync = wal_sync
    g.serial_cap = math.inf
    if g.scan_points is not None and costs.long_scan_seek is not None:
        g.scan_seek = (costs.long_scan_seek.cpu, costs.long_scan_seek.sync_reads)
        g.scan_full = (costs.long_scan.cpu, costs.long_scan.sync_reads)
    g.cpu_per_op = sum(s * costs.of(op).cpu for op, s in g.shares.items())
    g.sync_reads = sum(s * costs.of(op).sync_reads for op, s in g.shares.items())
    g.page_s = dev.seconds(block_size, 0.0, 0.0)
    g.sync_transfer = g.page_s * sum(s * costs.of(op).extra_pages for op, s in g.shares.items())
    reads = sum(s * costs.of(op).reads for op, s in g.shares.items())
    wshare = g.shares.get("write", 0.0)
    cap = g.target if (not g.open or g.backlog <= 0) else math.inf
    if wshare > 0 and limit is not None:
        cap = min(cap, limit / wb / wshare)
    g.flow = Flow(
        g.name,
        rank,
        g.threads,
        g.cpu_per_op + wshare * g.write_spin,  # the last step's spin: write_thread_spin starts from it
        dev.seconds(0.0, 0.0, reads),
        cap=cap,
        # a client group that also reads is not pinned: its reads would be
        reserved="writers" in machine.reserved_for and set(g.shares) == {"write"},
    )
    return g.flow


def serialize_writes(groups: list[Group], t_write: float) -> None:
    """Cap the groups' flows so that their writes together stay within 1 / t_write (machine.cpu.write_serial: a
    write's time in RocksDB's write thread, which concurrent writers pass one at a time). RocksDB writes through one
    write thread (db/write_thread.cc): a group's leader appends the WAL for it and the members wait, spinning then
    blocking (WriteThread::AwaitState); the memtable inserts may run in parallel (allow_concurrent_memtable_write)
    but contend for the skiplist. Measured with db_bench 7.8.3 on this project's 2-vCPU Xeon host: fillrandom from
    2 threads writes 0.81-0.87x what 1 thread writes (`lsmsim calibrate` measures write_serial so), while readrandom
    from 2 threads reads 1.6-2.0x. Within the lane, threads share max-min fairly. 0: writers scale with cores."""
    writers = [g for g in groups if g.shares.get("write", 0.0) > 0 and g.flow is not None and not g.open]
    if t_write <= 0 or sum(g.threads for g in writers) < 2:
        return
    # writes/s one thread of each group would issue alone
    alone = [g.shares["write"] / max(g.cpu_per_op + g.shares["write"] * g.wal_sync, 1e-12) for g in writers]
    per_thread = water_fill(alone, [g.threads for g in writers], 1.0 / t_write)
    for g, a in zip(writers, per_thread):
        assert g.flow is not None
        g.serial_cap = a * g.threads / g.shares["write"]
        g.flow.cap = min(g.flow.cap, g.serial_cap)


def write_thread_spin(groups: list[Group], t_write: float, factor: float) -> bool:
    """Set each closed-loop writing group's CPU per write spent waiting for other threads' write groups, from the
    flows' solved rates; return whether it moved (so the solver runs again: `spin_fixed_point`). Open-loop groups
    are left out, as `serialize_writes` leaves them out.

    A write that finds another thread's group in RocksDB's write thread waits for it in WriteThread::AwaitState
    (db/write_thread.cc): 200 pause spins, then sched_yield for up to max_yield_usec (100 us) until three yields
    really gave the core away, then a blocking wait. It finds one with the chance U that the other threads' writes
    hold the write thread (their writes/s x `t_write`, machine.cpu.write_serial) and waits the rest of that hold, so
    it spins `factor` x t_write x U (machine.cpu.write_wait; 0.5 for holds of fixed length that keep their core).
    Measured with db_bench 7.8.3 on the Xeon host (per-thread CPU from /proc/<pid>/task/*/stat): fillrandom from
    2 threads spends 8.9-9.6 us of its threads' CPU per write where 1 thread spends 4.8-6.3, and
    readrandomwriterandom 50/50's CPU per operation grows by 13-60% from 1 thread to 2, with the flush's and
    compactions' CPU unchanged. Writes with a WAL sync wait for it blocked (group_commit), not spinning."""
    writers = [g for g in groups if g.shares.get("write", 0.0) > 0 and g.flow is not None and not g.open]
    if t_write <= 0 or factor <= 0 or sum(g.threads for g in writers) < 2:
        return False
    total = sum(g.flow.rate * g.shares["write"] for g in writers if g.flow is not None)  # writes/s
    moved = False
    for g in writers:
        assert g.flow is not None
        own = g.flow.rate * g.shares["write"] / g.threads  # one of its threads' writes/s
        g.spin_chance = 0.0 if g.wal_sync > 0 else min(1.0, max(0.0, total - own) * t_write)
        spin = factor * t_write * g.spin_chance
        moved = moved or abs(spin - g.write_spin) > SPIN_TOL * t_write
        g.write_spin = spin
        g.flow.cpu = g.cpu_per_op + g.shares["write"] * spin
    return moved


SPIN_TOL = 0.005  # of write_serial: the spin's fixed point is reached when a round moves it less


def spin_fixed_point(flows: list[Flow], groups: list[Group], machine, rounds: int = 8):
    """The sharing solver (`sharing.solve`) on the step's flows until `write_thread_spin` settles: a write's spin
    raises its CPU, which lowers the writes' rate and so the spin; a few rounds settle it. Returns the last solve's
    result."""
    m = machine

    def solve_once():
        return solve(flows, m.cores, m.context_switch_overhead, reserved_cores=m.reserved_cores)

    out = solve_once()
    for _ in range(rounds):
        if not write_thread_spin(groups, m.cpu.write_serial, m.cpu.write_wait):
            break
        out = solve_once()
    return out


def group_commit(groups: list[Group], sync_s: float, write_cpu: float) -> float:
    """Seconds of the write thread per write when every write group syncs the WAL for `sync_s` (lsm.wal_sync), for
    `serialize_writes`. One leader at a time appends the WAL for its group, syncs it, and (RocksDB's default,
    non-pipelined write path) waits for the group's memtable inserts before the next group may start
    (db/db_impl/db_impl_write.cc DBImpl::WriteImpl: WriteToWAL, then the memtable writes, then
    ExitAsBatchGroupLeader): a group holds the write thread for one write's CPU (`write_cpu`, the members insert in
    parallel) and the sync. The writers that arrive meanwhile form the next group (WriteThread::
    EnterAsBatchGroupLeader takes every writer linked behind the leader); a writer back from its group finds the
    other cohort's group already started, so with N closed-loop writers (N >= 2) the groups alternate between two
    cohorts of N / 2. Measured with db_bench 7.8.3 --sync=1 on this project's Xeon host (rocksdb.wal.synced against
    rocksdb.number.keys.written): 1.00, 1.60 and 2.02 writes per sync from 1, 2 and 4 threads, where the model has
    1, 1 and 2 (docs/validation.md)."""
    n = sum(g.threads for g in groups if g.shares.get("write", 0.0) > 0 and not g.open)
    return (write_cpu + sync_s) / max(1.0, n / 2.0) if sync_s > 0 and n >= 2 else 0.0


def op_latencies(g: Group, costs: CostTable, read_latency: float, write_delay: float, write_limited: float) -> None:
    """Latency per operation type for one of the group's threads at the solved rates.

    `per_op[op]` is the part without synchronous reads: CPU time, slowed when the thread holds
    less than its duty cycle of a core, plus any wait the step imposes: a write stall's delay
    goes to writes only; device queueing stretches every operation. `reads[op]` is the mean
    number of synchronous block reads, each taking `read_latency` (see `latency_points`).
    `write_limited`: a write limit is in force this step, its credits refilled every that many seconds (0: none)."""
    f = g.flow
    assert f is not None, "op_latencies runs after the solver gave the group its flow"
    g.rate = f.rate
    slow = 1.0
    if f.cpu > 0 and f.cpu_share > 0 and not f.held:  # CPU bound: each op's CPU part stretches
        slow = max(1.0, (f.cpu / f.cpu_share - f.sync) / f.cpu)
    # a multi-page read (a filter or index load) waits for its pages beyond the first: part of the op's latency
    g.per_op = {op: costs.of(op).cpu * slow + costs.of(op).extra_pages * g.page_s for op in g.shares}
    g.cpu = {op: costs.of(op).cpu for op in g.shares}
    g.cpu_wait = {op: g.cpu[op] * (slow - 1.0) for op in g.shares}
    if "write" in g.per_op:
        g.spin_latency = g.write_spin * slow  # spinning is CPU: it stretches as the write's own CPU does
        g.per_op["write"] += write_delay + g.wal_sync + g.spin_latency
    g.reads = {op: costs.of(op).sync_reads for op in g.shares}
    g.write_wait = 0.0
    g.commit_wait = 0.0
    if g.rate <= 0 or g.open:
        return
    mean = sum(s * (g.per_op[op] + g.reads[op] * read_latency) for op, s in g.shares.items())
    extra = g.threads / g.rate - mean  # per op of a thread, beyond its own service time
    if extra <= WAIT_EPS or g.name == "writers":  # a fixed-rate writer's gaps are idle, not latency
        return
    wshare = g.shares.get("write", 0.0)
    capped = wshare > 0 and f.cap < math.inf and f.rate >= f.cap * (1 - REL_EPS)
    if capped and g.serial_cap <= f.cap * (1 + REL_EPS):
        g.commit_wait = extra / wshare  # writes wait in the write thread for the groups ahead of them
        g.per_op["write"] += g.commit_wait
    elif capped and write_limited:
        g.write_wait = extra / wshare  # the write controller delays writes only
        g.refill = write_limited
        g.per_op["write"] += g.write_wait
    elif mean <= WAIT_EPS:  # ops that cost nothing alone (machine.cpu all 0): the wait is all their latency
        for op in g.per_op:
            g.per_op[op] += extra
    else:
        k = 1.0 + extra / mean  # every op of the mix takes k times as long as alone
        for op in g.per_op:
            g.per_op[op] = g.per_op[op] * k + (k - 1.0) * g.reads[op] * read_latency


def mean_service(g: Group, read_latency: float) -> float:
    """Mean service time of one operation of the group's mix."""
    return sum(s * (g.per_op[op] + g.reads[op] * read_latency) for op, s in g.shares.items())


def latency_points(g: Group, op: str, read_latency: float) -> list[tuple[float, float]]:
    """The latency distribution of one op type as (latency, probability) points: a random
    number K of synchronous block reads with mean r, K = floor(r) or floor(r) + 1. Writes under the
    write controller's delayed rate spend their mean wait w as RocksDB does: most pass on credits, a
    share w / S sleeps S = max(refill, w) (the P99.9 write latency of a slowed-down store is ~1 ms; of low-priority
    writes under their 1 MiB/s limiter ~100 ms). A write's spin for other threads' groups (write_thread_spin) is
    all in the share `spin_chance` of the writes that find one."""
    base = g.per_op[op]
    if op == "write" and g.spin_latency > 0 and 0.0 < g.spin_chance < 1.0:
        p, spin = g.spin_chance, g.spin_latency
        pts = _points(g, op, base - spin, read_latency)
        return [(lat, q * (1.0 - p)) for lat, q in pts] + [(lat + spin / p, q * p) for lat, q in pts]
    return _points(g, op, base, read_latency)


def _points(g: Group, op: str, base: float, read_latency: float) -> list[tuple[float, float]]:
    """`latency_points` of an op whose latency without synchronous reads is `base`."""
    if op == "write" and g.write_wait > 0:
        sleep = max(g.refill, g.write_wait)
        p = g.write_wait / sleep
        base -= g.write_wait
        return [(base, 1.0 - p), (base + sleep, p)] if p < 1.0 else [(base + sleep, 1.0)]
    r = g.reads.get(op, 0.0)
    k = math.floor(r)
    frac = r - k
    if frac <= PROB_EPS:
        return [(base + k * read_latency, 1.0)]
    return [(base + k * read_latency, 1.0 - frac), (base + (k + 1) * read_latency, frac)]


@functools.lru_cache(maxsize=64)
def _spread_points(sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """A lognormal of mean 1 and log-deviation `sigma` as (multiplier, probability) points: one point per
    probability bin, finer in the tail (so that p99 and p99.9 fall on points), at the bin's middle quantile, the
    multipliers scaled so that their mean stays exactly 1."""
    prob = np.diff(SPREAD_EDGES)
    mids = (SPREAD_EDGES[:-1] + SPREAD_EDGES[1:]) / 2
    z = np.array([NormalDist().inv_cdf(float(m)) for m in mids])
    mult = np.exp(sigma * z)
    return mult / float((mult * prob).sum()), prob


SPREAD_EDGES = np.array([0.0, 0.25, 0.5, 0.75, 0.9, 0.97, 0.99, 0.997, 0.999, 0.9997, 1.0])


def latency_distribution(
    g: Group, op: str, read_latency: float, spread: float, slice_s: float
) -> tuple[np.ndarray, np.ndarray]:
    """The latency distribution of one op type as (latencies, probabilities), with the mean of `latency_points`
    (which it refines), for the fluid mode's percentiles:
    - each of `latency_points`' points (synchronous reads K = floor(r) or floor(r) + 1; a delayed write's sleep);
    - the op's own CPU time spread as a lognormal of log-deviation `spread` (machine.cpu_spread: skiplist depth,
      cache misses; db_bench's uncontended histograms);
    - processor sharing as the kernel's scheduler does it (machine.sched_slice): a thread that holds less than a
      core runs slices of `slice_s` and waits between them, so an op of CPU c waits (slow - 1) x slice_s with the
      chance c / slice_s that a slice ends while it runs, and not at all otherwise; the mean wait c (slow - 1) is
      the fluid's, and the rare long ones are the tail db_bench shows when threads outnumber cores;
    - long scans of varying length (phase.scan_lengths): each point again at every length of `scan_lengths.points`,
      scaled by that length's scan over the mean-length one (`scan_multipliers`), which keeps the mean."""
    lat, prob = _cpu_spread(g, op, read_latency, spread, slice_s)
    if op == "long_scan" and g.scan_points is not None:  # each length's scan: its seek and its share of the rest
        lengths, lp = g.scan_points
        m = scan_multipliers(g, lengths, read_latency)
        return (lat[:, None] * m[None, :]).ravel(), (prob[:, None] * lp[None, :]).ravel()
    return lat, prob


def _cpu_spread(g: Group, op: str, read_latency: float, spread: float, slice_s: float) -> tuple[np.ndarray, np.ndarray]:
    """`latency_points` with the op's CPU spread and its scheduler-slice waits (latency_distribution)."""
    pts = latency_points(g, op, read_latency)
    lat = np.array([p[0] for p in pts])
    prob = np.array([p[1] for p in pts])
    # a WAL sync (lsm.wal_sync) varies as the CPU does: db_bench --sync=1's rocksdb.wal.file.sync.micros has P99 2.2x
    # its mean (P50 66 us, P99 147 us on the Xeon host)
    c = g.cpu.get(op, 0.0) + (g.wal_sync if op == "write" else 0.0)
    wait = g.cpu_wait.get(op, 0.0)
    if c <= 0.0:
        return lat, prob
    rest = lat - c - wait  # what is not the op's CPU (and sync) or its wait for a core: reads, sleeps, transfers
    mult, mp = _spread_points(spread) if spread > 0 else (np.ones(1), np.ones(1))
    q = min(1.0, g.cpu.get(op, 0.0) / slice_s) if slice_s > 0 and wait > 0 else 1.0
    waits = np.array([wait / q, 0.0]) if q < 1.0 else np.array([wait])
    wp = np.array([q, 1.0 - q]) if q < 1.0 else np.ones(1)
    out = rest[:, None, None] + c * mult[None, :, None] + waits[None, None, :]
    w = prob[:, None, None] * mp[None, :, None] * wp[None, None, :]
    return out.ravel(), w.ravel()


def read_latency_fixed_point(
    evaluate: Callable[[float], tuple[float, bool]], u0: float, tol: float = 0.02, reads: bool = True
) -> tuple[float, bool]:
    """The device utilisation u at which the flows, whose synchronous reads wait read_latency(u), load the device
    to u. `evaluate(u)` sets the flows' rates for that wait and returns (their utilisation, the solver converged).
    Two rounds from u0, the previous step's utilisation, which usually agree within `tol`; when the second still
    moves by more than `tol` (a read-bound closed loop swings between an idle and a saturated device: a short wait
    lets it saturate the device, whose wait then starves it), bisection on [0, 1] for the root of evaluate(u) - u,
    which is >= 0 at 0 and <= 0 at 1. The flows stay as the last evaluation set them; its utilisation is returned.
    Without synchronous reads (`reads` False: a fill, updates, no foreground at all) no flow waits read_latency(u),
    the first round is the fixed point, and a second would only repeat it (half of a write-only step's sharing)."""
    util, ok = evaluate(u0)
    if not reads:
        return util, ok
    u_in, (util, ok) = util, evaluate(util)
    if abs(util - u_in) <= tol:
        return util, ok
    lo, hi = 0.0, 1.0
    while hi - lo > 1e-4:
        mid = 0.5 * (lo + hi)
        util, ok = evaluate(mid)
        if util > mid:
            lo = mid
        else:
            hi = mid
    return util, ok


# the share of data-block accesses the caches serve may rise this much between two builds of the costs while files
# warm: on six decision-fidelity sets within 0.2% of 0.002's figures (0.01: 0.04%), at 22% more CPU than no warm-up
# steps (0.01: 50%)
WARM_STEP = 0.05


def warming_rate(costs: CostTable | None, groups: list[Group]) -> float:
    """How fast the groups' reads, warming cold files (lsm/cache.py `warmth`), raise the share of data-block accesses
    the caches serve (per second). The costs hold one hit ratio, so the kernel rebuilds them each time this has
    added up to WARM_STEP: else a cold cache that warms within a step would be priced cold for all of it, and the
    result would follow the step length (the sample interval)."""
    if costs is None or costs.warming is None or not costs.warming.any():
        return 0.0
    access = np.zeros(len(costs.warming))  # data-block accesses per second into each run
    for g in groups:
        for op, s in g.shares.items():
            rb = costs.of(op).run_blocks if op != "write" else None
            if rb is not None and len(rb) == len(access):
                access += g.rate * s * rb
    return _served_rise(access, costs.warming)


def _served_rise(access: np.ndarray, warming: np.ndarray) -> float:
    """The rise of the served share for `access` data-block accesses per run: each run's hit ratio rises by
    warming x its accesses, weighted by its share of them."""
    total = float(access.sum())
    return float((access * access * warming).sum()) / total if total > 0 else 0.0


def credit_block_reads(tree, run_blocks, n_ops: float) -> None:
    """Credit `n_ops` operations' data-block reads (`run_blocks` per run) to the runs' files, for the caches' warm-up
    model (a numpy operation per run)."""
    if run_blocks is None or n_ops <= 0:
        return
    for run, b in zip(tree.runs(), run_blocks):
        if b > 0:
            run.credit_block_reads(n_ops * b)


def op_warming(costs: CostTable, run_blocks) -> float:
    """The share of data-block accesses the caches serve that one read operation's warm-up adds (`warming_rate` for
    a mix of this operation alone): op mode counts it towards WARM_STEP as the fluid counts the rate."""
    if costs.warming is None or run_blocks is None or len(run_blocks) != len(costs.warming):
        return 0.0
    return _served_rise(run_blocks, costs.warming)
