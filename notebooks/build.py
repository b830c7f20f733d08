"""Write the notebooks of this folder from the Python source below (nbformat), without outputs.

    .venv/bin/python notebooks/build.py          # rewrite the four .ipynb files
    .venv/bin/python notebooks/build.py --check  # exit 1 if a committed .ipynb differs from this source

Edit the cells here, not in Jupyter, then run this script: the notebooks stay reviewable (one diff
here) and are always committed stripped (no outputs, no execution counts). Cell ids are derived
from the notebook name and the cell's position, so rebuilding an unchanged notebook changes nothing.
`tests/test_notebooks.py` executes every notebook and checks that the committed files are stripped.
"""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent


def md(text: str):
    return new_markdown_cell(textwrap.dedent(text).strip("\n"))


def code(text: str):
    return new_code_cell(textwrap.dedent(text).strip("\n"))


# Figures (lsmsim builds matplotlib `Figure`s without pyplot) render inline once the inline backend is
# active; tqdm.auto, imported by lsmsim.run for its optional progress bar, warns when ipywidgets is
# missing even with progress off.
MPL = """\
%matplotlib inline
import warnings
warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets; no progress bars here

"""


def setup(name: str, imports: str) -> str:
    """The first code cell of every notebook: `imports` (which must import os and Path), then find the
    repository and pick the output folder."""
    head = MPL + textwrap.dedent(imports).strip("\n") + "\n"
    body = textwrap.dedent(f'''
        def repo_root(start: Path = Path.cwd()) -> Path:
            """The lsmsim checkout: the first folder at or above `start` holding experiments/ and lsmsim/."""
            for d in (start, *start.parents):
                if (d / "experiments").is_dir() and (d / "lsmsim").is_dir():
                    return d
            raise FileNotFoundError(f"no lsmsim checkout at or above {{start}}; start Jupyter inside the repository")


        ROOT = repo_root()
        # Outputs go under results/ (git-ignored); the test suite sets LSMSIM_NOTEBOOK_OUT to a temporary folder.
        OUT = Path(os.environ.get("LSMSIM_NOTEBOOK_OUT") or ROOT / "results" / "notebooks") / "{name}"
        print("repository:", ROOT)
        print("outputs:   ", OUT)''')
    return head + "\n" + body


# --------------------------------------------------------------------------------------------------
# 01 quickstart

