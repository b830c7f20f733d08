"""Headroom: how far a config is from trouble. `lsmsim headroom CONFIG`, `lsmsim.headroom(...)`.

One run of the config as given answers: when writes were first slowed and first stopped, and why (RocksDB's
write stall conditions, sim/write_controller.py: too many L0 files or sorted runs, too many unflushed memtables,
too many pending compaction bytes); the peak physical space, compaction outputs in flight and the files running
jobs hold included; and, on an SSD with an FTL, its wear per TB ingested (flash bytes written, erases). More runs,
reused across the search, find the highest steady write rate that never stalls: the config's write-only phases
run at a fixed rate (writers mode `rate`), doubled from the rate its closed-loop clients reached until one stalls
(or cannot be written at all: the writers' CPU or the device bound it), then bisected between the last two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .atomic import atomic_write
from .loading import load_config

TB = 1e12


def _stalled(s: dict) -> bool:
    return s.get("stall_stop_s", 0.0) > 0 or s.get("stall_slowdown_s", 0.0) > 0


@dataclass
class Headroom:
    """What `headroom` found; `table()` lists it, `plot()` draws the base run over time."""

    summary: dict
    timeseries: Any
    write_phases: list[str]
    rate_runs: dict[float, bool] = field(default_factory=dict)  # write rate (bytes/s) -> stalled
    client_rate: float = float("nan")  # bytes/s the closed-loop clients reached in the write-only phases
    failures: dict[float, str] = field(default_factory=dict)  # rate -> why it failed ("" when it did not)

    @property
    def max_stall_free_rate(self) -> float:
        """The highest rate tried that neither stalled nor fell short of itself (bytes/s); NaN without a write-only
        phase or when every rate tried failed."""
        ok = [r for r, stalled in self.rate_runs.items() if not stalled]
        return max(ok) if ok else float("nan")

    @property
    def lowest_stalling_rate(self) -> float:
        bad = [r for r, stalled in self.rate_runs.items() if stalled]
        return min(bad) if bad else float("nan")

    def table(self):
        import pandas as pd

        s = self.summary
        ingested = s.get("user_bytes", 0.0)
        rows = [
            ("first slowdown (s)", s.get("first_slowdown_s"), s.get("first_slowdown_cause") or "never"),
            ("first stop (s)", s.get("first_stop_s"), s.get("first_stop_cause") or "never"),
            ("stall-free write rate (MB/s)", self.max_stall_free_rate / 1e6, self._rate_note()),
            (
                "peak physical space (GB)",
                s.get("physical_bytes_peak", float("nan")) / 1e9,
                "tree + outputs in flight + files held by running jobs",
            ),
        ]
        if s.get("flash_write_bytes") is not None and ingested:
            rows.append(("flash TB written per TB ingested", s["flash_write_bytes"] / ingested, "SSD wear"))
            rows.append(("erases per TB ingested", s.get("erases", 0) / (ingested / TB), "SSD wear"))
        return pd.DataFrame(rows, columns=["figure", "value", "note"])

    def _rate_note(self) -> str:
        if not self.write_phases:
            return "no write-only phase to run at a fixed rate"
        if not any(self.rate_runs.values()):
            return f"no rate tried failed in {len(self.rate_runs)} runs (up to {max(self.rate_runs) / 1e6:.1f} MB/s)"
        low = self.lowest_stalling_rate
        return (
            f"{len(self.rate_runs)} runs; {low / 1e6:.2f} MB/s {self.failures.get(low, 'stalls')} "
            f"(the closed-loop clients reached {self.client_rate / 1e6:.1f} MB/s)"
        )

    def plot(self, path: str | Path | None = None):
        """Stall state with L0 files and pending compaction bytes, write rate, physical space, and (on an FTL)
        erases, over the base run's time."""
        from matplotlib.figure import Figure

        ts = self.timeseries
        fig = Figure(figsize=(13, 7))
        ax = fig.subplots(2, 2).ravel()
        t = ts["time"]
        level = ts["stall"].map({"none": 0, "slowdown": 1, "stop": 2})
        ax[0].fill_between(t, 0, level, step="post", alpha=0.3, color="tab:red", label="stall (1 slowdown, 2 stop)")
        ax[0].plot(t, ts["runs_L0"], label="L0 sorted runs")
        ax[0].set(xlabel="time (s)", ylabel="L0 runs / stall state")
        twin = ax[0].twinx()
        twin.plot(t, ts["pending_compaction_bytes"] / 1e9, color="tab:green", label="pending compaction (GB)")
        twin.set_ylabel("pending compaction bytes (GB)")
        ax[0].legend(loc="upper left", fontsize=7)
        ax[1].plot(t, ts["write_mb_per_s"], label="user writes")
        if self.rate_runs and self.max_stall_free_rate == self.max_stall_free_rate:
            ax[1].axhline(self.max_stall_free_rate / 1e6, ls="--", color="k", label="highest stall-free rate")
        ax[1].legend(fontsize=7)
        ax[1].set(xlabel="time (s)", ylabel="writes (MB/s)")
        ax[2].plot(t, ts["physical_bytes"] / 1e9, label="physical")
        ax[2].plot(t, ts["space_bytes"] / 1e9, label="tree")
        ax[2].set(xlabel="time (s)", ylabel="space (GB)")
        ax[2].legend(fontsize=7)
        if "erases" in ts and ts["erases"].max() > 0:
            ax[3].plot(t, ts["erases"])
            ax[3].set(xlabel="time (s)", ylabel="erases (cumulative)")
        else:
            ax[3].text(0.5, 0.5, "no FTL: no wear to show", ha="center", va="center", transform=ax[3].transAxes)
            ax[3].set_axis_off()
        for a in ax[:3]:
            a.grid(alpha=0.3)
        fig.suptitle("lsmsim headroom: stalls, write rate, space and wear of the base run", fontsize=10)
        fig.tight_layout()
        if path is not None:
            atomic_write(Path(path), lambda p: fig.savefig(p, format=Path(path).suffix.lstrip(".") or "png", dpi=110))
        return fig


