"""What a flush or compaction costs whatever its size, from a RocksDB LOG: the fixed CPU of a flush
(cpu.flush_per_job) and of a compaction output file (cpu.merge_per_file), and the fixed syncs of a job and of a file
(device.sync_per_job, device.sync_per_file).

With 64 MiB memtables these are a rounding error; with small ones they are most of the work: on the EPYC host on
2026-11-29 a 64 KiB memtable's flush took 1.18 ms of CPU and 3.1 ms of wall time, and db_bench's fillrandom ran 22x
slower at 64 KiB buffers than at 4 MiB while the per-entry and per-byte model predicted 1.5x
(benchmarks/buffer_sizes.py). The fit is least squares without negative terms over jobs of several sizes:

- a flush's CPU (the LOG's "Flush lasted W microseconds, and C cpu microseconds", FlushJob::WriteLevel0Table;
  db/flush_job.cc) against 1 and its bytes;
- a compaction's CPU (compaction_finished's compaction_time_cpu_micros) against its output files and the bytes it
  read and wrote;
- a compaction's wall time less its CPU time (the thread waits in fsync, and for a core) against 1, its output
  files and the bytes it wrote: the per-job and per-file parts are device.sync_per_job and device.sync_per_file
  (a flush's fixed wait, fitted beside them, is their sum when the model holds: 2.03 ms against 1.47 + 0.62 on
  the EPYC host).
"""

from __future__ import annotations

import re

import numpy as np
from scipy.optimize import nnls

_FLUSH_LASTED = re.compile(r"Flush lasted (\d+) microseconds, and (\d+) cpu microseconds")


def flush_times(log_text: str) -> list[tuple[float, float]]:
    """(wall seconds, CPU seconds) of each flush, in the LOG's order (one line per flush job)."""
    return [(int(w) * 1e-6, int(c) * 1e-6) for w, c in _FLUSH_LASTED.findall(log_text)]


# fillrandom without the WAL at small buffers (files as large, L1 four buffers), 400-byte values: (buffer, writes)
RUNS = ((64 << 10, 100_000), (1 << 20, 300_000))


def measure_job_costs() -> list[dict]:
    """db_bench runs whose jobs span 100x in size: each run's flushes (bytes, wall and CPU seconds from the LOG)
    and compactions (`parse_log`'s records), for `fit_job_costs`. About 20 s on a 2-core VM."""
    import shutil
    import tempfile
    from pathlib import Path

    from .dbbench import run_db_bench

    out = []
    for buffer, num in RUNS:
        args = [
            "--benchmarks=fillrandom",
            f"--num={num}",
            "--key_size=16",
            "--value_size=400",
            "--compression_type=none",
            "--disable_wal=1",
            f"--write_buffer_size={buffer}",
            f"--target_file_size_base={buffer}",
            f"--max_bytes_for_level_base={4 * buffer}",
        ]
        d = Path(tempfile.mkdtemp(prefix="lsmsim-job-costs-")) / "db"
        try:
            r = run_db_bench(args, db=d, keep_db=True)
            times = flush_times((d / "LOG").read_text(errors="replace"))
        finally:
            shutil.rmtree(d.parent, ignore_errors=True)
        flushes = [{"bytes": f["bytes"], "wall_s": w, "cpu_s": c} for f, (w, c) in zip(r.flushes, times)]
        out.append({"buffer": buffer, "flushes": flushes, "compactions": r.compactions})
    return out


def _fit(columns: list[np.ndarray], y: np.ndarray) -> np.ndarray:
    x, _ = nnls(np.column_stack(columns), y)
    return x


def fit_job_costs(flushes: list[dict], compactions: list[dict]) -> dict[str, float]:
    """Fixed costs (seconds) from jobs of several sizes.

    `flushes`: dicts with `bytes` (output), `cpu_s` and `wall_s`; `compactions`: the LOG's compaction_finished
    records (`validation.dbbench.parse_log`: files, input_bytes, bytes, cpu_micros, micros). Keys: flush_per_job,
    merge_per_file, sync_per_job, sync_per_file, and the linear terms fitted beside them (`_`-prefixed: per byte).
    Raises ValueError when the jobs do not vary enough in size to tell a fixed cost from a per-byte one."""
    if len(flushes) < 3 or len(compactions) < 3:
        raise ValueError(f"{len(flushes)} flushes and {len(compactions)} compactions: too few to fit fixed costs")
    fb = np.array([f["bytes"] for f in flushes], float)
    fcpu = np.array([f["cpu_s"] for f in flushes], float)
    fwait = np.array([f["wall_s"] - f["cpu_s"] for f in flushes], float)
    files = np.array([c["files"] for c in compactions], float)
    cin = np.array([c["input_bytes"] for c in compactions], float)
    cout = np.array([c["bytes"] for c in compactions], float)
    ccpu = np.array([c["cpu_micros"] for c in compactions], float) * 1e-6
    cwait = np.array([c["micros"] - c["cpu_micros"] for c in compactions], float) * 1e-6
    for name, v in (("flush bytes", fb), ("compaction bytes", cout)):
        if v.max() < 4 * max(v.min(), 1.0):
            raise ValueError(f"{name} span less than 4x ({v.min():.0f}-{v.max():.0f}): fixed and per-byte costs alike")
    one_f, one_c = np.ones(len(fb)), np.ones(len(cout))
    flush_job, flush_byte = _fit([one_f, fb], fcpu)
    merge_file, merge_byte = _fit([files, cin + cout], ccpu)
    # the syncs from the compactions, whose output files vary (a flush writes one): wait = job + files x file +
    # bytes x per byte; the flushes' own fixed wait is fitted beside it, as a check (it should be job + file)
    sync_job, sync_file, sync_byte = _fit([one_c, files, cout], cwait)
    flush_wait, _ = _fit([one_f, fb], fwait)
    return {
        "flush_per_job": float(flush_job),
        "merge_per_file": float(merge_file),
        "sync_per_job": float(sync_job),
        "sync_per_file": float(sync_file),
        "_flush_per_byte": float(flush_byte),
        "_merge_per_byte_read_or_written": float(merge_byte),
        "_sync_per_byte": float(sync_byte),
        "_flush_fixed_wait": float(flush_wait),
    }


__all__ = ["RUNS", "fit_job_costs", "flush_times", "measure_job_costs"]