NB01 = [
    md("""
    # 01 · Quickstart: one simulation, its tables and plots

    `lsmsim` simulates an LSM-tree (memtable, flushes, compactions, write stalls) on a modelled
    machine (CPU cores, flush and compaction threads) and storage device, event by event in
    simulated time. One call, `lsmsim.run(config)`, returns a `Result` with

    * `summary`: a dict of scalars (throughput, latency percentiles, write/space amplification,
      stalls, CPU and device utilisation, the final tree);
    * `timeseries`: one row per `sim.sample_interval` (throughput, the tree's shape, stalls, ...);
    * `compactions`: one row per flush, compaction or trivial move;
    * `latency`: percentiles per operation type.

    This notebook runs `experiments/quickstart.yaml` (a RocksDB-style leveled tree filled by random
    puts, then a zipfian read/update/scan mix), scaled down so it takes a second or two.
    """),
    code(setup("01-quickstart", """
        import os
        from pathlib import Path

        import pandas as pd

        import lsmsim

        pd.set_option("display.width", 160)
        pd.set_option("display.max_columns", 20)
    """)),
    md("""
    ## The config

    A config has the sections `machine`, `device`, `lsm`, `policy`, `workload` and `sim`; units are
    strings such as `4MiB`, `1.5GB/s` or `80us`. Fields keep RocksDB's option names and defaults
    (`docs/config-reference.md` lists every field).
    """),
    code("""
    CONFIG = ROOT / "experiments" / "quickstart.yaml"
    print(CONFIG.read_text())
    """),
    md("""
    ## Run it, smaller

    `overrides` are `path=value` strings, as `lsmsim run --set` takes them. The full quickstart loads
    2M keys; here we load 400K keys into a tree with a 1 MiB memtable and a 4 MiB L1, so it still
    grows several levels deep, and run the mixed phase for 5 simulated seconds. With `out=`, the run
    is also saved (JSON + Parquet + the resolved config + provenance + a PNG of the tree).

    In Jupyter a `Result` displays as grouped tables of its key metrics.
    """),
    code("""
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
    """),
    code("""
    sorted(p.name for p in (OUT / "run").iterdir())
    """),
    md("""
    ## The summary

    `r.summary` is a plain dict (the README's table explains every key); `r.table()` is the same as a
    two-column DataFrame. A few headline numbers:
    """),
    code("""
    keys = ["sim_time_s", "measured_time_s", "throughput_ops_per_s", "throughput_write_ops_per_s",
            "throughput_get_ops_per_s", "latency_get_p99_s", "write_amp", "write_amp_flush",
            "write_amp_compaction", "space_amp", "stall_stop_s", "stall_slowdown_s", "cpu_util",
            "device_util", "flushes", "compactions", "trivial_moves", "sorted_runs"]
    pd.Series({k: r.summary[k] for k in keys}, name="value").to_frame()
    """),
    md("""
    ## The time series

    One row per sample interval. Rates (`*_ops_per_s`, `write_mb_per_s`) are per interval; the tree
    columns (`runs_L<i>`, `files_L<i>`, `bytes_L<i>`, `sorted_runs`) are the state at the sample;
    `write_amp` is cumulative up to the sample. The `phase` column tells which workload phase was
    running, `(drain)` is the time after the last phase while pending compactions finish.
    """),
    code("""
    ts = r.timeseries
    print(ts.shape)
    ts[["time", "phase", "write_ops_per_s", "get_ops_per_s", "long_scan_ops_per_s", "sorted_runs",
        "runs_L0", "bytes_L1", "bytes_L2", "pending_compaction_bytes", "stall", "write_amp"]].head(12)
    """),
    md("Ordinary pandas applies, e.g. mean rates and utilisation per phase:"),
    code("""
    ts.groupby("phase", sort=False)[["write_ops_per_s", "get_ops_per_s", "long_scan_ops_per_s",
                                     "cpu_util", "device_util", "sorted_runs"]].mean()
    """),
    md("""
    ## The compaction log

    One row per job: its kind (`flush`, `compaction`, `trivial_move`), why it was picked (`reason`),
    its simulated start and end, the levels it read and wrote, and files, bytes and entries in and
    out (fewer entries out than in: overwritten keys were dropped).
    """),
    code("""
    c = r.compactions
    c.head(8)
    """),
    code("""
    jobs = c.assign(duration_ms=(c.end - c.start) * 1e3).groupby(["kind", "output_level"]).agg(
        jobs=("id", "size"), read_MB=("read_bytes", lambda b: b.sum() / 1e6),
        written_MB=("write_bytes", lambda b: b.sum() / 1e6), mean_duration_ms=("duration_ms", "mean"))
    jobs
    """),
    md("""
    The log adds up to the summary: flush and compaction bytes written over the user bytes written
    is the write amplification.
    """),
    code("""
    print(f"from the log: {c.write_bytes.sum() / r.summary['user_bytes']:.4f}   summary write_amp: {r.summary['write_amp']:.4f}")
    """),
    md("## Latency percentiles (measured phases only)"),
    code("""
    r.latency
    """),
    md("""
    ## Plots

    `r.plot(kind)` returns a matplotlib `Figure` (shown inline; `path=` also writes it to a file):
    `"tree"` is the number of sorted runs and the bytes per level over time, `"throughput"` the
    operations per second by type, `"write_amp"` the parts of the write amplification. Dotted lines
    mark phase boundaries.
    """),
    code("""
    r.plot("tree")
    """),
    code("""
    r.plot("throughput")
    """),
    code("""
    r.plot("write_amp")
    """),
    md("""
    Anything else is a few lines of matplotlib over the DataFrames, e.g. every job as a bar on its
    output level (flushes write L0), which shows the compactions running concurrently with flushes:
    """),
    code("""
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
    """),
    md("""
    ## Next

    * `02-comparing-policies`: run many configs at once with `lsmsim.sweep` and compare policies.
    * `03-ssd-garbage-collection`: the SSD model's FTL, GC write-amp and its closed form.
    * `04-ecotune-dp`: EcoTune's dynamic program for main-level compaction schedules.

    The same run from a shell: `.venv/bin/lsmsim run experiments/quickstart.yaml --set workload.num=400K ... -o results/quickstart`.
    """),
]


