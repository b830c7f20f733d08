"""db_bench-style presets, with db_bench's semantics (tools/db_bench_tool.cc, RocksDB 7.8).

- fillrandom: `num` puts, keys drawn uniformly *with replacement* from [0, num), so about
  num * (1 - 1/e) distinct keys end up in the DB;
- fillseq: `num` puts of keys 0, 1, ..., num - 1;
- overwrite: a fillseq load, then `num` uniform puts over the loaded keys;
- readrandom: a fillseq load, then `num` point gets of uniform existing keys;
- seekrandom: a fillseq load, then `num` Seeks (db_bench's seek_nexts = 0: Seek + 0 Next).
All run one closed-loop client thread, as db_bench does with --threads=1. Load phases are marked
`measure: false`: their time counts in write-amp but not in the measured throughput.
"""

from __future__ import annotations

from ..config import KeysConfig, MixConfig, PhaseConfig, WorkloadConfig
from .suites import suite_specs


def _load(num: int) -> PhaseConfig:
    return PhaseConfig(
        name="load",
        operations=num,
        mix=MixConfig(insert=1.0),
        keys=KeysConfig(distribution="sequential"),
        measure=False,
    )


def preset_phases(w: WorkloadConfig) -> list[PhaseConfig]:
    num = w.num
    uniform = KeysConfig(distribution="uniform")
    if w.preset == "fillrandom":
        return [PhaseConfig(name="fillrandom", operations=num, mix=MixConfig(insert=1.0), keys=uniform)]
    if w.preset == "fillseq":
        return [
            PhaseConfig(
                name="fillseq", operations=num, mix=MixConfig(insert=1.0), keys=KeysConfig(distribution="sequential")
            )
        ]
    if w.preset == "overwrite":
        return [_load(num), PhaseConfig(name="overwrite", operations=num, mix=MixConfig(update=1.0), keys=uniform)]
    if w.preset == "readrandom":
        return [_load(num), PhaseConfig(name="readrandom", operations=num, mix=MixConfig(get=1.0), keys=uniform)]
    if w.preset == "seekrandom":
        return [
            _load(num),
            PhaseConfig(
                name="seekrandom", operations=num, mix=MixConfig(short_scan=1.0), keys=uniform, short_scan_length=1
            ),
        ]
    raise ValueError(f"unknown preset {w.preset!r}")


def resolve_phases(w: WorkloadConfig) -> list[PhaseConfig]:
    """The phases a workload runs: the preload, the preset's, the suite's, then the explicit ones."""
    phases = preset_phases(w) if w.preset else []
    if w.preload:
        phases = [_load(w.num)] + phases
    if w.suite is not None:
        phases += [PhaseConfig.model_validate(spec) for spec in suite_specs(w.suite)]
    return phases + list(w.phases)
