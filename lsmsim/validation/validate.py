"""`lsmsim validate`: the same workload on real RocksDB (through the ctypes bridge) and on the
simulator, side by side.

The real side opens a RocksDB with the options the config names (RocksDB option names are kept in
the config, so the mapping is one to one), drives the config's phases from one client thread with
keys from the same samplers the simulator uses (`workloads/keys.py`), samples the live files
every `sample_every` operations, waits for compactions when the simulator drains (`sim.drain`), and
reads RocksDB's statistics tickers. Keys are the key id as 8 big-endian bytes padded to key_size
(db_bench's layout); values are incompressible bytes; compression is off on both sides.

Policies `leveled` and `universal` run on RocksDB's own pickers (auto compactions on, the same
options); every other policy runs on the real DB through the policy driver (`driver.py`: the lsmsim
policy picks from a mirror of the live files, the shim's CompactFiles executes). The
comparison of throughput is indicative: the real client is a Python loop (about 2-4 us of
interpreter and ctypes time per operation that the simulator's CPU costs, calibrated on db_bench's
C++ loop, do not include).
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..config import Config
from ..errors import ConfigError
from ..policies.leveled import LeveledOptions
from ..policies.universal import UniversalOptions
from ..workloads import scan_lengths
from ..workloads.generator import sampler_for
from ..workloads.presets import resolve_phases
from .room import check_room

OPS = ("insert", "update", "delete", "get", "get_empty", "short_scan", "long_scan")


def _common(cfg: Config) -> dict:
    lsm, th = cfg.lsm, cfg.machine.threads
    return dict(
        write_buffer_size=int(lsm.write_buffer_size),
        max_write_buffer_number=lsm.max_write_buffer_number,
        level0_slowdown_writes_trigger=lsm.level0_slowdown_writes_trigger,
        level0_stop_writes_trigger=lsm.level0_stop_writes_trigger,
        bloom_bits_per_key=float(lsm.bloom_bits_per_key),
        block_cache_size=int(lsm.block_cache_size),
        # RocksDB splits max_background_jobs into max(1, jobs / 4) flushes and the rest compactions
        max_background_jobs=th.flush + th.compaction,
        disable_wal=not lsm.wal,
        sync=lsm.wal_sync,
        low_pri=lsm.write_low_pri,
        manual_wal_flush=lsm.manual_wal_flush,
        wal_bytes_per_sync=int(lsm.wal_bytes_per_sync),
        soft_pending_compaction_bytes_limit=int(lsm.soft_pending_compaction_bytes_limit),
        hard_pending_compaction_bytes_limit=int(lsm.hard_pending_compaction_bytes_limit),
        use_direct_reads=lsm.use_direct_reads,
        use_direct_io_for_flush_and_compaction=lsm.use_direct_io_for_flush_and_compaction,
        compression="none",
        statistics=True,
        create_if_missing=True,
    )


def options_for(cfg: Config):
    """RocksDB options equivalent to the config (compression off, RocksDB 7.8 defaults elsewhere)."""
    from ..rocksdb import Options

    pol, common = cfg.policy, _common(cfg)
    if isinstance(pol, LeveledOptions):
        return Options(
            compaction_style="level",
            num_levels=pol.num_levels,
            level0_file_num_compaction_trigger=pol.level0_file_num_compaction_trigger,
            max_bytes_for_level_base=int(pol.max_bytes_for_level_base),
            max_bytes_for_level_multiplier=float(pol.max_bytes_for_level_multiplier),
            target_file_size_base=int(pol.target_file_size_base),
            target_file_size_multiplier=int(pol.target_file_size_multiplier),
            level_compaction_dynamic_level_bytes=pol.level_compaction_dynamic_level_bytes,
            **common,
        )
    if isinstance(pol, UniversalOptions):
        return Options(
            compaction_style="universal",
            level0_file_num_compaction_trigger=pol.level0_file_num_compaction_trigger,
            universal_size_ratio=int(pol.size_ratio),
            universal_min_merge_width=pol.min_merge_width,
            universal_max_merge_width=min(pol.max_merge_width, 2**32 - 1),
            universal_max_size_amplification_percent=int(pol.max_size_amplification_percent),
            **common,
        )
    raise ConfigError(
        "<config>",
        [("policy.name", f"RocksDB's own pickers run leveled and universal (got {pol.name}: use the policy driver)")],
    )


def uses_driver(cfg: Config, driver: bool | None = None) -> bool:
    """Whether the real side runs the lsmsim policy through the policy driver (CompactFiles):
    always for policies RocksDB does not have, on request for leveled."""
    native = isinstance(cfg.policy, (LeveledOptions, UniversalOptions))
    return (not native) if driver is None else bool(driver)


def _check(cfg: Config, source: str) -> list:
    phases = resolve_phases(cfg.workload)
    errors = []
    for i, p in enumerate(phases):
        if not p.operations:
            errors.append((f"workload.phases[{i}]", "validate needs an operation count (operations:), not a duration"))
    if cfg.workload.key_size < 8:
        errors.append(("workload.key_size", "validate encodes key ids in 8 bytes: key_size must be >= 8"))
    if cfg.lsm.initial_tree is not None:
        errors.append(
            (
                "lsm.initial_tree",
                "validate starts RocksDB empty; a static shape is measured by lsmsim.validation.static_shape",
            )
        )
    if errors:
        raise ConfigError(source, errors)
    return phases


@dataclass
class RealRun:
    summary: dict
    timeseries: pd.DataFrame  # one row per sample: ops, user_bytes, time, files/bytes/runs per level
    phase_rates: list = None  # operations per second the real client reached, per phase


class _Keys:
    def __init__(self, key_size: int, value_size: int, seed: int):
        self.pad = b"\0" * (key_size - 8)
        self.values = np.random.default_rng(seed).bytes(value_size + 4096)
        self.value_size = value_size

    def key(self, k: int) -> bytes:
        return struct.pack(">Q", k) + self.pad

    def value(self, k: int) -> bytes:
        o = (k * 2654435761) % 4096
        return self.values[o : o + self.value_size]


def _levels(db, num_levels: int) -> dict:
    files = db.live_files()
    out = {}
    for lv in range(num_levels):
        fs = [f for f in files if f.level == lv]
        out[f"files_L{lv}"] = len(fs)
        out[f"bytes_L{lv}"] = sum(f.size for f in fs)
        out[f"runs_L{lv}"] = len(fs) if lv == 0 else int(bool(fs))
    out["sorted_runs"] = sum(out[f"runs_L{lv}"] for lv in range(num_levels))
    return out


class _SpaceWatch(threading.Thread):
    """Peaks of the real DB's space, polled every `interval` seconds while it runs: the table files in its
    directory (what the device holds: live files, outputs in flight and obsolete files not yet deleted), and
    RocksDB's total-sst-files-size less live-sst-files-size (files only older versions hold: a running job's
    version keeps the files a finished compaction removed; lsmsim's sim/versions.py)."""

    def __init__(self, db, path: Path, interval: float = 0.005):
        super().__init__(daemon=True)
        self.db, self.path, self.interval = db, path, interval
        self.physical_peak = 0
        self.obsolete_peak = 0
        self.obsolete_sum, self.polls = 0, 0  # the polls come at even intervals: their mean is over time
        self._done = threading.Event()

    def _table_bytes(self) -> int:
        total = 0
        for e in os.scandir(self.path):
            if e.name.endswith(".sst"):
                try:
                    total += e.stat().st_size
                except FileNotFoundError:  # deleted between the listing and the stat
                    pass
        return total

    def poll(self) -> None:
        self.physical_peak = max(self.physical_peak, self._table_bytes())
        total = self.db.property_int("rocksdb.total-sst-files-size") or 0
        live = self.db.property_int("rocksdb.live-sst-files-size") or 0
        self.obsolete_peak = max(self.obsolete_peak, total - live)
        self.obsolete_sum += total - live
        self.polls += 1

    def run(self) -> None:
        while not self._done.wait(self.interval):
            self.poll()

    def __enter__(self) -> _SpaceWatch:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        """End the polling (before the DB closes: the thread must not read a closed handle), one last poll."""
        self._done.set()
        self.join()
        if exc[0] is None:
            self.poll()


