"""lsmsim's config of db_bench invocations run in turn on one DB, the last one measured: the regimes
(regimes.py) and calibrate's 50/50 speed-up (contention.py) run their db_bench lines so."""

from __future__ import annotations

import copy
import math


def found_after(mix: dict, written: float, num: int) -> None:
    """Split a db_bench invocation's Gets (`mix`, in place) into found and not: the invocation alone does not know
    the keys written before it (by earlier processes on the DB), so a Get finds its key with the chance that the
    `written` writes (uniform over `num` keys, with replacement) wrote it."""
    found = 1.0 - math.exp(-written / num)
    reads = mix.pop("get", 0.0) + mix.pop("get_empty", 0.0)
    mix.update(get=reads * found, get_empty=reads * (1.0 - found))


def writes_of(args, num: int) -> float:
    """The keys a db_bench invocation writes: fillrandom's --num per thread, else none."""
    flags = dict(a.lstrip("-").split("=", 1) for a in args if "=" in a)
    return float(flags.get("num", num)) * float(flags.get("threads", 1)) if "fillrandom" in flags["benchmarks"] else 0.0


def sequence_config(invocations, name: str, num: int, machine: dict | None = None, sync_latency: float = 0.0) -> dict:
    """The invocations as phases, the last measured (its phases keep their names, earlier ones get `-<k>`), each
    earlier one ending with a flush (the next db_bench process reopens the DB and flushes the WAL it recovers).
    `machine` and `sync_latency`: a calibrated machine section and WAL sync seconds."""
    from ..formats.dbbench_args import dbbench_config

    cfg, _ = dbbench_config(" ".join(invocations[-1]))
    phases, written = [], 0.0
    for k, args in enumerate(invocations):
        c, _ = dbbench_config(" ".join(args))
        last = k == len(invocations) - 1
        for p in c["workload"]["phases"]:
            if written > 0 and ("get" in p["mix"] or "get_empty" in p["mix"]):
                if p.get("keys", {}).get("distribution") == "uniform":
                    p["found"] = "live"  # one simulation runs them all: its live keys are the earlier invocations' too
                else:  # skewed keys (mixgraph): the uniform formula, as dbbench_args' own
                    found_after(p["mix"], written, num)
            phases.append({**p, "name": p["name"] if last else f"{p['name']}-{k}", "measure": last})
        if not last:
            phases[-1]["flush"] = True
            written += writes_of(args, num)
    cfg["workload"]["phases"] = phases
    cfg["name"] = name
    cfg["seed"] = 1
    cfg["device"] = {"preset": "local-fio", "ftl": {"enabled": False}}
    cfg.setdefault("sim", {})["drain"] = False  # db_bench's figures are taken when the benchmark ends
    if machine is not None:
        cfg["machine"] = {**cfg.get("machine", {}), **copy.deepcopy(machine)}
    if sync_latency:
        cfg["device"]["sync_latency"] = f"{sync_latency * 1e6:.3f}us"
    return cfg


__all__ = ["found_after", "sequence_config", "writes_of"]
