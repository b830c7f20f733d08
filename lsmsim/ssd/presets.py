"""Device presets: YAML files in lsmsim/presets/devices/, each citing the numbers it holds."""

from __future__ import annotations

from pathlib import Path

import yaml

PRESET_DIR = Path(__file__).resolve().parent.parent / "presets" / "devices"


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def load_preset(name: str) -> dict:
    """The preset's device section as a dict; KeyError if there is no such preset."""
    path = PRESET_DIR / f"{name}.yaml"
    if not path.is_file():
        raise KeyError(name)
    data = yaml.safe_load(path.read_text())
    data.pop("preset", None)
    return data
