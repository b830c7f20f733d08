"""`lsmsim calibrate`: measure this host with Debian's db_bench (rocksdb-tools 7.8.3) and write its machine preset.

Every run is db_bench with --statistics and no compression, on this host, one thread unless said:

1. The write path: fillrandom (16-byte keys, 100-byte values) with and without the WAL, and fillseq without it.
   Per write: (benchmark seconds - rocksdb.stall.micros) / writes, the median over the repeats (this shared VM's
   speed moves by 20-40% from one run to the next, and by 2x within an hour); the WAL's share is the difference
   of the two. fillrandom from 2 threads gives write_serial (seconds per write through the shared write thread).
2. Compactions and flushes: each compaction_finished event of the LOG gives its CPU micros, input records and
   (from compaction_started) input bytes; non-negative least squares of the CPU against input records, input
   bytes and data blocks read and written gives merge_per_entry, merge_per_byte and merge_per_block (more
   fillrandom runs at 1, 16 and 64 KiB blocks tell the last two apart). Flushes: the L0 row's
   CompMergeCPU(sec) against the entries and bytes flushed.
3. The read path: one fillrandom 1M + waitforcompaction per repeat, then the validation matrix's read benchmarks
   (lsmsim/validation/matrix.py, cases cache-1gib and buffered-8mib: readrandom, readmissing, seekrandom with 0,
   10 and 100 Next) on it. lsmsim runs the same cases; non-negative least squares of the relative errors, by
   Gauss-Newton from the built-in costs' read constants, gives the constants (`read_fit`: lsmsim's fill ends with
   the flush db_bench's reopen makes of the recovered WAL, whose compaction overlaps the first reads). Last,
   readrandom with full memtables against flushed ones gives memtable_search, and fillrandom without the WAL at
   4-64 MiB memtables memtable_miss and memtable_cache, the walk's visits beyond what the CPU keeps close
   (memtable_fit.py). A block-cache miss is measured apart, before the fit, which keeps it: readrandom at an 8 and
   a 64 MiB block cache, 4 and 16 KiB blocks, its thread's CPU per Get (block_reads.py: block_read and
   block_read_per_byte). So is db_bench mixgraph's own draw of a power-model key: its Gets on an empty DB with
   power-model keys less with uniform ones (client_cost.py: mixgraph_key).
4. The disk: fillrandom with --sync=1 gives the WAL's sync latency (`measure_sync`), which is the disk's
   (device.sync_latency), and the compactions' wait beyond their CPU per byte they write gives its sync bandwidth
   (device.sync_bandwidth, from the LOG of section 2's runs): both go to a device preset of the host's name
   (host_disk.py), not to the machine preset. readrandomwriterandom 50/50 from 2
   threads against 1 (`measure_interference`) gives write_wait, the writes' spin for each other's write groups in
   the write thread (contention.fit_write_wait runs lsmsim on the same invocations).

The preset is named after the host (`preset_files.host_preset_name`: CPU model, cores, memory) and carries
`host:` (CPU model, cores, date), so that a config without `machine.preset` takes it on a host like this one.
"""

from __future__ import annotations

import datetime
import json
import math
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

import numpy as np
import yaml
from scipy.optimize import nnls

from ..cpu_config import CpuCostConfig
from ..preset_files import PRESET_ROOT, host_facts, host_preset_name
from .block_reads import fit_block_read, measure_block_reads, miss_costs
from .client_cost import fit_mixgraph_key, key_draw_costs, measure_mixgraph_key
from .contention import _say, fit_write_wait, measure_interference, measure_sync, mixed_speed_up, sync_latency
from .dbbench import DbBenchRun, run_db_bench
from .host_disk import compaction_sync_bandwidth, device_path, device_preset_text
from .host_speed import fit_speed_spread
from .job_costs import fit_job_costs, measure_job_costs
from .matrix import COMMON, case
from .memtable_fit import (
    MEMTABLE_ENTRY_OVERHEAD,
    fit_memtable,
    fit_memtable_miss,
    last_level_cache,
    measure_big_memtable,
    measure_memtable,
)
from .read_fit import READ_CASES, READ_CONSTANTS, fit_read_path, read_targets

