"""The replay's ceiling (lsmsim/ssd/ceiling.py): the most directions one drive model could meet on recordings that
disagree, against a brute force over subsets and on the PM981's three recordings of one job."""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from lsmsim.ssd.ceiling import ceiling, most_met
from lsmsim.ssd.timing import Job

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "fio-real"


def _brute(boxes) -> int:
    """The largest subset whose boxes intersect: per axis, the largest lower end is at most the smallest upper end."""
    for k in range(len(boxes), 0, -1):
        for sub in itertools.combinations(boxes, k):
            if all(max(b[a][0] for b in sub) <= min(b[a][1] for b in sub) for a in range(len(sub[0]))):
                return k
    return 0


def test_most_met_is_the_largest_set_of_boxes_sharing_a_point():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 7))
        boxes = []
        for _ in range(n):
            box = []
            for _ in range(3):
                if rng.random() < 0.15:  # a metric fio did not record
                    box.append((-math.inf, math.inf))
                else:
                    v = float(rng.lognormal(0.0, 0.3))
                    box.append((0.9 * v, 1.1 * v))
            boxes.append(box)
        assert most_met(boxes) == _brute(boxes)
    assert most_met([]) == 0


def _row(iops, p50=100e-6, p99=300e-6, device="d", runtime=30.0, read_fraction=1.0, limit="drive", direction="read"):
    job = Job(4096.0, 4096.0, read_fraction, 32, runtime=runtime)
    return {
        "model_job": job,
        "direction": direction,
        "device": device,
        "read_fraction": read_fraction,
        "limit": limit,
        "iops_measured": iops,
        "p50_measured": p50,
        "p99_measured": p99,
    }


def test_ceiling_counts_recordings_the_model_cannot_tell_apart():
    # two reads 1.5x apart: one prediction meets one of them; 5% apart: both
    assert ceiling([_row(100e3), _row(150e3)])[:2] == (1, 2)
    assert ceiling([_row(100e3), _row(105e3)])[:2] == (2, 2)
    # a read-only job is one phase whatever its length, so its runs of 12 and 38 s are one job to the model
    met, total, groups = ceiling([_row(100e3, runtime=12.0), _row(150e3, runtime=38.0)])
    assert (met, total, len(groups)) == (1, 2, 1)
    # a write job's length sets the share its write buffer absorbs (timing._buffer_phases): two jobs to the model
    w = {"read_fraction": 0.0, "direction": "write"}
    assert ceiling([_row(100e3, runtime=30.0, **w), _row(150e3, runtime=600.0, **w)])[:2] == (2, 2)
    assert ceiling([_row(100e3, runtime=30.0, **w), _row(150e3, runtime=30.004, **w)])[:2] == (1, 2)
    # other devices, and host-limited rows (not judged), are apart
    assert ceiling([_row(100e3), _row(150e3, device="e")])[:2] == (2, 2)
    assert ceiling([_row(100e3), _row(150e3, limit="host")])[:2] == (1, 1)
    # equal IOPS, p50s 1.5x apart: the latency goal alone splits them
    assert ceiling([_row(100e3, p50=100e-6), _row(100e3, p50=150e-6)])[:2] == (1, 2)


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/data/fio-real is not beside the repository")
def test_the_pm981s_three_runs_of_one_job_cap_any_model_at_two():
    """The PM981's 4 KiB random writes at depth 32, recorded three times (rw_mix/mix_R0W100_1..3: 536, 632 and
    414 MB/s, p50 139, 115 and 223 us): the first two overlap within the goals, the third is beyond both."""
    from lsmsim.ssd.calibrate import compare
    from lsmsim.ssd.profile import load_profile, load_traces, ssd_presets

    model, _ = load_profile(ssd_presets()["samsung-pm981-256gb"])
    files = sorted(REAL.glob("AIALRA-0__ECSE-4320-Advanced-Computer-Systems/Project3 SSD/results/rw_mix/mix_R0W100_*"))
    assert len(files) == 3
    rows = compare(model, load_traces(files), n_ios=2000)
    met, total, groups = ceiling(rows)
    assert (met, total, len(groups)) == (2, 3, 1)
