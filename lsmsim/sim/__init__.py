"""The kernel: SimPy environment, resource sharing, jobs, fluid and op-level foreground, metrics."""

from .simulate import simulate

__all__ = ["simulate"]
