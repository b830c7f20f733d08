"""Does this host still run RocksDB as its machine preset says? (`lsmsim calibrate --check`)

A machine preset is found by the host's CPU model and cores, but a 2-vCPU VM's speed is not a property of its CPU
model: it moves from one day to the next, and not uniformly. The AMD EPYC host's calibration of 2026-11-28 against
the same host on 2026-11-29 (`lsmsim calibrate` both days): memtable_insert 1.10 -> 2.61 us (2.4x), wal_append 2.42
-> 3.61 us (1.5x), merge_per_entry 0.40 -> 1.18 us (2.9x). The stale preset then mis-predicts the shape, not only
the time: db_bench fillrandom 20M (benchmarks/dbbench_fillrandom.py) measured W-Amp 6.4 and 243 s that day with
45 s of L0 slowdowns; lsmsim on the stale preset 8.66 and 92 s without a stall, on that day's calibration 6.44 and
226 s with 62 s of slowdowns. One speed factor (machine.cpu_speed 0.40-0.44 on the stale preset) got the time
(208-229 s) but not the shape (W-Amp 7.9, no stall): compactions had slowed more than writes, so L0 backed up.

The check, a few seconds of db_bench: fillrandom (the validation matrix's flags, `num` keys) with and without the
WAL. Three parts are measured: the time per write with the WAL and without it (the benchmark's seconds less
rocksdb.stall.micros, per write) and the compactions' CPU per input record (the LOG's compaction_finished events).
lsmsim runs the same two fills on the preset (the compactions' sync bandwidth taken from the same LOG, as the
matrix does, so that only CPU costs are judged) and gives its own three. The preset holds when every part's ratio,
db_bench over lsmsim, lies within x/(band) of 1: three times the preset's speed_spread (the host's own log-spread of
one run, host_speed.py), at least 25%, which also covers the fit's own residuals on these runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .dbbench import DbBenchRun, run_db_bench
from .host_disk import compaction_sync_bandwidth
from .matrix import COMMON, _base

PROBE_NUM = 500_000  # keys per fill: ~60 MB, a dozen compactions, L0 far below its slowdown trigger
MIN_BAND = math.log(1.25)  # the least band: the calibration's own fit residuals on these runs stay within it
SIGMAS = 3.0  # band = SIGMAS x speed_spread (one run's log-spread on this host) when that is wider


@dataclass(frozen=True)
class Part:
    """One figure both sides measure: db_bench's and lsmsim's value (seconds)."""

    name: str
    real: float
    sim: float

    @property
    def ratio(self) -> float:
        return self.real / self.sim if self.sim > 0 else float("inf")


@dataclass(frozen=True)
class Verdict:
    """The parts and the band their ratios must lie within; a part neither side measured (NaN) is far."""

    parts: list[Part]
    band: float  # the log-band each ratio must lie within

    @property
    def far(self) -> list[Part]:
        return [p for p in self.parts if not 0 < p.ratio < float("inf") or abs(math.log(p.ratio)) > self.band]

    @property
    def holds(self) -> bool:
        return not self.far


def band(speed_spread: float | None) -> float:
    """The log-band a part's ratio must lie within: SIGMAS x the host's one-run spread, at least MIN_BAND."""
    return max(SIGMAS * (speed_spread or 0.0), MIN_BAND)


def judge(parts: list[Part], speed_spread: float | None) -> Verdict:
    return Verdict(parts, band(speed_spread))


def _fill_args(num: int, wal: bool) -> list[str]:
    return ["--benchmarks=fillrandom,stats", f"--num={num}", *COMMON, "--statistics=1", f"--disable_wal={int(not wal)}"]


def _cpu_per_record(compactions: list[dict]) -> float:
    records = sum(c["input_records"] for c in compactions)
    return sum(c["cpu_micros"] for c in compactions) * 1e-6 / records if records else float("nan")


def measure(num: int = PROBE_NUM, binary: str = "db_bench") -> dict[str, DbBenchRun]:
    """db_bench's two fills on this host (each on a fresh DB): {"wal": run, "no_wal": run}."""
    return {kind: run_db_bench(_fill_args(num, wal), binary=binary) for kind, wal in (("wal", True), ("no_wal", False))}


def real_parts(runs: dict[str, DbBenchRun], num: int) -> dict[str, float]:
    """db_bench's three parts (seconds): per write with and without the WAL (stalls excluded), compaction CPU per
    input record (both fills' compactions)."""
    per = {
        kind: (r.seconds["fillrandom"] - r.statistics.get("rocksdb.stall.micros", 0) / 1e6) / num
        for kind, r in runs.items()
    }
    jobs = [c for r in runs.values() for c in r.compactions]
    return {"write_wal": per["wal"], "write_no_wal": per["no_wal"], "compaction_per_record": _cpu_per_record(jobs)}