# complexity: one linear driver of the real RocksDB run; its branches are the phases' options
def run_real(  # noqa: C901
    cfg: Config,
    db_dir: str | Path | None = None,
    sample_every: int | None = None,
    source: str = "<config>",
    driver: bool | None = None,
    poll_every: int = 200,
) -> RealRun:
    """Run the config's workload on real RocksDB; returns its summary and sampled timeseries. With
    the policy driver (`uses_driver`), the lsmsim policy picks and the shim runs its compactions,
    polled every `poll_every` operations."""
    from ..rocksdb import Options, RocksDB
    from ..rocksdb.driver import PolicyDriver

    phases = _check(cfg, source)
    drv = PolicyDriver(cfg) if uses_driver(cfg, driver) else None
    opts = drv.options(Options(**_common(cfg))) if drv else options_for(cfg)
    w = cfg.workload
    num_levels = getattr(cfg.policy, "num_levels", 7)
    levels = (lambda db: drv.levels()) if drv else (lambda db: _levels(db, num_levels))
    total_ops = sum(int(p.operations) for p in phases)
    sample_every = sample_every or max(1000, total_ops // 100)
    keys = _Keys(int(w.key_size), int(w.value_size), cfg.seed)
    tmp = Path(tempfile.mkdtemp(prefix="lsmsim-validate-", dir=db_dir))
    rows, counts, rates = [], dict.fromkeys(OPS, 0), []
    user_bytes = 0.0
    inserted = 0
    measured_ops, measured_s = 0, 0.0
    try:
        # the watch stops before the DB closes (context managers exit in reverse order)
        with RocksDB.open(str(tmp / "db"), opts) as db, _SpaceWatch(db, tmp / "db") as space:
            t0 = time.perf_counter()
            done = 0
            rows.append({"ops": 0, "user_bytes": 0.0, "time": 0.0, "phase": phases[0].name, **levels(db)})
            for i, phase in enumerate(phases):
                mix = phase.mix
                probs = np.array([getattr(mix, op) for op in OPS], float)
                probs /= probs.sum()
                sampler = sampler_for(phase, int(w.num), cfg.seed)
                rng = np.random.default_rng([cfg.seed, i])
                lengths = None  # phase.scan_lengths: (lengths, cumulative probabilities)
                if phase.scan_lengths is not None:
                    ls, lp = scan_lengths.pmf(*phase.scan_lengths.key())
                    lengths = (ls, np.cumsum(lp))
                n_left = int(phase.operations)
                tp = time.perf_counter()
                while n_left:
                    n = min(n_left, sample_every - done % sample_every)
                    if drv:
                        n = min(n, poll_every - done % poll_every)
                    kinds = rng.choice(len(OPS), size=n, p=probs)
                    ks = sampler.draw(rng, n, inserted)
                    for kind, k in zip(kinds.tolist(), ks.tolist()):
                        op = OPS[kind]
                        if op in ("insert", "update"):
                            db.put(keys.key(k), keys.value(k))
                            user_bytes += w.key_size + w.value_size
                            inserted += op == "insert"
                        elif op == "delete":
                            db.delete(keys.key(k))
                            user_bytes += w.key_size
                        elif op == "get":
                            db.get(keys.key(k))
                        elif op == "get_empty":
                            db.get(keys.key(int(w.num) + k))
                        else:
                            n_keys = phase.scan_length if op == "long_scan" else round(phase.short_scan_length)
                            if op == "long_scan" and lengths is not None:  # this scan's own length
                                n_keys = int(lengths[0][np.searchsorted(lengths[1], rng.random() * lengths[1][-1])])
                            db.scan(keys.key(k), n_keys)
                        counts[op] += 1
                    done += n
                    n_left -= n
                    if drv:
                        drv.poll(db)
                    if done % sample_every == 0 or not n_left:
                        rows.append(
                            {
                                "ops": done,
                                "user_bytes": user_bytes,
                                "time": time.perf_counter() - t0,
                                "phase": phase.name,
                                **levels(db),
                            }
                        )
                rates.append(int(phase.operations) / max(time.perf_counter() - tp, 1e-9))
                if phase.measure:
                    measured_ops += int(phase.operations)
                    measured_s += time.perf_counter() - tp
            elapsed = time.perf_counter() - t0
            if cfg.sim.flush_at_end:
                db.flush(wait=True)
            if cfg.sim.drain:
                db.wait_for_compactions()
            if drv:
                drv.poll(db)
            end = levels(db)
            rows.append(
                {"ops": done, "user_bytes": user_bytes, "time": time.perf_counter() - t0, "phase": "drain", **end}
            )
            stats = db.statistics()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def tick(name):
        v = stats.get(name, 0)
        return v.get("COUNT", 0) if isinstance(v, dict) else v

    def mean(name):  # a histogram's mean (its SUM over its COUNT), in the histogram's unit
        v = stats.get(name, {})
        return v.get("SUM", 0) / v["COUNT"] if isinstance(v, dict) and v.get("COUNT") else 0.0

    flush_b = float(tick("rocksdb.flush.write.bytes"))
    comp_w = float(tick("rocksdb.compact.write.bytes"))
    s = {
        "user_bytes": user_bytes,
        "flush_bytes": flush_b,
        "compaction_read_bytes": float(tick("rocksdb.compact.read.bytes")),
        "compaction_write_bytes": comp_w,
        "write_amp": (flush_b + comp_w) / user_bytes if user_bytes else 0.0,
        "write_amp_rocksdb": (flush_b + comp_w) / flush_b if flush_b else 0.0,
        "compactions": int(tick("rocksdb.compaction.times.micros")),
        "flushes": int(tick("rocksdb.db.flush.micros")),
        "stall_s": tick("rocksdb.stall.micros") / 1e6,
        # a compaction's wall time reading and writing (COMPACTION_TIME; db/compaction/compaction_job.cc, Run)
        "compaction_time_mean_s": mean("rocksdb.compaction.times.micros") / 1e6,
        "physical_bytes_peak": float(space.physical_peak),
        "obsolete_bytes_peak": float(space.obsolete_peak),
        "obsolete_bytes_mean": space.obsolete_sum / space.polls if space.polls else 0.0,
        "elapsed_s": elapsed,
        "throughput_ops_per_s": measured_ops / measured_s if measured_s else 0.0,
        **end,
        **{f"ops_{k}": v for k, v in counts.items()},
    }
    if drv:
        s["driver_compactions"] = drv.stats.compactions
        s["driver_trivial_moves_rewritten"] = drv.stats.trivial_moves_rewritten
    return RealRun(summary=s, timeseries=pd.DataFrame(rows), phase_rates=rates)


def at_real_rate(cfg: Config, real: RealRun) -> Config:
    """The config with each write-only phase's writers at the rate the real client reached, so both
    sides see the same write speed (the Python client is slower than the simulator's modeled one, and
    how many runs pile up in L0 depends on how fast writes come against compactions)."""
    from ..loading import validate as validate_config

    data = cfg.model_dump(mode="json")
    phases = [p.model_dump(mode="json") for p in resolve_phases(cfg.workload)]
    per_op = cfg.workload.key_size + cfg.workload.value_size
    for p, phase, rate in zip(phases, resolve_phases(cfg.workload), real.phase_rates or []):
        if phase.mix.reads() == 0:
            p["writers"] = {"mode": "rate", "rate": rate * per_op, "threads": 1}
    data["workload"].update({"preset": None, "preload": False, "phases": phases})
    return validate_config(data)


def _mean_runs(ts: pd.DataFrame, x: str = "user_bytes") -> float:
    """Sorted runs averaged over the bytes written (the time axes of the two sides differ)."""
    ts = ts[ts[x].diff().fillna(1) > 0] if len(ts) > 1 else ts
    if len(ts) < 2 or ts[x].iloc[-1] <= 0:
        return float(ts["sorted_runs"].mean()) if len(ts) else float("nan")
    return float(np.trapezoid(ts["sorted_runs"], ts[x]) / (ts[x].iloc[-1] - ts[x].iloc[0]))


def _num_levels(*summaries) -> int:
    return 1 + max((int(k[7:]) for s in summaries for k in s if k.startswith("files_L")), default=0)


def compare(real: RealRun, sim, num_levels: int) -> pd.DataFrame:
    """Metric, real, simulated and relative error (simulated / real - 1)."""
    s = sim.summary
    rows = [
        ("write_amp", real.summary["write_amp"], s["write_amp"]),
        ("write_amp_rocksdb", real.summary["write_amp_rocksdb"], s["write_amp_rocksdb"]),
        ("flush_bytes", real.summary["flush_bytes"], s["flush_bytes"]),
        ("compaction_read_bytes", real.summary["compaction_read_bytes"], s["compaction_read_bytes"]),
        ("compaction_write_bytes", real.summary["compaction_write_bytes"], s["compaction_write_bytes"]),
        ("compactions", real.summary["compactions"], s["compactions"]),
        ("flushes", real.summary["flushes"], s["flushes"]),
        ("stall_s", real.summary["stall_s"], s["stall_stop_s"] + s["stall_slowdown_s"]),
        ("compaction_time_mean_s", real.summary.get("compaction_time_mean_s", 0.0), s["compaction_latency_mean_s"]),
        ("physical_bytes_peak", real.summary["physical_bytes_peak"], s["physical_bytes_peak"]),
        ("obsolete_bytes_peak", real.summary["obsolete_bytes_peak"], s["obsolete_bytes_peak"]),
        ("obsolete_bytes_mean", real.summary.get("obsolete_bytes_mean", 0.0), s["obsolete_bytes_mean"]),
        ("throughput_ops_per_s", real.summary["throughput_ops_per_s"], s["throughput_ops_per_s"]),
        ("sorted_runs_end", real.summary["sorted_runs"], s["sorted_runs"]),
        ("sorted_runs_mean", _mean_runs(real.timeseries), _mean_runs(sim.timeseries)),
    ]
    for lv in range(num_levels):
        r_f, r_b = real.summary.get(f"files_L{lv}", 0), real.summary.get(f"bytes_L{lv}", 0)
        s_f, s_b = s.get(f"files_L{lv}", 0), s.get(f"bytes_L{lv}", 0)
        if r_f or s_f:
            rows += [(f"files_L{lv}", r_f, s_f), (f"bytes_L{lv}", r_b, s_b)]
    df = pd.DataFrame(rows, columns=["metric", "real", "sim"])
    df["real"] = df["real"].astype(float)
    df["sim"] = df["sim"].astype(float)
    df["rel_err"] = np.where(df.real != 0, df.sim / df.real.where(df.real != 0, 1.0) - 1, np.nan)
    return df


def plot_runs(real: RealRun, sim, num_levels: int, path=None, title: str = ""):
    """Sorted runs per level against the bytes written, real (solid) and simulated (dashed)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    rt, st = real.timeseries, sim.timeseries
    for lv in range(num_levels):
        col = f"runs_L{lv}"
        if (rt.get(col, pd.Series([0])) > 0).any() or (st.get(col, pd.Series([0])) > 0).any():
            (line,) = ax.plot(rt.user_bytes / 2**20, rt[col], label=f"L{lv} real")
            ax.plot(st.user_bytes / 2**20, st[col], ls="--", color=line.get_color(), label=f"L{lv} sim")
    ax.set_xlabel("user data written (MiB)")
    ax.set_ylabel("sorted runs")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(ncol=2, fontsize=8)
    fig.tight_layout()
    if path is not None:
        from ..atomic import atomic_write

        atomic_write(Path(path), lambda p: fig.savefig(p, format="png", dpi=110))
    return fig


@dataclass
class Validation:
    table: pd.DataFrame
    real: RealRun
    sim: object  # Result


def validate(
    config,
    overrides=(),
    out: str | Path | None = None,
    db_dir: str | Path | None = None,
    sample_every: int | None = None,
    driver: bool | None = None,
    match_rate: bool = True,
    force: bool = False,
) -> Validation:
    """Run a config on real RocksDB and on the simulator; with `out`, save both and the plot. With
    `match_rate`, the simulator writes at the rate the real client reached (`at_real_rate`). It says on stderr what
    the real run will write where, and refuses more than the folder's free space unless `force`."""
    from ..api import run
    from ..atomic import atomic_write
    from ..loading import load_config

    source = str(config) if isinstance(config, (str, Path)) else "<config>"
    cfg = load_config(config, list(overrides))
    _check(cfg, source)
    if uses_driver(cfg, driver):
        from ..rocksdb.driver import band_size

        band_size(cfg)  # unsupported policy: fail before running anything
    else:
        options_for(cfg)
    check_room(cfg, db_dir, force)
    real = run_real(cfg, db_dir, sample_every, source, driver)
    sim = run(at_real_rate(cfg, real) if match_rate else cfg)
    levels = _num_levels(real.summary, sim.summary)
    table = compare(real, sim, levels)
    if out is not None:
        out = Path(out)
        sim.save(out / "sim")
        atomic_write(out / "real" / "timeseries.parquet", lambda p: real.timeseries.to_parquet(p, index=False))
        atomic_write(
            out / "real" / "summary.parquet", lambda p: pd.DataFrame([real.summary]).to_parquet(p, index=False)
        )
        atomic_write(out / "comparison.parquet", lambda p: table.to_parquet(p, index=False))
        plot_runs(real, sim, levels, out / "runs.png", title=cfg.name)
    return Validation(table, real, sim)
