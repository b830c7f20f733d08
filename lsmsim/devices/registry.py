"""Device models by name. A leaf: it imports no device; device modules register themselves with `@register`.

`discover()` imports every module of this package once, so a new device model is one file: its options
class and its `Device` subclass with `@register`. The config's `device:` union is built from the options
classes registered here (`options_union`), and `make_device` builds the model a config names.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import Field

if TYPE_CHECKING:
    from .base import Device, DeviceOptions

_REGISTRY: dict[str, type[Device]] = {}
_discovered = False


def register(cls: type[Device]) -> type[Device]:
    """Class decorator: make `cls` the device model named `cls.model`, configured by `cls.Options`."""
    known = _REGISTRY.get(cls.model)
    if known is not None and known.__qualname__ != cls.__qualname__:
        raise ValueError(f"device model {cls.model!r} registered twice ({known.__qualname__}, {cls.__qualname__})")
    _REGISTRY[cls.model] = cls
    return cls


def discover() -> None:
    """Import the device modules of this package so that they register (once)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    pkg = importlib.import_module(__package__)
    for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not m.name.startswith("_"):
            importlib.import_module(f"{__package__}.{m.name}")


def devices() -> dict[str, type[Device]]:
    """Registered device classes by model name, sorted."""
    discover()
    return dict(sorted(_REGISTRY.items()))


def names() -> list[str]:
    return list(devices())


def options_union() -> Any:
    """The `device:` section's type: the registered options classes, told apart by `model`."""
    classes = tuple(cls.Options for cls in devices().values())
    return Annotated[Union[classes], Field(discriminator="model")]  # type: ignore[valid-type]  # noqa: UP007


def make_device(options: DeviceOptions) -> Device:
    """The device model `options.model` configured by `options` (its validated options class)."""
    cls = devices().get(options.model)
    if cls is None:
        raise ValueError(f"unknown device model {options.model!r}")
    return cls(options)
