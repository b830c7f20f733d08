"""Device models behind one interface (`Device`): the simple bandwidth/latency device and the SSD
(timing model, extent allocator and FTL from `lsmsim.ssd`), each with its options beside it and found by
a registry (`registry`). The kernel builds one with `make_device`."""

from __future__ import annotations

from .base import Device, DeviceOptions
from .registry import make_device, names, register

__all__ = ["Device", "DeviceOptions", "make_device", "names", "register"]
