"""Op-level foreground: every operation is a SimPy event (for small runs and for validating the fluid).

Client threads are SimPy processes. Each operation takes the service time the sharing solver gives
its type at the moment it starts (the same costs and shares as the fluid), then is applied to the
tree one by one: a write goes into the memtable, and the kernel is woken when the memtable fills or
the phase ends. Open-loop requests queue in a `simpy.Store` served by the query threads, with
exponential service as in the fluid's queueing recursion.
"""

from __future__ import annotations

import numpy as np
import simpy

from ..tolerances import ROUND_EPS
from .foreground import WARM_STEP, credit_block_reads, latency_points, mean_service, op_warming, scan_multipliers


class OpDriver:
    def __init__(self, sim):
        self.sim = sim
        self.env = sim.env
        self.rng = np.random.default_rng([sim.cfg.seed, 11])
        self._mixes: dict[tuple[int, str], tuple[int, list[str], np.ndarray]] = {}

    def _on(self, idx: int) -> bool:
        """Phase `idx` runs and its clients are not stopped (a phase's wait for its flush or compactions)."""
        return self.sim.cursor.index == idx and not self.sim.waiting

    def _draw(self, g, idx: int) -> str:
        """One operation type of group `g`'s mix as its shares are now (`found: live` re-splits them in a phase)."""
        v, ops, p = self._mixes.get((idx, g.name), (-1, [], None))
        if v != g.shares_version:
            ops = list(g.shares)
            p = np.array([g.shares[o] for o in ops])
            self._mixes[(idx, g.name)] = (g.shares_version, ops, p)
        return ops[int(self.rng.choice(len(ops), p=p))] if len(ops) > 1 else ops[0]

    def start_phase(self) -> None:
        sim = self.sim
        idx = sim.cursor.index
        for g in sim.groups:
            if g.open:
                store = simpy.Store(self.env)
                self.env.process(self._arrivals(g, idx, store))
                for _ in range(g.threads):
                    self.env.process(self._server(g, idx, store))
            elif g.name == "writers":
                for _ in range(g.threads):
                    self.env.process(self._rate_writer(g, idx))
            else:
                for _ in range(g.threads):
                    self.env.process(self._client(g, idx))

    # ------------------------------------------------------------------ processes
    def _wait_unstalled(self):
        sim = self.sim
        while sim.wc.state == "stop":
            yield sim.step_event()

    def _client(self, g, idx):
        sim = self.sim
        while self._on(idx):
            op = self._draw(g, idx)
            t0 = self.env.now
            if op == "write":
                yield from self._wait_unstalled()
            if not self._on(idx):
                return
            pts = latency_points(g, op, sim.read_latency)
            svc = pts[0][0] if len(pts) == 1 or self.rng.random() >= pts[1][1] else pts[1][0]
            if op == "long_scan" and g.scan_pmf is not None:  # this scan's own length, drawn from the distribution
                lengths, cdf = g.scan_pmf
                k = min(int(np.searchsorted(cdf, self.rng.random() * cdf[-1], side="right")), len(lengths) - 1)
                svc *= float(scan_multipliers(g, lengths[k : k + 1], sim.read_latency)[0])
            if svc <= 0 or not np.isfinite(svc):
                yield sim.step_event()
                continue
            yield self.env.timeout(svc)
            if not self._on(idx):
                return
            self.done(g, op, self.env.now - t0)

    def _rate_writer(self, g, idx):
        sim = self.sim
        while self._on(idx):
            yield from self._wait_unstalled()
            if g.rate <= 0:
                yield sim.step_event()
                continue
            yield self.env.timeout(g.threads / g.rate)
            if not self._on(idx):
                return
            self.done(g, "write", latency_points(g, "write", sim.read_latency)[0][0])

    def _arrivals(self, g, idx, store):
        while self._on(idx):
            yield self.env.timeout(self.rng.exponential(1.0 / g.target))
            if not self._on(idx):
                return
            store.put(self.env.now)

    def _server(self, g, idx, store):
        sim = self.sim
        while self._on(idx):
            get = store.get()
            arrived = yield get | sim.phase_end_event()
            if get not in arrived:
                get.cancel()
                return
            t_arr = arrived[get]
            op = self._draw(g, idx)
            yield self.env.timeout(self.rng.exponential(mean_service(g, sim.read_latency)))
            if not self._on(idx):
                return
            self.done(g, op, self.env.now - t_arr, queued=True)

    # ------------------------------------------------------------------ applying one operation
    def done(self, g, op: str, latency: float, queued: bool = False) -> None:
        sim, n = self.sim, self.sim.counters
        n.ops[op] += 1
        if sim.phase.measure:
            n.measured_ops[op] += 1
        sim.cursor.ops += 1
        sim.rec.latency_mass("query" if queued else op, latency, 1)
        n.cpu_busy["foreground"] += sim.costs().of(op).cpu
        if op == "write":
            sim.write_ops(1)
            if sim.cursor.follow_live(sim.live, sim.cfg.workload.num, sim.groups):
                sim.mix = sim.phase.mix
        else:
            c = sim.costs().of(op)
            sim.device.account(0.0, 0.0, c.reads, sim.cfg.lsm.block_size)
            credit_block_reads(sim.tree, c.run_blocks, 1.0)
            sim.warmed += op_warming(sim.costs(), c.run_blocks)  # the fluid's warming_rate, one operation at a time
            if sim.warmed >= WARM_STEP * (1 - ROUND_EPS):
                sim.warm_steps += 1
                sim.wake()  # the kernel solves the rates again on the warmer costs
            n.add_blocks(1.0, c, op)
        p = sim.phase
        if (op == "write" and sim.memtable_full()) or (p.operations is not None and sim.cursor.ops >= p.operations):
            sim.wake()
