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
# # 01 · Quickstart: one simulation, its tables and plots
#
# `lsmsim` simulates an LSM-tree (memtable, flushes, compactions, write stalls) on a modelled
# machine (CPU cores, flush and compaction threads) and storage device, event by event in
# simulated time. One call, `lsmsim.run(config)`, returns a `Result` with
#
# * `summary`: a dict of scalars (throughput, latency percentiles, write/space amplification,
#   stalls, CPU and device utilisation, the final tree);
# * `timeseries`: one row per `sim.sample_interval` (throughput, the tree's shape, stalls, ...);
# * `compactions`: one row per flush, compaction or trivial move;
# * `latency`: percentiles per operation type.
#
# This notebook runs `experiments/quickstart.yaml` (a RocksDB-style leveled tree filled by random
# puts, then a zipfian read/update/scan mix), scaled down so it takes a second or two.

# %%
# %matplotlib inline
import warnings
warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets; no progress bars here

import os
from pathlib import Path

import pandas as pd

import lsmsim

pd.set_option("display.width", 160)
pd.set_option("display.max_columns", 20)


def repo_root(start: Path = Path.cwd()) -> Path:
    """The lsmsim checkout: the first folder at or above `start` holding experiments/ and lsmsim/."""
    for d in (start, *start.parents):
        if (d / "experiments").is_dir() and (d / "lsmsim").is_dir():
            return d
    raise FileNotFoundError(f"no lsmsim checkout at or above {start}; start Jupyter inside the repository")


ROOT = repo_root()
# Outputs go under results/ (git-ignored); the test suite sets LSMSIM_NOTEBOOK_OUT to a temporary folder.
OUT = Path(os.environ.get("LSMSIM_NOTEBOOK_OUT") or ROOT / "results" / "notebooks") / "01-quickstart"
print("repository:", ROOT)
print("outputs:   ", OUT)

# %% [markdown]
# ## The config
#
# A config has the sections `machine`, `device`, `lsm`, `policy`, `workload` and `sim`; units are
# strings such as `4MiB`, `1.5GB/s` or `80us`. Fields keep RocksDB's option names and defaults
# (`docs/config-reference.md` lists every field).

# %%
CONFIG = ROOT / "experiments" / "quickstart.yaml"
print(CONFIG.read_text())

# %% [markdown]
# ## Run it, smaller
#
# `overrides` are `path=value` strings, as `lsmsim run --set` takes them. The full quickstart loads
# 2M keys; here we load 400K keys into a tree with a 1 MiB memtable and a 4 MiB L1, so it still
# grows several levels deep, and run the mixed phase for 5 simulated seconds. With `out=`, the run
# is also saved (JSON + Parquet + the resolved config + provenance + a PNG of the tree).
#
# In Jupyter a `Result` displays as grouped tables of its key metrics.

# %%
SMALL = [
    "workload.num=400K",
    "workload.phases.0.operations=400K",   # the load phase: one insert per key
    "workload.phases.1.duration=5s",       # the mixed phase
    "lsm.write_buffer_size=1MiB",
    "policy.max_bytes_for_level_base=4MiB",
    "policy.target_file_size_base=1MiB",
    "sim.sample_interval=0.25s",
]
r = lsmsim.run(CONFIG, overrides=SMALL, out=OUT / "run")
r

# %%
sorted(p.name for p in (OUT / "run").iterdir())

# %% [markdown]
# ## The summary
#
# `r.summary` is a plain dict (the README's table explains every key); `r.table()` is the same as a
# two-column DataFrame. A few headline numbers:

# %%
keys = ["sim_time_s", "measured_time_s", "throughput_ops_per_s", "throughput_write_ops_per_s",
        "throughput_get_ops_per_s", "latency_get_p99_s", "write_amp", "write_amp_flush",
        "write_amp_compaction", "space_amp", "stall_stop_s", "stall_slowdown_s", "cpu_util",
        "device_util", "flushes", "compactions", "trivial_moves", "sorted_runs"]
