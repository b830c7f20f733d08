"""Two controller stages of `drive_sim` (numba): the write command stage, and the stage reads and programs share.

- The command stage takes writes `cmd_gap` apart, each held `cmd_hold`; part of a random write's interval may be
  mapping work it defers (drive_sim's module doc).
- The shared stage: a controller stage (ECC, DRAM: one FCFS server) every read's data crosses on its way from the
  flash and every program's data on its way to it, at `shared_read` and `shared_write` seconds a byte (0: no stage),
  apart from the flash units. The PM981a's mixes at depth 64-1024 keep R / 1.36 + W / 0.925 GB/s at 0.91-1.15 (its
  pure 128 KiB reads and writes top out at 1.36 and 0.925 GB/s): one server both directions share, where separate
  limits would let a 50/50 mix move up to twice that; yet a 4 KiB read in its mixes waits for a program with the
  probability of one flash unit's share of a 2.1 GB/s program rate (1.5% of reads at 35 MB/s written, 7% at 150), so
  the flash units themselves are idle most of the time: what both directions queue for is the stage.
"""

from __future__ import annotations

from .._numba import njit
from .des import push

CMD_EVENT = 4  # a write through the command stage (drive_sim numbers its events around it)


@njit(cache=True)
def command(i, start, idle, defer, debt, debt_limit, cmd_hold, cmd_gap, ht, hk, ha, hb, n):
    """Write i starts in the command stage at `start` (the stage idled `idle` s before); returns (n, debt, when the
    stage takes its next write). `defer` s of its interval are mapping work done later: worked off while the stage
    idles, and the whole debt at once, before this write, when it would pass `debt_limit`."""
    if defer > 0:
        debt = max(0.0, debt - idle)
        if debt + defer > debt_limit:
            start += debt
            debt = 0.0
        debt += defer
    n = push(ht, hk, ha, hb, n, start + cmd_hold, CMD_EVENT, i, 0)
    return n, debt, start + cmd_gap - defer


@njit(cache=True, inline="always")
def shared(now, free, nbytes, per_byte):
    """When `nbytes` that reach the shared stage at `now` are through it (FCFS: after what it holds, `free`)."""
    return max(now, free) + nbytes * per_byte


@njit(cache=True, inline="always")
def program_span(now, free, nbytes, per_byte, prog_time):
    """(How long a program of `nbytes` started at `now` holds its unit, when the shared stage is free next): its data
    crosses the stage first, if there is one (`per_byte` > 0), the unit waiting for it, then `prog_time`."""
    if per_byte <= 0:
        return prog_time, free
    end = shared(now, free, nbytes, per_byte)
    return end - now + prog_time, end
