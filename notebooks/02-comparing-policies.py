# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02 · Comparing compaction policies with a sweep
#
# A *sweep* is a base config plus a `sweep:` section that expands into points: named `variants`,
# a cartesian `grid`, paired `zip` lists and `seeds`. `lsmsim.sweep(spec)` runs every point (in
# parallel worker processes), stores each under `<out>/points/<id>/` and returns a
# `SweepResults` whose `.table` has one row per point: its parameters and its whole summary.
#
# Here: four compaction policies (RocksDB-style leveling, tiering, Dostoevsky's lazy leveling and
# RocksDB's universal compaction), each at three data sizes, then a short read phase.

# %%
# %matplotlib inline
import warnings
warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets; no progress bars here

import os
import time
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import lsmsim

pd.set_option("display.width", 160)


def repo_root(start: Path = Path.cwd()) -> Path:
    """The lsmsim checkout: the first folder at or above `start` holding experiments/ and lsmsim/."""
    for d in (start, *start.parents):
        if (d / "experiments").is_dir() and (d / "lsmsim").is_dir():
            return d
    raise FileNotFoundError(f"no lsmsim checkout at or above {start}; start Jupyter inside the repository")


ROOT = repo_root()
# Outputs go under results/ (git-ignored); the test suite sets LSMSIM_NOTEBOOK_OUT to a temporary folder.
OUT = Path(os.environ.get("LSMSIM_NOTEBOOK_OUT") or ROOT / "results" / "notebooks") / "02-comparing-policies"
print("repository:", ROOT)
print("outputs:   ", OUT)

# %% [markdown]
# ## The spec, as a Python dict
#
# The same structure as a sweep YAML file (see `lsmsim/sweeps/spec.py` or the README). Notes:
#
# * A variant that gives `policy` as a mapping replaces the whole `policy` section, so each variant
#   names its policy and its own options (`size_ratio` T = 4 for tiering and lazy leveling,
#   `max_bytes_for_level_multiplier` 4 for leveling; universal keeps RocksDB's defaults).
# * `zip` pairs lists element by element: the key space (`workload.num`) and the number of inserts
#   of the load phase (`workload.phases.0.operations`) change together.
# * `sim.sample_interval` is short so the per-point time series show the tree's shape in detail.
# * The tree is tiny on purpose (512 KiB memtable, 2 MiB level base) so that 50K to 200K keys
#   already make several levels; the whole sweep takes a few seconds on 2 cores.

# %%
SIZES = [50_000, 100_000, 200_000]
spec = {
    "name": "nb02-policies",
    "seed": 1,
    "machine": {"cores": 2, "threads": {"flush": 1, "compaction": 1}},
    "lsm": {"write_buffer_size": "512KiB", "block_cache_size": "1MiB"},
    "policy": {"name": "leveled", "max_bytes_for_level_base": "2MiB", "target_file_size_base": "512KiB"},
    "workload": {
        "num": 100_000, "key_size": 16, "value_size": 100,
        "phases": [
            {"name": "load", "operations": 100_000, "mix": {"insert": 1.0}},
            {"name": "read", "duration": "1s", "mix": {"get": 0.9, "short_scan": 0.1}},
        ],
    },
    "sim": {"sample_interval": "50ms"},
    "sweep": {
        "variants": {
            "leveled": {"policy": {"name": "leveled", "max_bytes_for_level_base": "2MiB",
                                   "target_file_size_base": "512KiB", "max_bytes_for_level_multiplier": 4}},
            "tiering": {"policy": {"name": "tiering", "size_ratio": 4}},
            "lazy_leveling": {"policy": {"name": "lazy_leveling", "size_ratio": 4}},
            "universal": {"policy": {"name": "universal"}},
        },
        "zip": {"workload.num": SIZES, "workload.phases.0.operations": SIZES},
    },
}

# %% [markdown]
# `lsmsim.sweeps.load_sweep` expands a spec without running it (what `lsmsim sweep --dry-run`
# prints). A point's id is a hash of its resolved config and the lsmsim version.

# %%
from lsmsim.sweeps import load_sweep

load_sweep(spec).table()

# %% [markdown]
# ## Run it
#
# `jobs=2` runs two points at a time in spawned worker processes. Points already present in `out`
# are skipped, so if you have run this notebook before this cell returns at once (delete the
# folder to start over).

