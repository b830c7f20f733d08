"""Which fio jobs a calibration keeps out of its fit, to judge the fitted model on jobs it never saw.

A drive model that reproduces the jobs it was fitted to may still miss the ones between them: the PM981 fit met 19
of 36 directions it had not seen, and none of its 70/30 mixes (issue 39). So `lsmsim ssd calibrate` holds some jobs
out by default and prints the model against them apart.

The rule, per axis (queue depth, read/write mix, job count): jobs alike in everything else (fio's rw, block sizes,
engine and the other two axes) form a series along the axis; in a series of three or more values every other
interior value is held out (the 2nd, 4th, ... smallest, never the largest). The fit keeps both ends of every
series, so the held-out jobs ask the model to interpolate, not to extrapolate, and every kind of job the fit sees
is still in it. A job held out along any axis is held out.
"""

from __future__ import annotations

from collections import defaultdict

AXES = {  # axis -> its value in a job spec
    "qd": lambda s: s.iodepth,
    "mix": lambda s: s.read_fraction if s.rw in ("rw", "randrw") else None,
    "jobs": lambda s: s.numjobs,
}


def _alike(spec, axis: str) -> tuple:
    """What a job's series along `axis` shares: everything but that axis."""
    return (
        spec.rw,
        spec.bs_read,
        spec.bs_write,
        spec.ioengine,
        *(f(spec) for name, f in AXES.items() if name != axis),
    )


def split(results: list, axes: tuple[str, ...] = tuple(AXES)) -> tuple[list, list, dict[str, int]]:
    """(fitted, held out, jobs held out per axis) of fio results (`FioJobResult`s) by the rule above. The job
    smallest along every axis is never held out, so something is always fitted."""
    bad = [a for a in axes if a not in AXES]
    if bad:
        raise ValueError(f"holdout axis {', '.join(bad)}: allowed {', '.join(AXES)}")
    held: set[int] = set()
    per_axis: dict[str, int] = {}
    for axis in axes:
        value = AXES[axis]
        series: dict[tuple, dict] = defaultdict(lambda: defaultdict(list))
        for i, r in enumerate(results):
            v = value(r.spec)
            if v is not None:
                series[_alike(r.spec, axis)][v].append(i)
        out = set()
        for by_value in series.values():
            values = sorted(by_value)
            for v in values[1:-1:2]:
                out.update(by_value[v])
        per_axis[axis] = len(out)
        held |= out
    fitted = [r for i, r in enumerate(results) if i not in held]
    return fitted, [r for i, r in enumerate(results) if i in held], per_axis


def parse_axes(text: str) -> tuple[str, ...]:
    """--holdout's value: 'none', or axes joined by commas (qd,mix,jobs)."""
    if text.strip().lower() == "none":
        return ()
    axes = tuple(a.strip() for a in text.split(",") if a.strip())
    bad = [a for a in axes if a not in AXES]
    if bad or not axes:
        raise ValueError(f"--holdout {text!r}: give none, or some of {', '.join(AXES)} joined by commas")
    return axes


__all__ = ["AXES", "parse_axes", "split"]