pd.Series({k: r.summary[k] for k in keys}, name="value").to_frame()

# %% [markdown]
# ## The time series
#
# One row per sample interval. Rates (`*_ops_per_s`, `write_mb_per_s`) are per interval; the tree
# columns (`runs_L<i>`, `files_L<i>`, `bytes_L<i>`, `sorted_runs`) are the state at the sample;
# `write_amp` is cumulative up to the sample. The `phase` column tells which workload phase was
# running, `(drain)` is the time after the last phase while pending compactions finish.

# %%
ts = r.timeseries
print(ts.shape)
ts[["time", "phase", "write_ops_per_s", "get_ops_per_s", "long_scan_ops_per_s", "sorted_runs",
    "runs_L0", "bytes_L1", "bytes_L2", "pending_compaction_bytes", "stall", "write_amp"]].head(12)

# %% [markdown]
# Ordinary pandas applies, e.g. mean rates and utilisation per phase:

# %%
ts.groupby("phase", sort=False)[["write_ops_per_s", "get_ops_per_s", "long_scan_ops_per_s",
                                 "cpu_util", "device_util", "sorted_runs"]].mean()

# %% [markdown]
# ## The compaction log
#
# One row per job: its kind (`flush`, `compaction`, `trivial_move`), why it was picked (`reason`),
# its simulated start and end, the levels it read and wrote, and files, bytes and entries in and
# out (fewer entries out than in: overwritten keys were dropped).

# %%
c = r.compactions
c.head(8)

# %%
jobs = c.assign(duration_ms=(c.end - c.start) * 1e3).groupby(["kind", "output_level"]).agg(
    jobs=("id", "size"), read_MB=("read_bytes", lambda b: b.sum() / 1e6),
    written_MB=("write_bytes", lambda b: b.sum() / 1e6), mean_duration_ms=("duration_ms", "mean"))
jobs

# %% [markdown]
# The log adds up to the summary: flush and compaction bytes written over the user bytes written
# is the write amplification.

# %%
print(f"from the log: {c.write_bytes.sum() / r.summary['user_bytes']:.4f}   summary write_amp: {r.summary['write_amp']:.4f}")

# %% [markdown]
# ## Latency percentiles (measured phases only)

# %%
r.latency

# %% [markdown]
# ## Plots
#
# `r.plot(kind)` returns a matplotlib `Figure` (shown inline; `path=` also writes it to a file):
# `"tree"` is the number of sorted runs and the bytes per level over time, `"throughput"` the
# operations per second by type, `"write_amp"` the parts of the write amplification. Dotted lines
# mark phase boundaries.

# %%
r.plot("tree")

# %%
r.plot("throughput")

# %%
r.plot("write_amp")

# %% [markdown]
# Anything else is a few lines of matplotlib over the DataFrames, e.g. every job as a bar on its
# output level (flushes write L0), which shows the compactions running concurrently with flushes:

# %%
from matplotlib.figure import Figure

fig = Figure(figsize=(9, 3.2))
ax = fig.subplots()
colors = {"flush": "tab:blue", "compaction": "tab:orange", "trivial_move": "tab:green"}
for kind, g in c.groupby("kind"):
    ax.barh(g.output_level, g.end - g.start, left=g.start, height=0.6, color=colors.get(kind), label=kind)
ax.set_xlabel("simulated time (s)")
ax.set_ylabel("output level")
ax.set_yticks(sorted(c.output_level.unique()))
ax.invert_yaxis()
ax.legend(loc="lower right")
fig.tight_layout()
fig

# %% [markdown]
# ## Next
#
# * `02-comparing-policies`: run many configs at once with `lsmsim.sweep` and compare policies.
# * `03-ssd-garbage-collection`: the SSD model's FTL, GC write-amp and its closed form.
# * `04-ecotune-dp`: EcoTune's dynamic program for main-level compaction schedules.
#
# The same run from a shell: `.venv/bin/lsmsim run experiments/quickstart.yaml --set workload.num=400K ... -o results/quickstart`.