def sim_parts(machine: dict, runs: dict[str, DbBenchRun], num: int) -> dict[str, float]:
    """lsmsim's three parts on the machine section `machine` (e.g. {"preset": name}), the same fills; the
    compactions' sync bandwidth is the one db_bench's LOG shows, as in the validation matrix."""
    from ..loading import load_config
    from ..sim.simulate import simulate

    out, cpu, records = {}, 0.0, 0
    for kind, wal in (("wal", True), ("no_wal", False)):
        cfg = _base("host-check", {"name": "leveled"}, {"preset": "fillrandom", "num": num}, lsm={"wal": wal})
        cfg["machine"] = dict(machine)
        bw = compaction_sync_bandwidth([{"compactions": runs[kind].compactions}])
        if bw:
            cfg["device"]["sync_bandwidth"] = f"{bw / 2**20:.1f}MiB/s"
        res = simulate(load_config(cfg))
        # no stall to leave out: at PROBE_NUM L0 stays far below the slowdown trigger on either side
        out[f"write_{kind}"] = res.summary["measured_time_s"] / num
        jobs = res.compactions[res.compactions["kind"] == "compaction"]
        cpu += float(jobs["cpu_s"].sum())
        records += int(jobs["input_entries"].sum())
    out["compaction_per_record"] = cpu / records if records else float("nan")
    return out


CPU_PARTS = ("write_wal", "write_no_wal", "compaction_per_record")
LABELS = {
    "write_wal": "write with the WAL (us)",
    "write_no_wal": "write without the WAL (us)",
    "compaction_per_record": "compaction CPU per input record (us)",
    "sync_per_mib": "compactions' sync wait per MiB written (us)",
}


def disk_part(runs: dict[str, DbBenchRun], device: dict | None) -> Part | None:
    """The compactions' sync wait per MiB written: db_bench's (their wall less CPU over bytes, host_disk.py) against
    the device preset's sync_bandwidth; None when either is missing."""
    from ..units import parse_bandwidth

    bw = compaction_sync_bandwidth([{"compactions": r.compactions} for r in runs.values()])
    preset = (device or {}).get("sync_bandwidth")
    if not bw or not preset:
        return None
    return Part("sync_per_mib", 2**20 / bw, 2**20 / parse_bandwidth(preset))


def check(machine: str, num: int = PROBE_NUM, runs=None) -> Verdict:
    """Measure (or take `runs`, measure()'s) and judge machine preset `machine` (and the device preset of the same
    name, the host's disk, when there is one) against them."""
    from ..preset_files import load_preset

    preset = load_preset("machines", machine)
    try:
        device = load_preset("devices", machine)
    except KeyError:
        device = None
    runs = runs if runs is not None else measure(num)
    real, sim = real_parts(runs, num), sim_parts({"preset": machine}, runs, num)
    parts = [Part(k, real[k], sim[k]) for k in CPU_PARTS]
    disk = disk_part(runs, device)
    return judge(parts + ([disk] if disk else []), preset.get("speed_spread"))


def report(v: Verdict) -> str:
    """The verdict as a table, and what to do when the preset does not hold."""
    lines = [f"{'part':42s} {'db_bench':>9s} {'preset':>9s} {'ratio':>7s}"]
    for p in v.parts:
        lines.append(f"{LABELS[p.name]:42s} {p.real * 1e6:9.3f} {p.sim * 1e6:9.3f} {p.ratio:6.2f}x")
    lines.append(f"band: each ratio within x/{math.exp(v.band):.2f} of 1 (the host's own spread of one run)")
    if v.holds:
        return "\n".join([*lines, "the preset holds on this host now"])
    lines.append(
        f"the preset does not hold on this host now ({', '.join(LABELS[p.name] for p in v.far)}): recalibrate "
        "(`lsmsim calibrate`, ~6 minutes) before comparing lsmsim with real runs made today"
    )
    cpu = [p.ratio for p in v.parts if p.name in CPU_PARTS and 0 < p.ratio < float("inf")]
    if cpu and any(p.name in CPU_PARTS for p in v.far):
        if max(cpu) / min(cpu) <= math.exp(v.band):
            speed = 1 / math.exp(sum(map(math.log, cpu)) / len(cpu))
            lines.append(f"  stopgap: the CPU parts moved together: machine.cpu_speed {speed:.2f}")
        else:
            lines.append("  the CPU parts moved apart: no one machine.cpu_speed mends them")
    disk = next((p for p in v.parts if p.name == "sync_per_mib"), None)
    if disk is not None and disk in v.far:
        lines.append(f"  stopgap: the disk's syncs: device.sync_bandwidth {2**20 / disk.real / 2**20:.0f}MiB/s")
    return "\n".join(lines)


def run_check(name: str | None = None, num: int | None = None, say=print) -> int:
    """`lsmsim calibrate --check`: judge machine preset `name` (default: the host's) on this host now; 0 when it
    holds, 1 when it does not."""
    from ..errors import LsmsimError
    from ..preset_files import host_facts, host_preset, load_preset, preset_names

    name = name or host_preset()
    if name is None:
        f = host_facts()
        raise LsmsimError(
            f"no machine preset was calibrated on a host like this one ({f['cpu']} x {f['cores']}): run "
            "`lsmsim calibrate`, or name one with --preset"
        )
    if name not in preset_names("machines"):
        raise LsmsimError(f"--preset {name}: no such machine preset; presets: {', '.join(preset_names('machines'))}")
    host = load_preset("machines", name).get("host") or {}
    num = num or PROBE_NUM
    say(
        f"machine preset {name} (calibrated {host.get('date', 'on an unrecorded date')} on {host.get('cpu', '?')} x "
        f"{host.get('cores', '?')}); db_bench fillrandom {num:,} with and without the WAL, and lsmsim on the preset"
    )
    verdict = check(name, num)
    say(report(verdict))
    return 0 if verdict.holds else 1


__all__ = [
    "PROBE_NUM",
    "Part",
    "Verdict",
    "band",
    "check",
    "disk_part",
    "judge",
    "measure",
    "real_parts",
    "report",
    "run_check",
    "sim_parts",
]
