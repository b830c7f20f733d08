"""Device models behind one interface (`Device`): the simple bandwidth/latency device and the SSD
(timing model, extent allocator and FTL from `lsmsim.ssd`). The kernel builds one with `make_device`."""

from __future__ import annotations

from .base import Device
from .simple import SimpleDevice


def make_device(cfg) -> Device:
    """The device of a `device:` config section (`model: simple` or `model: ssd`)."""
    if cfg.model == "simple":
        return SimpleDevice(cfg)
    if cfg.model == "ssd":
        from .ssd import SSDDevice  # the SSD model (numpy, the FTL) only when asked for

        return SSDDevice(cfg)
    raise ValueError(f"unknown device model {cfg.model!r}")


__all__ = ["Device", "SimpleDevice", "make_device"]
