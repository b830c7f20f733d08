"""RocksDB's rate limiter on flush and compaction writes (DBOptions::rate_limiter; db_bench's
--rate_limiter_bytes_per_sec; util/rate_limiter.cc, GenericRateLimiter).

Writes of flushes and compactions (RateLimiter::Mode kWritesOnly, the default) draw tokens refilled every 100 ms
(refill_period_us) at `rate` bytes/s; the WAL is not rate-limited. Env::IO_HIGH requests (flushes) are granted
before IO_LOW ones (compactions) within a refill, but one refill in `fairness` (10) serves IO_LOW first, and each
compaction request takes a whole burst, so when both wait the compactions are not starved: measured with db_bench
7.8.3 at 16 MiB/s (fillrandom 500K, 4 MiB buffers), compactions wrote 39% of the limited bytes while flushes queued
behind them. As a fluid: each step the rate is shared max-min fairly among the running flushes and compactions, on
what each would write alone, and each job's flow is capped at its share (`limit_background`)."""

from __future__ import annotations

from .sharing import water_fill


def limit_background(jobs, rate: float) -> None:
    """Cap the flows of `jobs` (set this step) so that their writes stay within `rate` bytes/s together."""
    js = [j for j in jobs if j.kind in ("flush", "compaction") and j.write_bytes > 0 and j.flow is not None]
    if not js:
        return
    # bytes/s each would write alone: its threads on whole cores, or its device time, whichever binds
    alone = [j.write_bytes / max(j.cpu / j.threads + j.sync, j.dev, 1e-12) for j in js]
    for j, a in zip(js, water_fill(alone, [1] * len(js), rate)):
        j.flow.cap = min(j.flow.cap, a / j.write_bytes)
