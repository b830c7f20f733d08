"""Sweep YAML: a base config plus a `sweep:` section, expanded into points.

    name: my-sweep                 # any config fields: the base of every point
    ...
    sweep:
      name: my-sweep               # results/<name>/ (default: the config's name)
      base: other.yaml             # optional: start from this config (relative to this file);
                                   # the fields written here override it
      set: {lsm.block_cache_size: 8MiB}        # applied to every point
      variants:                    # named variants, each a mapping path -> value (or a YAML
                                   # file of them, relative to this file)
        leveling: {policy: {name: leveled}}
        tiering:  {policy.name: tiering}
      grid: {lsm.write_buffer_size: [8MiB, 64MiB], workload.num: [1M, 2M]}   # cartesian product
      zip:  {r: [0.1, 0.5], workload.phases.1.mix.long_scan: [0.07, 0.35]}  # paired lists
                                   # (or a list of such groups: each paired, the groups crossed)
      skip_variants: [b]           # leave these out of a shared variants file (at every scale)
      seeds: 3                     # replicates: 3 seeds derived from the base seed, or a list
      scales:                      # named scales (lsmsim sweep --scale quick, lsmsim figures)
        quick: {set: {workload.num: 100K}, grid: {...}}   # replaces grid/zip/seeds/variants given

A key whose first component is not a config section (`r` above) is a label: it becomes a column
of the results table and changes no config field. Points are applied in the order base, set,
variant, zip row, grid combination, seed. A point's id is the hash of its resolved config and the
lsmsim version (Hydra/desmod style: the same point is never run twice, a changed one always is).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .._version import __version__
from ..config import Config
from ..errors import ConfigError
from ..loading import _deep_merge, _validation_errors, read_yaml, validate

SECTIONS = frozenset(Config.model_fields)


class _Axes(BaseModel):
    model_config = ConfigDict(extra="forbid")
    set: dict[str, Any] = Field(default_factory=dict, description="path -> value for every point")
    variants: dict[str, dict[str, Any]] | str | None = Field(
        None, description="name -> {path: value}, or a YAML file holding that mapping"
    )
    grid: dict[str, list[Any]] | None = Field(None, description="path -> values (cartesian product)")
    zip: dict[str, list[Any]] | list[dict[str, list[Any]]] | None = Field(
        None, description="path -> values (paired, equal lengths); a list of such groups is crossed"
    )
    seeds: int | list[int] | None = Field(None, description="replicates: a count or explicit seeds")

    @field_validator("grid", "zip")
    @classmethod
    def _non_empty(cls, v):
        for group in v if isinstance(v, list) else [v or {}]:
            for k, vals in group.items():
                if not vals:
                    raise ValueError(f"{k}: needs at least one value")
        return v

    @field_validator("zip")
    @classmethod
    def _equal_lengths(cls, v):
        for group in v if isinstance(v, list) else [v] if v else []:
            if len({len(x) for x in group.values()}) > 1:
                lens = ", ".join(f"{k}: {len(x)}" for k, x in group.items())
                raise ValueError(f"zip lists must have equal lengths ({lens})")
        return v

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, v):
        if isinstance(v, int) and v < 1:
            raise ValueError("seeds: a count >= 1 or a list of seeds")
        if isinstance(v, list) and not v:
            raise ValueError("seeds: the list is empty")
        return v


class SweepSection(_Axes):
    """The `sweep:` section."""

    name: str | None = None
    base: str | None = None
    scales: dict[str, _Axes] = Field(default_factory=dict)
    skip_variants: list[str] = Field(
        default_factory=list, description="variants (of a shared variants file) this sweep leaves out, at every scale"
    )


@dataclass
class Point:
    """One configuration to run: its id, the values that vary, and the resolved config."""

    id: str
    params: dict
    config: Config
    overrides: dict = field(default_factory=dict)

    @property
    def config_dict(self) -> dict:
        return self.config.model_dump(mode="json")


@dataclass
class Sweep:
    name: str
    source: str
    points: list[Point]
    scale: str | None = None
    spec: dict = field(default_factory=dict)

    def table(self):
        """The points as a DataFrame (id + varying parameters)."""
        import pandas as pd

        return pd.DataFrame([{"point_id": p.id, **p.params} for p in self.points])


def point_id(cfg: Config) -> str:
    text = json.dumps(cfg.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"lsmsim {__version__}\n{text}".encode()).hexdigest()[:16]


def set_path(data: dict, path: str, value: Any) -> None:
    """`a.b.c` = value in a nested dict (list indices are numbers); creates sections as needed.
    A mapping value replaces what was there (write `a.b.c.d: v` to change one field of it)."""
    keys = path.split(".")
    node = data
    for i, k in enumerate(keys[:-1]):
        if isinstance(node, list):
            node = node[_index(node, k, keys[: i + 1])]
            if not isinstance(node, (dict, list)):
                raise KeyError(f"{'.'.join(keys[: i + 1])} is a value, not a section")
        else:
            nxt = node.get(k)
            if nxt is None:
                nxt = node[k] = {}
            if not isinstance(nxt, (dict, list)):
                raise KeyError(f"{'.'.join(keys[: i + 1])} is a value, not a section")
            node = nxt
    if isinstance(node, list):
        node[_index(node, keys[-1], keys)] = copy.deepcopy(value)
    else:  # a mapping replaces the section (as --set does): a variant's policy is the whole policy
        node[keys[-1]] = copy.deepcopy(value)


def _index(node: list, k: str, keys) -> int:
    try:
        i = int(k)
        node[i]
        return i
    except (ValueError, IndexError):
        raise KeyError(f"{'.'.join(keys)}: not an index of a list of {len(node)}") from None


def is_config_path(key: str) -> bool:
    return key.split(".")[0] in SECTIONS


def derive_seeds(base: int, n: int) -> list[int]:
    """n seeds derived from the base seed (numpy SeedSequence.spawn): independent streams."""
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(base).spawn(n)]


def load_sweep(path_or_data: str | Path | dict, scale: str | None = None) -> Sweep:
    """Read a sweep YAML (or dict) and expand it into validated points."""
    if isinstance(path_or_data, dict):
        data, source, here = copy.deepcopy(path_or_data), "<sweep>", Path.cwd()
    else:
        data, source, here = read_yaml(path_or_data), str(path_or_data), Path(path_or_data).resolve().parent
    raw = data.pop("sweep", None)
    if not isinstance(raw, dict):
        raise ConfigError(
            source,
            [
                (
                    "sweep",
                    "missing: a sweep file needs a `sweep:` section "
                    "(variants, grid, zip, seeds); to run one config use `lsmsim run`",
                )
            ],
        )
    try:
        sec = SweepSection.model_validate(raw)
    except ValidationError as e:
        raise ConfigError(
            source, [(f"sweep.{p}" if p != "(top level)" else "sweep", m) for p, m in _validation_errors(e)]
        ) from None
    if sec.base:
        base_path = here / sec.base
        data = _deep_merge(read_yaml(base_path), data)
    axes = _scaled(sec, scale, source)
    if isinstance(axes.variants, str):
        vfile = here / axes.variants
        variants = read_yaml(vfile)
        if not all(isinstance(v, dict) for v in variants.values()):
            raise ConfigError(str(vfile), [("(top level)", "variants: a mapping name -> {path: value}")])
        axes = axes.model_copy(update={"variants": variants})
    if sec.skip_variants:
        unknown = [v for v in sec.skip_variants if v not in (axes.variants or {})]
        if unknown:
            allowed = ", ".join(axes.variants or {}) or "none (this sweep has no variants)"
            raise ConfigError(source, [("sweep.skip_variants", f"unknown variant {unknown[0]!r}; allowed: {allowed}")])
        kept = {k: v for k, v in axes.variants.items() if k not in sec.skip_variants}
        axes = axes.model_copy(update={"variants": kept})
    name = sec.name or data.get("name") or (Path(source).stem if source != "<sweep>" else "sweep")
    points = list(_expand(data, axes, source))
    ids = {}
    for p in points:
        if p.id in ids:
            raise ConfigError(
                source,
                [
                    (
                        "sweep",
                        f"points {ids[p.id]} and {p.params} resolve to the same config "
                        "(a label without a config path, or repeated values?)",
                    )
                ],
            )
        ids[p.id] = p.params
    return Sweep(
        name=str(name), source=source, points=points, scale=scale, spec={**data, "sweep": _self_contained(raw, here)}
    )


def _self_contained(raw: dict, here: Path) -> dict:
    """The sweep section as saved with the results: `base` is already merged into the config and
    variant files are inlined, so the saved file re-runs from anywhere."""
    out = {k: v for k, v in copy.deepcopy(raw).items() if k != "base"}
    for sec in [out, *(v for v in (out.get("scales") or {}).values() if isinstance(v, dict))]:
        if isinstance(sec.get("variants"), str):
            sec["variants"] = read_yaml(here / sec["variants"])
    return out


def _scaled(sec: SweepSection, scale: str | None, source: str) -> _Axes:
    if scale is None or scale == "default":
        return sec
    if scale not in sec.scales:
        allowed = ", ".join(["default", *sec.scales]) or "default"
        raise ConfigError(source, [("sweep.scales", f"no scale {scale!r}; allowed: {allowed}")])
    over = sec.scales[scale]
    merged = sec.model_copy()
    for k in ("variants", "grid", "zip", "seeds"):
        if getattr(over, k) is not None:
            setattr(merged, k, getattr(over, k))
    merged.set = {**sec.set, **over.set}
    return merged


MAX_POINTS = 100_000  # a sweep is run point by point; more is a typo (seeds: 50000000), not an experiment


def _count(axes: _Axes, groups: list) -> int:
    """Points the axes expand to, without expanding them."""
    n = len(axes.variants or {None: {}}) if not isinstance(axes.variants, str) else 1
    n *= math.prod(len(next(iter(g.values()))) for g in groups)
    n *= math.prod(len(v) for v in (axes.grid or {}).values())
    n *= 1 if axes.seeds is None else axes.seeds if isinstance(axes.seeds, int) else len(axes.seeds)
    return n


def _expand(base: dict, axes: _Axes, source: str):
    groups = axes.zip if isinstance(axes.zip, list) else [axes.zip] if axes.zip else []
    if (n := _count(axes, groups)) > MAX_POINTS:
        raise ConfigError(source, [("sweep", f"expands to {n:,} points, more than {MAX_POINTS:,}")])
    variants = list((axes.variants or {None: {}}).items())
    zip_keys = [k for g in groups for k in g]
    zip_rows = [sum(rows, ()) for rows in itertools.product(*(list(zip(*g.values())) for g in groups))] or [()]
    grid_keys = list(axes.grid or {})
    grid_rows = list(itertools.product(*axes.grid.values())) if axes.grid else [()]
    try:
        seed0 = int(base.get("seed", 0) or 0)
        if seed0 < 0:
            raise ValueError
    except (TypeError, ValueError):
        raise ConfigError(
            source, [("seed", f"must be an integer >= 0 (seeds are derived from it), got {base.get('seed')!r}")]
        ) from None
    seeds = (
        [None]
        if axes.seeds is None
        else derive_seeds(seed0, axes.seeds)
        if isinstance(axes.seeds, int)
        else list(axes.seeds)
    )
    for vname, vover in variants:
        for zrow in zip_rows:
            for grow in grid_rows:
                for seed in seeds:
                    params: dict = {}
                    overrides: dict = dict(axes.set)
                    if vname is not None:
                        params["variant"] = vname
                        overrides.update(vover)
                    for k, v in [*zip(zip_keys, zrow), *zip(grid_keys, grow)]:
                        params[k] = v
                        if is_config_path(k):
                            overrides[k] = v
                    if seed is not None:
                        params["seed"] = seed
                        overrides["seed"] = seed
                    yield _point(base, overrides, params, source)


def _point(base: dict, overrides: dict, params: dict, source: str) -> Point:
    data = copy.deepcopy(base)
    where = ", ".join(f"{k}={v}" for k, v in params.items()) or "the base config"
    for path, value in overrides.items():
        if not is_config_path(path):
            raise ConfigError(
                source,
                [(path, f"(in {where}) is not a config path; paths start with one of {', '.join(sorted(SECTIONS))}")],
            )
        try:
            set_path(data, path, value)
        except KeyError as e:
            raise ConfigError(source, [(path, f"(in {where}) {e.args[0]}")]) from None
    try:
        cfg = validate(data, source)
    except ConfigError as e:
        raise ConfigError(f"{source} (point {where})", e.errors) from None
    return Point(id=point_id(cfg), params=_plain(params), config=cfg, overrides=overrides)


def _plain(params: dict) -> dict:
    """Parameter values as table cells: strings and numbers stay, mappings and lists become compact
    JSON (a column mixing types is made text by the store)."""
    return {
        k: (v if isinstance(v, (int, float, str, bool)) or v is None else json.dumps(v, sort_keys=True))
        for k, v in params.items()
    }
