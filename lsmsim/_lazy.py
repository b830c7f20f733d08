"""PEP 562 lazy attributes for package `__init__`s: a name is imported from its module on first use, so that
importing one sub-module (or `lsmsim --help`) does not load numba, pydantic's models or pandas."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_getattr(package: str, table: dict[str, str], namespace: dict) -> Callable[[str], object]:
    """A module `__getattr__` for `package` that imports `name` from `.<table[name]>` and caches it in
    `namespace` (the package's globals)."""

    def __getattr__(name: str):
        if name in table:
            value = getattr(importlib.import_module(f".{table[name]}", package), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