def _at_rate(data: dict, phases: list[int], rate: float) -> dict:
    """`data` with its write-only phases (indexes `phases`) writing at `rate` bytes/s, from a writer thread per
    core (at least the phase's own), so that one writer's CPU does not bound the rate before the tree does."""
    import copy

    d = copy.deepcopy(data)
    cores = int(d["machine"]["cores"])
    entry = d["workload"]["key_size"] + d["workload"]["value_size"]
    written = sum(float(d["workload"]["phases"][i].get("operations") or 0) for i in phases) * entry
    d.setdefault("sim", {})["max_time"] = max(
        float(d["sim"].get("max_time", 3600)), 3 * written / rate
    )  # time to finish
    for i in phases:
        p = d["workload"]["phases"][i]
        threads = max(cores, int(p.get("writers", {}).get("threads", 1)))
        p["writers"] = {"mode": "rate", "rate": float(rate), "threads": threads}
    return d


def headroom(config, overrides=(), searches: int = 7, progress: bool = False) -> Headroom:
    """The headroom of `config` (a path, dict or Config, with `overrides`): one run as given, then up to
    `searches` runs bisecting the highest stall-free rate of its write-only phases."""
    from .api import run
    from .workloads.presets import resolve_phases

    cfg = load_config(config, overrides)
    base = run(cfg, progress=progress)
    data = cfg.model_dump(mode="json")
    # the phases as they run (presets and suites expanded), so that a rate can be set on each
    data["workload"] = {k: v for k, v in data["workload"].items() if k not in ("preset", "suite", "preload")}
    phases = resolve_phases(cfg.workload)
    data["workload"]["phases"] = [p.model_dump(mode="json") for p in phases]
    writes = [
        i for i, p in enumerate(phases) if p.mix.writes() > 0 and p.mix.reads() == 0 and p.writers.mode == "closed"
    ]
    names = [p.name or f"phase {i + 1}" for i, p in enumerate(phases)]  # as sim/phases.py names them
    h = Headroom(base.summary, base.timeseries, [names[i] for i in writes])
    if not writes:
        return h
    s = base.summary
    entry = cfg.workload.key_size + cfg.workload.value_size
    rates = [s.get(f"phase_{names[i]}_ops_per_s", 0.0) * entry for i in writes]
    h.client_rate = min(r for r in rates if r > 0) if any(r > 0 for r in rates) else float("nan")
    if h.client_rate != h.client_rate:
        return h

    def fails(rate: float) -> bool:
        """Stalls, or cannot write at `rate` at all (the writers' CPU or the device bound it)."""
        r = run(load_config(_at_rate(data, writes, rate)), progress=False).summary
        reached = min(r.get(f"phase_{names[i]}_ops_per_s", 0.0) * entry for i in writes)  # 0 if unfinished
        bad = _stalled(r) or reached < 0.99 * rate
        h.rate_runs[rate] = bad
        h.failures[rate] = ("stalls" if _stalled(r) else "cannot be written that fast") if bad else ""
        return bad

    # up from the clients' rate by doublings until a rate fails, then bisect between the last two that were tried
    lo, hi = 0.0, h.client_rate
    while len(h.rate_runs) < searches and not fails(hi):
        lo, hi = hi, 2 * hi
    while len(h.rate_runs) < searches and h.rate_runs.get(hi):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if fails(mid) else (mid, hi)
    return h


__all__ = ["Headroom", "headroom"]
