"""Running Debian's `db_bench` (rocksdb-tools, RocksDB 7.8.3) and reading what it reports.

`run_db_bench` runs one db_bench invocation in a folder of its own and returns a `DbBenchRun`:
- from its standard output (tools/db_bench_tool.cc): micros/op of each benchmark, the compaction
  stats table of `--benchmarks=...,stats` (db/internal_stats.cc, `DumpCFMapStats`: per level Files,
  Size, W-Amp, Comp(sec), CompMergeCPU(sec), Comp(cnt), KeyIn) and, with `--statistics`, the
  tickers and histograms of Statistics::ToString;
- from the DB's LOG, the EVENT_LOG_v1 lines (db/event_helpers.cc, db/compaction/compaction_job.cc):
  each flush's and compaction's output files and bytes, input records, CPU micros, and trivial moves.
Bytes per level come from the LOG, exact to the byte; the stats table rounds them to 0.1 GB.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..rocksdb.metadata import parse_statistics

DEFAULT_BINARY = "db_bench"


@dataclass
class DbBenchRun:
    """What one db_bench invocation measured."""

    args: list[str]
    wall_s: float
    micros_per_op: dict[str, float]  # benchmark name -> micros/op (db_bench's own timer)
    seconds: dict[str, float]  # benchmark name -> seconds the benchmark ran
    levels: dict[str, dict[str, float]]  # "L0".."Sum" -> the compaction stats table's columns
    statistics: dict = field(default_factory=dict)
    flushes: list[dict] = field(default_factory=list)  # per flush: bytes, entries
    compactions: list[dict] = field(default_factory=list)  # per compaction: output_level, bytes, records, cpu
    trivial_moves: list[dict] = field(default_factory=list)  # per move: destination_level, files, bytes
    level_files: dict[int, int] = field(default_factory=dict)  # final live files per level (lsm_state)
    ops_per_sec: dict[str, float] = field(default_factory=dict)  # benchmark -> ops/sec (done / elapsed, all threads)
    # benchmark -> operation type (read, write, seek, ...) -> Count, Average, P50, P75, P99, P99.9, P99.99 (us)
    histograms: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    # with run_db_bench(thread_cpu=True): CPU seconds per thread name (comm) over the run, the main thread apart
    # ("main": it opens the DB, whose recovered WAL it flushes, and waits for the benchmark's threads)
    thread_cpu: dict[str, float] = field(default_factory=dict)

    # ------------------------------------------------------------ derived figures
    @property
    def flush_bytes(self) -> int:
        return sum(f["bytes"] for f in self.flushes)

    def written_bytes(self, level: int) -> int:
        """Bytes written by compactions into `level` (flushes for L0)."""
        if level == 0:
            return self.flush_bytes + sum(c["bytes"] for c in self.compactions if c["output_level"] == 0)
        return sum(c["bytes"] for c in self.compactions if c["output_level"] == level)

    @property
    def w_amp(self) -> float:
        """RocksDB's `Sum` W-Amp: (flush + compaction bytes written) / flush bytes (internal_stats.cc)."""
        total = self.flush_bytes + sum(c["bytes"] for c in self.compactions)
        return total / self.flush_bytes if self.flush_bytes else float("nan")

    def until_stats(self) -> DbBenchRun:
        """The run as its compaction stats table saw it: the LOG also holds the jobs that finished
        after the `stats` benchmark printed (while the DB closed); keep the first Comp(cnt) of them
        (the table counts flushes and compactions, not trivial moves)."""
        n = int(self.levels.get("Sum", {}).get("Comp(cnt)", -1))
        jobs = self.flushes + self.compactions
        if n < 0 or any("order" not in j for j in jobs) or len(jobs) <= n:
            return self
        keep = sorted(j["order"] for j in jobs)[:n]
        last = keep[-1] if keep else 0
        d = dict(self.__dict__)
        d["flushes"] = [f for f in self.flushes if f["order"] <= last]
        d["compactions"] = [c for c in self.compactions if c["order"] <= last]
        return DbBenchRun(**d)

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["level_files"] = {str(k): v for k, v in self.level_files.items()}
        return d

    @classmethod
    def from_dict(cls, d: dict) -> DbBenchRun:
        d = dict(d)
        d["level_files"] = {int(k): v for k, v in d.get("level_files", {}).items()}
        return cls(**d)


