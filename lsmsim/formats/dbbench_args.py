"""A db_bench command line (tools/db_bench_tool.cc, RocksDB 7.8) as an lsmsim config: its benchmarks as phases,
its options as the lsm, policy and machine sections. `lsmsim run --dbbench "--benchmarks=fillrandom --num=1000000"`.

Benchmarks, with db_bench's semantics (as `workload.preset` has them: lsmsim/workloads/presets.py):
fillrandom (num puts per thread, uniform keys with replacement), fillseq, overwrite (num uniform puts), updaterandom
(a get and a put each), deleterandom, readrandom and readmissing (`reads` gets per thread, default num), seekrandom
(Seek + `seek_nexts` Next), readrandomwriterandom (`--readwritepercent` gets, the rest puts, in every thread),
readwhilewriting and seekrandomwhilewriting (`--threads` readers and one writer, `--benchmark_write_rate_limit`),
mixgraph (its key, value, Seek-length and sine-rate models: workloads/mixgraph.py), waitforcompaction (the phase
before it waits), flush (the phase before it ends with a flush); `--duration` makes
every benchmark run that many seconds. `stats`, `levelstats` and `sstables` print and change nothing; every
other benchmark is unsupported and named. Flags lsmsim has no model for are named too;
db_bench's own defaults apply where a flag is absent (it compresses with snappy unless --compression_type=none,
which lsmsim, modelling uncompressed data, reports).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..sweeps.spec import set_path
from ..workloads import mixgraph
from .options_file import COMPACTION_PRI as ROCKSDB_PRI
from .options_file import LEVELED, LSM, bg_job_limits, option_value

# flag -> lsmsim path: db_bench's flags share the names of RocksDB's options (options_file.py maps those), plus
# db_bench's own
OPTION_FLAGS: dict[str, str] = {
    **{name: path for (_, name), path in LSM.items()},
    "rate_limiter_bytes_per_sec": "lsm.rate_limiter_bytes_per_sec",
    "cache_size": "lsm.block_cache_size",
    "num": "workload.num",
    "key_size": "workload.key_size",
    "value_size": "workload.value_size",
    "seed": "seed",
}
UNIVERSAL_FLAGS = {
    "universal_size_ratio": "size_ratio",
    "universal_min_merge_width": "min_merge_width",
    "universal_max_merge_width": "max_merge_width",
    "universal_max_size_amplification_percent": "max_size_amplification_percent",
}
COMPACTION_PRI = list(ROCKSDB_PRI.values())  # db_bench's --compaction_pri is the enum's value, in this order
WORKLOAD_FLAGS = {
    "benchmarks",
    "reads",
    "writes",
    "duration",
    "readwritepercent",
    "benchmark_write_rate_limit",
    "threads",
    "seek_nexts",
    "disable_wal",
    "sync",
    "bloom_bits",
    "compression_type",
    "max_background_jobs",
    "max_background_flushes",
    "max_background_compactions",
    "compaction_style",
    "compaction_pri",
}
IGNORED = {
    "db",
    "statistics",
    "histogram",
    "stats_interval",
    "stats_interval_seconds",
    "stats_per_interval",
    "stats_dump_period_sec",
    "report_interval_seconds",
    "report_file",
    "use_existing_db",
    "progress_reports",
    "perf_level",
    "benchmark_read_rate_limit",
    "options_file",
    "wal_dir",
    "max_open_files",
    "open_files",
}
QUIET = {"stats", "levelstats", "sstables"}
# mixgraph's flags and db_bench 7.8's defaults (tools/db_bench_tool.cc; --mix_accesses is defined and never read)
MIXGRAPH_FLAGS = {
    **{f"keyrange_dist_{x}": "0" for x in "abcd"},
    "keyrange_num": "1",
    "key_dist_a": "0",
    "key_dist_b": "0",
    "value_theta": "0",
    "value_k": "0.2615",
    "value_sigma": "25.45",
    "iter_theta": "0",
    "iter_k": "2.517",
    "iter_sigma": "14.236",
    "mix_get_ratio": "1",
    "mix_put_ratio": "0",
    "mix_seek_ratio": "0",
    "mix_max_scan_len": "10000",
    "mix_max_value_size": "1024",
    "sine_mix_rate": "false",
    **{f"sine_{x}": v for x, v in zip("abcd", ("1", "1", "0", "1"))},
    "sine_mix_rate_interval_milliseconds": "10000",
    "sine_mix_rate_noise": "0",
}


def _flags(args: str) -> dict[str, str]:
    """`--name=value`, `--name value`, `--name` / `--noname` (booleans), as gflags reads them."""
    try:
        tokens = shlex.split(args)
    except ValueError as e:
        raise ConfigError("--dbbench", [("(arguments)", f"cannot split: {e}")]) from None
    out: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if not t.startswith("-"):
            raise ConfigError("--dbbench", [(t, "not a flag (db_bench takes --name=value)")])
        name = t.lstrip("-")
        if "=" in name:
            name, value = name.split("=", 1)
        elif i + 1 < len(tokens) and not tokens[i + 1].startswith("-"):
            value, i = tokens[i + 1], i + 1
        elif name.startswith("no") and len(name) > 2:
            name, value = name[2:], "false"
        else:
            value = "true"
        out[name] = value
        i += 1
    return out


def _convert(name: str, text: str, kind=None) -> Any:
    """A flag's text as `kind` (int, float, bool), or, without one, as an option's number or boolean."""
    try:
        if kind is None:
            return option_value(text)
        if kind is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return text.lower() in ("true", "1")
        return kind(float(text)) if kind is int else kind(text)
    except (ValueError, OverflowError):
        raise ConfigError(
            "--dbbench", [(f"--{name}", f"expected {getattr(kind, '__name__', 'a value')}, got {text!r}")]
        ) from None


@dataclass
class _Flags:
    """The workload flags of a db_bench line, as db_bench reads them (tools/db_bench_tool.cc, RocksDB 7.8)."""

    num: int
    reads: int  # per thread (default num)
    writes: int  # per thread (default num)
    nexts: int
    threads: int
    duration: int
    percent: int  # readrandomwriterandom's reads
    rate: int  # readwhilewriting's writer, bytes/s (0: unthrottled)
    graph: dict[str, float]  # mixgraph's flags (MIXGRAPH_FLAGS)


def _workload_flags(f: dict[str, str], num: int) -> _Flags:
    def flag(name: str, default: str) -> int:
        return _convert(name, f.get(name, default), int)

    reads, writes = flag("reads", "-1"), flag("writes", "-1")
    w = _Flags(
        num=num,
        reads=num if reads < 0 else reads,
        writes=num if writes < 0 else writes,
        nexts=flag("seek_nexts", "0"),
        threads=max(1, flag("threads", "1")),
        duration=flag("duration", "0"),
        percent=flag("readwritepercent", "90"),
        rate=flag("benchmark_write_rate_limit", "0"),
        graph={
            name: float(_convert(name, f.get(name, default), bool if name == "sine_mix_rate" else float))
            for name, default in MIXGRAPH_FLAGS.items()
        },
    )
    if not 0 < w.percent < 100:  # db_bench's ValidateInt32Percent refuses 0 and 100
        raise ConfigError("--dbbench", [("--readwritepercent", f"{w.percent}: db_bench takes 1..99")])
    return w


def _found(written: float) -> dict:
    """The reads' mix: a Get finds its key with the chance that `written` uniform writes (x num) wrote it."""
    p = 1.0 if written == math.inf else 1.0 - math.exp(-written)
    return {"get": p, "get_empty": 1.0 - p} if 0 < p < 1 else {"get" if p >= 1 else "get_empty": 1.0}


