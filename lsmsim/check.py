"""`lsmsim check`: what a config will run, without running it: the resolved policy, device, machine and memory,
the key space and its bytes, each phase, a lower bound on the simulated time, and the config's warnings."""

from __future__ import annotations

from .sim.sanity import config_warnings


def format_size(n: float) -> str:
    """Bytes in binary units (1.5 GiB)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def _opts(model, skip=("name",)) -> str:
    return ", ".join(f"{k}={v}" for k, v in model.model_dump(mode="json").items() if k not in skip and v is not None)


def _op_cpu(cfg, op: str) -> float:
    """The foreground CPU of one operation on its own (machine.cpu): a floor under its latency."""
    c = cfg.machine.cpu
    if op in ("insert", "update", "delete"):
        return c.memtable_insert + c.write_serial + c.wal_append
    if op in ("get", "get_empty"):  # a key in the memtable: the cheapest a lookup gets
        return c.get_base + c.memtable_search
    return c.scan_base + c.next_entry


def lower_bound_s(cfg, phase) -> float | None:
    """Seconds a phase takes at least: its operations' CPU alone, spread over its closed-loop clients (None for
    a phase bounded by duration or by a write rate)."""
    if phase.operations is None or phase.writers.mode != "closed":
        return phase.duration
    m = phase.mix
    shares = {k: getattr(m, k) for k in ("insert", "update", "delete", "get", "get_empty", "short_scan", "long_scan")}
    total = sum(shares.values())
    per_op = sum(v / total * _op_cpu(cfg, k) for k, v in shares.items() if v)
    per_op += cfg.machine.cpu.mixgraph_key if phase.key_draw == "mixgraph" else 0.0  # the client's own draw
    clients = min(phase.writers.threads, cfg.machine.cores or phase.writers.threads)
    return phase.operations * per_op / clients


def describe(cfg) -> str:
    """The text `lsmsim check` prints."""
    from .workloads.presets import resolve_phases

    w, lsm, m = cfg.workload, cfg.lsm, cfg.machine
    entry = w.key_size + w.value_size
    dev = cfg.device
    preset = f" (preset {dev.preset})" if getattr(dev, "preset", None) else ""
    cap = format_size(dev.capacity) if getattr(dev, "capacity", None) else "-"
    lines = [
        f"config {cfg.name!r} (seed {cfg.seed}): {cfg.sim.mode} mode",
        f"  policy    {cfg.policy.name}: {_opts(cfg.policy)}",
        f"  device    {getattr(dev, 'model', '?')}{preset}, capacity {cap}",
        f"  machine   {m.cores} cores, preset {m.preset or 'built-in'}{' (' + m.host.cpu + ')' if m.host.cpu else ''}, "
        f"memory {format_size(m.memory) if m.memory else 'none (no page cache)'}, "
        f"threads {m.threads.flush} flush + {m.threads.compaction} compaction",
        f"  memory    write buffer {format_size(lsm.write_buffer_size)} x {lsm.max_write_buffer_number}, block cache "
        f"{format_size(lsm.block_cache_size)}, Bloom filters {lsm.bloom_bits_per_key:g} bits per key",
        f"  keys      {w.num:,} of {entry} B (key {w.key_size} + value {w.value_size}): {format_size(w.num * entry)}",
        "  phases",
    ]
    total = 0.0
    for p in resolve_phases(w):
        mix = ", ".join(f"{k} {v:g}" for k, v in p.mix.model_dump().items() if v)
        size = f"{p.operations:,} ops" if p.operations is not None else f"{p.duration:g} s"
        who = f"{p.writers.threads} client(s)" if p.writers.mode == "closed" else f"writes at {p.writers.rate:g} B/s"
        lb = lower_bound_s(cfg, p)
        total += lb or 0.0
        lines.append(
            f"    {p.name or '(unnamed)':<14} {size:>16}  {mix}; {who}{'' if p.measure else '; not measured'}"
            + (f"; at least {lb:.2f} s" if lb is not None else "")
        )
    lines.append(
        f"  estimate  at least {total:.2f} simulated s: the operations' CPU alone (machine.cpu); flushes, "
        "compactions, stalls and the device add to it"
    )
    for text in config_warnings(cfg):
        lines.append(f"  warning   {text}")
    return "\n".join(lines)