_BENCH = re.compile(r"^(\w+)\s*:\s*([\d.]+) micros/op .*?([\d.]+) seconds")


def parse_stdout(text: str) -> tuple[dict, dict, dict, dict]:
    """db_bench's standard output -> (micros/op, seconds, compaction stats rows, statistics)."""
    micros, secs, levels = {}, {}, {}
    header: list[str] | None = None
    for line in text.splitlines():
        m = _BENCH.match(line.strip())
        if m:
            micros[m.group(1)] = float(m.group(2))
            secs[m.group(1)] = float(m.group(3))
            continue
        tok = line.split()
        if tok[:2] == ["Level", "Files"]:
            header = tok
            continue
        if header and tok and re.fullmatch(r"L\d+|Sum", tok[0]):
            # "Files" is "n/m" and "Size" is "<value> <unit>": two tokens each -> normalise
            files = tok[1].split("/")[0]
            size = float(tok[2]) * {"B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40}[tok[3]]
            rest = tok[4:]
            row = {"Files": float(files), "Size": size}
            for name, val in zip(header[3:], rest):
                try:
                    row[name] = float(val.rstrip("K")) * (1000 if val.endswith("K") else 1)
                except ValueError:
                    continue
            levels[tok[0]] = row  # the last table printed wins (the final `stats`)
    return micros, secs, levels, parse_statistics(text)


_OPS = re.compile(r"^(\w+)\s*:\s*[\d.]+ micros/op (\d+) ops/sec")
_HIST = re.compile(r"^Microseconds per (\w+):")
_NUM = re.compile(r"([\w.]+): ([\d.]+)")


def parse_reports(text: str) -> tuple[dict[str, float], dict[str, dict[str, dict[str, float]]]]:
    """ops/sec of each benchmark and, with --histogram, its per-operation-type latency histograms (db_bench's
    `Stats::Report`: "Microseconds per read:" and HistogramImpl::ToString's Count/Average/Percentiles lines, which
    follow the benchmark's own line). A readwhilewriting's writer is not in them (BGWriter: SetExcludeFromMerge)."""
    ops: dict[str, float] = {}
    hists: dict[str, dict[str, dict[str, float]]] = {}
    bench, op = None, None
    for line in text.splitlines():
        line = line.strip()
        m = _OPS.match(line)
        if m:
            bench, op = m.group(1), None
            ops[bench] = float(m.group(2))
            continue
        m = _HIST.match(line)
        if m and bench is not None:
            op = m.group(1)
            hists.setdefault(bench, {})[op] = {}
            continue
        if op is not None and bench is not None and line.startswith(("Count:", "Min:", "Percentiles:")):
            hists[bench][op].update({k: float(v) for k, v in _NUM.findall(line)})
        elif line.startswith("---"):
            op = None
    return ops, hists


def parse_log(text: str) -> dict:
    """The EVENT_LOG_v1 events of a RocksDB LOG -> flushes, compactions and trivial moves."""
    flushes, compactions, moves = [], [], []
    done = 0  # flushes and compactions finished so far: each gets its place in that order
    created: dict[int, list[dict]] = {}
    started: dict[int, dict] = {}
    lsm_state: list[int] = []
    for line in text.splitlines():
        i = line.find("EVENT_LOG_v1 ")
        if i < 0:
            continue
        try:
            ev = json.loads(line[i + len("EVENT_LOG_v1 ") :])
        except json.JSONDecodeError:
            continue
        kind, job = ev.get("event"), ev.get("job")
        if kind == "table_file_creation":
            created.setdefault(job, []).append(ev)
        elif kind in ("flush_started", "compaction_started"):
            started[job] = ev
        elif kind == "flush_finished":
            files = created.pop(job, [])
            done += 1
            flushes.append(
                {
                    "order": done,
                    "bytes": sum(f["file_size"] for f in files),
                    "entries": sum(f["table_properties"]["num_entries"] for f in files),
                }
            )
        elif kind == "compaction_finished":
            created.pop(job, None)
            done += 1
            compactions.append(
                {
                    "order": done,
                    "output_level": ev["output_level"],
                    "input_bytes": started.pop(job, {}).get("input_data_size", 0),
                    "bytes": ev["total_output_size"],
                    "files": ev["num_output_files"],
                    "input_records": ev["num_input_records"],
                    "output_records": ev["num_output_records"],
                    "cpu_micros": ev["compaction_time_cpu_micros"],
                    "micros": ev["compaction_time_micros"],
                }
            )
        elif kind == "trivial_move":
            moves.append(
                {"destination_level": ev["destination_level"], "files": ev["files"], "bytes": ev["total_files_size"]}
            )
        if "lsm_state" in ev:
            lsm_state = ev["lsm_state"]
    return {
        "flushes": flushes,
        "compactions": compactions,
        "trivial_moves": moves,
        "level_files": {i: n for i, n in enumerate(lsm_state)},
    }


def _threads(pid: int) -> dict[int, tuple[str, float]]:
    """(name, CPU seconds) of each thread of process `pid` now: Linux's /proc/<pid>/task/<tid>/comm and schedstat
    (its first field: nanoseconds on a CPU, exact, where stat's utime and stime count 10 ms ticks)."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            name = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
            ns = int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        out[int(tid)] = ("main" if int(tid) == pid else name, ns * 1e-9)
    return out


def _run_sampled(cmd: list[str], every: float = 0.02) -> tuple[subprocess.CompletedProcess, dict[str, float]]:
    """Run `cmd`, sampling its threads' CPU every `every` seconds until it exits: the CPU seconds per thread name at
    the last sample (a thread's last `every` seconds are missed; threads that ended between samples keep theirs)."""
    last: dict[int, tuple[str, float]] = {}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        while p.poll() is None:
            last.update(_threads(p.pid))
            time.sleep(every)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(cmd, p.returncode, out.read(), err.read())
    cpu: dict[str, float] = {}
    for name, seconds in last.values():
        cpu[name] = cpu.get(name, 0.0) + seconds
    return done, cpu


def run_db_bench(
    args: list[str],
    binary: str = DEFAULT_BINARY,
    db: Path | None = None,
    keep_db: bool = False,
    thread_cpu: bool = False,
) -> DbBenchRun:
    """Run `binary` with `args` (without --db) on a fresh DB folder and parse what it reports.

    With `db`, that folder is used (and kept), so a later run may pass --use_existing_db=1. With `thread_cpu`, the
    run's CPU per thread name is sampled from /proc as it runs (Linux; `DbBenchRun.thread_cpu`)."""
    exe = shutil.which(binary)
    if exe is None:
        raise FileNotFoundError(f"{binary} not found: install Debian's rocksdb-tools (apt-get install rocksdb-tools)")
    tmp = None
    if db is None:
        tmp = tempfile.mkdtemp(prefix="lsmsim-dbbench-")
        db = Path(tmp) / "db"
    try:
        t0 = time.perf_counter()
        cmd = [exe, f"--db={db}", *args]
        cpu: dict[str, float] = {}
        if thread_cpu:
            proc, cpu = _run_sampled(cmd)
        else:
            proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"db_bench {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
        micros, secs, levels, stats = parse_stdout(proc.stdout)
        ops, hists = parse_reports(proc.stdout)
        log = Path(db) / "LOG"
        events = parse_log(log.read_text(errors="replace")) if log.exists() else {}
        return DbBenchRun(
            args=list(args),
            wall_s=wall,
            micros_per_op=micros,
            seconds=secs,
            levels=levels,
            statistics=stats,
            ops_per_sec=ops,
            histograms=hists,
            thread_cpu=cpu,
            **events,
        )
    finally:
        if tmp is not None and not keep_db:
            shutil.rmtree(tmp, ignore_errors=True)


__all__ = ["DbBenchRun", "parse_log", "parse_reports", "parse_stdout", "run_db_bench"]
