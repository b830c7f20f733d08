"""The simple bandwidth/latency device (`device.model: simple`).

Sequential bytes cost bytes/bandwidth; a random block read costs 1/max_read_iops (the device's
internal parallelism is what lets it reach that IOPS). A synchronous random read waits
read_latency inflated by queueing, 1/(1 - utilisation) (M/M/1 response time).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .. import units
from ..fields import Bandwidth, Bytes, Duration, OpRate
from .base import Device, DeviceOptions
from .registry import register


class SimpleOptions(DeviceOptions):
    """The simple device: bandwidth and random-read latency, no garbage collection."""

    model: Literal["simple"] = "simple"
    capacity: Bytes = units.parse_size("960GB")
    read_bandwidth: Bandwidth = units.parse_bandwidth("3GB/s")
    write_bandwidth: Bandwidth = units.parse_bandwidth("1.5GB/s")
    read_latency: Duration = units.parse_duration("80us")
    write_latency: Duration = units.parse_duration("20us")
    max_read_iops: OpRate = Field(
        units.parse_op_rate("500K/s"), gt=0, description="4KiB random-read IOPS with enough outstanding requests."
    )


@register
class SimpleDevice(Device):
    model = "simple"
    Options = SimpleOptions

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self._r = 1.0 / cfg.read_bandwidth
        self._w = 1.0 / cfg.write_bandwidth
        self._iops = 1.0 / cfg.max_read_iops

    def seconds(self, read_bytes, write_bytes, random_reads):
        return read_bytes * self._r + write_bytes * self._w + random_reads * self._iops

    def read_latency(self, utilization, write_bps=0.0):
        return self.cfg.read_latency / max(0.02, 1.0 - utilization)

    def write_latency(self) -> float:
        return self.cfg.write_latency
