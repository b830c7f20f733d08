"""What `lsmsim tune` optimises: one metric, or a weighted mix of metrics, read from a run's summary.

Metrics (the decision-fidelity benchmark's, validation/fidelity.py): `throughput` (ops/s of the last measured phase
where several are, `scored_phase`, else of the run; higher is better; the query clients' alone where writes come
from clients of their own, `queries_only`), `p99`
and `p999` (the worst of the operation types' percentiles), `stall` (seconds writes were stopped or slowed down:
db_bench's rocksdb.stall.micros), `wamp` (bytes written to the device by flushes and compactions over the bytes
flushed: db_bench's W-Amp). A mix `throughput:1,p99:0.5` is scored as the weighted sum of each metric's log-ratio
to the config's own (the search's first trial), signed so that lower is better: scale free, so a weight says how
many percent of one metric are worth a percent of another (our choice).
"""

from __future__ import annotations

import math

METRICS = ("throughput", "p99", "p999", "stall", "wamp")
HIGHER_IS_BETTER = {"throughput": True, "p99": False, "p999": False, "stall": False, "wamp": False}
#: Below these a metric's differences do not matter: 1 op/s, 1 us, 1 ms of stalls, a write-amp of 1.
FLOOR = {"throughput": 1.0, "p99": 1e-6, "p999": 1e-6, "stall": 1e-3, "wamp": 1.0}
OP_TYPES = ("write", "get", "get_empty", "short_scan", "long_scan")


def parse(text: str) -> dict[str, float]:
    """`throughput` or `throughput:1,p99:0.5` -> {metric: weight}; ValueError naming what is allowed."""
    out: dict[str, float] = {}
    for part in text.split(","):
        name, _, w = part.strip().partition(":")
        if name not in METRICS:
            raise ValueError(f"--objective: unknown metric {name!r}; allowed: {', '.join(METRICS)} (or a mix m:w,...)")
        try:
            weight = float(w) if w else 1.0
        except ValueError:
            raise ValueError(f"--objective: the weight of {name} must be a number, got {w!r}") from None
        if weight <= 0 or not math.isfinite(weight):
            raise ValueError(f"--objective: the weight of {name} must be positive, got {w!r}")
        out[name] = weight
    return out


def queries_only(cfg) -> bool:
    """Whether a config's throughput is its query clients' alone: some measured phase reads and writes from clients of
    their own (`queries.mode` not `with_writers`), whose writers are background load. db_bench reports a
    readwhilewriting's readers only (tools/db_bench_tool.cc, ReadWhileWriting: the BGWriter thread is not in the
    stats), and EcoTune's figures its queries'."""
    return any(
        p.measure and p.mix.writes() > 0 and p.mix.reads() > 0 and p.queries.mode != "with_writers"
        for p in cfg.workload.phases
    )


def scored_phase(cfg) -> str | None:
    """The phase whose throughput tune scores: the last measured one where several are measured, the workload after
    its set-up (db_bench reports each benchmark of a line apart, so a `fillrandom,mixgraph` line is tuned for its
    mixgraph, not for the fill and the mixgraph together; YCSB reports its run phase apart from its load), else None:
    the whole run's. Before this, tune's figure for such a line counted the fill: 98,769 ops/s where the mixgraph
    phase ran 50,206 (RocksDB's defaults, 2M keys, this host's preset), and db_bench 53,752."""
    measured = [p.name for p in cfg.workload.phases if p.measure]
    return measured[-1] if len(measured) > 1 else None


def metrics(s: dict, queries: bool = False, phase: str | None = None) -> dict[str, float]:
    """The metrics of one run's summary; `queries`: throughput counts the reads only (`queries_only`); `phase`:
    throughput is that phase's (`scored_phase`)."""
    kinds = [k for k in OP_TYPES if s.get(f"ops_{k}", 0) > 0]

    def rate(kind: str | None = None) -> float:
        if phase is not None:
            return s.get(f"phase_{phase}_{kind}_ops_per_s" if kind else f"phase_{phase}_ops_per_s", 0.0)
        return s.get(f"throughput_{kind}_ops_per_s", 0.0) if kind else s["throughput_ops_per_s"]

    def worst(q: str) -> float:
        vals = [s.get(f"latency_{k}_{q}_s", math.nan) for k in kinds]
        vals = [v for v in vals if v == v]
        return max(vals) if vals else math.nan

    flushed = s.get("flush_bytes", 0.0)
    written = flushed + s.get("compaction_write_bytes", 0.0)
    return {
        "throughput": sum(rate(k) for k in OP_TYPES[1:]) if queries else rate(),
        "p99": worst("p99"),
        "p999": worst("p999"),
        "stall": s["stall_stop_s"] + s["stall_slowdown_s"],
        "wamp": written / flushed if flushed else math.nan,
    }


def parts(m: dict[str, float], base: dict[str, float], weights: dict[str, float]) -> list[float]:
    """Per metric of `weights`, log(metric / base's), negated where higher is better: lower is better for each. A
    metric below its floor (no stall: 0 s) counts at the floor (FLOOR), so that the ratio stays finite."""
    out = []
    for name in weights:
        r = math.log(max(m[name], FLOOR[name]) / max(base[name], FLOOR[name]))
        out.append(-r if HIGHER_IS_BETTER[name] else r)
    return out


def score(m: dict[str, float], base: dict[str, float], weights: dict[str, float]) -> float:
    """Lower is better: the weighted sum of `parts`."""
    return sum(w * p for w, p in zip(weights.values(), parts(m, base, weights), strict=True))
