"""Policies by name: `policy.name` in the YAML picks the class registered under it."""
from __future__ import annotations

from .base import Policy

_REGISTRY: dict[str, type[Policy]] = {}


def register(cls: type[Policy]) -> type[Policy]:
    _REGISTRY[cls.name] = cls
    return cls


def names() -> list[str]:
    _load()
    return sorted(_REGISTRY)


def make_policy(options, lsm) -> Policy:
    _load()
    try:
        cls = _REGISTRY[options.name]
    except KeyError:
        raise ValueError(f"unknown policy {options.name!r}; registered: {', '.join(names())}") from None
    return cls(options, lsm)


def _load() -> None:
    from . import leveled, full_leveling, moose, tiering, universal  # noqa: F401  (they register themselves)
    from .ecotune import policy  # noqa: F401
    from .arce import policy as _arce  # noqa: F401
