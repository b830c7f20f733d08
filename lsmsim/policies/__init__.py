"""Compaction policies and their registry."""
from .base import Compaction, Policy, SetWriteStall
from .registry import make_policy, names, register

__all__ = ["Compaction", "Policy", "SetWriteStall", "make_policy", "names", "register"]
