"""Compaction policies and their registry."""
from .base import Compaction, Policy
from .registry import make_policy, names, register

__all__ = ["Compaction", "Policy", "make_policy", "names", "register"]
