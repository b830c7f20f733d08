"""A simulated run as RocksDB's LOG: the EVENT_LOG_v1 lines of every flush and compaction and the periodic
`** DB Stats **` and `** Compaction Stats [default] **` blocks, in RocksDB 7.8.3's layout, so that tools that read
a real LOG (this package's `dbbench.parse_log` and `parse_stdout`, the RocksDB Advisor, scripts that grep for
`compaction_finished`) read the simulator's.

The events and their fields follow RocksDB: db/flush_job.cc (`flush_started`, `flush_finished`),
db/event_helpers.cc (`table_file_creation`, `table_file_deletion`), db/compaction/compaction_job.cc
(`compaction_started`, `compaction_finished`), db/db_impl/db_impl_compaction_flush.cc (`trivial_move`). The stats
blocks follow db/internal_stats.cc (`DumpDBStats`, `DumpCFMapStats`, `PrepareLevelStats`, `PrintLevelStats` of
7.8.3, which has no WPreComp column): a level's row sums the jobs whose output is that level (flushes are L0's);
W-Amp is bytes written over bytes read from the level above (L0: over bytes flushed). What the simulator does not
track is written as RocksDB writes it when it has nothing to say: a level's Score as 0.0, `being_compacted` files 0.
Times are the simulated clock from 1970/01/01 00:00:00.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

ROCKSDB_VERSION = "7.8.3"
HEADER = (
    "Level    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) Wnew(GB) Moved(GB) W-Amp Rd(MB/s) "
    "Wr(MB/s) Comp(sec) CompMergeCPU(sec) Comp(cnt) Avg(sec) KeyIn KeyDrop Rblob(GB) Wblob(GB)"
)
GB, MB = float(1 << 30), float(1 << 20)
THREAD = 1000  # a thread id for the log lines


def _stamp(t: float) -> str:
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=max(0.0, t))
    return d.strftime("%Y/%m/%d-%H:%M:%S.%f")


def _event(t: float, fields: dict) -> tuple[float, str]:
    body = json.dumps({"time_micros": int(round(t * 1e6)), **fields})
    return t, f"{_stamp(t)} {THREAD} EVENT_LOG_v1 {body}"


def bytes_human(b: float) -> str:
    """util/string_util.cc BytesToHumanString."""
    for unit, size in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20)):
        if b >= size:
            return f"{b / size:.2f} {unit}"
    return f"{b / 1024:.2f} KB"


def number_human(n: float) -> str:
    """util/string_util.cc NumberToHumanString."""
    n = int(n)
    a = abs(n)
    if a < 10000:
        return str(n)
    if a < 10000000:
        return f"{n // 1000}K"
    if a < 10000000000:
        return f"{n // 1000000}M"
    return f"{n // 1000000000}G"


def compaction_reason(row) -> str:
    """RocksDB's CompactionReason name for an lsmsim job (the policy's own words when RocksDB has none)."""
    r = str(row["reason"]).lower()
    for key, name in (
        ("size amplification", "UniversalSizeAmplification"),
        ("size ratio", "UniversalSizeRatio"),
        ("sorted run count", "UniversalSortedRunNum"),
        ("marked", "FilesMarkedForCompaction"),
        ("tombstone", "FilesMarkedForCompaction"),
    ):
        if key in r:
            return name
    if r.startswith("l0 files") or r == "l0 -> l1":
        return "LevelL0FilesNum"
    if r.endswith(" size"):
        return "LevelMaxLevelSize"
    return f"lsmsim: {row['reason']}"


def job_events(jobs) -> list[tuple[float, str]]:
    """Every job of `jobs` (a Result's compactions table) as RocksDB's events, each with its time."""
    out = []
    for job, row in enumerate(jobs.itertuples(index=False), start=2):
        r = row._asdict()
        state = [int(x) for x in r["lsm_state"]]
        outputs = list(zip(r["output_file_ids"], r["output_file_bytes"]))
        out_bytes = max(1, sum(b for _, b in outputs))
        if r["kind"] == "trivial_move":
            total = int(sum(b for _, b in outputs))
            out.append(
                _event(
                    r["end"],
                    {
                        "job": job,
                        "event": "trivial_move",
                        "destination_level": int(r["output_level"]),
                        "files": len(outputs),
                        "total_files_size": total,
                    },
                )
            )
            continue
        created = [
            _event(
                r["end"],
                {
                    "cf_name": "default",
                    "job": job,
                    "event": "table_file_creation",
                    "file_number": int(i),
                    "file_size": int(b),
                    "table_properties": {"num_entries": round(r["output_entries"] * b / out_bytes)},
                },
            )
            for i, b in outputs
        ]
        if r["kind"] == "flush":
            out.append(
                _event(
                    r["start"],
                    {
                        "job": job,
                        "event": "flush_started",
                        "num_memtables": 1,
                        "num_entries": int(r["input_entries"]),
                        "num_deletes": 0,
                        "flush_reason": "Write Buffer Full",
                    },
                )
            )
            out += created
            out.append(
                _event(
                    r["end"],
                    {
                        "job": job,
                        "event": "flush_finished",
                        "output_compression": "NoCompression",
                        "lsm_state": state,
                        "immutable_memtables": 0,
                    },
                )
            )
            continue
        by_level: dict[int, list[int]] = {}
        for i, lvl in zip(r["input_file_ids"], r["input_file_levels"]):
            by_level.setdefault(int(lvl), []).append(int(i))
        started = {"job": job, "event": "compaction_started", "compaction_reason": compaction_reason(r)}
        started.update({f"files_L{lvl}": ids for lvl, ids in sorted(by_level.items())})
        started["input_data_size"] = int(r["read_bytes"])
        out.append(_event(r["start"], started))
        out += created
        out.append(
            _event(
                r["end"],
                {
                    "job": job,
                    "event": "compaction_finished",
                    "compaction_time_micros": int(round((r["end"] - r["start"]) * 1e6)),
                    "compaction_time_cpu_micros": int(round(r["cpu_s"] * 1e6)),
                    "output_level": int(r["output_level"]),
                    "num_output_files": len(outputs),
                    "total_output_size": int(r["write_bytes"]),
                    "num_input_records": int(r["input_entries"]),
                    "num_output_records": int(r["output_entries"]),
                    "num_subcompactions": 1,
                    "output_compression": "NoCompression",
                    "lsm_state": state,
                },
            )
        )
        out += [
            _event(r["end"], {"job": job, "event": "table_file_deletion", "file_number": int(i)})
            for i in r["input_file_ids"]
        ]
    return out


def level_rows(jobs, ts_row: dict | None, t: float) -> list[str]:
    """The Compaction Stats table at time `t`: the jobs finished by then, the tree of the sample at `t`."""
    done = jobs[jobs["end"] <= t + 1e-9]
    flushed = float(done.loc[done["kind"] == "flush", "write_bytes"].sum())
    rows, total = (
        [],
        {k: 0.0 for k in ("files", "size", "rn", "rnp1", "w", "moved", "sec", "cpu", "cnt", "kin", "kdrop")},
    )
    levels = sorted(
        set(done["output_level"].astype(int))
        | {int(k[len("files_L") :]) for k, v in (ts_row or {}).items() if k.startswith("files_L") and v}
    )
    for lvl in levels:
        d = done[done["output_level"] == lvl]
        moves = d[d["kind"] == "trivial_move"]
        work = d[d["kind"] != "trivial_move"]
        v = {
            "files": float((ts_row or {}).get(f"files_L{lvl}", 0)),
            "size": float((ts_row or {}).get(f"bytes_L{lvl}", 0)),
            "rn": float(work["rn_bytes"].sum()),
            "rnp1": float((work["read_bytes"] - work["rn_bytes"]).sum()),
            "w": float(work["write_bytes"].sum()),
            "moved": float(sum(sum(b) for b in moves["output_file_bytes"])),
            "sec": float((work["end"] - work["start"]).sum()),
            "cpu": float(work["cpu_s"].sum()),
            "cnt": float(len(work)),
            "kin": float(work.loc[work["kind"] != "flush", "input_entries"].sum()),
            "kdrop": float(
                (work["input_entries"] - work["output_entries"]).clip(lower=0)[work["kind"] != "flush"].sum()
            ),
        }
        w_amp = (v["w"] / flushed if flushed else 0.0) if lvl == 0 else (v["w"] / v["rn"] if v["rn"] else 0.0)
        rows.append(_level_line(f"L{lvl}", v, w_amp))
        for k in total:
            total[k] += v[k]
    rows.append(_level_line("Sum", total, total["w"] / flushed if flushed else 0.0))
    return rows


def _level_line(name: str, v: dict, w_amp: float) -> str:
    read = v["rn"] + v["rnp1"]
    elapsed = v["sec"] + 1e-6
    return (
        f"{name:>4} {int(v['files']):6d}/{0:<3d} {bytes_human(v['size']):>10} {0.0:5.1f} {read / GB:8.1f} "
        f"{v['rn'] / GB:7.1f} {v['rnp1'] / GB:8.1f} {v['w'] / GB:9.1f} {(v['w'] - v['rnp1']) / GB:8.1f} "
        f"{v['moved'] / GB:9.1f} {w_amp:5.1f} {read / MB / elapsed:8.1f} {v['w'] / MB / elapsed:8.1f} "
        f"{v['sec']:9.2f} {v['cpu']:17.2f} {int(v['cnt']):9d} {v['sec'] / v['cnt'] if v['cnt'] else 0.0:8.3f} "
        f"{number_human(v['kin']):>7} {number_human(v['kdrop']):>6} {0.0:9.1f} {0.0:9.1f}"
    )


def stats_block(result, t: float, last_t: float) -> list[str]:
    """`** DB Stats **` and `** Compaction Stats [default] **` at time `t` (db/internal_stats.cc)."""
    ts = result.timeseries
    row = None
    if len(ts):
        before = ts[ts["time"] <= t + 1e-9]
        row = (before.iloc[-1] if len(before) else ts.iloc[0]).to_dict()
    s = result.summary
    ingest = float((row or {}).get("user_bytes", 0.0))
    total = float(s.get("user_bytes", 0.0))
    at_end = t >= float(s.get("sim_time_s", 0.0)) - 1e-9
    # writes by time t: the run's writes in the share of its user bytes ingested by then (samples carry the bytes)
    writes = float(s.get("ops_write", 0.0)) * (1.0 if at_end or not total else min(1.0, ingest / total))
    lines = [
        "** DB Stats **",
        f"Uptime(secs): {t:.1f} total, {t - last_t:.1f} interval",
        f"Cumulative writes: {number_human(writes)} writes, {number_human(writes)} keys, "
        f"{number_human(writes)} commit groups, 1.0 writes per commit group, ingest: {ingest / GB:.2f} GB, "
        f"{ingest / MB / max(t, 1e-9):.2f} MB/s",
    ]
    if at_end:  # the run's exact stall time
        stall = float(s.get("stall_stop_s", 0.0)) + float(s.get("stall_slowdown_s", 0.0))
    else:  # by time t: the sample intervals that ended in a stall (the samples carry the state, not its time)
        upto = ts[ts["time"] <= t + 1e-9] if len(ts) else ts
        dt = upto["time"].diff().fillna(upto["time"]) if len(upto) else upto
        stall = float(dt[upto["stall"] != "none"].sum()) if len(upto) else 0.0
    hms = f"{int(stall // 3600):02d}:{int(stall % 3600 // 60):02d}:{stall % 60:.3f}"  # as DumpDBStats prints it
    lines += [
        f"Cumulative stall: {hms} H:M:S, {100 * stall / max(t, 1e-9):.1f} percent",
        "",
        "** Compaction Stats [default] **",
        HEADER,
        "-" * len(HEADER),
        *level_rows(result.compactions, row, t),
        "",
    ]
    return lines


def write_log(result, path: str | Path, period: float = 600.0) -> Path:
    """Write `result` (a `lsmsim.result.Result`) as a RocksDB LOG at `path`: the events, then a stats dump every
    `period` simulated seconds (RocksDB's stats_dump_period_sec, 600 by default) and one at the end."""
    end = float(result.summary.get("sim_time_s", 0.0))
    lines: list[tuple[float, str]] = [
        (0.0, f"{_stamp(0)} {THREAD} RocksDB version: {ROCKSDB_VERSION} (lsmsim simulation)"),
        (0.0, f"{_stamp(0)} {THREAD} DB SUMMARY"),
    ]
    jobs = result.compactions
    if len(jobs):
        lines += job_events(jobs)
    t, last = period, 0.0
    dumps = []
    while t < end:
        dumps.append((t, last))
        last, t = t, t + period
    dumps.append((end, last))
    for at, prev in dumps:
        body = "\n".join(stats_block(result, at, prev))
        lines.append(
            (
                at + 1e-7,
                f"{_stamp(at)} {THREAD} [db/db_impl/db_impl.cc:1020] ------- DUMPING STATS -------\n"
                f"{_stamp(at)} {THREAD} [db/db_impl/db_impl.cc:1021] \n{body}",
            )
        )
    lines.sort(key=lambda x: x[0])
    text = "\n".join(line for _, line in lines) + "\n"
    path = Path(path)
    from ..atomic import atomic_write

    atomic_write(path, lambda tmp: Path(tmp).write_text(text))
    return path


__all__ = ["write_log", "job_events", "bytes_human", "number_human", "compaction_reason"]
