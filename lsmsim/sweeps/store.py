"""The result store of a sweep: one folder per finished point, written atomically.

    results/<sweep>/
      sweep.yaml                 the sweep, self-contained (base merged, variant files inlined)
      .lock                      held while a sweep writes the folder
      points/<id>/               a finished point: summary.json, timeseries/compactions/latency/
                                 requests .parquet, config.yaml (resolved), provenance.json,
                                 point.json (its parameters, runtime) and row.parquet (its row)
      failed/<id>.json           a point that raised: parameters, error, traceback
      results.parquet            one row per point: parameters + status + the summary

A point is written into a hidden temporary folder that is renamed into place only when complete,
so an interrupted sweep (Ctrl-C, kill -9) leaves finished points whole and no partial ones; the
next run skips every id that has a folder. `results.parquet` is rebuilt from the folders.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from pathlib import Path

import pandas as pd
import yaml

from ..atomic import atomic_dir, atomic_write
from ..errors import LsmsimError
from ..result import TABLES, Result, summary_from_json

PARAM_PREFIX = ""  # parameters keep their names (paths, labels, variant, seed)


class Store:
    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.points = self.root / "points"
        self.failed = self.root / "failed"

    # ------------------------------------------------------------------ state
    def done_ids(self) -> set[str]:
        if not self.points.is_dir():
            return set()
        return {p.name for p in self.points.iterdir() if p.is_dir() and not p.name.startswith(".")}

    def clean_partial(self) -> int:
        """Remove temporary folders left by an interrupted run (never finished points)."""
        n = 0
        for d in (self.points, self.root, self.failed):
            if d.is_dir():
                for p in d.iterdir():
                    if p.name.startswith(".tmp-") or (p.name.startswith(".") and p.name.endswith(".tmp")):
                        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
                        n += 1
        return n

    def write_spec(self, spec: dict, scale: str | None) -> None:
        """The sweep, self-contained (see spec._self_contained); the scale it ran at is in a comment."""
        head = f"# ran at scale {scale or 'default'}: lsmsim sweep sweep.yaml --scale {scale or 'default'}\n"
        atomic_write(
            self.root / "sweep.yaml", lambda p: Path(p).write_text(head + yaml.safe_dump(spec, sort_keys=False))
        )

    def lock(self):
        """Hold an exclusive lock on this results folder while a sweep writes it (a second run of the
        same sweep into it fails at once instead of interleaving with the first)."""
        self.root.mkdir(parents=True, exist_ok=True)
        f = open(self.root / ".lock", "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip()
            f.close()
            raise LsmsimError(
                f"{self.root}: another lsmsim sweep is writing these results"
                f"{f' (pid {holder})' if holder else ''}; wait for it or use another --out"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        return f

    # ------------------------------------------------------------------ points
    def save_point(self, point, result: Result, runtime_s: float) -> Path:
        def fill(tmp: Path) -> None:
            result.save(tmp, log=False)  # a LOG per point would outweigh the point (lsmsim run -o writes one)
            meta = {
                "point_id": point.id,
                "params": point.params,
                "runtime_s": runtime_s,
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            }
            (tmp / "point.json").write_text(json.dumps(meta, indent=2, default=str))
            _row(point.id, point.params, "ok", runtime_s, result.summary).to_parquet(tmp / "row.parquet", index=False)

        atomic_dir(self.points / point.id, fill)  # a point finished before (results copied over, say) is kept
        (self.failed / f"{point.id}.json").unlink(missing_ok=True)
        return self.points / point.id

    def save_failure(self, point, error: str, tb: str, runtime_s: float) -> None:
        rec = {
            "point_id": point.id,
            "params": point.params,
            "error": error,
            "traceback": tb,
            "runtime_s": runtime_s,
            "config": point.config_dict,
        }
        atomic_write(
            self.failed / f"{point.id}.json", lambda p: Path(p).write_text(json.dumps(rec, indent=2, default=str))
        )

    # ------------------------------------------------------------------ table
    def table(self, ids: list[str] | None = None) -> pd.DataFrame:
        """One row per point (finished and failed); `ids` restricts and orders it."""
        rows = {}
        if self.points.is_dir():
            for d in self.points.iterdir():
                if d.is_dir() and not d.name.startswith(".") and (d / "row.parquet").exists():
                    rows[d.name] = pd.read_parquet(d / "row.parquet")
        if self.failed.is_dir():
            for f in self.failed.glob("*.json"):
                if f.stem not in rows:
                    rec = json.loads(f.read_text())
                    rows[f.stem] = _row(
                        f.stem, rec["params"], "failed", rec.get("runtime_s", float("nan")), {}, error=rec["error"]
                    )
        order = ids if ids is not None else sorted(rows)
        frames = [rows[i] for i in order if i in rows]
        if not frames:
            return pd.DataFrame(columns=["point_id", "status", "error", "runtime_s"])
        df = pd.concat(frames, ignore_index=True)
        for col in df.columns[df.dtypes == object]:  # noqa: E721 (pandas dtypes) a parameter given as 1MiB and 2097152: text
            if len({type(v) for v in df[col].dropna()}) > 1:
                df[col] = df[col].map(lambda v: v if v is None or isinstance(v, str) else str(v))
        return df

    def write_table(self, ids: list[str] | None = None) -> pd.DataFrame:
        df = self.table(ids)
        atomic_write(self.root / "results.parquet", lambda p: df.to_parquet(p, index=False))
        return df

    def load_point(self, point_id: str) -> dict[str, pd.DataFrame]:
        """A finished point's DataFrames (`lsmsim.result.TABLES`: timeseries, compactions, latency, requests, events)
        and summary."""
        d = self.points / point_id
        if not d.is_dir():
            raise KeyError(f"{self.root}: no finished point {point_id}")
        out = {name: pd.read_parquet(d / f"{name}.parquet") for name in TABLES if (d / f"{name}.parquet").exists()}
        out["summary"] = summary_from_json((d / "summary.json").read_text())
        return out


def _row(point_id: str, params: dict, status: str, runtime_s: float, summary: dict, error: str = "") -> pd.DataFrame:
    row = {"point_id": point_id, **params, "status": status, "error": error, "runtime_s": float(runtime_s)}
    row.update({k: v for k, v in summary.items() if k not in row})
    return pd.DataFrame([row])
