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
# # 03 · SSD garbage collection under LSM compaction
#
# With `device: {model: ssd}` (or a device `preset`) lsmsim replaces its simple device with an SSD
# model: a timing model plus a page-mapped FTL (erase units, over-provisioning, greedy or
# cost-benefit victims, TRIM). Every file an LSM job writes lands on logical pages; when a file is
# deleted its pages are trimmed; when free erase blocks run out, GC copies the valid pages out of a
# victim block. So the device writes more than the host does:
#
# * *compaction write-amp* `write_amp` = bytes flushes and compactions wrote / user bytes,
# * *GC write-amp* `gc_write_amp` = flash pages written / host pages written,
# * *total* `total_write_amp` = their product (Spooky, PVLDB'22, Eq. 2).
#
# Spooky's §3 observation (its Fig. 7A): RocksDB's partial merges (many small SSTs per level,
# written and deleted at different times) leave erase blocks holding data of mixed lifetimes, so
# GC must copy; full-level merges write and delete whole levels, erase blocks die together and GC
# write-amp stays near 1. `experiments/spooky/gc.yaml` reproduces this at ~85% device utilisation;
# here both configs are scaled down further so each runs in a few seconds.

# %%
# %matplotlib inline
import warnings
warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets; no progress bars here

import os
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

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
OUT = Path(os.environ.get("LSMSIM_NOTEBOOK_OUT") or ROOT / "results" / "notebooks") / "03-ssd-garbage-collection"
print("repository:", ROOT)
print("outputs:   ", OUT)

# %%
SPOOKY = ROOT / "experiments" / "spooky"
print((SPOOKY / "gc-partial-merge.yaml").read_text())

# %% [markdown]
# ## Two runs: partial merge and full merge
#
# Scaled down: 1M keys instead of 4M, 2M updates instead of 8M, a 2 MiB memtable and 4 MiB erase
# units. The device capacity shrinks with the data so the peak utilisation stays around 80%
# (`device_peak_utilization` reports it). The full-merge config writes each level as one big run,
# and a full merge of the last level needs room for its output next to its input, so it gets a
# larger device for the same data (as in `gc.yaml`).

# %%
SMALL = ["workload.num=1M", "workload.phases.0.operations=1M", "workload.phases.1.operations=2M",
         "device.ftl.erase_unit=4MiB", "lsm.write_buffer_size=2MiB"]
runs = {
    "partial merge (leveled, T=5)": lsmsim.run(SPOOKY / "gc-partial-merge.yaml", SMALL + [
        "device.capacity=216MiB", "policy.target_file_size_base=512KiB", "policy.max_bytes_for_level_base=10MiB"]),
    "full merge (T=5)": lsmsim.run(SPOOKY / "gc-full-merge.yaml", SMALL + [
        "device.capacity=360MiB", "policy.target_file_size=16MiB"]),
}
runs["partial merge (leveled, T=5)"]

# %%
keys = ["write_amp", "gc_write_amp", "total_write_amp", "device_peak_utilization", "space_amp_peak",
        "gc_copies", "erases", "erase_count_max", "gc_stall_s", "throughput_write_ops_per_s"]
table = pd.DataFrame({name: {k: r.summary[k] for k in keys} for name, r in runs.items()}).T
table.insert(3, "flash_write_GB", [r.summary["flash_write_bytes"] / 1e9 for r in runs.values()])
table.round(3)

# %% [markdown]
# ## Write-amp over time
#
# The time series carries the cumulative `write_amp`, `gc_write_amp` and `total_write_amp` at every
# sample (and `gc_write_amp_interval`, GC write-amp within the interval). GC stays idle while the
# device still has free erase blocks, most of the fill phase; once the device fills up and the
# updates keep rewriting files, partial merge's GC write-amp climbs while full merge's stays near 1.

# %%
fig = Figure(figsize=(12, 4))
axes = fig.subplots(1, 2, sharey=True)
for ax, (name, r) in zip(axes, runs.items()):
    ts = r.timeseries
    ax.plot(ts.time, ts.write_amp, label="compaction write-amp")
    ax.plot(ts.time, ts.gc_write_amp, label="GC write-amp")
    ax.plot(ts.time, ts.total_write_amp, label="total (Eq. 2)")
    start = ts.time[ts.phase == "update"].min()
    ax.axvline(start, color="grey", ls=":", lw=0.8)
    ax.annotate("updates", (start, 1), xycoords=("data", "axes fraction"), va="top", fontsize="small", color="grey")
    ax.set_title(name)
    ax.set_xlabel("simulated time (s)")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("write-amp (cumulative)")
axes[0].legend()
fig.tight_layout()
fig

# %%
fig = Figure(figsize=(12, 3))
ax = fig.subplots()
for name, r in runs.items():
    ts = r.timeseries
    ax.plot(ts.time, ts.gc_write_amp_interval, label=name)
ax.set_xlabel("simulated time (s)")
ax.set_ylabel("GC write-amp per interval")
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()
fig

# %% [markdown]
# `r.plot("write_amp")` summarises the same in one bar chart per run:

# %%
runs["partial merge (leveled, T=5)"].plot("write_amp")

