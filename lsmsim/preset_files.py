"""Preset files: YAML sections in lsmsim/presets/<kind>/<name>.yaml (kind: devices, machines), each
citing where its numbers come from. A leaf module: `loading.expand_presets` fills a section from
its `preset:` field before validation."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml

PRESET_ROOT = Path(__file__).resolve().parent / "presets"


# device presets: datasheet figures (devices/) and drives fitted to real fio traces (ssd/)
_FOLDERS = {"devices": ("devices", "ssd")}


def preset_names(kind: str) -> list[str]:
    return sorted(p.stem for folder in _FOLDERS.get(kind, (kind,)) for p in (PRESET_ROOT / folder).glob("*.yaml"))


@functools.lru_cache(maxsize=256)
def _parse(path: str, version: tuple[int, int]):
    return yaml.safe_load(Path(path).read_text())


def _parsed(path: Path):
    """The file's YAML, parsed once per version of the file (its mtime and size) in a process, shared: do not
    modify it. A sweep validates every point, and every point's presets were parsed again (12 s of a 48-point
    figure's 66 s in a profile, pure-Python YAML)."""
    st = path.stat()
    return _parse(str(path), (st.st_mtime_ns, st.st_size))


def load_preset(kind: str, name: str) -> dict:
    """The preset's section as a dict (the caller's own copy); KeyError if there is no such preset."""
    paths = [PRESET_ROOT / folder / f"{name}.yaml" for folder in _FOLDERS.get(kind, (kind,))]
    path = next((p for p in paths if p.is_file()), None)
    if "/" in name or path is None:
        raise KeyError(name)
    data = copy.deepcopy(_parsed(path)) or {}
    data.pop("preset", None)
    return data


# ---------------------------------------------------------------- the host a machine preset was calibrated on
@functools.lru_cache(maxsize=1)
def _host_facts() -> dict:
    import os

    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text(errors="replace").splitlines() if cpuinfo.exists() else []
    model = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), "") or "unknown CPU"
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        memory = 0
    return {"cpu": model, "cores": os.cpu_count() or 1, "memory": int(memory)}


def host_facts() -> dict:
    """This host: its CPU model (/proc/cpuinfo's `model name`), cores and memory (read once per process). A time
    measured on one CPU model says nothing of another (an EPYC and a Xeon host of the same kind differ 2.4x on
    db_bench)."""
    return dict(_host_facts())


def host_preset_name(facts: dict | None = None) -> str:
    """The name `lsmsim calibrate` gives this host's machine preset: its CPU model, cores and GiB of memory
    (`Intel(R) Xeon(R) Processor`, 2 cores, 23.5 GiB -> `intel-xeon-processor-2vcpu-24g`)."""
    import re

    f = facts or host_facts()
    words = re.sub(r"\((r|tm|c)\)", "", f["cpu"].lower())
    words = re.sub(r"\b(cpu|with|radeon graphics|\d+-core processor)\b|@.*$", "", words)
    slug = re.sub(r"[^a-z0-9]+", "-", words).strip("-") or "host"
    return f"{slug}-{f['cores']}vcpu-{round(f['memory'] / 2**30)}g"


def host_preset(facts: dict | None = None) -> str | None:
    """The machine preset calibrated on a host like this one (same CPU model and cores, its `host:` field), or
    None. The newest calibration wins when several match."""
    f = facts or host_facts()
    best: tuple[str, str] | None = None
    for path in sorted((PRESET_ROOT / "machines").glob("*.yaml")):
        try:
            host = (_parsed(path) or {}).get("host") or {}
        except yaml.YAMLError:
            continue
        if host.get("cpu") == f["cpu"] and host.get("cores") == f["cores"]:
            date = str(host.get("date", ""))
            if best is None or date > best[0]:
                best = (date, path.stem)
    return best[1] if best else None