def _seeks(w: _Flags) -> dict:
    if w.nexts == 0:
        return {"mix": {"short_scan": 1.0}, "short_scan_length": 1}
    return {"mix": {"long_scan": 1.0}, "scan_length": w.nexts}


def _benchmark(bench: str, w: _Flags, written: float, unsupported: list) -> tuple[dict, int] | None:
    """One benchmark as a phase and its operations (None: not a phase)."""
    p: dict[str, Any] = {"name": bench, "writers": {"threads": w.threads}, "keys": {"distribution": "uniform"}}
    t = w.threads
    if bench in ("fillrandom", "overwrite"):  # each thread writes `writes` (DoWrite: num_ops = writes_ or num_)
        p["mix"] = {"insert": 1.0} if bench == "fillrandom" else {"update": 1.0}
        return p, w.writes * t
    if bench == "fillseq":
        return {**p, "mix": {"insert": 1.0}, "keys": {"distribution": "sequential"}}, w.num * t
    if bench == "updaterandom":  # a Get, then a Put of the same key
        return {**p, "mix": {"get": 0.5, "update": 0.5}}, 2 * w.reads * t
    if bench == "deleterandom":
        return {**p, "mix": {"delete": 1.0}}, w.num * t
    if bench in ("readrandom", "readmissing"):
        return {**p, "mix": _found(written) if bench == "readrandom" else {"get_empty": 1.0}}, w.reads * t
    if bench == "seekrandom":
        return {**p, **_seeks(w)}, w.reads * t
    if bench == "readrandomwriterandom":  # every thread: a Get with readwritepercent %, else a Put
        mix = {k: v * w.percent / 100 for k, v in _found(written).items()}
        return {**p, "mix": {**mix, "insert": 1 - w.percent / 100}}, max(w.reads, w.writes) * t
    if bench in ("readwhilewriting", "seekrandomwhilewriting"):
        # `threads` readers and one more thread writing until they finish (BGWriter), at --benchmark_write_rate_limit
        # bytes/s when given; db_bench reports the readers only. Two groups: the writer runs the mix's writes, the
        # readers its reads (foreground.make_groups), each a closed loop (or the writer at its rate), so the mix's
        # write share sets no rate
        reads = {"mix": _found(written)} if bench == "readwhilewriting" else _seeks(w)
        p.update(reads, queries={"mode": "closed", "threads": t})
        p["mix"] = {**p["mix"], "insert": 1.0}
        p["writers"] = {"mode": "rate", "rate": w.rate} if w.rate > 0 else {"threads": 1}
        if not w.duration:
            unsupported.append(
                (f"--benchmarks={bench}", "without --duration the phase's operations count the writer's too")
            )
        return p, w.reads * t
    if bench == "mixgraph":
        return _mixgraph(p, w, written, unsupported), w.reads * t
    if bench not in QUIET and bench not in ("waitforcompaction", "flush"):
        unsupported.append((f"--benchmarks={bench}", "no lsmsim phase for it; skipped"))
    return None


