"""The host's disk as `lsmsim calibrate` measures it: what a flush or compaction thread waits in fsync per byte it
wrote (device.sync_bandwidth) and what one WAL sync takes (device.sync_latency), written as a device preset named
after the host, beside its machine preset.

The sync bandwidth is measured in situ, as the local-fio preset's was on the EPYC host: RocksDB syncs every output
file at close (WritableFileWriter::Sync) and its thread waits, so the compactions' output bytes over their wall
time less their CPU time (LOG compaction_finished: compaction_time_micros - compaction_time_cpu_micros) is the
rate the disk took the syncs at, writeback's competition included. It is the disk's, not the CPU's: 220-254 MiB/s
on the EPYC host's matrix records, 495-555 on the Xeon host's, 335-366 in the Xeon host's calibration runs (whose
1, 16 and 64 KiB-block fills write differently). The drive model itself (latencies, bandwidths) stays local-fio's,
fitted to fio traces of the EPYC host's virtio disk: only the syncs are this host's.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ..preset_files import PRESET_ROOT

BASE = "local-fio"


def compaction_sync_bandwidth(writes: list[dict]) -> float | None:
    """Bytes per second the runs' compactions wrote per second they waited beyond their CPU (None without any)."""
    jobs = [c for r in writes for c in r.get("compactions", [])]
    waited = sum(c["micros"] - c["cpu_micros"] for c in jobs) * 1e-6
    return sum(c["bytes"] for c in jobs) / waited if waited > 0 else None


def device_preset_text(
    host: str, sync_bandwidth: float | None, sync_latency: float | None, fixed: dict | None = None
) -> str:
    """local-fio's drive with this host's syncs, as a device preset's YAML (with where each figure comes from)."""
    base = yaml.safe_load((PRESET_ROOT / "devices" / f"{BASE}.yaml").read_text())
    notes = [
        f"# This host's disk, written by `lsmsim calibrate` on {host} (lsmsim/validation/host_disk.py): the drive",
        f"# model is {BASE}'s (fio traces of the EPYC host's virtio disk); the syncs are measured here.",
    ]
    if sync_bandwidth:
        base["sync_bandwidth"] = f"{sync_bandwidth / 2**20:.0f}MiB/s"
        notes.append("# sync_bandwidth: the calibration's compactions, output bytes over wall less CPU time (LOG)")
    if sync_latency:
        base["sync_latency"] = f"{sync_latency * 1e6:.1f}us"
        notes.append("# sync_latency: fillrandom --sync=1, rocksdb.wal.file.sync.micros (median of the repeats)")
    if fixed:  # job_costs.fit_job_costs: the syncs' fixed parts
        base["sync_per_job"] = f"{fixed['sync_per_job'] * 1e6:.0f}us"
        base["sync_per_file"] = f"{fixed['sync_per_file'] * 1e6:.0f}us"
        notes.append("# sync_per_job, sync_per_file: fillrandom at 64 KiB and 1 MiB buffers, the compactions'")
        notes.append("# wall less CPU micros (LOG) against jobs, output files and bytes (job_costs.py)")
    base["source"] = f"{BASE}'s drive; syncs measured by lsmsim calibrate on {host}"
    return "\n".join(notes) + "\n" + yaml.safe_dump(base, sort_keys=False, width=110)


def device_path(machine_preset: Path) -> Path:
    """Where the device preset goes beside a machine preset: presets/devices/<name>.yaml for one in
    presets/machines/, else <name>-device.yaml beside it."""
    if machine_preset.parent.name == "machines":
        return machine_preset.parent.parent / "devices" / machine_preset.name
    return machine_preset.with_name(f"{machine_preset.stem}-device.yaml")


def host_device(machine_preset: str | None) -> str:
    """The device preset of the host a machine preset was calibrated on, when calibrate wrote one; else local-fio."""
    if machine_preset and (PRESET_ROOT / "devices" / f"{machine_preset}.yaml").is_file():
        return machine_preset
    return BASE


__all__ = ["compaction_sync_bandwidth", "device_path", "device_preset_text", "host_device"]
