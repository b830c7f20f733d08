"""Fit the drive presets of lsmsim/presets/ssd/ to the real-drive fio traces in ../shared/data/fio-real/
(provenance in its PROVENANCE.md). Each preset records the globs of the traces it was fitted to and replays
(`fio_traces`); the traces themselves stay outside the repository.

    python scripts/fit_ssd_presets.py [NAME ...] [--root ../shared/data/fio-real]
    python scripts/fit_ssd_presets.py NAME --holdout      # fit on QD 1, 4, 16, 64; judge the rest
    python scripts/fit_ssd_presets.py NAME --order        # only search the preset's write order again
    python scripts/fit_ssd_presets.py NAME --queues       # only search its submitting thread's moves again
    python scripts/fit_ssd_presets.py NAME --polish       # only polish the preset toward the replay's goals again

--holdout writes no preset: it fits on the device's traces at queue depths 1, 4, 16 and 64 and
prints measured vs model on every other trace of the device (does the model interpolate?).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lsmsim.ssd import cli
from lsmsim.units import parse_size

AIALRA = "AIALRA-0__ECSE-4320-Advanced-Computer-Systems/Project3 SSD/results/"
STONET = "stonet-research__icpe24_io_scheduler_study_artifact/results/fig-1-samsung-baseline/"
ZNS = "nicktehrany__ZNS-Study/IO_Performance/data/"
# name: (capacity, globs fitted to, globs replayed)
DEVICES = {
    "samsung-pm981-256gb": (
        "256GB",
        [AIALRA + "qd_sweep/*_1.json", AIALRA + "qd1_test/*_1.json", AIALRA + "rw_mix/mix_*_1.json"],
        [
            AIALRA + "qd_sweep/*.json",
            AIALRA + "qd1_test/*.json",
            AIALRA + "rw_mix/mix_*.json",
            AIALRA + "sect6/r[rw]_*.json",
        ],
    ),
    "samsung-980pro-1tb": (
        "1TB",
        [
            STONET + "results_qd_iops_vary_bs/fio_output/bs_4k_*.txt",
            STONET + "results_qd_iops_vary_bs/fio_output/bs_16k_*.txt",
            STONET + "results_qd_iops_vary_bs/fio_output/bs_64k_*.txt",
        ],
        [STONET + "results_qd_iops_vary_bs/fio_output/*.txt", STONET + "results_qd_iops_inc_proc_4kb/fio_output/*.txt"],
    ),
    "sabrent-rocket4plus-2tb": (
        "2TB",
        ["SamYaple__fio-plot-results/benchmarks/512_sector/**/*.json"],
        ["SamYaple__fio-plot-results/benchmarks/**/*.json"],
    ),
    "samsung-pm981a-512gb": (
        "512GB",
        [  # every size and mix at depths 1, 64 and 1024; depth 8 held out (fitted on 4 and 32 KiB only, the fit
            # matched them and missed 16 and 128 KiB reads by 10-30%: the 32 KiB reads run slower than both)
            "fiumad__Advanced-Computer-Systems/proj3/fio_results/*_qd1.json",
            "fiumad__Advanced-Computer-Systems/proj3/fio_results/*_qd64.json",
            "fiumad__Advanced-Computer-Systems/proj3/fio_results/*_qd1024.json",
        ],
        ["fiumad__Advanced-Computer-Systems/proj3/fio_results/*.json"],
    ),
    "samsung-evo-2tb": (
        "2TB",
        [ZNS + "throughput/nvme0n1p1-*/*_queue-depth-[1248].json"],
        [ZNS + "throughput/nvme0n1p1-*/*.json"],
    ),
    "intel-optane-ssd": (
        "375GB",
        [ZNS + "throughput/nvme1n1p2-*/*_queue-depth-[1248].json"],
        [ZNS + "throughput/nvme1n1p2-*/*.json"],
    ),
    "wd-zns-conventional": (
        "4GiB",
        [  # and its random writes at every depth: the order they are served in shows from depth 16 on (ORDER)
            ZNS + "throughput/nvme2n1-*/*_queue-depth-[1248].json",
            ZNS + "scaled_bandwidth/nvme2n1-*/*.json",
            ZNS + "throughput/nvme2n1-*/*_randwrite_4Ki_queue-depth-*.json",
        ],
        [ZNS + "throughput/nvme2n1-*/*.json", ZNS + "scaled_bandwidth/nvme2n1-*/*.json"],
    ),
}


# Parameters a device's traces leave unconstrained, held at their documented defaults (calibrate.BOUNDS).
# The WD ZNS conventional namespace acknowledges 4 KiB writes in a near-constant time at every queue depth
# (p50 and p95 are all fio recorded), so the fit drives write_sigma to its lower bound: hold it instead.
# Its 4 and 8 KiB writes plateau at 56-61K IOPS while 16 KiB and larger ones run at the 1.09 GB/s flash rate
# (66.8K IOPS at 16 KiB): one command rate cannot give both, a 16 KiB program unit can (write_unit, issue 39).
# The PM981a's mixes keep writes fast while reads queue (16 KiB 50/50 at depth 64: writes 18.5us at p50, reads
# 2.1ms): its units start a waiting program before their queued reads (program_first, issue 39). Its pure reads top
# out at 3.6, 13.9 and 97 us a read at 4, 16 and 128 KiB: a shared stage at 1.33 GB/s (0.6 us + size / 1.33 GB/s);
# fitted freely the stage follows its 32 KiB reads (938 MB/s, slower than 16 and 128 KiB) down to 1.13 GB/s, and 31
# of its 96 directions meet every goal, 34 with the stage held at 1.33 GB/s.
# The Sabrent's 4 KiB mixes show the same (writes 12-25us at p50 from depth 1 to 64, reads 67-340us): robust fits
# with it meet every goal on 6 of its 56 directions, 3 without (1 before either).
# The Optane's traces the fit sees (queue depth 1-8) never fill its write buffer, so none constrains its media's
# program time, and NAND's default (1 ms) set the drain of its held-out depth-128 writes. 3D XPoint has no NAND
# program: Intel gives the P4800X's whole write command a typical latency under 10us (its product brief), so its
# media's program is held at 10us, below NAND's bound (calibrate.BOUNDS).
# The PM981a is a PCIe 3.0 x4 drive: its reads' host link is held at that rate (3.94 GB/s); its polish took it to
# 4.55 GB/s for no goal (44, 43, 42 directions on seeds 1-3 against 44, 43, 41 at 3.94). The PM981 too: its traces
# never reach the link (its flash caps its reads at 1.6 GB/s), so its polish moved it to 7.8 GB/s for half a
# microsecond of each read's latency, which the rest of the read path now carries.
FIXED = {
    "intel-optane-ssd": {"program_time": 10e-6},
    "wd-zns-conventional": {"write_sigma": 0.2, "write_unit": 16384},
    "samsung-pm981a-512gb": {"program_first": 1, "shared_read_bandwidth": 1.33e9, "read_bandwidth": 3.94e9},
    "sabrent-rocket4plus-2tb": {"program_first": 1},
    "samsung-pm981-256gb": {"read_bandwidth": 3.94e9},
}
# Opt-in parameters a device's traces call for (calibrate.OPT_IN). WD ZNS's 4 KiB writes plateau at 56-59K IOPS
# from queue depth 2 on, where one alone takes 20us: its controller overlaps write commands (issue 39).
# The PM981a's mixes at depth 64-1024 move the harmonic mean of its pure rates (R / 1.36 + W / 0.925 GB/s = 0.91-1.15)
# while its reads wait for programs with the probability of one unit's program share: a controller stage reads and
# programs share (lsmsim/ssd/stages.py), apart from the flash units.
# The 980 PRO's 4 KiB reads at depth 1 have two modes, 30% at 20us and the rest at 60us (fast flash reads: data in
# its SLC region), so fio's mean lies below its median: its fit asks for the fast reads' share and time. Its reads of
# 512 B-4 KiB take 60 us at depth 1 and those of 8 and 16 KiB 110-119 us (8 KiB is held out): a 4 KiB unit alone is
# read from part of a page (partial_read_time).
# The PM981a's 128 KiB writes at depth 1 run at its 0.93 GB/s flash rate with 30% of them at link speed (48-57 us)
# and a tenth waiting 300-930 us: its buffer frees room in lumps (write_buffer_release, drive_sim). Its 50/50 mixes
# at depth 64 acknowledge 16 KiB writes in 18.5 us at p50 but 32 KiB ones in 518 us and 128 KiB ones in 5.7 ms, by
# their reads' 8.1 ms: past some 1-2 MB of data in service its commands wait in order (command_bytes, sq_fetch.py).
# Set to 1.5 MB on the polished preset (of 1, 1.5, 2, 3 and 4 MB the most directions met on seeds 1-2: 87 of 192), the
# 128 KiB mixes at depth 64 go from p50 +92% (reads) and -98% (writes) to +14% and +18%; the count stays (209 over
# seeds 1-5 without, 208 with; polished again with it, 207).
ALSO = {
    "wd-zns-conventional": ["write_command_share", "subunit_write_time"],
    "samsung-980pro-1tb": ["fast_read_fraction", "fast_read_time", "partial_read_time"],
    "samsung-pm981a-512gb": ["shared_write_bandwidth", "write_buffer_release", "command_bytes"],
}
# Starting points of the fit (calibrate.fit's `starts`): from the default write rate (400K) WD ZNS's fit stops at
# 72.7K IOPS, the first minimum that explains its writes' latencies; its plateau is 56-59K.
STARTS = {"wd-zns-conventional": 2}
# Candidate numbers of parallel units where a search over all of them costs an hour: WD ZNS's search by units gave
# costs 4: 7.50, 8: 6.84, 16: 4.64, 32: 4.39, 64: 3.54, 128: 3.30 (issue 39), so its refits start at 128.
# The PM981a's with the shared stage (robust): 5: 5.38, 6: 5.73, 8: 5.35, 10: 5.48, 12: 4.95, so its refits try 12.
# The Sabrent's (robust, program_first): 2: 2.82, 4: 2.45, 5: 1.94, 6: 1.91, 8: 1.72, 10: 1.45, 12: 1.78.
UNITS = {"wd-zns-conventional": "128", "samsung-pm981a-512gb": "12", "sabrent-rocket4plus-2tb": "10"}
# Starting points of the PM981a (issue 39): from the estimates its fit stops where the host link caps reads at 1.03
# GB/s and programs at 652 MB/s (3 of 96 directions met every goal). A region read off its traces: the shared stage at
# its pure rates (1.36 and 0.925 GB/s), reads of up to 64 KiB on one unit (a read in a mix waits for a program with
# the probability of one unit's program share: 1.5% of 4 KiB reads at 35 MB/s written, 22% of 128 KiB ones at 223
# MB/s), flash programs at 2.1 GB/s over the units (what those waits say). The values below are where a fit from there
# went, the stage's read rate held (as FIXED says): of the fits from it and its neighbours (12 or 16 units, rounded
# starts), the one whose fitted traces meet the most goals (30 of 72, against 24-27) starts from them.
START = {
    # the modes' share and clat; 4 KiB reads at depth 1 in 60 us, 8 and 16 KiB ones in 110-119 (a page's read)
    "samsung-980pro-1tb": {
        "fast_read_fraction": 0.3,
        "fast_read_time": 20e-6,
        "partial_read_time": 45e-6,
        "read_flash_time": 95e-6,
        "read_stream_bandwidth": 1.2e9,
    },
    "samsung-pm981a-512gb": {
        "host_per_io": 2.445e-06,
        "read_overhead": 2.72712e-05,
        "read_sigma": 0.1075,
        "read_flash_time": 3.943e-05,
        "read_stream_bandwidth": 2.16565e09,
        "page": 65642,
        "read_bandwidth": 5.33986e09,
        "read_retry_fraction": 0.007133,
        "read_retry_time": 0.0004602,
        "shared_write_bandwidth": 9.2e8,
        "write_overhead": 8.297e-06,
        "write_sigma": 0.6018,
        "write_stream_bandwidth": 1.48634e09,
        "write_iops": 1.01808e06,
        "program_time": 0.001593,
        "write_bandwidth": 1.52763e09,
        "write_buffer": 6.4e07,
        "readahead": 131072,
        "command_slots": 126,
    },
}
# Fits with the soft_l1 loss (calibrate.fit's `robust`): the PM981a's fio p99 at depth 1024 is twice its p50, a
# spread no fitted parameter gives (the thread's moves between submission queues that do, host_queues.py, are
# searched after the fit), and least squares trades the rest's goals for it (12 of 96 against 18 robust).
# The Sabrent's two recordings of the same jobs differ by up to 3.6x (4 KiB random writes at depth 4: 1,339 and 366
# MB/s), which no parameter can follow either.
ROBUST = {"samsung-pm981a-512gb", "sabrent-rocket4plus-2tb"}

# Read off the traces after the fit, where its least-squares cost and the traces part ways: WD ZNS's writes below
# the program unit run at one plateau from queue depth 2 on (56-59K IOPS), but the fit's p50 terms at depths 2-8,
# where fio's latencies are bimodal (random 4 KiB writes at depth 4: p50 39us, sequential 62us, at the same IOPS),
# pull their rate up to 69K. So the unit's extra time is set to what the plateau measures, 1 / plateau - 1 /
# write_iops (the lone write keeps its measured latency): 46 of the drive's 88 directions meet every goal, against
# 19 with the fitted value (issue 39).
PLATEAU = {"wd-zns-conventional": 2}  # the queue depth the plateau starts at

# Presets whose random writes at depth spread as no queue in submission order does (lsmsim/ssd/order.py): the order
# random writes are served in is searched on the fit's traces after the fit (as `lsmsim ssd calibrate --write-order`).
ORDER = {"wd-zns-conventional", "samsung-pm981-256gb"}

# Presets polished toward the replay's goals after their fit (lsmsim/ssd/goal_polish.py, as `lsmsim ssd calibrate
# --goal-polish`): coordinate steps on every parameter the fit may move while more fitted directions meet every goal.
# Directions meeting every goal with the replay's draws (seed 1) and the range with seeds 2-5, before -> after
# (issue 39): the PM981a 35 (31-32) -> 38 (34-36), the Sabrent 6 (4-6) -> 9 (9-11); held out 5 -> 5 and 2 -> 2.
# Polished again from its buffer room freed in 1 MB lumps (write_buffer_release) and write_sigma 0.2 (from 0.67: the
# lumps give its writes their spread), the PM981a met 44 (43, 42, 42, 40 on seeds 2-5; 38 (35, 35, 36, 34) before).
# WD ZNS polished met 72 of 89 (76, 71, 65, 74; before 71 of 94, then 64, 65, 70, 69): its model's reads now reach
# the host's limit at the depths PROVENANCE.md says one libaio job does (290-300K IOPS from depth 8 on), so five
# sequential 4 KiB reads at depth 8-128 that the model took for drive-limited are host-limited, not judged.
# Polished on seed 1's draws alone the PM981a reached 36 (31-34) and the Sabrent 9 (8-9) (goal_polish.SEEDS).
# The 980 PRO's polish met no more fitted goals (17 of 23) before its partial-page reads; refitted with them it met
# 36 of 66 (35, 35, 34, 35 on seeds 2-5), polished 39 (39, 39, 38, 38), its partial read at 44 us.
# The PM981's fit puts the reads' host link at 4.87 GB/s, above its PCIe 3.0 x4 (3.94 GB/s): the model's read crosses
# the link only once all its chunks are read, and a faster link is how it makes 128 KiB reads at depth 1 as fast as
# fio's. Polished from its fit it met 27 (24, 24, 24, 21 on seeds 2-5) -> 32 (29, 29, 29, 26) with the link at 7.8
# GB/s; from there with the link held at 3.94 GB/s (FIXED) it met 29 (26, 26, 25, 23), its 4 KiB reads at depth 8 and
# its 70/30 mix within issue 14's bounds (test_pm981_preset_follows_its_drive). (Refitted with the link held and then
# polished, a past session's met 30 but ran the reads at depth 8-16 12-16% fast.) The Sabrent was polished again on
# its stationary traces alone (calibrate leaves out runs that changed state): 6 (6, 6, 8, 6) -> 8 (7, 6, 8, 6) of 42;
# refitted on them first it met 8 (7, 7, 7, 5).
POLISH = {"samsung-pm981a-512gb", "sabrent-rocket4plus-2tb", "wd-zns-conventional", "samsung-pm981-256gb"}
POLISH |= {"samsung-980pro-1tb"}

# The traces recorded with the drive in steady state (PROVENANCE.md's recording conditions; the replay's drive state,
# timing.gc_write_amp): the rest were recorded on a drive that had not been written over just before.
# - PM981: sect6/rw_steady is 600 s of 4 KiB random writes over a 64 GiB file, 277 GB written, more than the drive
#   holds: its SLC cache is spent and GC runs (the 30 s rw_burst beside it: fresh).
# - 980 PRO: every series ran on a drive preconditioned by a sequential and then a random fill (its reads only: the
#   state changes no figure the model gives them).
# - WD ZNS: the overwrite-* jobs ran after a full sequential fill of the 4 GiB conventional namespace.
STEADY = {
    "samsung-pm981-256gb": [AIALRA + "sect6/rw_steady.json"],
    "samsung-980pro-1tb": DEVICES["samsung-980pro-1tb"][2],
    "wd-zns-conventional": [
        ZNS + "throughput/nvme2n1-*/*_overwrite-*.json",
        ZNS + "scaled_bandwidth/nvme2n1-*/*_overwrite-*.json",
    ],
}
# What the traces say of a drive's spare flash (the FTL's over-provisioning, which sets GC's write amplification in
# steady state, gc_theory Eq. 1): WD ZNS's random overwrites after a full fill run as fast as on a fresh namespace
# (128 KiB at depth 4: 1,091 MB/s both, at the flash's rate), so GC writes at most 2% more than the host: by Eq. 1,
# spare flash of at least 3 times the 4 GiB namespace (the drive backs it with far more than 7%).
DRIVE = {"wd-zns-conventional": {"ftl": {"over_provisioning": 3.0}}}

HALF = (1, 4, 16, 64)


def search_order(path: Path, files: list[str], fit_globs: list[str], steady: list[str]) -> None:
    """Search the write order of the preset at `path` on `files` and write its three fields into it (and the globs
    the fit saw, these among them)."""

    from lsmsim.ssd.profile import load_profile, load_traces

    model, _ = load_profile(path)
    best = cli.write_order(model, load_traces(files, ("layout",), steady))
    update_preset(
        path,
        {
            "write_window": int(best.write_window),
            "map_update_time": f"{best.map_update_time * 1e6:.4g}us",
            "map_update_backlog": f"{best.map_update_backlog * 1e6:.4g}us",
            "fit_traces": list(fit_globs),
        },
    )


def search_queues(path: Path, files: list[str], steady: list[str]) -> None:
    """Search the submitting thread's move interval (lsmsim/ssd/host_queues.py) of the preset at `path` on the
    backlogged jobs among `files` and write its two fields into it (as `lsmsim ssd calibrate` does after a fit)."""

    from lsmsim.ssd import host_queues
    from lsmsim.ssd.profile import load_profile, load_traces

    model, _ = load_profile(path)
    results = load_traces(files, ("layout",), steady)
    if not host_queues.backlogged(model, results):
        return
    best = cli.host_queues(model, results)
    update_preset(path, {"sq_count": int(best.sq_count), "sq_move_interval": f"{best.sq_move_interval * 1e3:.4g}ms"})


def polish_goals(path: Path, name: str, files: list[str], steady: list[str]) -> None:
    """Polish the preset at `path` toward the replay's goals on its fit's traces (lsmsim/ssd/goal_polish.py): every
    parameter its fit may move (not FIXED; opt-in ones if ALSO asks for them) and the number of units."""
    from lsmsim.ssd import goal_polish
    from lsmsim.ssd.calibrate import BOUNDS, OPT_IN
    from lsmsim.ssd.profile import load_profile, load_traces

    model, _ = load_profile(path)
    names = [k for k in BOUNDS if k not in FIXED.get(name, {}) and (k not in OPT_IN or k in ALSO.get(name, []))]
    results = load_traces(files, ("layout",), steady)
    p = goal_polish.polish(model, results, [*names, "units"], progress=goal_polish.progress)
    print(goal_polish.report(p))
    write_model(path, p.model, "goal-polished")


def write_model(path: Path, model, how: str) -> None:
    """Rewrite the preset at `path` with `model`'s fields (profile.to_device's order), keeping its header comment,
    capacity and trace globs; `how` is added to its source."""
    import yaml

    from lsmsim.ssd.profile import to_device

    data = yaml.safe_load(path.read_text())
    source = data["source"] if how in data["source"] else f"{data['source']}, {how}"
    dev = to_device(model, source, data["capacity"], data.get("fio_traces"), data.get("fit_traces"))
    head = "".join(line for line in path.read_text().splitlines(keepends=True) if line.startswith("#"))
    path.write_text(head + yaml.safe_dump({**dev, **{k: v for k, v in data.items() if k not in dev}}, sort_keys=False))


def update_preset(path: Path, fields: dict) -> None:
    """Set `fields` in the preset at `path`, keeping its header comment."""
    import yaml

    data = yaml.safe_load(path.read_text())
    data.update(fields)
    head = "".join(line for line in path.read_text().splitlines(keepends=True) if line.startswith("#"))
    path.write_text(head + yaml.safe_dump(data, sort_keys=False))


def set_subunit_from_plateau(path: Path, files: list[str], min_depth: int) -> None:
    """subunit_write_time from the median IOPS of the pure writes below the program unit at min_depth and deeper."""
    import statistics

    import yaml

    from lsmsim.ssd.calibrate import observations
    from lsmsim.ssd.profile import load_traces
    from lsmsim.units import parse_duration, parse_op_rate

    data = yaml.safe_load(path.read_text())
    unit = float(data["write_unit"])
    small = [
        o.iops
        for o in observations(load_traces(files, ("layout",)))
        if o.direction == "write"
        and o.job.read_fraction <= 0
        and o.job.size_write < unit
        and o.job.iodepth * o.job.numjobs >= min_depth
    ]
    plateau = statistics.median(small)
    fitted = parse_duration(data["subunit_write_time"])
    sub = max(0.0, 1.0 / plateau - 1.0 / parse_op_rate(data["write"]["iops"]))
    data["subunit_write_time"] = f"{sub * 1e6:.4g}us"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    print(
        f"subunit_write_time: {sub * 1e6:.3g}us from the plateau of {len(small)} jobs ({plateau:,.0f} IOPS), "
        f"fitted {fitted * 1e6:.3g}us",
        flush=True,
    )


def header(path: Path, name: str, n_files: int) -> None:
    """Say where the preset's numbers come from, at the top of the file."""
    text = path.read_text()
    if not text.startswith("#"):
        path.write_text(
            f"# {name}: fitted by scripts/fit_ssd_presets.py to {n_files} fio result files under\n"
            "# ../shared/data/fio-real/ (devices and recording conditions in its PROVENANCE.md). `fio_traces`\n"
            "# lists what it replays: `lsmsim ssd replay --all ../shared/data/fio-real` prints measured vs model.\n"
            + text
        )