# %%
t0 = time.perf_counter()
res = lsmsim.sweep(spec, out=OUT, jobs=2)
first_wall_s = time.perf_counter() - t0
assert len(res.failed) == 0, res.failed[["variant", "error"]]   # a failing point is recorded, not raised
print(f"{len(res)} points, wall time {first_wall_s:.1f} s, simulation time summed over points "
      f"{res.table.runtime_s.sum():.1f} s")
res

# %% [markdown]
# `res.view()` is the parameters plus headline metrics; pass `metrics=` for others. `res.table`
# has every summary key as a column.

# %%
res.view(["write_amp", "space_amp", "sorted_runs", "throughput_get_ops_per_s", "latency_get_p99_s"])


# %% [markdown]
# ## Plots
#
# `res.plot(x, y, hue="variant")` draws y against x, one line per variant (averaged over seeds
# when there are several). The classic trade-off shows: leveling pays the most write-amp, more so
# as the tree gets deeper, and tiering the least; tiering keeps more sorted runs, which costs
# space and point-lookup throughput. Lazy leveling sits in between, universal compaction close to
# leveling. (Tiny trees: take the trends, not the numbers.)

# %%
def keys_axis(ax, sizes):
    ax.set_xscale("log")
    ax.set_xticks(sizes, [f"{n // 1000}K" for n in sizes])
    ax.minorticks_off()
    ax.set_xlabel("keys loaded (workload.num)")

fig, axes = plt.subplots(1, 3, figsize=(15, 4))
for ax, y in zip(axes, ["write_amp", "space_amp", "throughput_get_ops_per_s"]):
    res.plot("workload.num", y, ax=ax)
    keys_axis(ax, SIZES)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## One point's tables
#
# `res.point(point_id)` loads one point's `summary`, `timeseries`, `compactions` and `latency`, the
# same tables `lsmsim.run` returns. Sorted runs over time at the largest size, per policy:

# %%
big = res.table[res.table["workload.num"] == max(SIZES)]
fig, ax = plt.subplots(figsize=(9, 3.5))
for _, row in big.iterrows():
    ts = res.point(row.point_id)["timeseries"]
    ax.step(ts.time, ts.sorted_runs, where="post", label=row.variant)
ax.set_xlabel("simulated time (s)")
ax.set_ylabel("sorted runs")
ax.legend()
ax.grid(alpha=0.3)
plt.show()

# %% [markdown]
# ## Reload and resume
#
# Everything is on disk: `results.parquet` (the table) and one folder per point. A later session
# reloads it without running anything with `lsmsim.load_results(folder)`.

# %%
print(sorted(p.name for p in OUT.iterdir()))
loaded = lsmsim.load_results(OUT)
loaded.view().sort_values(["variant", "workload.num"])

# %% [markdown]
# Calling `lsmsim.sweep` again with the same spec runs nothing: every point id is already in the
# store. Extending the spec (here a fourth data size, 400K keys) runs only the new points, and the
# returned table holds old and new ones together.

# %%
t0 = time.perf_counter()
again = lsmsim.sweep(spec, out=OUT, jobs=2)
print(f"same spec again: {len(again)} points in {time.perf_counter() - t0:.2f} s (first run: {first_wall_s:.1f} s)")
assert list(again.table.point_id) == list(res.table.point_id)

SIZES_MORE = SIZES + [400_000]
spec["sweep"]["zip"] = {"workload.num": SIZES_MORE, "workload.phases.0.operations": SIZES_MORE}
t0 = time.perf_counter()
more = lsmsim.sweep(spec, out=OUT, jobs=2)
new = set(more.table.point_id) - set(res.table.point_id)
print(f"extended spec: {len(more)} points, {len(new)} new, in {time.perf_counter() - t0:.1f} s")
more.view(["write_amp", "space_amp", "sorted_runs"])

# %%
fig, ax = plt.subplots(figsize=(6, 4))
more.plot("workload.num", "write_amp", ax=ax)
keys_axis(ax, SIZES_MORE)
plt.show()

# %% [markdown]
# From a shell the same sweep is a YAML file and `lsmsim sweep my-sweep.yaml -j 2`
# (`--dry-run` lists the points, `--executor dask` runs them on a Dask cluster).
