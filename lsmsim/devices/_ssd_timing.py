"""The SSD's timing model (`lsmsim.ssd.timing.DriveModel`) from its `device:` options (devices/ssd.py's
`SSDOptions`): a calibrated profile or preset gives each direction's 4 KiB latency at depth 1, and the fixed overhead
is what that latency leaves after the host, the flash and the transfers."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..ssd.timing import KIB4, DriveModel, command_interval

if TYPE_CHECKING:
    from .ssd import SSDOptions

__all__ = ["MIN_OVERHEAD", "drive_model"]


MIN_OVERHEAD = 0.5e-6  # s: the least a request spends in the controller and on PCIe


def drive_model(cfg: SSDOptions) -> DriveModel:
    """The timing model's parameters from a `device:` section (see DirectionOptions)."""
    n = cfg.channels * cfg.dies_per_channel
    r, w = cfg.read, cfg.write
    page = float(cfg.flash_page)
    chunk = min(KIB4, page)
    retry = cfg.read_retry_fraction * cfg.read_retry_time
    transfer = chunk / r.stream_bandwidth
    if r.flash_time is not None:
        r_flash = r.flash_time
    else:
        # iops = units / service. A datasheet's latency and IOPS also bound the units by Little's
        # law: no more than iops x (the latency's room for one service) can be busy at once.
        room = r.latency - cfg.host_per_io - MIN_OVERHEAD - KIB4 / r.bandwidth
        n = max(1, min(n, math.floor(r.iops * room)))
        r_flash = max(0.1e-6, n / r.iops - transfer - retry)
    shared = KIB4 / r.shared_bandwidth if r.shared_bandwidth else 0.0
    # the latency is a 4 KiB read's: its mean flash read (timing.DriveModel.mean_flash_read), SLC and partial reads in
    f, t4k = cfg.fast_read_fraction, cfg.partial_read_time or r_flash
    flash4k = (1.0 - f) * t4k + f * cfg.fast_read_time
    r_over = r.latency - cfg.host_per_io - flash4k - retry - transfer - shared - KIB4 / r.bandwidth
    w_iops = w.iops if w.iops is not None else 1e7
    interval = command_interval(w_iops, cfg.write_unit, cfg.subunit_write_time)
    w_over = w.latency - cfg.host_per_io - KIB4 / w.stream_bandwidth - cfg.write_command_share * interval
    op = cfg.ftl.over_provisioning
    engines = tuple(
        (
            name,
            e.host_per_io,
            # the same fixed parts, moved by what the engine changes of a request alone at depth 1
            max(MIN_OVERHEAD, r_over + (e.read_latency or r.latency) - r.latency - (e.host_per_io - cfg.host_per_io)),
            max(MIN_OVERHEAD, w_over + (e.write_latency or w.latency) - w.latency - (e.host_per_io - cfg.host_per_io)),
        )
        for name, e in sorted(cfg.engines.items())
    )
    return DriveModel(
        units=n,
        host_per_io=cfg.host_per_io,
        page=page,
        read_overhead=max(MIN_OVERHEAD, r_over),
        read_sigma=r.sigma,
        read_flash_time=r_flash,
        read_stream_bandwidth=r.stream_bandwidth,
        read_bandwidth=r.bandwidth,
        read_retry_fraction=cfg.read_retry_fraction,
        read_retry_time=cfg.read_retry_time,
        fast_read_fraction=cfg.fast_read_fraction,
        fast_read_time=cfg.fast_read_time,
        partial_read_time=cfg.partial_read_time,
        write_overhead=max(MIN_OVERHEAD, w_over),
        write_sigma=w.sigma,
        write_stream_bandwidth=w.stream_bandwidth,
        write_iops=w_iops,
        write_command_share=cfg.write_command_share,
        write_unit=float(cfg.write_unit),
        subunit_write_time=cfg.subunit_write_time,
        program_time=w.flash_time if w.flash_time is not None else 1e-3,
        write_bandwidth=w.bandwidth,
        write_buffer=float(cfg.write_buffer),
        write_buffer_release=float(cfg.write_buffer_release),
        program_suspend=cfg.program_suspend,
        program_first=cfg.program_first,
        suspend_latency=cfg.suspend_latency,
        command_slots=cfg.command_slots,
        command_bytes=float(cfg.command_bytes),
        readahead=float(cfg.readahead),
        write_window=cfg.write_window,
        map_update_time=cfg.map_update_time,
        map_update_backlog=cfg.map_update_backlog,
        sq_count=cfg.sq_count,
        sq_move_interval=cfg.sq_move_interval,
        shared_read_bandwidth=r.shared_bandwidth or 0.0,
        shared_write_bandwidth=w.shared_bandwidth or 0.0,
        capacity=float(cfg.capacity),
        over_provisioning=op if cfg.ftl.op_definition == "ratio" else op / (1.0 - op),
        engine=cfg.ioengine,
        engines=engines,
    )
