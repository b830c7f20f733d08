"""What `lsmsim tune` writes: the trials (CSV), the chosen options as an OPTIONS file db_bench loads, a summary
(JSON) and its text, and a plot of the search."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from ..atomic import atomic_write
from . import objective, space
from .search import Candidate, Tuning

FMT = {"throughput": "{:,.0f} ops/s", "p99": "{:.1f} us", "p999": "{:.1f} us", "stall": "{:.2f} s", "wamp": "{:.2f}"}
SCALE = {"throughput": 1, "p99": 1e6, "p999": 1e6, "stall": 1, "wamp": 1}


def table(t: Tuning) -> pd.DataFrame:
    """One row per candidate (the config as given first, number -1): options, score, metric means and ranges."""
    rows = []
    for c in [t.baseline, *t.candidates]:
        row = {"trial": c.number, "score": c.score, "error": c.error, **c.options}
        for m in objective.METRICS:
            lo, hi = t.range(c, m) if c.runs else (math.nan, math.nan)
            row.update({m: c.mean(m) if c.runs else math.nan, f"{m}_lo": lo, f"{m}_hi": hi})
        rows.append(row)
    return pd.DataFrame(rows)


def _fig(t: Tuning, c: Candidate, m: str) -> str:
    lo, hi = t.range(c, m)
    f = FMT[m]
    s = SCALE[m]
    return f"{f.format(c.mean(m) * s)} [{f.format(lo * s)} - {f.format(hi * s)}]"


def summary(t: Tuning, cfg_name: str) -> dict:
    b, best = t.baseline, t.best
    return {
        "config": cfg_name,
        "objective": t.weights,
        "throughput_phase": t.throughput_phase,
        "memory_budget_bytes": t.budget,
        "trials": len(t.candidates),
        "failed": sum(1 for c in t.candidates if c.error),
        "search_seconds": round(t.seconds, 1),
        "best_trial": best.number,
        "score": best.score,
        "options": best.options,
        "block_cache_size": max(0, t.budget - space.memtables(best.options)),
        "diff_against_rocksdb_defaults": {k: list(v) for k, v in space.diff(best.options).items()},
        "predicted": {
            who: {
                m: {"mean": c.mean(m), "range": list(t.range(c, m)), "seed_range": list(c.interval(m))}
                for m in objective.METRICS
            }
            for who, c in (("given", b), ("tuned", best))
        },
        "host_spread": t.host_spread,
        "host_speeds": t.speeds,
        "host_band": t.host_band(),
        "stall_trigger": {
            who: {
                "first_slowdown": c.runs[0].get("first_slowdown_cause"),
                "first_stop": c.runs[0].get("first_stop_cause"),
            }
            for who, c in (("given", b), ("tuned", best))
        },
        "robustness": t.robustness or t.robustness_note,
        "pareto_front": t.pareto,
    }


def text(t: Tuning, s: dict, out: Path) -> str:
    b, best = t.baseline, t.best
    lines = [
        f"lsmsim tune: {s['trials']} trials ({s['failed']} failed) in {s['search_seconds']:.0f} s, objective "
        + ", ".join(f"{m} x{w:g}" for m, w in t.weights.items())
        + f"; memory {t.budget / 2**20:.1f} MiB (memtables + block cache)",
    ]
    if t.throughput_phase and "throughput" in t.weights:
        lines.append(f"throughput: the {t.throughput_phase} phase's (the last measured, as db_bench and YCSB print it)")
    if best is b:
        lines.append("no candidate beat the config as given; it is kept")
    else:
        lines.append(f"best: trial {best.number}, score {best.score:+.3f} (log-ratio to the config as given)")
    if t.pareto:
        lines.append(
            f"Pareto front of the metrics: trials {', '.join(map(str, t.pareto))} (the choice: its weighted best)"
        )
    lines.append(f"{'metric':<11}{'given':>44}  {'tuned':>44}")
    for m in objective.METRICS:
        lines.append(f"{m:<11}{_fig(t, b, m):>44}  {_fig(t, best, m):>44}")
    if t.host_spread > 0:
        lines.append(
            f"each figure: the mean over runs at host speeds {', '.join(f'x{f:.3g}' for f in t.speeds)} (machine."
            f"speed_spread {t.host_spread:g}); the time-based ranges reach 95% of single real runs "
            f"(x/{t.host_band():.2f})"
        )
    lines.append("stall trigger first hit (slowdown / stop):")
    for who, c in (("given", b), ("tuned", best)):
        r = c.runs[0]
        lines.append(f"  {who}: {r.get('first_slowdown_cause') or 'none'} / {r.get('first_stop_cause') or 'none'}")
    lines.append("options that differ from RocksDB's defaults (default -> tuned):")
    lines += [f"  {k}: {d} -> {v}" for k, (d, v) in space.diff(best.options).items()]
    if t.robustness:
        lines.append("the tuned options against the given ones with the write share moved (score < 0: tuned wins):")
        lines += [f"  write share x{r['write_share_x']:.1f}: score {r['score']:+.3f}" for r in t.robustness]
    elif t.robustness_note:
        lines.append(f"robustness: {t.robustness_note}")
    cache = s["block_cache_size"]
    lines.append(
        f"written to {out}/: OPTIONS (db_bench --options_file={out}/OPTIONS --cache_size={cache}), trials.csv, "
        "tune.json, search.png"
    )
    return "\n".join(lines)


def plot(t: Tuning, path: Path) -> None:
    from matplotlib.figure import Figure

    df = table(t)
    df = df[df.trial >= 0]
    fig = Figure(figsize=(6, 3.4))
    ax = fig.subplots()
    ok = df[df.error == ""]
    ax.scatter(ok.trial, ok.score, s=12, label="candidate")
    ax.plot(ok.trial, ok.score.cummin().clip(upper=0), color="tab:red", label="best so far")
    ax.axhline(0, color="grey", lw=0.8, ls="--", label="the config as given")
    ax.set_xlabel("trial")
    ax.set_ylabel("score (log-ratio, lower is better)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=110))


def write(t: Tuning, cfg, best_cfg, out: Path) -> str:
    """Write every file into `out`; the text to print."""
    from ..formats.options_file import from_config

    s = summary(t, cfg.name)
    df = table(t)
    atomic_write(out / "trials.csv", lambda tmp: df.to_csv(tmp, index=False))
    atomic_write(out / "tune.json", lambda tmp: Path(tmp).write_text(json.dumps(s, indent=1, default=str)))
    atomic_write(out / "OPTIONS", lambda tmp: Path(tmp).write_text(from_config(best_cfg)))
    plot(t, out / "search.png")
    return text(t, s, out)
