"""RocksDB's rate limiter on flush and compaction writes (DBOptions::rate_limiter; db_bench's
--rate_limiter_bytes_per_sec; util/rate_limiter.cc, GenericRateLimiter).

Writes of flushes and compactions (RateLimiter::Mode kWritesOnly, the default) draw tokens refilled every
100 ms (refill_period_us) at `rate` bytes/s; a request of Env::IO_HIGH priority (flush) is served before those of
IO_LOW (compaction) at each refill (GenericRateLimiter::RefillBytesAndGrantRequests; the fairness that lets low
go first one refill in ten is left out). The WAL is not rate-limited. As a fluid: each step the limiter's rate
is split by priority, then max-min fairly within a class on what each job would write alone, and each job's
flow is capped at its share (`limit_background`)."""

from __future__ import annotations

from .sharing import water_fill

PRIORITY = ("flush", "compaction")  # Env::IO_HIGH, then Env::IO_LOW


def limit_background(jobs, rate: float) -> None:
    """Cap the flows of `jobs` (set this step) so that their writes stay within `rate` bytes/s together."""
    left = rate
    for kind in PRIORITY:
        js = [j for j in jobs if j.kind == kind and j.write_bytes > 0 and j.flow is not None]
        if not js:
            continue
        # bytes/s each would write alone: its threads on whole cores, or its device time, whichever binds
        alone = [j.write_bytes / max(j.cpu / j.threads + j.sync, j.dev, 1e-12) for j in js]
        alloc = water_fill(alone, [1] * len(js), max(left, 0.0))
        for j, a in zip(js, alloc):
            j.flow.cap = min(j.flow.cap, a / j.write_bytes)
        left -= sum(alloc)