def _mixgraph(p: dict, w: _Flags, written: float, unsupported: list) -> dict:
    """db_bench's mixgraph as a phase (workloads/mixgraph.py): its keys, its Get/Put/Seek shares, the mean value
    size of its Puts and the mean length of its Seeks, and its sine rate limit."""
    g = w.graph
    ratios = g["mix_get_ratio"], g["mix_put_ratio"], g["mix_seek_ratio"]
    get, put, seek = mixgraph.query_shares(*ratios, num=w.num)
    bands = mixgraph.query_bands(*ratios)
    ranges = [g[f"keyrange_dist_{x}"] for x in "abcd"]
    reach = mixgraph.key_space_share(g["key_dist_a"], g["key_dist_b"], any(ranges))
    if reach < 1:
        p["found_reach"] = reach
    found = _found(written)
    mix = {"get": get * reach * found.get("get", 0.0)}
    mix["get_empty"] = get - mix["get"]
    mix = {k: v for k, v in mix.items() if v > 0}
    mix["insert"] = put
    keys = {"distribution": "mixgraph", "key_dist_a": g["key_dist_a"], "key_dist_b": g["key_dist_b"]}
    if g["key_dist_a"] != 0 and g["key_dist_b"] != 0:  # a Random64 seeded per key (machine.cpu.mixgraph_key)
        p["key_draw"] = "mixgraph"
    if any(ranges):
        if g["key_dist_a"] == 0 or g["key_dist_b"] == 0:
            unsupported.append(("--keyrange_dist_*", "db_bench ignores the key ranges without --key_dist_a/b: uniform"))
        keys.update(keyrange_dist=ranges, keyrange_num=max(1, int(g["keyrange_num"])))
    p.update(keys=keys, mix=mix)
    if put > 0:
        p["value_size"] = round(
            mixgraph.mean_value_size(
                g["value_theta"], g["value_k"], g["value_sigma"], int(g["mix_max_value_size"]), w.num, bands[1]
            )
        )
    if seek > 0:
        nexts = round(
            mixgraph.mean_scan_length(
                g["iter_theta"], g["iter_k"], g["iter_sigma"], int(g["mix_max_scan_len"]), w.num, bands[2]
            )
        )
        if nexts >= 1:  # the mean from the Seeks' own draws (their residues of QueryDecider's), the spread from all u
            mix["long_scan"], p["scan_length"] = seek, nexts
            p["scan_lengths"] = {
                "distribution": "pareto",
                "max": int(g["mix_max_scan_len"]),
                **{x: g[f"iter_{x}"] for x in ("theta", "k", "sigma")},
            }
        else:
            mix["short_scan"], p["short_scan_length"] = seek, 1
    if g["sine_mix_rate"]:
        p["sine_rate"] = {
            **{x: g[f"sine_{x}"] for x in "abcd"},
            "interval": g["sine_mix_rate_interval_milliseconds"] / 1000.0,
            "noise": g["sine_mix_rate_noise"],
        }
    return p


