"""Compaction policies: the interface (`base`), the view they observe (`view`), their write control,
and a registry that finds them (`registry`). One module per policy family.

The names below are imported on first use (PEP 562): importing a sub-module (`lsmsim.policies.ecotune.solve_cli`
for `lsmsim --help`) does not load numba through `base`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_getattr

if TYPE_CHECKING:
    from .base import Compaction, Policy, PolicyOptions
    from .registry import make_policy, names, register
    from .view import StaticView, View
    from .write_control import WriteControl

_LAZY = {
    "Compaction": "base",
    "Policy": "base",
    "PolicyOptions": "base",
    "make_policy": "registry",
    "names": "registry",
    "register": "registry",
    "StaticView": "view",
    "View": "view",
    "WriteControl": "write_control",
}
__all__ = [
    "Compaction",
    "Policy",
    "PolicyOptions",
    "StaticView",
    "View",
    "WriteControl",
    "make_policy",
    "names",
    "register",
]
__getattr__ = lazy_getattr(__name__, _LAZY, globals())