# --------------------------------------------------------------------------------------------------
# 02 comparing policies

NB02 = [
    md("""
    # 02 · Comparing compaction policies with a sweep

    A *sweep* is a base config plus a `sweep:` section that expands into points: named `variants`,
    a cartesian `grid`, paired `zip` lists and `seeds`. `lsmsim.sweep(spec)` runs every point (in
    parallel worker processes), stores each under `<out>/points/<id>/` and returns a
    `SweepResults` whose `.table` has one row per point: its parameters and its whole summary.

    Here: four compaction policies (RocksDB-style leveling, tiering, Dostoevsky's lazy leveling and
    RocksDB's universal compaction), each at three data sizes, then a short read phase.
    """),
    code(setup("02-comparing-policies", """
        import os
        import time
        from pathlib import Path

        import matplotlib.pyplot as plt
        import pandas as pd

        import lsmsim

        pd.set_option("display.width", 160)
    """)),
    md("""
    ## The spec, as a Python dict

    The same structure as a sweep YAML file (see `lsmsim/sweeps/spec.py` or the README). Notes:

    * A variant that gives `policy` as a mapping replaces the whole `policy` section, so each variant
      names its policy and its own options (`size_ratio` T = 4 for tiering and lazy leveling,
      `max_bytes_for_level_multiplier` 4 for leveling; universal keeps RocksDB's defaults).
    * `zip` pairs lists element by element: the key space (`workload.num`) and the number of inserts
      of the load phase (`workload.phases.0.operations`) change together.
    * `sim.sample_interval` is short so the per-point time series show the tree's shape in detail.
    * The tree is tiny on purpose (512 KiB memtable, 2 MiB level base) so that 50K to 200K keys
      already make several levels; the whole sweep takes a few seconds on 2 cores.
    """),
    code("""
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
    """),
    md("""
    `lsmsim.sweeps.load_sweep` expands a spec without running it (what `lsmsim sweep --dry-run`
    prints). A point's id is a hash of its resolved config and the lsmsim version.
    """),
    code("""
    from lsmsim.sweeps import load_sweep

    load_sweep(spec).table()
    """),
    md("""
    ## Run it

    `jobs=2` runs two points at a time in spawned worker processes. Points already present in `out`
    are skipped, so if you have run this notebook before this cell returns at once (delete the
    folder to start over).
    """),
    code("""
    t0 = time.perf_counter()
    res = lsmsim.sweep(spec, out=OUT, jobs=2)
    first_wall_s = time.perf_counter() - t0
    assert len(res.failed) == 0, res.failed[["variant", "error"]]   # a failing point is recorded, not raised
    print(f"{len(res)} points, wall time {first_wall_s:.1f} s, simulation time summed over points "
          f"{res.table.runtime_s.sum():.1f} s")
    res
    """),
    md("""
    `res.view()` is the parameters plus headline metrics; pass `metrics=` for others. `res.table`
    has every summary key as a column.
    """),
    code("""
    res.view(["write_amp", "space_amp", "sorted_runs", "throughput_get_ops_per_s", "latency_get_p99_s"])
    """),
    md("""
    ## Plots

    `res.plot(x, y, hue="variant")` draws y against x, one line per variant (averaged over seeds
    when there are several). The classic trade-off shows: leveling pays the most write-amp, more so
    as the tree gets deeper, and tiering the least; tiering keeps more sorted runs, which costs
    space and point-lookup throughput. Lazy leveling sits in between, universal compaction close to
    leveling. (Tiny trees: take the trends, not the numbers.)
    """),
    code("""
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
    """),
    md("""
    ## One point's tables

    `res.point(point_id)` loads one point's `summary`, `timeseries`, `compactions` and `latency`, the
    same tables `lsmsim.run` returns. Sorted runs over time at the largest size, per policy:
    """),
    code("""
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
    """),
    md("""
    ## Reload and resume

    Everything is on disk: `results.parquet` (the table) and one folder per point. A later session
    reloads it without running anything with `lsmsim.load_results(folder)`.
    """),
    code("""
    print(sorted(p.name for p in OUT.iterdir()))
    loaded = lsmsim.load_results(OUT)
    loaded.view().sort_values(["variant", "workload.num"])
    """),
    md("""
    Calling `lsmsim.sweep` again with the same spec runs nothing: every point id is already in the
    store. Extending the spec (here a fourth data size, 400K keys) runs only the new points, and the
    returned table holds old and new ones together.
    """),
    code("""
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
    """),
    code("""
    fig, ax = plt.subplots(figsize=(6, 4))
    more.plot("workload.num", "write_amp", ax=ax)
    keys_axis(ax, SIZES_MORE)
    plt.show()
    """),
    md("""
    From a shell the same sweep is a YAML file and `lsmsim sweep my-sweep.yaml -j 2`
    (`--dry-run` lists the points, `--executor dask` runs them on a Dask cluster).
    """),
]