BLOCK_SIZES = (1024, 16384, 65536)  # besides db_bench's default 4096: per-block compaction CPU (merge_per_block)


@dataclass
class Measurements:
    """What db_bench measured on this host: the write runs and, per read case, its repeats' invocations."""

    host: dict
    writes: list[dict] = field(default_factory=list)
    reads: dict[str, list[list[dict]]] = field(default_factory=dict)
    memtable: list[dict] = field(default_factory=list)  # readrandom with full and with flushed memtables
    sync: list[dict] = field(default_factory=list)  # fillrandom --sync=1: the WAL's sync latency (device.sync_latency)
    interference: list[dict] = field(
        default_factory=list
    )  # readrandomwriterandom from 1 and 2 threads (mixed_speed_up)
    big_memtable: list[dict] = field(default_factory=list)  # fillrandom without the WAL at 4-64 MiB (memtable_miss)
    block_reads: list[dict] = field(default_factory=list)  # readrandom at 8 and 64 MiB caches (block_reads.py)
    mixgraph_keys: list[dict] = field(default_factory=list)  # mixgraph's Gets on an empty DB (client_cost.py)
    job_costs: list[dict] = field(default_factory=list)  # fillrandom at 64 KiB and 1 MiB buffers (job_costs.py)
    seconds: float = 0.0  # wall time of the db_bench runs
    num: int = 1_000_000  # the write runs' keys
    repeat: int = 2  # repeats of each run

    def to_json(self) -> str:
        return json.dumps(self.__dict__)

    @classmethod
    def from_json(cls, text: str) -> Measurements:
        return cls(**json.loads(text))


VALUES = (400, 1000)  # besides 100-byte values: entry sizes that tell a flush's per-entry and per-byte CPU apart


def _write_args(num: int, *extra: str, bench: str = "fillrandom", value: int = 100) -> list[str]:
    common = [a for a in COMMON if not a.startswith("--value_size")] + [f"--value_size={value}"]
    return [f"--benchmarks={bench},stats", f"--num={num}", *common, "--statistics=1", *extra]


def _per_write(r: DbBenchRun, bench: str, writes: int) -> tuple[float, float]:
    stall = r.statistics.get("rocksdb.stall.micros", 0) / 1e6
    return (r.seconds[bench] - stall) / writes, stall


_HIST_KEYS = ("P50", "P95", "P99", "COUNT", "SUM")


def fit_spread(runs: list[dict]) -> float | None:
    """machine.cpu_spread: the lognormal log-deviation s whose P99 over its mean, exp(2.326 s - s^2 / 2), is that of
    DB::Write (rocksdb.db.write.micros) in fillrandom with the WAL at 100-byte values; the median over the repeats.
    None when the runs kept no histogram."""
    z = NormalDist().inv_cdf(0.99)
    sigmas = []
    for r in runs:
        h = r.get("write_micros") or {}
        if r.get("kind") != "fillrandom" or not r.get("wal") or r.get("value") != 100 or not h.get("COUNT"):
            continue
        ratio = h["P99"] / (h["SUM"] / h["COUNT"])
        if ratio <= 1.0:
            sigmas.append(0.0)
            continue
        # z s - s^2 / 2 = ln(ratio): the smaller root (the larger one is past the ratio's maximum at s = z)
        disc = z * z - 2.0 * math.log(ratio)
        sigmas.append(z - math.sqrt(disc) if disc > 0 else z)
    return float(np.median(sigmas)) if sigmas else None