# %% [markdown]
# ## The closed form for uniform random overwrites
#
# For the textbook workload (every logical page holds data and is overwritten uniformly at random,
# greedy victim selection, steady state) GC write-amp has a closed form in the Lambert W function
# (Desnoyers, SYSTOR 2012; Xiang & Kurkoski 2012). With $\alpha$ = physical / logical pages:
#
# $$A = \frac{\alpha}{\alpha + W_0(-\alpha e^{-\alpha})}$$
#
# `lsmsim.ssd.gc_theory` implements it (`wa_greedy_limit`, many pages per block), the finite
# pages-per-block correction (`wa_greedy`) and the older Agarwal & Marrow form (`wa_agarwal`), each
# taking a spare factor $S_f$ = (physical - logical) / physical (or `op_ratio=`).
#
# The FTL in `lsmsim.ssd.ftl` can be driven directly: fill 1 GiB of 4 KiB logical pages
# sequentially, overwrite them once at random to reach steady state, then measure GC write-amp over
# two more logical sizes of random overwrites. `ftl.spare_factor` is the effective spare factor
# after rounding to whole erase blocks.

# %%
from lsmsim.ssd import gc_theory
from lsmsim.ssd.ftl import FTL, FTLConfig

PAGE, L, P = 4096, 1 << 18, 256          # 4 KiB pages, 1 GiB logical, 1 MiB erase blocks
rng = np.random.default_rng(7)
rows = []
for sf in [0.07, 0.1, 0.15, 0.2, 0.28, 0.4]:
    ftl = FTL(FTLConfig(logical_bytes=PAGE * L, mapping_unit=PAGE, erase_unit=PAGE * P,
                        over_provisioning=sf, op_definition="spare_factor"))
    ftl.write(np.arange(L))                        # sequential fill
    ftl.write(rng.integers(0, L, L))               # warm-up: one logical size of random overwrites
    before = ftl.snapshot()
    ftl.write(rng.integers(0, L, 2 * L))           # measured window
    s = ftl.spare_factor
    rows.append({"spare_factor": s, "FTL (measured)": FTL.window_write_amp(before, ftl.snapshot()),
                 "Lambert W, N_p -> inf": gc_theory.wa_greedy_limit(s),
                 f"Lambert W, N_p = {P}": gc_theory.wa_greedy(s, P),
                 "Agarwal & Marrow": gc_theory.wa_agarwal(s)})
theory = pd.DataFrame(rows).set_index("spare_factor")
theory.round(3)

# %%
sf = np.linspace(0.04, 0.5, 200)
fig = Figure(figsize=(7, 4))
ax = fig.subplots()
ax.plot(sf, gc_theory.wa_greedy_limit(sf), label="Lambert W (Desnoyers Eq. 1)")
ax.plot(sf, gc_theory.wa_greedy(sf, P), ls="--", label=f"finite blocks, N_p = {P}")
ax.plot(sf, gc_theory.wa_agarwal(sf), ls=":", label="Agarwal & Marrow 2010")
ax.plot(theory.index, theory["FTL (measured)"], "ko", label="lsmsim FTL, uniform random")
ax.set_xlabel("spare factor (physical - logical) / physical")
ax.set_ylabel("GC write-amp")
ax.set_yscale("log")
ax.grid(alpha=0.3, which="both")
ax.legend()
fig.tight_layout()
fig

# %% [markdown]
# ## Where the LSM runs sit
#
# As a yardstick: if the data the LSM-tree held at its peak were instead overwritten uniformly at
# random page by page, the device would run at spare factor 1 - peak data / physical capacity, and
# the closed form at that spare factor is what random overwrites would cost. The LSM-tree writes
# files sequentially and trims whole files; what it pays depends on how well the lifetimes of the
# data sharing an erase block line up, which is what separates partial from full merges. Here,
# in the last seconds of updates, partial merge pays about what uniform random overwrites would,
# full merge almost nothing. (A yardstick, not a model of the run: the utilisation changes over
# the run, and the cumulative GC write-amp includes the GC-free fill phase.)

# %%
rows = {}
for name, r in runs.items():
    ftl_cfg = r.config.device.ftl
    op = ftl_cfg.over_provisioning if ftl_cfg.op_definition == "ratio" else ftl_cfg.over_provisioning / (1 - ftl_cfg.over_provisioning)
    physical_over_logical = 1 + op
    used = r.summary["device_peak_utilization"]        # peak fraction of the logical capacity in use
    sf_eff = 1 - used / physical_over_logical
    pages_per_block = int(ftl_cfg.erase_unit // r.summary["ftl_mapping_unit"])  # mapping_unit may be auto
    rows[name] = {"peak utilisation": used, "effective spare factor": sf_eff,
                  "uniform-random GC write-amp (closed form)": gc_theory.wa_greedy(sf_eff, pages_per_block),
                  "LSM GC write-amp (measured, cumulative)": r.summary["gc_write_amp"],
                  "LSM GC write-amp (last 5 s of updates)":
                      r.timeseries.query("phase == 'update'").gc_write_amp_interval.tail(5).mean()}
pd.DataFrame(rows).T.round(3)

# %% [markdown]
# The full Spooky experiment (4M keys, both policies) is `lsmsim sweep experiments/spooky/gc.yaml`
# (about 10 s), and `lsmsim figures --only spooky-gc` draws its figure.