# --------------------------------------------------------------------------------------------------
# 03 SSD garbage collection

NB03 = [
    md("""
    # 03 · SSD garbage collection under LSM compaction

    With `device: {model: ssd}` (or a device `preset`) lsmsim replaces its simple device with an SSD
    model: a timing model plus a page-mapped FTL (erase units, over-provisioning, greedy or
    cost-benefit victims, TRIM). Every file an LSM job writes lands on logical pages; when a file is
    deleted its pages are trimmed; when free erase blocks run out, GC copies the valid pages out of a
    victim block. So the device writes more than the host does:

    * *compaction write-amp* `write_amp` = bytes flushes and compactions wrote / user bytes,
    * *GC write-amp* `gc_write_amp` = flash pages written / host pages written,
    * *total* `total_write_amp` = their product (Spooky, PVLDB'22, Eq. 2).

    Spooky's §3 observation (its Fig. 7A): RocksDB's partial merges (many small SSTs per level,
    written and deleted at different times) leave erase blocks holding data of mixed lifetimes, so
    GC must copy; full-level merges write and delete whole levels, erase blocks die together and GC
    write-amp stays near 1. `experiments/spooky/gc.yaml` reproduces this at ~85% device utilisation;
    here both configs are scaled down further so each runs in a few seconds.
    """),
    code(setup("03-ssd-garbage-collection", """
        import os
        from pathlib import Path

        import numpy as np
        import pandas as pd
        from matplotlib.figure import Figure

        import lsmsim

        pd.set_option("display.width", 160)
    """)),
    code("""
    SPOOKY = ROOT / "experiments" / "spooky"
    print((SPOOKY / "gc-partial-merge.yaml").read_text())
    """),
    md("""
    ## Two runs: partial merge and full merge

    Scaled down: 1M keys instead of 4M, 2M updates instead of 8M, a 2 MiB memtable and 4 MiB erase
    units. The device capacity shrinks with the data so the peak utilisation stays around 80%
    (`device_peak_utilization` reports it). The full-merge config writes each level as one big run,
    and a full merge of the last level needs room for its output next to its input, so it gets a
    larger device for the same data (as in `gc.yaml`).
    """),
    code("""
    SMALL = ["workload.num=1M", "workload.phases.0.operations=1M", "workload.phases.1.operations=2M",
             "device.ftl.erase_unit=4MiB", "lsm.write_buffer_size=2MiB"]
    runs = {
        "partial merge (leveled, T=5)": lsmsim.run(SPOOKY / "gc-partial-merge.yaml", SMALL + [
            "device.capacity=216MiB", "policy.target_file_size_base=512KiB", "policy.max_bytes_for_level_base=10MiB"]),
        "full merge (T=5)": lsmsim.run(SPOOKY / "gc-full-merge.yaml", SMALL + [
            "device.capacity=360MiB", "policy.target_file_size=16MiB"]),
    }
    runs["partial merge (leveled, T=5)"]
    """),
    code("""
    keys = ["write_amp", "gc_write_amp", "total_write_amp", "device_peak_utilization", "space_amp_peak",
            "gc_copies", "erases", "erase_count_max", "gc_stall_s", "throughput_write_ops_per_s"]
    table = pd.DataFrame({name: {k: r.summary[k] for k in keys} for name, r in runs.items()}).T
    table.insert(3, "flash_write_GB", [r.summary["flash_write_bytes"] / 1e9 for r in runs.values()])
    table.round(3)
    """),
    md("""
    ## Write-amp over time

    The time series carries the cumulative `write_amp`, `gc_write_amp` and `total_write_amp` at every
    sample (and `gc_write_amp_interval`, GC write-amp within the interval). GC stays idle while the
    device still has free erase blocks, most of the fill phase; once the device fills up and the
    updates keep rewriting files, partial merge's GC write-amp climbs while full merge's stays near 1.
    """),
    code("""
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
    """),
    code("""
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
    """),
    md("""
    `r.plot("write_amp")` summarises the same in one bar chart per run:
    """),
    code("""
    runs["partial merge (leveled, T=5)"].plot("write_amp")
    """),
    md(r"""
    ## The closed form for uniform random overwrites

    For the textbook workload (every logical page holds data and is overwritten uniformly at random,
    greedy victim selection, steady state) GC write-amp has a closed form in the Lambert W function
    (Desnoyers, SYSTOR 2012; Xiang & Kurkoski 2012). With $\alpha$ = physical / logical pages:

    $$A = \frac{\alpha}{\alpha + W_0(-\alpha e^{-\alpha})}$$

    `lsmsim.ssd.gc_theory` implements it (`wa_greedy_limit`, many pages per block), the finite
    pages-per-block correction (`wa_greedy`) and the older Agarwal & Marrow form (`wa_agarwal`), each
    taking a spare factor $S_f$ = (physical - logical) / physical (or `op_ratio=`).

    The FTL in `lsmsim.ssd.ftl` can be driven directly: fill 1 GiB of 4 KiB logical pages
    sequentially, overwrite them once at random to reach steady state, then measure GC write-amp over
    two more logical sizes of random overwrites. `ftl.spare_factor` is the effective spare factor
    after rounding to whole erase blocks.
    """),
    code("""
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
    """),
    code("""
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
    """),
    md("""
    ## Where the LSM runs sit

    As a yardstick: if the data the LSM-tree held at its peak were instead overwritten uniformly at
    random page by page, the device would run at spare factor 1 - peak data / physical capacity, and
    the closed form at that spare factor is what random overwrites would cost. The LSM-tree writes
    files sequentially and trims whole files; what it pays depends on how well the lifetimes of the
    data sharing an erase block line up, which is what separates partial from full merges. Here,
    in the last seconds of updates, partial merge pays about what uniform random overwrites would,
    full merge almost nothing. (A yardstick, not a model of the run: the utilisation changes over
    the run, and the cumulative GC write-amp includes the GC-free fill phase.)
    """),
    code("""
    rows = {}
    for name, r in runs.items():
        ftl_cfg = r.config.device.ftl
        op = ftl_cfg.over_provisioning if ftl_cfg.op_definition == "ratio" else ftl_cfg.over_provisioning / (1 - ftl_cfg.over_provisioning)
        physical_over_logical = 1 + op
        used = r.summary["device_peak_utilization"]        # peak fraction of the logical capacity in use
        sf_eff = 1 - used / physical_over_logical
        pages_per_block = int(ftl_cfg.erase_unit // ftl_cfg.mapping_unit)
        rows[name] = {"peak utilisation": used, "effective spare factor": sf_eff,
                      "uniform-random GC write-amp (closed form)": gc_theory.wa_greedy(sf_eff, pages_per_block),
                      "LSM GC write-amp (measured, cumulative)": r.summary["gc_write_amp"],
                      "LSM GC write-amp (last 5 s of updates)":
                          r.timeseries.query("phase == 'update'").gc_write_amp_interval.tail(5).mean()}
    pd.DataFrame(rows).T.round(3)
    """),
    md("""
    The full Spooky experiment (4M keys, both policies) is `lsmsim sweep experiments/spooky/gc.yaml`
    (about 10 s), and `lsmsim figures --only spooky-gc` draws its figure.
    """),
]