def holdout(fit_files: list[str], all_files: list[str]) -> None:
    from lsmsim.ssd.calibrate import BOUNDS, BoundHit, compare, fit
    from lsmsim.ssd.profile import load_traces

    results = load_traces(all_files)
    chosen = set(fit_files)
    train = [r for r in results if r.source in chosen and r.spec.iodepth * r.spec.numjobs in HALF]
    test = [r for r in results if not (r.source in chosen and r.spec.iodepth * r.spec.numjobs in HALF)]
    print(f"fitting {len(train)} jobs at queue depths {HALF}; judging {len(test)} others", flush=True)
    try:
        f = fit(train, progress=cli._progress)
    except BoundHit as e:  # the half may not constrain everything: hold those at their defaults
        print(f"{e}\nrefitting with {', '.join(e.params)} held at their defaults", flush=True)
        f = fit(train, fixed={k: BOUNDS[k][2] for k in e.params}, progress=cli._progress)
    print("fitted on:")
    rows = compare(f.model, train)
    print(cli.comparison(rows))
    print(cli.summary(rows))
    print("held out:")
    rows = compare(f.model, test)
    print(cli.comparison(rows))
    print(cli.summary(rows))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=list(DEVICES))
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[2] / "shared/data/fio-real"))
    ap.add_argument("--holdout", action="store_true", help="fit on QD 1, 4, 16, 64 and judge the other traces")
    ap.add_argument("--order", action="store_true", help="only search the write order of the existing preset")
    ap.add_argument(
        "--queues", action="store_true", help="only search the submitting thread's moves of the existing preset"
    )
    ap.add_argument("--polish", action="store_true", help="only polish the existing preset toward the replay's goals")
    args = ap.parse_args()
    root = Path(args.root)
    out = Path(__file__).resolve().parents[1] / "lsmsim/presets/ssd"
    out.mkdir(exist_ok=True)
    for name in args.names:
        capacity, fit_globs, replay_globs = DEVICES[name]
        files = sorted({str(f) for g in fit_globs for f in root.glob(g)})
        steady = sorted({str(f) for g in STEADY.get(name, []) for f in root.glob(g)})
        if args.holdout:
            holdout(files, sorted({str(f) for g in replay_globs for f in root.glob(g)}))
            continue
        if args.order:
            print(f"== {name}: searching the write order on {len(files)} files", flush=True)
            search_order(out / f"{name}.yaml", files, fit_globs, steady)
            continue
        if args.queues:
            print(f"== {name}: searching the submission queues on {len(files)} files", flush=True)
            search_queues(out / f"{name}.yaml", files, steady)
            continue
        if args.polish:
            print(f"== {name}: polishing toward the replay's goals on {len(files)} files", flush=True)
            polish_goals(out / f"{name}.yaml", name, files, steady)
            continue
        print(f"== {name}: fitting {len(files)} files", flush=True)
        ns = argparse.Namespace(
            traces=files,
            output=str(out / f"{name}.yaml"),
            capacity=parse_size(capacity),
            exclude=["layout"],
            fix=[f"{k}={v}" for k, v in FIXED.get(name, {}).items()] or None,
            units=UNITS.get(name),
            also=ALSO.get(name, []),
            starts=STARTS.get(name, 1),
            start=[f"{k}={v}" for k, v in START.get(name, {}).items()],
            robust=name in ROBUST,
            holdout="none",  # the held-out traces are the replay globs' beyond the fit's (fit_traces)
            fio_traces=replay_globs,
            fit_traces=fit_globs,
            steady=[f for f in steady if f in files],  # calibrate --steady: of the traces it fits
        )
        cli.cmd_calibrate(ns)
        update_preset(out / f"{name}.yaml", {"steady_traces": STEADY.get(name, []), **DRIVE.get(name, {})})
        if name in PLATEAU:
            set_subunit_from_plateau(out / f"{name}.yaml", files, PLATEAU[name])
        if name in ORDER:  # after the plateau: the order search keeps the command rate it finds
            search_order(out / f"{name}.yaml", files, fit_globs, steady)
            search_queues(out / f"{name}.yaml", files, steady)  # the write order found changes the backlog's latencies
        if name in POLISH:  # last: it polishes what the searches above left
            polish_goals(out / f"{name}.yaml", name, files, steady)
        header(out / f"{name}.yaml", name, len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
