"""Preset files: YAML sections in lsmsim/presets/<kind>/<name>.yaml (kind: devices, machines), each
citing where its numbers come from. A leaf module: `loading.expand_presets` fills a section from
its `preset:` field before validation."""

from __future__ import annotations

from pathlib import Path

import yaml

PRESET_ROOT = Path(__file__).resolve().parent / "presets"


def preset_names(kind: str) -> list[str]:
    return sorted(p.stem for p in (PRESET_ROOT / kind).glob("*.yaml"))


def load_preset(kind: str, name: str) -> dict:
    """The preset's section as a dict; KeyError if there is no such preset."""
    path = PRESET_ROOT / kind / f"{name}.yaml"
    if "/" in name or not path.is_file():
        raise KeyError(name)
    data = yaml.safe_load(path.read_text()) or {}
    data.pop("preset", None)
    return data
