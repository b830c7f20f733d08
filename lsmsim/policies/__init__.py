"""Compaction policies: the interface (`base`), the view they observe (`view`), their write control,
and a registry that finds them (`registry`). One module per policy family."""

from .base import Compaction, Policy, PolicyOptions
from .registry import make_policy, names, register
from .view import StaticView, View
from .write_control import WriteControl

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
