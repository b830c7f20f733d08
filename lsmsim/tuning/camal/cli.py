"""`lsmsim camal`: train CAMAL's model by active learning over lsmsim runs and print the tuning it recommends for
a config's workload, as a sweep variant (ArceKV's CAM rows: experiments/arce/policies*.yaml)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, fields
from pathlib import Path

_DESCRIPTION = """\
CAMAL (Yu et al., SIGMOD'25): learn, by decoupled active learning over lsmsim runs of a scaled-down store, how
the size ratio, the compaction policy, the Bloom bits per key and the buffer/cache split set an operation's
latency, then recommend the tuning for CONFIG's own workload (the average composition of its measured phases)
and store (its keys and its memory for buffer + filters + block cache). The samples are kept in OUT/samples.csv
as they finish: a second call resumes. Prints the recommendation as a sweep variant (YAML)."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `camal` on the `lsmsim` sub-parsers."""
    p = subparsers.add_parser(
        "camal", help="CAMAL: learn a tuning by active learning, print it as a variant", description=_DESCRIPTION
    )
    p.add_argument("config", help="the config whose workload and store the tuning is for")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE")
    p.add_argument("--train-keys", default="50K", help="keys of the training store (default 50K; at most the config's)")
    p.add_argument("--samples", default="5,5,3", help="samples per workload for T, h and the memory split (5,5,3)")
    p.add_argument("--mixes", type=int, default=15, help="how many of CAMAL's 15 training workloads to use")
    p.add_argument("--out", default="results/camal", help="folder of samples.csv, model.json, variant.yaml")
    p.add_argument(
        "--no-train",
        action="store_true",
        help="run nothing: fit the model on OUT/samples.csv (another store's samples: CAMAL's extrapolation) and "
        "recommend for CONFIG",
    )
    p.add_argument(
        "--mix",
        metavar="Z0,Z1,Q,W",
        help="recommend for this composition (zero-result lookups, lookups, range lookups, writes) instead of "
        "CONFIG's average",
    )
    p.add_argument("--name", default="CAM", help="the variant's name in the printed YAML")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd)
    return p


def _samples_arg(s: str) -> tuple[int, int, int]:
    try:
        v = tuple(int(x) for x in s.split(","))
    except ValueError:
        v = ()
    if len(v) != 3 or min(v) < 1:
        raise ValueError(f"--samples: expected three positive integers like 5,5,3, got {s!r}")
    return v  # type: ignore[return-value]


def _mix_arg(s: str):
    from .cost import Mix

    try:
        return Mix(*(float(x) for x in s.split(",")))
    except (TypeError, ValueError):
        raise ValueError(f"--mix: expected four non-negative shares z0,z1,q,w with a positive sum, got {s!r}") from None


def _read_samples(path: Path):
    import pandas as pd

    from .learner import Sample

    if not path.exists():
        return []
    try:
        df = pd.read_csv(path)
        return [Sample(**{f.name: row[f.name] for f in fields(Sample)}) for row in df.to_dict("records")]
    except (KeyError, ValueError, TypeError, pd.errors.ParserError) as e:
        raise ValueError(f"{path}: not a samples file of `lsmsim camal` ({e}); move it away to start afresh") from None


def _cmd(a) -> int:
    import yaml

    from ...atomic import atomic_write
    from ...loading import load_config
    from .learner import Model
    from .sample import average_mix, overrides, store_of

    cfg = load_config(a.config, a.overrides)
    out = Path(a.out)
    done = _read_samples(out / "samples.csv")
    if a.no_train:
        if not done:
            raise ValueError(f"--no-train: no samples in {out / 'samples.csv'} to fit the model on")
        full = store_of(cfg)  # the scans and blocks of the config the recommendation is for
        model = Model(scan_length=full.scan_length, block_size=full.block_size).fit(done)
    else:
        model = _train(a, cfg, out, done)
    store, mix = store_of(cfg), _mix_arg(a.mix) if a.mix else average_mix(cfg)
    best = model.recommend(mix, store, min_buffer=8 * store.E)
    variant = {a.name: overrides(best, store)}
    info = {"weights": model.to_dict(), "mix": asdict(mix), "store": asdict(store), "tuning": asdict(best)}
    info["predicted_latency_s"] = model.predict(best, mix, store)
    text = yaml.safe_dump(variant, default_flow_style=None, sort_keys=False, width=120)
    if not a.no_train:  # the training's own recommendation; an extrapolation only prints
        atomic_write(out / "model.json", lambda tmp: Path(tmp).write_text(json.dumps(info, indent=1)))
        atomic_write(out / "variant.yaml", lambda tmp: Path(tmp).write_text(text))
    print(f"# CAMAL for mix z0={mix.z0:.3f} z1={mix.z1:.3f} q={mix.q:.3f} w={mix.w:.3f}, {store.N:.0f} keys: {best}")
    print(text, end="")
    return 0


def _train(a, cfg, out: Path, done: list):
    """Run (or resume) the active learning on a scaled-down store of `cfg`; the samples go to OUT/samples.csv."""
    import pandas as pd
    from tqdm import tqdm

    from ...atomic import atomic_write
    from ...units import parse_count
    from .cost import Tuning
    from .learner import TRAINING_MIXES, active_learning
    from .sample import SimRunner

    n, per = parse_count(a.train_keys), _samples_arg(a.samples)
    if not 1000 <= n <= cfg.workload.num:
        raise ValueError(f"--train-keys: between 1000 and the config's workload.num ({cfg.workload.num}), got {n}")
    if not 1 <= a.mixes <= len(TRAINING_MIXES):
        raise ValueError(f"--mixes: between 1 and {len(TRAINING_MIXES)}, got {a.mixes}")
    runner = SimRunner(cfg, n)
    # CAMAL's code samples T and h with its memory ratio at 1 (no block cache) and the bits per key given
    start = Tuning("leveling", 10, cfg.lsm.bloom_bits_per_key, 1.0)
    bar = tqdm(total=2 * a.mixes * sum(per), disable=a.quiet, unit="run", desc="camal")
    kept = list(done)

    def on_sample(s):
        kept.append(s)
        bar.update(1)
        rows = pd.DataFrame([asdict(x) for x in kept])
        atomic_write(out / "samples.csv", lambda tmp: rows.to_csv(tmp, index=False))

    try:
        model, _ = active_learning(
            runner,
            runner.store,
            TRAINING_MIXES[: a.mixes],
            start=start,
            samples_per_param=per,
            min_buffer=8 * runner.store.E,
            seed=cfg.seed,
            samples=list(done),
            on_sample=on_sample,
        )
    finally:
        bar.close()
    return model
