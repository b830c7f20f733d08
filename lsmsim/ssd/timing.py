"""SSD timing: bandwidth, IOPS and latency as functions of request size and queue depth.

Per direction (read, write) four parameters describe the device:
- `latency`: the unloaded latency of one 4KiB request (host stack + controller + flash access);
- `stream_bandwidth`: how fast one request's data moves once started (a large request is striped
  over several dies, so a 1MiB request at queue depth 1 takes latency + size / stream_bandwidth);
- `bandwidth`: the device's maximum throughput for large requests (interface or flash bound);
- `iops`: the maximum small-request rate, reached once enough requests are outstanding to keep the
  internal parallel units busy: iops = parallel_units / flash access time, with parallel_units =
  channels x dies (Agrawal et al., "Design tradeoffs for SSD performance", USENIX ATC'08 §3;
  Chen, Koufaty & Zhang, "Understanding intrinsic characteristics and system implications of flash
  memory based SSDs", SIGMETRICS'09 §4).
With q requests of s bytes outstanding (closed loop, as fio's iodepth), the device is a closed
queueing network (Reiser & Lavenberg, "Mean-value analysis of closed multichain queuing
networks", JACM 1980). Its bottleneck is the flash array: `parallel_units` = channels x dies
independent units. A small request lands on one unit chosen by its address, so with several
requests outstanding two of them often hit the same die and one waits (the collisions that keep
random-read IOPS rising slowly towards the maximum instead of in a sharp knee); a request of s
bytes is striped over ceil(s / 16KiB) units (one NAND page each), so the array behaves as
K = units / span independent groups (at least 1; a 1MiB request spans 64 units). Each group is a
queueing centre visited with probability 1/K, so its demand per request is
D = max(s / bandwidth, 1 / iops), the array's capacity is 1/D, and one request alone spends K D in
it. K is capped by Little's law at (R1 - h) / D, the number of requests the datasheet's latency
and IOPS say can be in flight at once. The rest of one request's time alone,
Z = R1 - h - K D with R1 = latency_4k + (s - 4KiB) / stream_bandwidth, is a delay requests
overlap (transfer, controller pipeline), and h = host_per_io is a further single centre (the
host's CPU per request). Mean-value analysis gives, for n = 1..q,

    R_k(n) = D (1 + Q_k(n - 1)),  R_h(n) = h (1 + Q_h(n - 1)),
    X(n) = n / (Z + K R_k(n) + R_h(n)),  Q_k(n) = X(n) R_k(n),  Q_h(n) = X(n) R_h(n)

so throughput X(q) rises from 1/R1 to the bottleneck's 1/D and the response time is
Z + K R_k(q) + R_h(q) (Little's law). With K = 1 this is a single bottleneck centre. Reads and
writes share the array (read/write interference): a mix with read fraction f has demand
f D_read + (1 - f) D_write, and each direction's latency is its own time alone plus the shared
queueing.

For the kernel, I/O becomes device-busy seconds: sequential bytes / bandwidth, random block
reads / iops; garbage-collection copies cost a flash read plus a program per mapped unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

KIB4 = 4096.0
STRIPE = 16384.0  # bytes per parallel unit of one request: a NAND page of TLC flash


@dataclass(frozen=True)
class Direction:
    latency: float  # s, one 4KiB request, queue depth 1
    stream_bandwidth: float  # B/s, one request's transfer once started
    bandwidth: float  # B/s, maximum for large requests
    iops: float  # requests/s, maximum for small requests

    def service_time(self, size: float) -> float:
        return self.latency + max(0.0, size - KIB4) / self.stream_bandwidth

    def max_rate(self, size: float) -> float:
        return min(self.bandwidth / size, self.iops)


@dataclass(frozen=True)
class Performance:
    """What a job sees: per direction bandwidth (B/s), IOPS and mean latency (s)."""

    read_bw: float
    read_iops: float
    read_lat: float
    write_bw: float
    write_iops: float
    write_lat: float


class SSDTiming:
    """The timing model; `perf` answers what fio would measure for a job.

    `host_per_io` is the host's CPU time per request (submission and completion in the block
    layer and driver), a queueing centre shared by all requests; on a fast device with few cores
    it is what bends the IOPS curve before the device saturates. `parallel_units` is
    channels x dies (1: the array is a single centre)."""

    def __init__(self, read: Direction, write: Direction, host_per_io: float = 0.0, parallel_units: float = 1.0):
        self.read = read
        self.write = write
        self.host_per_io = host_per_io
        self.parallel_units = max(1.0, float(parallel_units))

    def groups(self, size: float, read_fraction: float) -> float:
        """K: how many independent groups of units requests of this size see (see the module doc)."""
        f = min(max(read_fraction, 0.0), 1.0)
        span = max(1.0, math.ceil(size / STRIPE))
        d = f / self.read.max_rate(size) + (1 - f) / self.write.max_rate(size)
        alone = f * self.read.service_time(size) + (1 - f) * self.write.service_time(size) - self.host_per_io
        return max(1.0, min(self.parallel_units / span, alone / d))

    def perf(self, size: float, qd: int, read_fraction: float) -> Performance:
        f = min(max(read_fraction, 0.0), 1.0)
        k = self.groups(size, f)
        h = self.host_per_io
        dr = 1.0 / self.read.max_rate(size)
        dw = 1.0 / self.write.max_rate(size)
        zr = max(0.0, self.read.service_time(size) - k * dr - h)
        zw = max(0.0, self.write.service_time(size) - k * dw - h)
        d = f * dr + (1 - f) * dw
        z = f * zr + (1 - f) * zw
        qk = qh = x = 0.0
        rk = rh = 0.0
        for n in range(1, max(1, int(qd)) + 1):  # exact MVA recursion; the K groups are alike
            rk = d * (1.0 + qk)
            rh = h * (1.0 + qh)
            x = n / (z + k * rk + rh)
            qk, qh = x * rk, x * rh
        queue = k * (rk - d) + (rh - h)  # waiting beyond the centres' own demands
        lat_r = zr + k * dr + h + queue
        lat_w = zw + k * dw + h + queue
        return Performance(
            read_bw=x * f * size,
            read_iops=x * f,
            read_lat=lat_r,
            write_bw=x * (1 - f) * size,
            write_iops=x * (1 - f),
            write_lat=lat_w,
        )

    # ---------------------------------------------------------------- for the kernel
    def seconds(self, read_bytes: float, write_bytes: float, random_reads: float) -> float:
        return read_bytes / self.read.bandwidth + write_bytes / self.write.bandwidth + random_reads / self.read.iops

    def read_latency(self, utilization: float) -> float:
        """One synchronous 4KiB read at this device utilisation (M/M/1 inflation of the unloaded
        latency; the closed-loop form above is for fio jobs with a fixed queue depth)."""
        return self.read.latency / max(0.02, 1.0 - utilization)

    def gc_copy_seconds(self, page_bytes: float) -> float:
        """Device time to move one mapped unit during GC: a flash read and a program."""
        return 1.0 / self.read.iops + page_bytes / self.write.bandwidth
