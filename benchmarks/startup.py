"""Where the start-up of a `lsmsim run` goes (issue 38): the whole command's wall time beside its parts, each
measured in fresh interpreters, medians of `--repeat` runs.

    python benchmarks/startup.py [--config experiments/dbbench/fillrandom.yaml] [--set workload.num=2000] [--repeat 5]

Parts, in the order a run meets them:
- interpreter:   `python -c pass` (the floor every command pays);
- cli + parser:  `import lsmsim.cli` and building its argument parser (what `lsmsim --help` needs);
- config:        `lsmsim.load_config(...)`: pydantic models, presets and the machine preset of this host;
- sim import:    importing the simulation kernel, the config's policy, device and key distributions;
- first use:     the first `simulate()` minus a second one in the same process: numba's initialisation and its
                 cache loads for the kernels the config uses (and any work done once per process);
- simulation:    the second `simulate()` (the run itself, here a tiny one);
- the rest:      the whole command minus the parts above: printing the summary and leaving (`cli.entry` skips the
                 interpreter's teardown, 0.6-0.7 s here before it did). The parts are timed in a probe process of
                 their own, so the rest is negative when the command's path is leaner than the probe's.

The config's operations default to a tiny workload (--set workload.num=2000) so that the simulation itself is
small beside the start-up. The machine's own spread shows in the min-max columns. It prints figures; it is not
a test.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
import lsmsim.cli
lsmsim.cli.build_parser()
t1 = time.perf_counter()
import lsmsim
cfg = lsmsim.load_config(sys.argv[1], sys.argv[2:])
t2 = time.perf_counter()
from lsmsim.sim.kernel import Simulation
sim = Simulation(cfg)
t3 = time.perf_counter()
sim.run()
t4 = time.perf_counter()
Simulation(cfg).run()
t5 = time.perf_counter()
print(json.dumps({"cli + parser": t1 - t0, "config": t2 - t1, "sim import": t3 - t2,
                  "first use": (t4 - t3) - (t5 - t4), "simulation": t5 - t4}))
"""


def _wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - t


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="experiments/dbbench/fillrandom.yaml")
    ap.add_argument("--set", action="append", default=None, help="config overrides (default workload.num=2000)")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args(argv)
    sets = a.set if a.set is not None else ["workload.num=2000"]
    py = sys.executable
    _wall([py, "-m", "lsmsim.cli", "run", a.config, "-q", *(x for s in sets for x in ("--set", s))])  # warm caches
    parts: dict[str, list[float]] = {}
    for _ in range(a.repeat):
        parts.setdefault("interpreter", []).append(_wall([py, "-c", "pass"]))
        out = subprocess.run([py, "-c", PROBE, a.config, *sets], check=True, capture_output=True, text=True, cwd=ROOT)
        for k, v in json.loads(out.stdout.strip().splitlines()[-1]).items():
            parts.setdefault(k, []).append(v)
        cmd = [py, "-m", "lsmsim.cli", "run", a.config, "-q", *(x for s in sets for x in ("--set", s))]
        parts.setdefault("whole command", []).append(_wall(cmd))
    med = {k: statistics.median(v) for k, v in parts.items()}
    known = sum(v for k, v in med.items() if k != "whole command")
    print(f"host: {cpu_model()} x {len(Path('/proc/cpuinfo').read_text().split('processor')) - 1}")
    print(f"config: {a.config} {' '.join(sets)}; medians of {a.repeat} fresh processes")
    print(f"{'part':<16}{'median s':>10}{'min':>8}{'max':>8}{'share':>8}")
    whole = med["whole command"]
    for k, v in med.items():
        if k == "whole command":
            continue
        print(f"{k:<16}{v:>10.3f}{min(parts[k]):>8.3f}{max(parts[k]):>8.3f}{v / whole:>8.0%}")
    print(f"{'the rest':<16}{whole - known:>10.3f}{'':>16}{(whole - known) / whole:>8.0%}")
    print(f"{'whole command':<16}{whole:>10.3f}{min(parts['whole command']):>8.3f}{max(parts['whole command']):>8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