def measure_writes(num: int, repeat: int) -> list[dict]:
    """fillrandom with and without the WAL, fillseq, and fillrandom at other block sizes (section 1 and 2)."""
    out = []
    for _ in range(repeat):
        for wal, value in ((True, 100), (False, 100)) + tuple((False, v) for v in VALUES if _ == 0):
            n = int(num * 116 / (16 + value))  # about the same bytes at every entry size
            r = run_db_bench(_write_args(n, f"--disable_wal={int(not wal)}", value=value))
            per, stall = _per_write(r, "fillrandom", n)
            out.append(
                {
                    "kind": "fillrandom",
                    "wal": wal,
                    "value": value,
                    "per_write_s": per,
                    "stall_s": stall,
                    "block_size": 4096,
                    "compactions": r.compactions,
                    "flush_cpu_s": r.levels.get("L0", {}).get("CompMergeCPU(sec)", float("nan")),
                    "flush_entries": sum(f["entries"] for f in r.flushes),
                    "flush_bytes": r.flush_bytes,
                    # DB::Write's own latency histogram: the spread of a write's time (cpu_spread)
                    "write_micros": {
                        k: v for k, v in r.statistics.get("rocksdb.db.write.micros", {}).items() if k in _HIST_KEYS
                    },
                }
            )
            _say(f"fillrandom {n:,} x {value} B wal={wal}: {per * 1e6:.2f} us/write")
        # the WAL's records buffered (manual_wal_flush): its CPU without a write() per record (wal_append_buffered)
        r = run_db_bench(_write_args(num, "--manual_wal_flush=1"))
        per, stall = _per_write(r, "fillrandom", num)
        out.append({"kind": "manual-wal-flush", "per_write_s": per, "stall_s": stall, "compactions": []})
        _say(f"fillrandom {num:,} manual_wal_flush: {per * 1e6:.2f} us/write")
        r = run_db_bench(_write_args(num, "--disable_wal=1", bench="fillseq"))
        per, stall = _per_write(r, "fillseq", num)
        out.append({"kind": "fillseq", "per_write_s": per, "stall_s": stall, "compactions": []})
        _say(f"fillseq {num:,}: {per * 1e6:.2f} us/write")
        # two writer threads (each writes num / 2): the write thread they share (write_serial)
        r = run_db_bench(_write_args(num // 2, "--threads=2"))
        per, stall = _per_write(r, "fillrandom", 2 * (num // 2))
        out.append({"kind": "two-writers", "per_write_s": per, "stall_s": stall, "compactions": []})
        _say(f"fillrandom {num // 2:,} x 2 threads: {per * 1e6:.2f} us/write")
    for bs in BLOCK_SIZES:
        r = run_db_bench(_write_args(num, "--disable_wal=1", f"--block_size={bs}"))
        out.append({"kind": "blocks", "block_size": bs, "compactions": r.compactions})
        _say(f"fillrandom block_size={bs}: {len(r.compactions)} compactions")
    return out


def fit_writes(runs: list[dict]) -> dict:
    """The write path's constants (seconds) from `measure_writes`' runs, plus `_`-keys that say how."""
    rows = [
        (
            c["input_records"],
            c["input_bytes"],
            (c["input_bytes"] + c["bytes"]) / r.get("block_size", 4096),
            c["cpu_micros"] / 1e6,
        )
        for r in runs
        for c in r["compactions"]
    ]
    if len(rows) < 3:
        raise RuntimeError(f"only {len(rows)} compactions in the calibration runs: too few to fit (raise --num)")
    merge, _ = nnls(np.array([x[:3] for x in rows], float), np.array([x[3] for x in rows], float))
    fills = [r for r in runs if r["kind"] == "fillrandom"]

    def median(sel) -> float:
        return float(np.median([r["per_write_s"] for r in runs if sel(r)]))

    insert = median(lambda r: r["kind"] == "fillrandom" and not r["wal"] and r["value"] == 100)
    wal = median(lambda r: r["kind"] == "fillrandom" and r["wal"] and r["value"] == 100) - insert
    flushes = [r for r in fills if r["flush_entries"] and r["flush_cpu_s"] == r["flush_cpu_s"]]
    flush, _ = nnls(
        np.array([[r["flush_entries"], r["flush_bytes"]] for r in flushes], float),
        np.array([r["flush_cpu_s"] for r in flushes], float),
    )
    two = [r for r in runs if r["kind"] == "two-writers"]
    return {
        "write_serial": float(np.median([r["per_write_s"] for r in two])) if two else 0.0,
        "memtable_insert": insert,
        "memtable_insert_sequential": median(lambda r: r["kind"] == "fillseq"),
        "wal_append": max(0.0, wal),
        **(
            {"wal_append_buffered": max(0.0, median(lambda r: r["kind"] == "manual-wal-flush") - insert)}
            if any(r["kind"] == "manual-wal-flush" for r in runs)
            else {}
        ),
        "merge_per_entry": float(merge[0]),
        "merge_per_byte": float(merge[1]),
        "merge_per_block": float(merge[2]),
        "flush_per_entry": float(flush[0]),
        "flush_per_byte": float(flush[1]),
        "_compactions": len(rows),
        "_flush_runs": len(flushes),
    }


def measure_reads(repeat: int) -> dict[str, list[list[dict]]]:
    """The matrix's read cases (READ_CASES), all on one fill per repeat: the fill is the same invocation in each
    case (fillrandom 1M, waitforcompaction), and the read benchmarks change nothing on disk."""
    out: dict[str, list[list[dict]]] = {label: [] for label in READ_CASES}
    cases = [case(label) for label in READ_CASES]
    for i in range(repeat):
        d = Path(tempfile.mkdtemp(prefix="lsmsim-calibrate-"))
        try:
            t0 = time.perf_counter()
            fill = run_db_bench(cases[0].dbbench[0], db=d / "db")
            _say(f"read path #{i + 1}: fillrandom 1M + waitforcompaction {time.perf_counter() - t0:.1f} s")
            for c in cases:
                assert c.dbbench[0] == cases[0].dbbench[0], "the read cases share their fill"
                t0 = time.perf_counter()
                reads = [run_db_bench(args, db=d / "db") for args in c.dbbench[1:]]
                out[c.name].append([r.to_dict() for r in [fill, *reads]])
                us = ", ".join(f"{k} {v:.2f}" for r in reads for k, v in r.micros_per_op.items())
                _say(f"{c.name} #{i + 1} ({time.perf_counter() - t0:.1f} s): {us} us/op")
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return out


def dirty_writeback(vm: Path = Path("/proc/sys/vm")) -> dict:
    """This host's page-cache writeback (machine.dirty_expire, machine.dirty_writeback: sim/wal.py) from Linux's
    vm.dirty_expire_centisecs and vm.dirty_writeback_centisecs; empty where they cannot be read."""
    out = {}
    for key, name in (("dirty_expire", "dirty_expire_centisecs"), ("dirty_writeback", "dirty_writeback_centisecs")):
        try:
            out[key] = f"{int((vm / name).read_text().split()[0]) / 100:g}s"
        except (OSError, ValueError, IndexError):
            pass
    return out


def fit_sync_cpu(sync: list[dict], unsynced_write: float) -> float:
    """machine.cpu.wal_sync_cpu: a synced write's seconds (fillrandom --sync=1) less its WAL sync (the run's mean
    rocksdb.wal.file.sync.micros), median over the runs, less the unsynced write's (insert and WAL append)."""
    rest = [r["per_write_s"] - r["sync_micros"] / r["syncs"] * 1e-6 for r in sync if r.get("syncs")]
    return max(0.0, float(np.median(rest)) - unsynced_write) if rest else 0.0


def preset_text(m: Measurements, num: int, repeat: int) -> tuple[dict, str]:
    """The preset (a dict) and its YAML text with a comment on where each figure comes from."""
    w = fit_writes(m.writes)
    if m.sync:
        w["wal_sync_cpu"] = fit_sync_cpu(m.sync, w["memtable_insert"] + w["wal_append"])
    search, mt_entries = fit_memtable(m.memtable) if m.memtable else (0.0, 0.0)
    # the measured insert includes its skiplist walk in the calibration's 4 MiB memtables (costs.build_costs)
    n_cal = 4 * 2**20 / (16 + 100 + MEMTABLE_ENTRY_OVERHEAD)
    walk = search * max(0.0, math.log2(n_cal) - 1.0 / math.log(2.0))
    w["memtable_insert"] = max(0.0, w["memtable_insert"] - walk)
    w["memtable_search"] = search
    llc = m.host.get("llc")
    no_wal = [r["per_write_s"] for r in m.writes if r["kind"] == "fillrandom" and not r["wal"] and r["value"] == 100]
    miss, cache = fit_memtable_miss(float(np.median(no_wal)), m.big_memtable, search, llc) if no_wal else (0.0, None)
    if miss > 0:
        w["memtable_miss"] = miss
    write_cpu = {k: v for k, v in w.items() if not k.startswith("_")}
    # a block-cache miss measured apart (block_reads.py): the read fit keeps it and fits the others
    block = fit_block_read(m.block_reads) if m.block_reads else None
    if block is not None:
        write_cpu["block_read"], write_cpu["block_read_per_byte"] = block
    constants = tuple(c for c in READ_CONSTANTS if block is None or c != "block_read")
    targets = read_targets(m.reads)
    start = {c: float(getattr(CpuCostConfig(), c)) for c in READ_CONSTANTS}  # the built-in costs' split
    r, resid = fit_read_path(targets, write_cpu, m.host["memory"], start, constants)
    cpu = {k: f"{v * 1e6:.4g}us" for k, v in {**write_cpu, **r, "scan_base": 0.0}.items()}
    if miss > 0:
        cpu["memtable_cache"] = f"{cache / 2**20:.4g}MiB"
    fixed = _job_costs(m)
    if fixed:
        cpu.update({k: f"{fixed[k] * 1e6:.4g}us" for k in ("flush_per_job", "merge_per_file")})
    key = fit_mixgraph_key(m.mixgraph_keys)
    if key is not None:
        cpu["mixgraph_key"] = f"{key * 1e6:.4g}us"
    host = f"{m.host['cpu']} x {m.host['cores']}"
    preset = {
        "source": f"lsmsim calibrate on {m.host['date']}: {host}, Debian db_bench 7.8.3 --threads=1, {repeat} "
        f"repeats of fillrandom {num} with and without the WAL and fillseq, fillrandom at 1/16/64 KiB blocks, "
        "the validation matrix's cache-1gib and buffered-8mib read cases",
        "host": {"cpu": m.host["cpu"], "cores": m.host["cores"], "date": m.host["date"]},
        "cores": m.host["cores"],
        "memory": f"{m.host['memory'] / 2**30:.1f}GiB",
        "cpu": cpu,
        **{k: m.host[k] for k in ("dirty_expire", "dirty_writeback") if k in m.host},
    }
    spread = fit_spread(m.writes)
    if spread is not None:
        preset["cpu_spread"] = round(spread, 3)
    speed = fit_speed_spread(m)
    if speed is not None:
        preset["speed_spread"] = round(speed, 3)

    def label(r: dict) -> str:
        return f"{r['kind']}{' ' + str(r['value']) + 'B' if 'value' in r else ''}{' wal' if r.get('wal') else ''}"

    per_write = {label(r): f"{r['per_write_s'] * 1e6:.2f}" for r in m.writes if "per_write_s" in r}
    notes = [
        f"# A machine preset written by `lsmsim calibrate` on {host} ({m.seconds:.0f} s of db_bench runs).",
        "# Where each figure comes from (lsmsim/validation/calibrate.py):",
        "# - memtable_insert: fillrandom without the WAL, 100-byte values: median of (seconds - stall.micros) / writes;"
        f" last repeat's us/write: {per_write}",
        "# - memtable_insert_sequential: the same for fillseq;"
        " wal_append: fillrandom with the WAL, less memtable_insert;"
        " wal_append_buffered: the same with --manual_wal_flush",
        "# - write_serial: fillrandom (with the WAL) from 2 threads: median seconds per write of all threads",
        "# - wal_sync_cpu (when the WAL sync was measured): fillrandom --sync=1's seconds per write less its WAL sync"
        " (median of the repeats) and the unsynced write (memtable_insert before its walk, and wal_append)",
        "# - cpu_spread (when measured): the lognormal whose P99 / mean is DB::Write's in fillrandom with the WAL"
        " (rocksdb.db.write.micros), median of the repeats",
        "# - speed_spread (when measured): the log-standard deviation of the repeats of each kind of run above, pooled"
        " (host_speed.py): the host's own run-to-run spread",
        f"# - merge_per_entry, merge_per_byte, merge_per_block: non-negative least squares over {w['_compactions']}"
        " compactions' CPU micros (LOG compaction_finished) against input records, input bytes and data blocks read"
        " and written (4 KiB blocks, and 1/16/64 KiB)",
        f"# - memtable_search: readrandom with full memtables ({mt_entries:,.0f} entries) less with flushed ones, over"
        f" log2 of the entries (median of {len(m.memtable) // 2}); memtable_insert is less its walk at 4 MiB"
        f" ({walk * 1e6:.3f} us)",
        *(
            [
                "# - memtable_miss and memtable_cache: fillrandom without the WAL at "
                + ", ".join(f"{b >> 20}" for b in sorted({r["buffer"] for r in m.big_memtable}))
                + f" MiB memtables ({len(m.big_memtable)} runs: "
                + ", ".join(f"{r['per_write_s'] * 1e6:.2f}" for r in m.big_memtable)
                + " us/write), less the walk: the miss per visit beyond the cache"
                + (
                    " (fitted with it)"
                    if len({r["buffer"] for r in m.big_memtable}) > 1
                    else ", the last-level cache (/sys)"
                )
            ]
            if miss > 0
            else []
        ),
        f"# - flush_*: least squares of the L0 row's CompMergeCPU(sec) against entries and bytes flushed"
        f" ({w['_flush_runs']} runs)",
        *(
            [
                "# - block_read, block_read_per_byte: readrandom's CPU per Get (the thread's schedstat) at an 8 MiB"
                " block cache less at 64 MiB over the data-block misses per Get (median of "
                f"{len(m.block_reads) // 4} rounds): "
                + ", ".join(f"{bs // 1024} KiB {c * 1e6:.2f} us" for bs, c in miss_costs(m.block_reads).items())
                + " per miss (block_reads.py)"
            ]
            if block is not None
            else []
        ),
        f"# - {', '.join(constants)}: non-negative least squares (relative errors, Gauss-Newton: read_fit.py) of"
        f" the matrix's cache-1gib and buffered-8mib read benchmarks (mean of {repeat} db_bench runs); lsmsim's"
        " errors:",
        *[f"#     {k}: {targets[k.split('/')[0]][k.split('/')[1]]:.2f} us, fit {v:+.1%}" for k, v in resid.items()],
    ]
    if key is not None:
        notes.append(
            "# - mixgraph_key: mixgraph's Gets on an empty DB with power-model keys less with uniform ones, the"
            " benchmark thread's CPU per op (client_cost.py; median of "
            + ", ".join(f"{c * 1e6:.2f}" for c in key_draw_costs(m.mixgraph_keys))
            + " us"
            + "".join(sorted({f", measured {r['date']}" for r in m.mixgraph_keys if r.get("date") != m.host["date"]}))
            + ")"
        )
    if fixed:
        notes.append(
            "# - flush_per_job, merge_per_file: fillrandom at 64 KiB and 1 MiB buffers, least squares of the LOG's"
            " flush and compaction CPU against jobs or output files and bytes (job_costs.py; the per-entry terms"
            " above, from 4 MiB buffers, hold a few % of them)"
        )
    if m.interference:  # the writes' spin in the write thread (foreground.write_thread_spin)
        machine = {
            "preset": "default",
            **{k: preset[k] for k in ("cores", "memory", "cpu", "cpu_spread") if k in preset},
        }
        cpu["write_wait"] = round(fit_write_wait(m.interference, machine), 3)
        notes.append(
            f"# - write_wait: readrandomwriterandom 50/50 from 2 threads ran {mixed_speed_up(m.interference):.2f}x one"
            " thread (median of the repeats); lsmsim runs as much with this spin (contention.fit_write_wait)"
        )
    # the disk's figures are not the CPU's: they go to the device preset beside this one (host_disk.py)
    bw = compaction_sync_bandwidth(m.writes)
    if bw:
        notes.append(
            f"# Compactions' file syncs on this host's disk (LOG compaction_finished: output bytes over wall less CPU"
            f" micros): {bw / 2**20:.0f} MiB/s: device.sync_bandwidth of the device preset of the same name"
        )
    if m.sync:
        notes.append(
            f"# WAL sync on this host's disk (fillrandom --sync=1, rocksdb.wal.file.sync.micros): "
            f"{sync_latency(m.sync) * 1e6:.1f} us: device.sync_latency of the device preset of the same name"
        )
    return preset, "\n".join(notes) + "\n" + yaml.safe_dump(preset, sort_keys=False, width=110)


def _job_costs(m: Measurements) -> dict | None:
    """The fixed costs of a flush, a compaction file and their syncs (job_costs.py); None when not measured."""
    flushes = [f for r in m.job_costs for f in r["flushes"]]
    return fit_job_costs(flushes, [c for r in m.job_costs for c in r["compactions"]]) if m.job_costs else None


def measure(num: int = 1_000_000, repeat: int = 2) -> Measurements:
    """Run every calibration measurement on this host (the module's sections 1-3 and the WAL's sync)."""
    from ..errors import LsmsimError

    if shutil.which("db_bench") is None:
        raise LsmsimError("db_bench not found: install Debian's rocksdb-tools (apt-get install rocksdb-tools)")
    host = {**host_facts(), **dirty_writeback(), "date": datetime.date.today().isoformat(), "llc": last_level_cache()}
    m = Measurements(host=host, num=num, repeat=repeat)
    t0 = time.perf_counter()
    m.writes = measure_writes(num, repeat)
    m.reads = measure_reads(repeat)
    m.memtable = measure_memtable(repeat)
    m.big_memtable = measure_big_memtable(num, repeat)
    m.block_reads = measure_block_reads(repeat + 1)
    m.mixgraph_keys = measure_mixgraph_key(repeat + 1)
    m.sync = measure_sync(repeat)
    m.interference = measure_interference(repeat)
    m.job_costs = measure_job_costs()
    m.seconds = time.perf_counter() - t0
    return m


def calibrate(
    num: int = 1_000_000,
    repeat: int = 2,
    output: Path | None = None,
    measurements: Path | None = None,
) -> Path:
    """Measure this host and write its machine preset (default lsmsim/presets/machines/<host name>.yaml).
    `measurements`: keep db_bench's figures there (JSON, with the host), and fit from it without running
    db_bench when it exists."""
    from ..atomic import atomic_write
    from ..errors import LsmsimError

    if measurements is not None and measurements.is_file():
        try:
            m = Measurements.from_json(measurements.read_text())
        except (ValueError, TypeError, KeyError) as e:
            raise LsmsimError(f"{measurements}: not a calibration measurements file ({e})") from None
    else:
        m = measure(num, repeat)
        if measurements is not None:
            atomic_write(measurements, lambda p: Path(p).write_text(m.to_json()))
    preset, text = preset_text(m, num, repeat)
    out = output or PRESET_ROOT / "machines" / f"{host_preset_name(m.host)}.yaml"
    atomic_write(out, lambda p: Path(p).write_text(text))
    bw, sync = compaction_sync_bandwidth(m.writes), sync_latency(m.sync) if m.sync else None
    if bw or sync:  # this host's disk: local-fio's drive with the syncs measured here
        disk = device_preset_text(f"{m.host['cpu']} x {m.host['cores']}", bw, sync, _job_costs(m))
        atomic_write(device_path(out), lambda p: Path(p).write_text(disk))
        _say(f"this host's disk: device preset {device_path(out).stem} ({device_path(out)})")
    return out


__all__ = [
    "Measurements",
    "calibrate",
    "fit_spread",
    "fit_writes",
    "measure",
    "measure_reads",
    "measure_writes",
]