def _phases(f: dict[str, str], num: int, unsupported: list) -> list[dict]:
    """db_bench's benchmarks as phases. With `--duration` every benchmark runs that long instead of its operations.
    A Get finds its key with the chance that the writes before it wrote it (uniform keys with replacement:
    1 - exp(-writes / num); fillseq writes them all); after writes that ran for a `--duration`, or in a benchmark that
    writes uniform keys itself (readrandomwriterandom, readwhilewriting, updaterandom), with the share of the keys
    live as its phase runs (`found: live`). mixgraph's power-model keys reach half the key space (`found_reach`)."""
    w = _workload_flags(f, num)
    written = 0.0  # uniform writes so far, in units of num
    unknown = False  # whether a write phase ran for a --duration (its writes unknown until simulated)
    phases: list[dict] = []
    for bench in (b.strip() for b in f.get("benchmarks", "").split(",") if b.strip()):
        if bench in ("waitforcompaction", "flush") and phases:
            phases[-1]["wait_for_compactions" if bench == "waitforcompaction" else "flush"] = True
        made = _benchmark(bench, w, written, unsupported)
        if made is None:
            continue
        p, ops = made
        mix = p.get("mix", {})
        if mix.get("get", 0) or mix.get("get_empty", 0):
            if (unknown and w.duration > 0) or (bench != "mixgraph" and (mix.get("insert", 0) or mix.get("update", 0))):
                p["found"] = "live"  # the writes before ran for a time, or the phase's own make keys live as it runs
        if w.duration > 0:
            p["duration"] = float(w.duration)
        else:
            p["operations"] = ops
        phases.append(p)
        unknown = unknown or (w.duration > 0 and any(p.get("mix", {}).get(k, 0) for k in ("insert", "update")))
        if bench == "fillseq":
            written = math.inf
        elif written != math.inf and not w.duration and "queries" not in p:
            written += ops * (p["mix"].get("insert", 0.0) + p["mix"].get("update", 0.0)) / num
    if not phases:
        raise ConfigError(
            "--dbbench",
            [
                (
                    "--benchmarks",
                    "names no benchmark lsmsim runs (fillrandom, fillseq, overwrite, updaterandom, deleterandom, "
                    "readrandom, readmissing, seekrandom, readrandomwriterandom, readwhilewriting, "
                    "seekrandomwhilewriting, mixgraph)",
                )
            ],
        )
    return phases