# --------------------------------------------------------------------------------------------------
# 04 EcoTune's DP

NB04 = [
    md("""
    # 04 · EcoTune's dynamic program

    EcoTune (Wang et al., "Rethinking The Compaction Policies in LSM-trees", SIGMOD 2025, §4.3)
    chooses *when* to merge runs in the main level so that queries are served fastest over a
    compaction round. The model:

    * a round has **R** top-to-main compactions (TMCs), one every **T_w**; each adds one unit run to
      the main level; after TMC R a global compaction merges the main level into the last level,
      which holds **C**·R unit runs;
    * a main-level compaction (MLC) rewrites one unit run per **T_c**; one MLC runs at a time;
    * with e main-level runs a query mix with long-range-scan ratio **r** and range-filter
      false-positive rate **f** runs at q(e) = 1 / ((e + 2) r + (1 - r)(1 + f)), and at
      **beta**·q(e) while an MLC runs;
    * a policy's *score* is the number of queries served in the round; the DP maximises it.

    `lsmsim.policies.ecotune.dp.solve(params, alg)` solves the simplified recurrence (alg 0),
    Algorithm 1 or Algorithm 2 (queries during MLCs, MLCs longer than T_w) with numba kernels;
    `solve_reference` is a literal Python transcription used to check them. Every choice where the
    paper is ambiguous is listed as I1-I11 in the module's docstring.
    """),
    code("%matplotlib inline\n" + textwrap.dedent("""
    import time

    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure

    from lsmsim.policies.ecotune.dp import (PAPER_TABLES, EcoTuneParams, brute_force, evaluate_policy,
                                            paper_policy, solve, solve_reference, time_solve)

    pd.set_option("display.width", 160)
    """).strip("\n")),
    md("""
    ## Parameters

    R = 29 and C = 3 as in the paper's Tables 5-8. The paper does not give T_w, T_c, beta or f for
    those tables; we use the values of this repository's CLI example (`lsmsim ecotune solve --Tw 6.55
    --Tc 1.38 --beta 0.5 --f 0.01`), i.e. one unit-run rewrite takes about 0.21 T_w. Only the
    ratio T_c / T_w matters for the policy.
    """),
    code("""
    BASE = dict(R=29, C=3, T_w=6.55, T_c=1.38, beta=0.5, f=0.01)

    def params(**kw) -> EcoTuneParams:
        return EcoTuneParams(**{**BASE, **kw})

    params(r=0.5)
    """),
    md("""
    ## Optimal layouts for a few long-range ratios

    `res.policy.table()` prints a policy as the paper's Tables 5-8 do: one row per TMC at which an
    MLC starts, the main-level layout before -> after (run sizes in unit runs, oldest first; `n[1]`
    is n runs of size 1), the MLC's size and its duration in units of T_w; the last row is the
    layout at TMC R, just before the global compaction.
    """),
    code("""
    for r in [0.1, 0.2, 0.5, 0.9]:
        res = solve(params(r=r), alg=2)
        pol = res.policy
        print(f"r = {r}: score {res.score:.2f}, {pol.n_merges} MLCs rewriting {pol.mlc_work} unit runs, "
              f"{pol.mean_runs:.2f} main-level runs on average")
        print(pol.table())
        print()
    """),
    md("""
    ## Lazier as long-range scans become rarer

    When few queries are long-range scans, extra main-level runs cost little (they only slow the
    scans), so the optimal policy merges less: fewer MLCs, fewer unit runs rewritten, more runs on
    average. At r = 0 there is nothing to gain from merging at all (no MLC, R/2 runs on average; the
    plots start at r = 0.05). The panels sweep r for three rewrite speeds (T_c / T_w); slower
    rewrites (larger T_c) make merging dearer and every policy lazier.

    The trend is a property of the parameters, not a theorem: with beta = 1 (an MLC costs no query
    speed) Algorithm 2 can merge *more* at small r (`tests/test_ecotune_dp.py`,
    `test_laziness_is_not_monotone_everywhere`).
    """),
    code("""
    RS = np.round(np.arange(0.0, 1.0001, 0.05), 2)
    rows = []
    for ratio in [0.1, 1.38 / 6.55, 0.4]:
        for r in RS:
            res = solve(params(T_c=ratio * BASE["T_w"], r=float(r)), alg=2)
            rows.append({"T_c/T_w": round(ratio, 2), "r": r, "MLCs": res.policy.n_merges,
                         "MLC work (unit runs)": res.policy.mlc_work, "mean main-level runs": res.policy.mean_runs,
                         "score": res.score})
    lazy = pd.DataFrame(rows)
    lazy.pivot(index="r", columns="T_c/T_w", values="MLC work (unit runs)").T
    """),
    code("""
    fig = Figure(figsize=(14, 3.8))
    axes = fig.subplots(1, 3)
    for ax, col in zip(axes, ["MLCs", "MLC work (unit runs)", "mean main-level runs"]):
        for ratio, g in lazy[lazy.r > 0].groupby("T_c/T_w"):   # r = 0: no MLC at all, R/2 runs on average
            ax.plot(g.r, g[col], drawstyle="steps-mid", marker=".", label=f"T_c/T_w = {ratio}")
        ax.set_xlabel("long-range-scan ratio r")
        ax.set_title(col)
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.tight_layout()
    fig
    """),
    md("""
    ## The paper's tables

    `paper_policy(n)` is the paper's Table n (5-8) as a `Policy`; `PAPER_TABLES[n]` holds its caption,
    the ratios r it was printed for and a note on misprinted rows. Table 5 (10% long-range scans):
    """),
    code("""
    print(PAPER_TABLES[5]["caption"])
    print(paper_policy(5).table())
    print()
    print("DP at r = 0.1 with the parameters above:")
    print(solve(params(r=0.1), alg=2).policy.table())
    """),
    md("""
    `evaluate_policy` scores any schedule under the cost model, event by event and without sharing
    code with the DP, so the paper's schedules can be compared with the optimum for our (assumed)
    T_w, T_c, beta and f. They cannot beat it; that they come within a few percent suggests
    parameters not far from these. The same trend holds: the paper's policies also merge more as r
    grows.
    """),
    code("""
    rows = []
    for t, entry in PAPER_TABLES.items():
        p = params(r=entry["r"][0])
        best = solve(p, alg=2)
        paper = paper_policy(t)
        rows.append({"table": t, "caption": entry["caption"], "r": p.r,
                     "paper MLC work": paper.mlc_work, "DP MLC work": best.policy.mlc_work,
                     "paper score": evaluate_policy(p, paper.merges, 2), "DP score": best.score})
    cmp = pd.DataFrame(rows)
    cmp["paper / DP"] = cmp["paper score"] / cmp["DP score"]
    cmp.round(3)
    """),
    code("""
    fig = Figure(figsize=(9, 3.5))
    ax = fig.subplots()
    tmcs = np.arange(1, 30)
    ax.step(tmcs, [len(l) for l in paper_policy(5).layouts], where="post", label="paper Table 5 (r = 0.1)")
    ax.step(tmcs, [len(l) for l in solve(params(r=0.1), 2).policy.layouts], where="post", label="DP, r = 0.1")
    ax.step(tmcs, [len(l) for l in solve(params(r=0.9), 2).policy.layouts], where="post", label="DP, r = 0.9")
    ax.set_xlabel("TMC")
    ax.set_ylabel("main-level runs after the TMC")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig
    """),
    md("""
    ## Checks and speed

    For small R, `brute_force` enumerates every schedule of the alg 0/1 policy space and scores each
    with `evaluate_policy`; the DP must find the same optimum.
    """),
    code("""
    p = params(R=9, r=0.6)
    for alg in (0, 1):
        bf_score, _ = brute_force(p, alg)
        print(f"alg {alg}: DP {solve(p, alg).score:.10g}   brute force {bf_score:.10g}")
    """),
    md("""
    The numba kernel against the plain-Python reference (memoised recursion), Algorithm 2:
    `time_solve` reports the best wall time of a few solves with the kernels already compiled. Both
    must return the same score and schedule.
    """),
    code("""
    rows = []
    for R in [6, 9, 12, 15, 18, 21]:
        p = params(R=R, r=0.5)
        fast, ref = solve(p, 2), solve_reference(p, 2)
        assert fast.score == ref.score and fast.policy.merges == ref.policy.merges
        rows.append({"R": R, "numba (ms)": 1e3 * time_solve(p, 2), "Python reference (ms)": 1e3 * time_solve(p, 2, reference=True, repeat=1)})
    speed = pd.DataFrame(rows).set_index("R")
    speed["speed-up"] = speed["Python reference (ms)"] / speed["numba (ms)"]
    speed.round(3)
    """),
    code("""
    print(f"numba, R = 29: {1e3 * time_solve(params(r=0.5), 2):.1f} ms;  R = 64 (largest allowed): "
          f"{1e3 * time_solve(params(R=64, r=0.5), 2, repeat=1):.0f} ms")
    """),
    md("""
    From a shell: `lsmsim ecotune solve --alg 2 --R 29 --C 3 --Tw 6.55 --Tc 1.38 --beta 0.5 --r 0.5 --f 0.01`
    prints the score, the table and solve times. The simulator's `ecotune` policy (`policy: {name:
    ecotune}`) applies such schedules inside a full LSM simulation.
    """),
]


NOTEBOOKS = {
    "01-quickstart.ipynb": NB01,
    "02-comparing-policies.ipynb": NB02,
    "03-ssd-garbage-collection.ipynb": NB03,
    "04-ecotune-dp.ipynb": NB04,
}


def build(name: str, cells) -> nbformat.NotebookNode:
    nb = new_notebook(cells=[nbformat.from_dict(dict(c)) for c in cells])
    stem = name.split(".")[0][:2]
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"nb{stem}-{i:02d}"
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nbformat.validate(nb)
    return nb


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, cells in NOTEBOOKS.items():
        text = nbformat.writes(build(name, cells)) + "\n"
        path = HERE / name
        if check:  # compare content, not formatting (another nbformat may indent differently)
            if not path.exists() or json.loads(path.read_text()) != json.loads(text):
                stale.append(name)
        elif not path.exists() or path.read_text() != text:
            path.write_text(text)
            print("wrote", path)
    if stale:
        print("out of date (run notebooks/build.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
