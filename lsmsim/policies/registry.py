"""Policies by name. A leaf: it imports no policy; policies register themselves with `@register`.

`discover()` imports every module of this package (and the `policy` module of every subpackage)
once, so a new policy is one file: its options class and its `Policy` subclass with `@register`.
The config's `policy:` union is built from the options classes registered here (`options_union`).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import Field

if TYPE_CHECKING:
    from .base import Policy

_REGISTRY: dict[str, type[Policy]] = {}
_discovered = False


def register(cls: type[Policy]) -> type[Policy]:
    """Class decorator: make `cls` the policy named `cls.name`, configured by `cls.Options`."""
    known = _REGISTRY.get(cls.name)
    if known is not None and known.__qualname__ != cls.__qualname__:
        raise ValueError(f"policy name {cls.name!r} registered twice ({known.__qualname__}, {cls.__qualname__})")
    _REGISTRY[cls.name] = cls
    return cls


def discover() -> None:
    """Import the policy modules of this package so that they register (once)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    pkg = importlib.import_module(__package__)
    for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if m.name.startswith("_"):
            continue
        name = f"{__package__}.{m.name}"
        if m.ispkg:
            if importlib.util.find_spec(f"{name}.policy") is not None:
                importlib.import_module(f"{name}.policy")
        else:
            importlib.import_module(name)


def policies() -> dict[str, type[Policy]]:
    """Registered policy classes by name, sorted."""
    discover()
    return dict(sorted(_REGISTRY.items()))


def names() -> list[str]:
    return list(policies())


def options_union() -> Any:
    """The `policy:` section's type: the registered options classes, told apart by `name`."""
    classes = tuple(cls.Options for cls in policies().values())
    return Annotated[Union[classes], Field(discriminator="name")]  # type: ignore[valid-type]  # noqa: UP007


def make_policy(options, lsm) -> Policy:
    """The policy `options.name` configured by `options` (its validated options class) and `lsm`."""
    try:
        cls = policies()[options.name]
    except KeyError:
        raise ValueError(f"unknown policy {options.name!r}; registered: {', '.join(names())}") from None
    return cls(options, lsm)