def dbbench_config(args: str) -> tuple[dict, list[tuple[str, str]]]:
    """The lsmsim config of a db_bench argument string, and the flags it could not map (flag, why)."""
    f = _flags(args)
    unsupported: list[tuple[str, str]] = []
    cfg: dict[str, Any] = {"name": "db_bench"}
    for name, path in OPTION_FLAGS.items():
        if name in f:
            set_path(cfg, path, _convert(name, f[name]))
    num = cfg.get("workload", {}).get("num", 1_000_000)
    set_path(cfg, "workload.num", num)
    cfg["workload"]["phases"] = _phases(f, num, unsupported)
    bits = _convert("bloom_bits", f.get("bloom_bits", "-1"), float)
    set_path(cfg, "lsm.bloom_bits_per_key", max(0.0, bits))  # db_bench: -1, no filter
    set_path(cfg, "lsm.wal", not _convert("disable_wal", f.get("disable_wal", "false"), bool))
    set_path(cfg, "lsm.wal_sync", _convert("sync", f.get("sync", "false"), bool))  # write_options_.sync = FLAGS_sync
    if f.get("compression_type", "snappy") != "none":
        unsupported.append(
            (
                "--compression_type",
                f"{f.get('compression_type', 'snappy (the default)')}: lsmsim models uncompressed data",
            )
        )
    jobs, fl, co = (
        _convert(k, f.get(k, d), int)
        for k, d in (
            ("max_background_jobs", "2"),
            ("max_background_flushes", "-1"),
            ("max_background_compactions", "-1"),
        )
    )
    fl, co = bg_job_limits(jobs, fl, co)
    set_path(cfg, "machine.threads", {"flush": fl, "compaction": co})
    style = _convert("compaction_style", f.get("compaction_style", "0"), int)
    if style == 0:
        cfg["policy"] = {"name": "leveled"}
        for name in LEVELED:
            if name in f:
                cfg["policy"][name] = _convert(name, f[name])
        if "compaction_pri" in f:
            pri = _convert("compaction_pri", f["compaction_pri"], int)
            if not 0 <= pri < len(COMPACTION_PRI):
                raise ConfigError(
                    "--dbbench", [("--compaction_pri", f"{pri}: db_bench takes 0..{len(COMPACTION_PRI) - 1}")]
                )
            cfg["policy"]["compaction_pri"] = COMPACTION_PRI[pri]
    elif style == 1:
        cfg["policy"] = {"name": "universal"}
        for name in ("num_levels", "level0_file_num_compaction_trigger"):
            if name in f:
                cfg["policy"][name] = _convert(name, f[name], int)
        for flag, name in UNIVERSAL_FLAGS.items():
            if flag in f:
                cfg["policy"][name] = _convert(flag, f[flag], float if name == "size_ratio" else int)
    else:
        raise ConfigError("--dbbench", [("--compaction_style", f"{style}: lsmsim runs 0 (level) and 1 (universal)")])
    known = set(OPTION_FLAGS) | set(LEVELED) | set(UNIVERSAL_FLAGS) | WORKLOAD_FLAGS | IGNORED | set(MIXGRAPH_FLAGS)
    known.add("mix_accesses")
    unsupported += [(f"--{name}", "not a flag lsmsim maps") for name in f if name not in known]
    return cfg, unsupported


__all__ = ["dbbench_config"]
