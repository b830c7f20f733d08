"""Preset files: YAML sections in lsmsim/presets/<kind>/<name>.yaml (kind: devices, machines), each
citing where its numbers come from. A leaf module: `loading.expand_presets` fills a section from
its `preset:` field before validation."""

from __future__ import annotations

from pathlib import Path

import yaml

PRESET_ROOT = Path(__file__).resolve().parent / "presets"


# device presets: datasheet figures (devices/) and drives fitted to real fio traces (ssd/)
_FOLDERS = {"devices": ("devices", "ssd")}


def preset_names(kind: str) -> list[str]:
    return sorted(p.stem for folder in _FOLDERS.get(kind, (kind,)) for p in (PRESET_ROOT / folder).glob("*.yaml"))


def load_preset(kind: str, name: str) -> dict:
    """The preset's section as a dict; KeyError if there is no such preset."""
    paths = [PRESET_ROOT / folder / f"{name}.yaml" for folder in _FOLDERS.get(kind, (kind,))]
    path = next((p for p in paths if p.is_file()), None)
    if "/" in name or path is None:
        raise KeyError(name)
    data = yaml.safe_load(path.read_text()) or {}
    data.pop("preset", None)
    return data
