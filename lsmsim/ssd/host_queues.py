"""The order requests leave the host's submission queues, searched on fio traces (issue 39).

A request the drive has no command slot for waits in a submission queue (SQ). Linux's NVMe driver gives every CPU
its own SQ (drivers/nvme/host/pci.c, one I/O queue pair per CPU where the drive offers enough), and a request goes to
the SQ of the CPU its thread runs on; the controller fetches from the non-empty SQs in turn (round robin, the
default and mandatory arbitration of the NVMe base specification, §3.4.4). When the scheduler moves fio's thread to
another CPU, the requests it submits next wait in a new, short SQ and overtake the backlog left in the old one,
which now drains at half the rate: the new ones finish early, the old ones up to twice as late as in order.

fio's clat at iodepth 1024 on the PM981a (ECSE-4320 set) shows exactly this, at every size and mix: 1% of requests
at 0.07-0.2 times the median, 99% at 2.0-2.2 times it, the middle bunched at the median; at depth 64, where every
request has a slot, its 128 KiB reads stay within 1.12 times it. The spread depends on how long the backlog takes
to drain against how often the thread moves: 128 KiB writes at 1024 (146 ms to drain) spread from 0.3 (p10) to
2.0 (p99), 4 KiB reads at 1024 (3.6 ms) only to 1.4. One interval, `sq_move_interval`, gives both (100 ms: 31 of
the PM981a's 96 directions against 18 in one queue); not fio's wider writes than reads of the same drain time (4 KiB
writes at 1024: 2.1x at p99 in 4.4 ms), which stay 32-34% short at p99. It is a property of the host (its scheduler
and load), searched here on the fitted jobs with a backlog. `sq_count` (the CPUs the
thread moves among) hardly matters once above 2 (a thread rarely returns to a queue still draining); SQ_COUNT is
taken for the search.
"""

from __future__ import annotations

from .fio import FioJobResult
from .order import SEARCH_IOS, best_of
from .timing import DriveModel

MOVE_INTERVALS = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)  # seconds between the thread's moves (0: never)
SQ_COUNT = 8


def backlogged(model: DriveModel, results: list[FioJobResult]) -> list[FioJobResult]:
    """The jobs keeping more requests outstanding than the drive has command slots: the only ones the SQs shape."""
    return [r for r in results if r.spec.iodepth * r.spec.numjobs > model.command_slots]


def search(model: DriveModel, results: list[FioJobResult], n_ios: int = SEARCH_IOS, progress=None):
    """The move interval meeting the most goals on the backlogged jobs among `results` (ties: the least cost) as
    (model, [(candidate, met, cost)]); without such jobs the model is returned as is."""
    jobs = backlogged(model, results)
    if not jobs:
        return model, []
    cands = [{"sq_count": SQ_COUNT if t > 0 else 1, "sq_move_interval": t} for t in MOVE_INTERVALS]
    return best_of(model, cands, jobs, n_ios, progress)
