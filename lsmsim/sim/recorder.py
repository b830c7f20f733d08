"""Metrics: time series samples, one row per flush/compaction, latency histograms, the summary."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from ..errors import ConfigError
from ..lsm.merge import dedup_versions, merge_samples
from ..lsm.sstable import Samples
from ..result import Result, code_state
from ..tolerances import ROUND_EPS, TIME_EPS
from . import limits, queueing
from ._histogram_kernel import add_masses
from .counters import OPS
from .summary import build_summary

# latency histogram: log-spaced bins from 10 ns to 1000 s, 0.5% wide
_LAT_LO, _LAT_HI, _LAT_BINS = -8.0, 3.0, 5000
MAX_OPEN_ARRIVALS = 5e7  # open-loop queries queued one by one for their latency (6 arrays of 8 B each: 2.4 GB)
_LAT_MIN = 1e-8  # s: latencies below the lowest edge (10 ns) count in the first bin
_EDGES = np.logspace(_LAT_LO, _LAT_HI, _LAT_BINS + 1)
_MIDS = np.sqrt(_EDGES[:-1] * _EDGES[1:])
PERCENTILES = (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9))


class LatencyHistogram:
    """Weighted latency mass in log bins: percentiles within 0.5%, constant memory. Bins span 10 ns to 1000 s;
    `hi` raises the top (log10 seconds: delete persistence, in hours, takes 7)."""

    def __init__(self, hi: float = _LAT_HI):
        self.hi = hi
        self.bins = _LAT_BINS if hi == _LAT_HI else int(_LAT_BINS * (hi - _LAT_LO) / (_LAT_HI - _LAT_LO))
        edges = _EDGES if hi == _LAT_HI else np.logspace(_LAT_LO, hi, self.bins + 1)
        self.mids = _MIDS if hi == _LAT_HI else np.sqrt(edges[:-1] * edges[1:])
        self.w = np.zeros(self.bins)
        self.total = 0.0
        self.sum = 0.0
        self.max = 0.0

    def add(self, latency: float, count: float) -> None:
        if count <= 0 or not math.isfinite(latency):
            return
        i = int((math.log10(max(latency, _LAT_MIN)) - _LAT_LO) / (self.hi - _LAT_LO) * self.bins)
        self.w[min(max(i, 0), self.bins - 1)] += count
        self.total += count
        self.sum += latency * count
        self.max = max(self.max, latency)

    def add_many(self, lat: np.ndarray, weight: float | np.ndarray = 1.0) -> None:
        """Latencies `lat`, each of mass `weight` (one for all, or one each): `add` for each, in a numba kernel."""
        lat = np.ascontiguousarray(lat, dtype=np.float64)
        w = np.ascontiguousarray(np.atleast_1d(np.asarray(weight, dtype=np.float64)))
        if w.shape[0] != 1 and w.shape != lat.shape:
            raise ValueError(f"{w.shape[0]} weights for {lat.shape[0]} latencies")
        total, moment, top = add_masses(self.w, lat.ravel(), w.ravel(), _LAT_LO, self.hi, _LAT_MIN)
        if total > 0:
            self.total += total
            self.sum += moment
            self.max = max(self.max, top)

    def percentile(self, q: float) -> float:
        if self.total <= 0:
            return float("nan")
        c = np.cumsum(self.w)
        mid = float(self.mids[min(int(np.searchsorted(c, q / 100.0 * self.total)), self.bins - 1)])
        return min(mid, self.max)  # the top bin's midpoint may lie above the largest latency seen

    def row(self) -> dict:
        # fluid mode spreads operations as masses: the count of operations is their rounded sum
        out = {"count": int(round(self.total)), "mean_s": self.sum / self.total if self.total else float("nan")}
        out.update({f"{name}_s": self.percentile(q) for name, q in PERCENTILES})
        out["max_s"] = self.max if self.total else float("nan")
        return out


class Recorder:
    """Samples the run into its tables. It reads the counters, the tree, the device, the write
    controller, the phase cursor and the running jobs it is given, never the kernel itself."""

    def __init__(self, cfg, clock, cursor, counters, tree, device, write_controller, jobs, live, obsolete):
        self.cfg = cfg
        self.clock = clock  # anything with `now` (the SimPy environment)
        self.cursor = cursor
        self.counters = counters
        self.tree = tree
        self.device = device
        self.wc = write_controller
        self.running = jobs  # the kernel's job list (read only)
        self.live = live  # `LiveKeys`: the logical size at any time
        self.obsolete = obsolete  # `versions.ObsoleteFiles`: removed files running jobs still hold
        self.interval = cfg.sim.sample_interval
        self.next_sample = 0.0
        self.rows: list[dict] = []
        self.jobs: list[dict] = []
        self.hist: dict[str, LatencyHistogram] = defaultdict(LatencyHistogram)
        self.open_segments: list[tuple] = []  # (t0, t1, mean service s, servers, arrival rate)
        self._last = None
        self._interval_hist = LatencyHistogram()  # all operations since the last sample (ARCE Fig. 8)
        self.persistence = LatencyHistogram(hi=7.0)  # from a delete to its tombstone's drop at the bottom
        self.phases: list[dict] = []  # one row per finished phase
        self.events: list[dict] = []  # a run that ended at a limit: its `limits.event_row`
        self.ended_by: str | None = None  # None, or the limit that ended the run (limits.DISK_FULL, OPEN_FILES)
        self._phase_start = None  # (name, time, ops, measure, point and read counts) of the phase
        self._phase_lookups = LatencyHistogram()  # point lookups (get, get_empty) of the current phase

    # ------------------------------------------------------------------ during the run
    def latency_mass(self, op: str, latency: float, count: float) -> None:
        if self.cursor.measuring:
            self.hist[op].add(latency, count)
            self._interval_hist.add(latency, count)
            if op in ("get", "get_empty"):
                self._phase_lookups.add(latency, count)

    def latency_masses(self, op: str, latency: np.ndarray, count: np.ndarray) -> None:
        """`latency_mass` for a distribution: count[i] operations of latency[i]."""
        if self.cursor.measuring:
            self.hist[op].add_many(latency, count)
            self._interval_hist.add_many(latency, count)
            if op in ("get", "get_empty"):
                self._phase_lookups.add_many(latency, count)

    def phase_boundary(self) -> None:
        """Close the current phase's row (throughput by phase: ARCE Fig. 9's table) and open the next."""
        n = self.counters
        ops = sum(n.ops.values())
        reads = ("get", "get_empty", "short_scan", "long_scan")
        point = (
            n.ops["get"],
            n.ops["get_empty"],
            n.read_pages["get"] + n.read_pages["get_empty"],
            sum(n.ops[op] for op in reads),
            sum(n.read_pages[op] for op in reads),
            n.stop_time + n.slowdown_time,
            *(n.ops[op] for op in OPS),
        )
        now = self.clock.now
        if self._phase_start is not None:
            name, t0, ops0, measure, point0 = self._phase_start
            dt = now - t0
            gets, empty, pages, queries, query_pages, stalled, *by_op = (a - b for a, b in zip(point, point0))
            lookups = self._phase_lookups.row()
            self.phases.append(
                {
                    "phase": name,
                    "start": t0,
                    "end": now,
                    "operations": ops - ops0,
                    "ops_per_s": (ops - ops0) / dt if dt > 0 else 0.0,
                    "measure": measure,
                    "stall_s": stalled,  # seconds writes were stopped or slowed down within the phase
                    # device pages per point lookup over the ideal: one page per lookup that finds its key
                    # (Sarkar et al. PVLDB'21 §4.2's read amplification)
                    "read_amp": pages / gets if gets > 0 else float("nan"),
                    "pages_per_lookup": pages / (gets + empty) if gets + empty > 0 else float("nan"),
                    # device pages per read of any kind (gets, scans): EcoTune Table 3's I/Os per query
                    "pages_per_query": query_pages / queries if queries > 0 else float("nan"),
                    "lookup_mean_s": lookups["mean_s"],
                    "lookup_p90_s": lookups["p90_s"],
                    "lookup_p99_s": lookups["p99_s"],
                    "lookup_p999_s": lookups["p999_s"],
                    **{f"{op}_ops_per_s": k / dt if dt > 0 else 0.0 for op, k in zip(OPS, by_op, strict=True)},
                }
            )
        p = self.cursor.phase
        self._phase_start = None if p is None else (self.cursor.name, now, ops, p.measure, point)
        self._phase_lookups = LatencyHistogram()

    def phase_pause(self) -> None:
        """Close the current phase's row early (its clients stopped; the kernel waits for compactions)."""
        self.phase_boundary()
        self._phase_start = None

    def track_space(self) -> None:
        """Peaks of physical and transient space (Spooky Eq. 1) at the end of a kernel step."""
        n = self.counters
        transient = limits.transient_bytes(self.running, self.obsolete)
        physical = self.tree.bytes + transient
        if self.live.count:
            n.peak_transient_amp = max(n.peak_transient_amp, transient / self.live.bytes)
            n.window_peak_transient_amp = max(n.window_peak_transient_amp, transient / self.live.bytes)
            n.window_peak_space_amp = max(n.window_peak_space_amp, physical / self.live.bytes)
        n.peak_space = max(n.peak_space, physical)
        n.peak_obsolete = max(n.peak_obsolete, self.obsolete.bytes)
        t, held = n.obsolete_since
        n.obsolete_byte_seconds += held * (self.clock.now - t)
        n.obsolete_since = (self.clock.now, self.obsolete.bytes)
        n.window_peak_physical = max(n.window_peak_physical, physical)

    def end_at_limit(self, row: dict) -> None:
        """The run ends at a device or OS limit (`limits.check`): keep its event row."""
        self.ended_by = row["event"]
        self.events.append(row)

    def open_segment(self, t0: float, t1: float, service: float, servers: int, rate: float) -> None:
        self.open_segments.append((t0, t1, service, servers, rate))

    def flush_row(self, job, now: float) -> None:
        self.jobs.append(
            {
                "id": 0,
                "kind": "flush",
                "reason": "memtable full",
                "start": job.start,
                "end": now,
                "start_level": -1,
                "output_level": 0,
                "input_files": 0,
                "output_files": len(job.outputs),
                "read_bytes": 0.0,
                "write_bytes": job.write_bytes,
                "input_entries": job.entries_in,
                "output_entries": job.entries_out,
                "cpu_s": float(job.cpu),
                "device_s": float(job.dev),
                **self._files(0, [], job.outputs),
            }
        )

    def _files(self, rn: float, inputs: list, outputs: list) -> dict:
        """What RocksDB's LOG says of a job (lsmsim/formats/log_format.py): bytes read from its start level (Rn),
        its input and output files, and the files per level after it (`lsm_state`)."""
        return {
            "rn_bytes": float(rn),
            "input_file_ids": [f.id for f in inputs],
            "input_file_levels": [f.level for f in inputs],
            "output_file_ids": [f.id for f in outputs],
            "output_file_bytes": [f.bytes for f in outputs],
            "lsm_state": [sum(len(r.files) for r in lvl.runs) for lvl in self.tree.levels],
        }

    def deletes_persisted(self, seqs: np.ndarray) -> None:
        """Tombstones a bottommost compaction dropped now (their seqnos): each delete is persistent from here on
        (Sarkar et al. PVLDB'21 §2, Lethe); its latency runs from the delete's write (Tree.seq_times)."""
        lat = self.clock.now - self.tree.seq_times(seqs)
        self.persistence.add_many(lat, float(self.tree.eps))

    def compaction_row(self, kind, c, start, read, written, entries_in, entries_out, outputs, cpu=0.0, dev=0.0):
        """`outputs`: the job's output files (a trivial move's are its inputs)."""
        rn = sum(f.bytes for f in c.inputs if f.level == c.start_level) if read else 0.0
        self.jobs.append(
            {
                "id": 0,
                "kind": kind,
                "reason": c.reason,
                "start": start,
                "end": self.clock.now,
                "start_level": c.start_level,
                "output_level": c.output_level,
                "input_files": len(c.inputs),
                "output_files": len(outputs),
                "read_bytes": float(read),
                "write_bytes": float(written),
                "input_entries": entries_in,
                "output_entries": entries_out,
                "cpu_s": float(cpu),
                "device_s": float(dev),
                **self._files(rn, c.inputs, outputs),
            }
        )

    def maybe_sample(self) -> None:
        while self.clock.now >= self.next_sample - ROUND_EPS:
            self.sample()
            self.next_sample += self.interval

    def sample(self, force: bool = False) -> None:
        n, tree, wc = self.counters, self.tree, self.wc
        now = self.clock.now
        if force and self.rows and self.rows[-1]["time"] >= now - TIME_EPS:
            return
        cur = {
            "ops": dict(n.ops),
            "cpu": sum(n.cpu_busy.values()),
            "dev": self.device.busy_seconds,
            "user": n.user_bytes,
            "time": now,
            "blocks": dict(n.blocks),
            "bc": dict(n.block_cache_hits),
            "pc": dict(n.page_cache_hits),
        }
        last = self._last or {
            "ops": {k: 0.0 for k in n.ops},
            **{k: 0.0 for k in ("cpu", "dev", "user", "time")},
            **{k: {} for k in ("blocks", "bc", "pc")},
        }
        dt = max(now - last["time"], TIME_EPS)
        p = self.cursor.phase
        row = {"time": now, "phase": p.name if p else "(drain)"}
        for op in n.ops:
            row[f"{op}_ops_per_s"] = (cur["ops"][op] - last["ops"][op]) / dt if now > last["time"] else 0.0
        row["write_mb_per_s"] = (cur["user"] - last["user"]) / dt / 1e6 if now > last["time"] else 0.0
        row["cpu_util"] = (cur["cpu"] - last["cpu"]) / dt / self.cfg.machine.cores if now > last["time"] else 0.0
        row["device_util"] = (cur["dev"] - last["dev"]) / dt if now > last["time"] else 0.0
        for suffix, levels in [("", None)] + [(f"_L{i}", [i]) for i in range(max(len(tree.levels), 7))]:
            blocks, bc, pc = (
                sum(cur[k].get(i, 0.0) - last[k].get(i, 0.0) for i in (levels or cur[k]))
                for k in ("blocks", "bc", "pc")
            )
            row[f"block_cache_hit_ratio{suffix}"] = bc / blocks if blocks > 0 else float("nan")
            row[f"page_cache_hit_ratio{suffix}"] = pc / (blocks - bc) if blocks - bc > 0 else float("nan")
        for lvl in range(max(len(tree.levels), 7)):
            L = tree.levels[lvl] if lvl < len(tree.levels) else None
            row[f"runs_L{lvl}"] = len(L.runs) if L else 0
            row[f"files_L{lvl}"] = len(L.files) if L else 0
            row[f"bytes_L{lvl}"] = L.bytes if L else 0
        row["sorted_runs"] = len(tree.runs())
        row["tombstones"] = sum(r.tombstones for r in tree.runs())  # deletes not yet dropped (PVLDB'21 Fig. 8e)
        row["memtable_bytes"] = tree.memtable.bytes
        row["immutable_memtables"] = len(tree.immutables)
        row["running_compactions"] = sum(1 for j in self.running if j.kind == "compaction")
        row["pending_compaction_bytes"] = wc.pending_bytes(tree)
        row["stall"] = wc.state
        row["delayed_write_rate"] = wc.delayed_rate
        row["write_delay_s"] = wc.write_delay
        row["user_bytes"] = n.user_bytes
        row["flush_bytes"] = n.flush_bytes
        row["compaction_write_bytes"] = n.compaction_write_bytes
        row["write_amp"] = (n.flush_bytes + n.compaction_write_bytes) / n.user_bytes if n.user_bytes else 0.0
        row["space_bytes"] = tree.bytes
        row["obsolete_bytes"] = self.obsolete.bytes  # removed files running jobs still hold (versions.py)
        # Spooky Eq. 1: outputs not yet installed, and those held files
        row["transient_bytes"] = limits.transient_bytes(self.running, self.obsolete)
        row["physical_bytes"] = tree.bytes + row["transient_bytes"]  # Spooky Fig. 7B / 13A
        row["open_files"] = limits.open_files(tree, self.running, self.obsolete)  # Spooky Eq. 12, outputs, WALs
        logical = row["logical_bytes"] = self.live.bytes
        for name, b in (
            ("", row["physical_bytes"]),
            ("_durable", tree.bytes - logical),
            ("_transient", row["transient_bytes"]),
        ):
            row[f"space_amp{name}"] = b / logical if logical else float("nan")  # Eq. 1: total = 1 + durable + transient
        # peaks over the interval this row closes, kernel step by step (a step's end is where outputs peak)
        row["physical_bytes_peak"] = max(n.window_peak_physical, row["physical_bytes"])
        now_amp, now_transient = (row["space_amp"], row["space_amp_transient"]) if logical else (0.0, 0.0)
        row["space_amp_peak"] = max(n.window_peak_space_amp, now_amp)
        row["space_amp_transient_peak"] = max(n.window_peak_transient_amp, now_transient)
        n.window_peak_physical = n.window_peak_space_amp = n.window_peak_transient_amp = 0.0
        h = self._interval_hist
        row["latency_mean_s"] = h.sum / h.total if h.total else float("nan")
        row["latency_p999_s"] = h.percentile(99.9)
        self._interval_hist = LatencyHistogram()
        row.update(self.device.sample())
        if "gc_write_amp" in row:
            row["total_write_amp"] = row["write_amp"] * row["gc_write_amp"]  # Spooky Eq. 2
        self.rows.append(row)
        self._last = cur

    # ------------------------------------------------------------------ at the end
    def _logical_bytes(self) -> tuple[float, int]:
        """Live user bytes (key + value of the newest non-deleted version of each key)."""
        tree = self.tree
        parts = [r.samples() for r in tree.runs()]
        mem = [m.samples() for m in [tree.memtable] + tree.immutables]
        mem = [m for m in mem if len(m)]
        if mem:
            m = Samples.concat(mem)
            parts.insert(0, Samples(*dedup_versions(m.keys, m.seqs, m.vlens, m.tombs)))
        parts = [p for p in parts if len(p)]
        if not parts:
            return 0.0, 0
        k, _, v, _ = merge_samples(parts, True)
        eps = tree.eps
        return float((v.astype(np.float64).sum() + k.shape[0] * tree.key_size) * eps), int(k.shape[0]) * eps

    def _open_loop_latency(self) -> None:
        """Queueing latency of open-loop arrivals: an exact FCFS multi-server recursion over Poisson
        arrivals against the piecewise-constant service time of the fluid (queueing.py)."""
        segs = self.open_segments
        if not segs:
            return
        # phases without open arrivals between open ones: arrivals stop, queued requests are served
        filled: list[tuple] = []
        for seg in segs:
            if filled and seg[0] > filled[-1][1] + TIME_EPS:
                prev = filled[-1]
                filled.append((prev[1], seg[0], prev[2], prev[3], 0.0))
            filled.append(seg)
        segs = filled
        cfg = self.cfg
        q = next((p.queries for p in self.cursor.phases if p.queries.mode == "open"), None)
        rng = np.random.default_rng([cfg.seed, 7])
        seg_t = np.array([x[0] for x in segs])
        t_end = segs[-1][1]
        if q is not None and q.arrival == "bursty":
            rates = []
            for _t0, _t1, _, _, lam in segs:
                rates.append(lam)
            t0 = seg_t[0]
            bt, br = queueing.bursty_rates(1.0, q.burst_factor, q.burst_period, q.burst_duty, t_end - t0)
            bt = bt + t0  # bursts start with the first open phase
            # modulate each segment's base rate by the burst pattern
            grid = np.union1d(seg_t, bt)
            base = np.array(rates)[np.searchsorted(seg_t, grid, side="right") - 1]
            mod = br[np.searchsorted(bt, grid, side="right") - 1]
            seg_r_t, seg_r = grid, base * mod
        else:
            seg_r_t, seg_r = seg_t, np.array([x[4] for x in segs])
        expected = float(np.sum(seg_r * np.diff(np.append(seg_r_t, t_end)).clip(0)))
        if expected > MAX_OPEN_ARRIVALS:  # each arrival is queued one by one (FCFS): memory and time grow with them
            i = next(i for i, p in enumerate(self.cursor.phases) if p.queries.mode == "open")
            raise ConfigError(
                "<config>",
                [
                    (
                        f"workload.phases[{i}].queries.arrival_rate",
                        f"the open-loop phases would bring {expected:.3g} queries; the latency model queues each "
                        f"one, at most {MAX_OPEN_ARRIVALS:.0e}: lower the rate or shorten the phases",
                    )
                ],
            )
        arrivals = queueing.poisson_arrivals(rng, seg_r_t, seg_r, t_end)
        if arrivals.size == 0:
            return
        service = np.array([x[2] for x in segs])
        servers = int(segs[0][3])
        u = rng.random(arrivals.size)
        start, finish = queueing.fcfs_multiserver(arrivals, seg_t, service, servers, u)
        lat = finish - arrivals
        self.hist["query"].add_many(lat)
        keep = min(cfg.sim.latency_samples, lat.size)
        idx = np.sort(rng.choice(lat.size, keep, replace=False)) if keep < lat.size else np.arange(lat.size)
        self.request_samples = {"arrival": arrivals[idx], "start": start[idx], "latency_s": lat[idx]}

    def result(self, policy):
        """The run's `Result`; `policy` adds its own summary figures."""
        self._open_loop_latency()
        logical_bytes, live_entries = self._logical_bytes()
        # rows, not DataFrames: `Result` builds its tables when they are first read (pandas costs ~0.5 s to import)
        compactions = list(self.jobs)  # Result numbers them (`id`, in order of completion)
        latency = [{"op": op, **h.row()} for op, h in sorted(self.hist.items()) if h.total > 0]
        summary = build_summary(
            self.cfg,
            self.clock.now,
            self.cursor.finished,
            self.counters,
            self.wc,
            self.tree,
            self.device,
            policy.summary(),
            logical_bytes,
            live_entries,
            latency,
            compactions,
            self.ended_by,
            self.persistence.row(),
        )
        for row in self.phases:
            if row["measure"]:
                summary[f"phase_{row['phase']}_ops_per_s"] = float(row["ops_per_s"])
                summary[f"phase_{row['phase']}_stall_s"] = float(row["stall_s"])
                for op in OPS:  # the phase's operation types, each at its own rate (db_bench's line per benchmark)
                    if row[f"{op}_ops_per_s"] > 0:
                        summary[f"phase_{row['phase']}_{op}_ops_per_s"] = float(row[f"{op}_ops_per_s"])
                if not math.isnan(row["pages_per_query"]):
                    summary[f"phase_{row['phase']}_pages_per_query"] = float(row["pages_per_query"])
                if not math.isnan(row["pages_per_lookup"]):  # a phase of point lookups
                    for key in (
                        "read_amp",
                        "pages_per_lookup",
                        "lookup_mean_s",
                        "lookup_p90_s",
                        "lookup_p99_s",
                        "lookup_p999_s",
                    ):
                        summary[f"phase_{row['phase']}_{key}"] = float(row[key])
        return Result(
            summary=summary,
            timeseries=self.rows,
            compactions=compactions,
            latency=latency,
            requests=getattr(self, "request_samples", None),
            events=self.events,
            config=self.cfg,
            code=code_state(),  # read when the simulation started (simulate), in the process that ran it
        )
