"""YCSB workload property files (`workloads/workloada` ... of the YCSB distribution; Cooper et al., SoCC'10) as
lsmsim workloads: a load phase of `recordcount` inserts, then `operationcount` operations of the file's mix.

What maps (site.ycsb.workloads.CoreWorkload's properties and defaults):
- `recordcount` (1000) -> `num` and the load's inserts, in `insertorder` (hashed: each key once in a random order
  -> `shuffled`; ordered -> `sequential`);
- `operationcount` (1000) -> the run phase's operations; `threadcount` (1) -> closed-loop client threads;
- `readproportion` (0.95) -> get, `updateproportion` (0.05) -> update, `insertproportion` (0) -> insert,
  `scanproportion` (0) -> long_scan, `readmodifywriteproportion` (0) -> a get and an update each (as the `ycsb-f`
  suite counts them: lsmsim/workloads/suites.py);
- `requestdistribution` (uniform): uniform, zipfian (YCSB's scrambled zipfian, theta 0.99), latest;
- `minscanlength` (1) and `maxscanlength` (1000) with `scanlengthdistribution` (uniform, or zipfian with its
  constant 0.99) -> scan_lengths: the throughput takes the mean length, the latency percentiles the spread;
- `fieldcount` x `fieldlength` (10 x 100) -> value_size; keys are YCSB's `user` + up to 19 digits: 23 bytes.
Anything else that changes the workload (hotspot or exponential distributions, another
workload class, `readallfields=false`, ...) is reported as unsupported, each by name.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from ..loading import read_config_text

DEFAULTS = {
    "recordcount": "1000",
    "operationcount": "1000",
    "threadcount": "1",
    "readproportion": "0.95",
    "updateproportion": "0.05",
    "insertproportion": "0",
    "scanproportion": "0",
    "readmodifywriteproportion": "0",
    "requestdistribution": "uniform",
    "minscanlength": "1",
    "maxscanlength": "1000",
    "scanlengthdistribution": "uniform",
    "insertorder": "hashed",
    "fieldcount": "10",
    "fieldlength": "100",
}
KEY_BYTES = 23  # "user" + a 64-bit hash in decimal (CoreWorkload.buildKeyName)
# read by YCSB's client or bindings, no effect on what lsmsim models
IGNORED = {
    "workload",
    "readallfields",
    "writeallfields",
    "measurementtype",
    "histogram.buckets",
    "table",
    "db",
    "exporter",
    "status.interval",
    "fieldlengthdistribution",
    "dataintegrity",
    "core_workload_insertion_retry_limit",
    "core_workload_insertion_retry_interval",
    "zeropadding",
    "fieldnameprefix",
    "timeseries.granularity",
}
NEUTRAL = {
    "workload": {"site.ycsb.workloads.CoreWorkload", "com.yahoo.ycsb.workloads.CoreWorkload"},
    "readallfields": {"true"},
    "writeallfields": {"false"},
    "fieldlengthdistribution": {"constant"},
}
DISTRIBUTIONS = {"uniform": "uniform", "zipfian": "zipfian", "latest": "latest"}


def parse_properties(text: str) -> dict[str, str]:
    """Java properties, as YCSB reads them: `key=value` or `key: value` lines, `#` and `!` comments."""
    out = {}
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "#!":
            continue
        sep = min((i for i in (s.find("="), s.find(":")) if i >= 0), default=-1)
        if sep < 0:
            out[s] = ""
        else:
            out[s[:sep].strip()] = s[sep + 1 :].strip()
    return out


def ycsb_workload(props: dict[str, str], source: str = "<ycsb>") -> tuple[dict, list[tuple[str, str]]]:
    """The lsmsim `workload:` section of a YCSB property set, and the unsupported properties (name, why)."""
    p = {**DEFAULTS, **props}
    unsupported = []

    def num(name: str, kind=float):
        try:
            v = kind(p[name])
        except ValueError:
            raise ConfigError(source, [(name, f"expected a number, got {p[name]!r}")]) from None
        if v < 0:
            raise ConfigError(source, [(name, "must be >= 0")])
        return v

    for name, value in props.items():
        if name in NEUTRAL and value not in NEUTRAL[name]:
            unsupported.append((name, f"{value!r}: lsmsim models {sorted(NEUTRAL[name])[0]!r}"))
        elif name not in DEFAULTS and name not in IGNORED:
            unsupported.append((name, "not a CoreWorkload property lsmsim maps"))
    dist = p["requestdistribution"]
    if dist not in DISTRIBUTIONS:
        raise ConfigError(source, [("requestdistribution", f"{dist!r}: lsmsim has uniform, zipfian and latest")])
    order = {"hashed": "shuffled", "ordered": "sequential"}.get(p["insertorder"])
    if order is None:
        raise ConfigError(source, [("insertorder", f"{p['insertorder']!r}: allowed hashed, ordered")])
    read, update, insert, scan, rmw = (
        num(k)
        for k in (
            "readproportion",
            "updateproportion",
            "insertproportion",
            "scanproportion",
            "readmodifywriteproportion",
        )
    )
    if read + update + insert + scan + rmw <= 0:
        raise ConfigError(source, [("readproportion", "the proportions sum to 0: no operations")])
    min_scan, max_scan = num("minscanlength", int), num("maxscanlength", int)
    scan_dist = p["scanlengthdistribution"]
    if scan_dist not in ("uniform", "zipfian"):  # CoreWorkload throws: "not allowed for scan length"
        raise ConfigError(source, [("scanlengthdistribution", f"{scan_dist!r}: YCSB allows uniform or zipfian")])
    if scan > 0 and max_scan > 2**22:  # phase.scan_lengths tabulates every length
        raise ConfigError(source, [("maxscanlength", f"{max_scan}: lsmsim takes at most {2**22:,}")])
    if not 1 <= min_scan <= max_scan:
        raise ConfigError(
            source, [("minscanlength", f"{min_scan} with maxscanlength {max_scan}: need 1 <= min <= max")]
        )
    records, ops, threads = num("recordcount", int), num("operationcount", int), max(1, num("threadcount", int))
    if records < 1:
        raise ConfigError(source, [("recordcount", "must be >= 1")])
    mix = {"get": read + rmw, "update": update + rmw, "insert": insert, "long_scan": scan}
    run = {
        "name": "run",
        "operations": ops,
        "mix": {k: v for k, v in mix.items() if v > 0},
        "keys": {"distribution": DISTRIBUTIONS[dist]},
        "writers": {"threads": threads},
    }
    if scan > 0:
        run["scan_lengths"] = {"distribution": scan_dist, "min": min_scan, "max": max_scan}
    workload = {
        "num": records,
        "key_size": KEY_BYTES,
        "value_size": num("fieldcount", int) * num("fieldlength", int),
        "phases": [
            {
                "name": "load",
                "operations": records,
                "mix": {"insert": 1.0},
                "keys": {"distribution": order},
                "writers": {"threads": threads},
                "measure": False,
                "wait_for_compactions": True,
            },
            *([run] if ops > 0 else []),
        ],
    }
    return workload, unsupported


def load_ycsb(path: str | Path) -> tuple[dict, list[tuple[str, str]]]:
    """`ycsb_workload` of the YCSB property file at `path`."""
    return ycsb_workload(parse_properties(read_config_text(path, "YCSB workload")), str(path))


__all__ = ["load_ycsb", "ycsb_workload", "parse_properties"]
