"""A closed-loop discrete-event simulation of one fio job on the drive model of `timing.py`.

fio keeps `iodepth` requests outstanding per job; each completion is reaped by the job's thread
and a new request is submitted. The simulation follows every request through the stations of
the model and records its latency (issue to reaped completion, so Little's law holds: the mean
latency is outstanding / throughput, as fio's `lat` is).

Stations, in the order a request meets them (parameters in `P_*` below):
- host: one FCFS server per fio job, `host_per_io` seconds per request (submission + reaping).
  It is the host's limit, kept apart from the drive's: one io_uring job saturates near
  1 / host_per_io IOPS whatever the drive.
- the drive's command slots (`slots`): a request beyond them waits for one to free (blk-mq tags / the
  controller's outstanding-command limit) in a submission queue, in submission order there; reads then cannot
  overtake writes stuck on a full buffer, as fio's equal read and write latencies at iodepth 1024 show. Nor may
  the commands in service carry more than `command_bytes` of data (the staging DRAM the controller moves it through;
  `sq_fetch.py`): the PM981a's 50/50 mixes at depth 64 acknowledge 16 KiB writes in 18.5 us at p50 (1 MiB in flight)
  but 32 KiB ones in 518 us and 128 KiB ones in 5.7 ms, next to their reads' 8.1 ms (2 and 8 MiB in flight).
- the submission queues: Linux's NVMe driver gives each CPU its own submission queue (SQ), and a request waiting
  for a slot waits in the SQ of the CPU its job's thread ran on when it was submitted. The thread moves to another of
  the host's `sq_count` CPUs every `sq_move_interval` seconds on average (exponential; 0: never) and the controller
  fetches from the non-empty SQs in turn, one command each (round robin, the NVMe base specification's default
  arbitration, §3.4.4), so a moved thread's new requests overtake the backlog it left behind (`host_queues.py`).
- sequential reads (fio rw=read): the controller reads ahead `readahead` bytes at a time into its DRAM, a window
  ahead of the stream (the next window's flash read starts when the stream first reaches one; Linux's asynchronous
  read-ahead works the same way, mm/readahead.c), so a reader the flash keeps up with never waits for the flash
  (WD ZNS's sequential 4 KiB reads at depth 1: 10.4 +- 1.1 us, 86 us random). A window under two requests: none.
- a fixed delay per direction (controller, PCIe, interrupt): lognormal, mean `overhead`, shape `sigma`.
- reads: the request is cut into `page`-byte chunks; each goes to a parallel unit (a die) chosen
  uniformly at random (a request's chunks on consecutive units), which serves reads before
  programs, FCFS: one flash read `flash_time` plus the chunk's transfer over the unit's channel at
  `stream_bandwidth` (4 KiB at least: `MIN_READ`); a read of one 4 KiB unit alone takes `partial_read_time` instead
  where the drive reads part of a page (the 980 PRO's p50 at depth 1: 58-60 us for 512 B-4 KiB, 110 us for 8 KiB,
  119 us for 16 KiB), or with probability `fast_read_fraction` a faster flash read
  `fast_read_time` (data in the drive's SLC region: the 980 PRO's 4 KiB reads at depth 1 take 20us for 30% of them,
  60us for the rest); with probability `slow_p` the read is retried, taking
  `slow_time` more (read retries after ECC failures: Cai et al., "Error characterization, mitigation, and recovery in
  flash-memory-based SSDs", Proc. IEEE 2017 §4; they make the tail, and a slow read delays every
  request queued behind it on its unit, which is why the tail grows with queue depth). Two requests on the same
  unit wait for each other: the collisions that make IOPS rise slowly with queue depth and the
  tail grow with it (Agrawal et al., USENIX ATC'08 §3; Chen, Koufaty & Zhang, SIGMETRICS'09 §4).
  When all chunks are read the data crosses the controller stage reads and programs share, if the drive has one
  (`stages.py`), then the host link (FCFS, `read_link` B/s).
- writes: the data crosses the link (FCFS, `write_link` B/s), the controller accepts the command
  (commands start at most `write_iops` a second, in order, and each holds its write for `command_share / write_iops`
  s: 1 is one command at a time, an FCFS server; below 1 the controller overlaps them, so the rate caps IOPS
  without adding the whole interval to every write's latency, as WD ZNS's 4KiB writes show: 56-59K IOPS at depth
  and 20us alone; a write smaller than the program unit `write_unit` takes `subunit_time` more there, the
  controller merging it into a whole unit: WD ZNS's 4 and 8 KiB writes plateau at 56-61K IOPS where its 16 KiB
  ones reach the 1.09 GB/s flash rate, 66.8K), and the write is acknowledged as soon as it is in the drive's
  write-back buffer (DRAM or SLC cache, `buffer` bytes). The buffer drains in programs of
  `program_bytes`, each occupying one idle unit for `program_time` (after its data crossed the shared stage, if any:
  the unit waits for it); a write that finds the buffer
  full waits for a program to finish (then writes are acknowledged at the flash program rate). With `release`
  (`write_buffer_release`) programmed bytes become room only that many at a time, or when no program is left (the
  controller frees a stripe of programs over its dies at once: "ganging", Agrawal et al., USENIX ATC'08), so writes
  on a full buffer pass unevenly, many at once and some after a whole stripe, as the PM981a's 128 KiB writes at
  depth 1 do at its 0.93 GB/s flash rate: 30% in 48-57 us (the link's speed), a tenth in 300-930 us.
  A read reaching a unit mid-program waits for the program to end, unless program suspension is
  on: then it waits only `suspend_latency` and the program resumes after it (Wu & He, "Reducing
  SSD read latency via NAND flash program and erase suspension", FAST'12 §3). A unit that finishes a job
  serves its queued reads before the next program, or with `program_first` (`prog_first`) the program first:
  the buffer keeps draining, so writes stay fast while reads queue, as the PM981a's mixes show (16 KiB 50/50 at
  depth 64: writes acknowledged in 18.5us at p50 while reads wait 2.1ms, 471 MB/s each way).
- random writes' order (`order.py` says why): random writes waiting for the command stage or for buffer room are
  taken one of the `write_window` oldest at random (1: in submission order), and `map_update_time` of each one's
  command interval is mapping work the stage defers: worked off while it idles, all of it before the next write
  when it would pass `map_update_backlog`. Sequential writes keep their order and defer nothing.

All times are seconds, sizes bytes. The kernel is numba-compiled (`cache=True`); with a fixed seed, deterministic.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit
from .des import append as _append
from .des import compact as _compact
from .des import enqueue as _enqueue
from .des import lognormal as _lognormal
from .des import pop as _pop
from .des import push as _push
from .des import serve_next as _serve_next
from .des import take_head as _take_head
from .des import take_random as _take_random
from .des import uniform as _uniform
from .flash_units import IDLE as _IDLE
from .flash_units import PROG as _PROG
from .flash_units import READ_SUSPENDED as _READ_SUSPENDED
from .flash_units import UNIT_EVENT as _UNIT
from .flash_units import read_chunks as _read_chunks
from .flash_units import start_program as _start_program
from .flash_units import unit_next as _unit_next
from .sq_fetch import fetch as _fetch
from .sq_fetch import fits as _fits
from .stages import CMD_EVENT as _CMD
from .stages import command as _command
from .stages import program_span as _program_span
from .stages import shared as _shared

# parameter vector layout
(
    P_UNITS,
    P_HOST,
    P_R_OVER,
    P_R_SIGMA,
    P_R_FLASH,
    P_R_STREAM,
    P_R_LINK,
    P_PAGE,
    P_W_OVER,
    P_W_SIGMA,
    P_W_LINK,
    P_W_CMD,
    P_PROG_TIME,
    P_PROG_BYTES,
    P_BUFFER,
    P_SUSPEND,
    P_SUSPEND_LAT,
    P_BUFFER_FULL,
    P_R_SLOW_P,
    P_R_SLOW_T,
    P_SLOTS,
    P_READAHEAD,
    P_W_CMD_SHARE,
    P_W_UNIT,
    P_W_SUBUNIT,
    P_PROG_FIRST,
    P_W_WINDOW,
    P_W_DEFER,
    P_W_DEBT,
    P_SQS,
    P_SQ_MOVE,
    P_R_FAST_P,
    P_R_FAST_T,
    P_SHARED_R,
    P_SHARED_W,
    P_BUF_RELEASE,
    P_SLOT_BYTES,
    P_R_PARTIAL,
) = range(38)
N_PARAMS = 38

# event kinds (_UNIT, a unit's job done, is flash_units')
_DELAY, _RLINK, _WLINK, _HOST, _CMD_FREE, _SHARED = 0, 2, 3, 5, 6, 7


# per request number k, draws use keys k * _KEYS + stream; a read's chunk c uses streams 8 + 4c..
_KEYS = 1 << 20
# the least a flash read moves: the FTL's 4 KiB mapping unit (a 512 B read reads its whole unit). The 980 PRO's
# random reads of 512 B, 1, 2 and 4 KiB run at the same IOPS at every depth (143.1K, 143.0K, 142.4K, 141.7K at 16)
MIN_READ = 4096.0


@njit(cache=True)
def simulate(params, size_r, size_w, read_fraction, iodepth, numjobs, n_ios, warmup, seed, sequential=False):  # noqa: C901
    """Run until `warmup + n_ios` requests completed; returns (direction, latency) of the last
    n_ios (direction 0 read, 1 write), the measured window in seconds and the bytes programmed
    in it. One simulation of one fio job; see the module doc for the stations."""
    units = int(params[P_UNITS])
    host = params[P_HOST]
    page = params[P_PAGE]
    prog_bytes = params[P_PROG_BYTES]
    buffer = params[P_BUFFER]
    suspend = params[P_SUSPEND] > 0.5
    slots = iodepth * numjobs
    # sequential reads: the controller reads `readahead` bytes at a time into its DRAM, each window's read started
    # when the stream first reaches the window before it, so a reader the flash keeps up with waits only for the first;
    # a window of less than two requests is read for each request as it comes, nothing ahead
    fetch = max(size_r, params[P_READAHEAD]) if sequential else size_r
    per_fetch = max(1, int(fetch // size_r))
    ahead = per_fetch >= 2 and read_fraction > 0
    n_win = slots // per_fetch + 3 if ahead else 0  # windows in use at once, each read for a ghost owner
    win_ready = np.zeros(n_win, np.bool_)
    ra_next = 0  # the next window to read
    m_fetch = int(np.ceil(fetch / page))
    max_chunks = m_fetch if read_fraction > 0 else 1
    # requests
    r_job = np.empty(slots, np.int64)
    r_dir = np.zeros(slots, np.int64)
    r_issue = np.zeros(slots)
    r_left = np.zeros(slots + n_win, np.int64)  # chunks still to read, of a request or a read-ahead window
    r_next = np.full(slots, -1, np.int64)  # FIFO links for host, link, command and buffer queues
    r_key = np.zeros(slots, np.int64)  # the request's key for its random draws
    issued = 0
    chunk_bytes = max(min(page, fetch), MIN_READ)
    for i in range(slots):
        r_job[i] = i // iodepth
    # chunk pool: per-unit read FIFOs as linked lists
    pool = (slots + n_win) * max_chunks
    c_req = np.zeros(pool, np.int64)
    c_svc = np.zeros(pool)  # the chunk's service time at its unit
    c_next = np.full(pool, -1, np.int64)
    free = np.arange(pool - 1, -1, -1).astype(np.int64)
    n_free = pool
    u_head = np.full(units, -1, np.int64)
    u_tail = np.full(units, -1, np.int64)
    u_mode = np.zeros(units, np.int64)
    u_chunk = np.full(units, -1, np.int64)
    u_ver = np.zeros(units, np.int64)
    u_prog_left = np.zeros(units)
    u_prog_end = np.zeros(units)
    u_prog_bytes = np.zeros(units)
    rr = 0  # next unit a program is placed on (writes stripe over the units)
    # FCFS servers with linked-list queues: read link, write link, command, per-job host, buffer
    n_q = 5 + numjobs + n_win + max(1, int(params[P_SQS]))
    q_head = np.full(n_q, -1, np.int64)
    q_tail = np.full(n_q, -1, np.int64)
    busy = np.zeros(n_q, np.int64)  # 0 free, 1 busy
    Q_RLINK, Q_WLINK, Q_CMD, Q_BUF, Q_HOST = 0, 1, 2, 3, 4  # Q_CMD: random writes waiting for the command stage
    prog_first = params[P_PROG_FIRST] > 0.5
    # the stage reads and programs share (stages.py): seconds per byte (0: none), and when it is free
    shared_r, shared_w = params[P_SHARED_R], params[P_SHARED_W]
    shared_free = 0.0
    cmd_gap = params[P_W_CMD]
    if size_w < params[P_W_UNIT]:  # a write below the program unit: the controller merges it into a unit first
        cmd_gap += params[P_W_SUBUNIT]
    cmd_hold = params[P_W_CMD_SHARE] * cmd_gap
    # random writes in no fixed order: one of the `window` oldest waiting ones, at random (1: submission order)
    window = int(params[P_W_WINDOW]) if not sequential else 1
    picks = 0  # random picks of waiting writes (their draws: stream 5 of request number `picks`)
    cmd_busy = False
    cmd_free = -1e300  # when the command stage takes the next write
    # random writes: `defer` s of each command interval is mapping work done later (in idle time, or all at once when
    # the debt would pass `debt_limit`); the stage itself is free again after the rest
    defer = min(params[P_W_DEFER], cmd_gap) if not sequential and params[P_W_DEBT] > 0 else 0.0
    debt_limit = params[P_W_DEBT]
    debt = 0.0
    Q_WIN = 5 + numjobs  # Q_WIN + g: sequential reads waiting for read-ahead window g's data
    # requests waiting for one of the drive's command slots, in the SQ (Q_SQ + s) of the CPU their job ran on
    n_sq = max(1, int(params[P_SQS]))
    Q_SQ = 5 + numjobs + n_win
    move_every = params[P_SQ_MOVE] if n_sq > 1 else 0.0
    job_sq = np.zeros(numjobs, np.int64)
    next_move = np.full(numjobs, np.inf)
    moves = 0  # thread moves drawn (their draws: streams 6 and 7 of number `moves`)
    for j in range(numjobs):
        job_sq[j] = j % n_sq
        if move_every > 0:
            moves += 1
            next_move[j] = -move_every * np.log(1.0 - _uniform(seed, moves * _KEYS + 7))
    # free command slots, requests waiting in the SQs, bytes the commands in service carry, the SQ fetched from next
    sq = np.array([float(int(params[P_SLOTS])), 0.0, 0.0, 0.0])
    data_room = params[P_SLOT_BYTES] if params[P_SLOT_BYTES] > 0 else np.inf  # the most they may carry
    sizes = np.array([size_r, size_w])
    r_delay = np.zeros(slots)  # the request's fixed delay, drawn at issue
    released = 0  # commands completed in this event
    buf_used = params[P_BUFFER_FULL] * buffer  # bytes acknowledged, not yet programmed
    pending = buf_used  # of which not yet in a program
    release = params[P_BUF_RELEASE]  # programmed bytes become room this many at a time (0: each program's at its end)
    unreleased = 0.0  # programmed, not yet room
    programs = 0  # programs in flight (a suspended one too)
    # event heap: `cap` bounds the live events; past it the void ones are dropped (des.compact), and `room` holds
    # what one event's handling may push before the next check
    cap = (slots + n_win) * (max_chunks + 2) + units + numjobs + 16
    room = slots + n_win + units + 16
    ht = np.zeros(cap + room)
    hk = np.zeros(cap + room, np.int64)
    ha = np.zeros(cap + room, np.int64)
    hb = np.zeros(cap + room, np.int64)
    n = 0
    out_dir = np.zeros(n_ios, np.int64)
    out_lat = np.zeros(n_ios)
    done = 0
    t0 = 0.0
    now = 0.0
    programmed = 0.0
    prog_at_t0 = 0.0
    u_q = (u_head, u_tail, u_mode, u_chunk, u_ver, u_prog_left, u_prog_end)
    chunks = (c_req, c_svc, c_next, free)
    suspend_lat = params[P_SUSPEND_LAT] if suspend else -1.0
    partial = params[P_R_PARTIAL] > 0 and chunk_bytes <= MIN_READ  # one 4 KiB unit: a partial-page read
    t_read = params[P_R_PARTIAL] if partial else params[P_R_FLASH]
    flash = (t_read, params[P_R_SIGMA], params[P_R_STREAM], params[P_R_SLOW_P], params[P_R_SLOW_T])
    fast = (params[P_R_FAST_P], params[P_R_FAST_T])
    rd = (*flash, suspend_lat, chunk_bytes, units, seed, *fast)  # read_chunks' rd
    heap = (ht, hk, ha, hb)
    t_rlink, t_wlink = size_r / params[P_R_LINK], size_w / params[P_W_LINK]  # a request's time on the host link

    # every slot starts at its job's host server (a submission)
    for i in range(slots):
        _append(Q_HOST + r_job[i], i, q_head, q_tail, r_next)
    for j in range(numjobs):
        i = _take_head(Q_HOST + j, q_head, q_tail, r_next)
        busy[Q_HOST + j] = 1
        r_dir[i] = -1  # a first submission, not a completion
        n = _push(ht, hk, ha, hb, n, host, _HOST, i, 0)

    while done < n_ios:
        if n > cap:
            n = _compact(ht, hk, ha, hb, n, _UNIT, u_ver)
            if n > cap:
                raise RuntimeError("drive_sim: more live events than the heap holds")
        now, kind, a, b, n = _pop(ht, hk, ha, hb, n)
        start_server = -1  # a server (queue index) that became free
        start_unit = -1
        if kind == _HOST:
            i = a
            start_server = Q_HOST + r_job[i]
            # record, then issue the slot's next request
            if r_dir[i] >= 0:
                if warmup > 0:
                    warmup -= 1
                    if warmup == 0:
                        t0 = now
                        prog_at_t0 = programmed
                else:
                    out_dir[done] = r_dir[i]
                    out_lat[done] = now - r_issue[i]
                    done += 1
            r_issue[i] = now
            issued += 1
            key = issued * _KEYS
            r_key[i] = key
            if _uniform(seed, key) < read_fraction:
                r_dir[i] = 0
                d = _lognormal(params[P_R_OVER], params[P_R_SIGMA], seed, key + 2)
            else:
                r_dir[i] = 1
                d = _lognormal(params[P_W_OVER], params[P_W_SIGMA], seed, key + 2)
            if sq[0] > 0 and sq[1] == 0 and _fits(sq[2], sizes[r_dir[i]], data_room):  # the drive takes the command
                sq[0] -= 1
                sq[2] += sizes[r_dir[i]]
                n = _push(ht, hk, ha, hb, n, now + d, _DELAY, i, 0)
            else:  # all command slots taken: wait in the SQ of the CPU the job's thread is on now
                r_delay[i] = d
                j = r_job[i]
                while now >= next_move[j]:  # the thread moved to another CPU since its last submission
                    moves += 1
                    job_sq[j] = (job_sq[j] + 1 + int(_uniform(seed, moves * _KEYS + 6) * (n_sq - 1))) % n_sq
                    next_move[j] -= move_every * np.log(1.0 - _uniform(seed, moves * _KEYS + 7))
                _append(Q_SQ + job_sq[j], i, q_head, q_tail, r_next)
                sq[1] += 1
        elif kind == _DELAY:
            i = a
            if r_dir[i] == 0 and ahead:  # a sequential read: its window, and the next one read ahead
                w = (r_key[i] // _KEYS - 1) // per_fetch
                while ra_next <= w + 1:
                    g = ra_next % n_win
                    win_ready[g] = False
                    r_left[slots + g] = m_fetch
                    key = (ra_next * per_fetch + 1) * _KEYS  # the draws of the window's first request
                    n, n_free = _read_chunks(slots + g, key, m_fetch, now, rd, u_q, chunks, n_free, heap, n)
                    ra_next += 1
                if win_ready[w % n_win]:
                    n = _enqueue(Q_RLINK, i, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, t_rlink, _RLINK)
                else:
                    _append(Q_WIN + w % n_win, i, q_head, q_tail, r_next)
            elif r_dir[i] == 0:  # reads: chunks striped over consecutive units from a random one
                r_left[i] = m_fetch
                n, n_free = _read_chunks(i, r_key[i], m_fetch, now, rd, u_q, chunks, n_free, heap, n)
            else:
                n = _enqueue(Q_WLINK, i, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, t_wlink, _WLINK)
        elif kind == _UNIT:
            u = a
            if b != u_ver[u]:
                continue
            if u_mode[u] == _PROG:
                programmed += u_prog_bytes[u]
                unreleased += u_prog_bytes[u]
                programs -= 1
                if unreleased >= release or programs == 0:  # a whole stripe done, or nothing more to wait for
                    buf_used -= unreleased
                    unreleased = 0.0
                u_mode[u] = _IDLE
                start_server = Q_BUF  # room in the buffer: admit waiting writes
            else:  # a read chunk finished
                c = u_chunk[u]
                i = c_req[c]
                free[n_free] = c
                n_free += 1
                was_suspended = u_mode[u] == _READ_SUSPENDED
                u_mode[u] = _IDLE
                r_left[i] -= 1
                if r_left[i] == 0 and shared_r > 0:  # all read: the data crosses the shared stage
                    shared_free = _shared(now, shared_free, fetch if i >= slots else size_r, shared_r)
                    n = _push(ht, hk, ha, hb, n, shared_free, _SHARED, i, 0)
                elif r_left[i] == 0:
                    n = _read_in(
                        i, slots, win_ready, Q_WIN, Q_RLINK, q_head, q_tail, r_next, busy, heap, n, now, t_rlink
                    )
                if was_suspended:
                    if u_head[u] >= 0:  # more reads while suspended
                        n = _unit_next(
                            u, now, u_head, u_tail, u_mode, u_chunk, u_ver, c_next, c_svc, ht, hk, ha, hb, n, 0.0
                        )
                        u_mode[u] = _READ_SUSPENDED
                    else:  # resume the program
                        u_mode[u] = _PROG
                        u_ver[u] += 1
                        u_prog_end[u] = now + u_prog_left[u]
                        n = _push(ht, hk, ha, hb, n, u_prog_end[u], _UNIT, u, u_ver[u])
                    continue
            start_unit = u
        elif kind == _SHARED:
            n = _read_in(a, slots, win_ready, Q_WIN, Q_RLINK, q_head, q_tail, r_next, busy, heap, n, now, t_rlink)
        elif kind == _CMD_FREE:
            cmd_busy = False
            if q_head[Q_CMD] >= 0:
                picks += 1
                i = _take_random(Q_CMD, window, _uniform(seed, picks * _KEYS + 5), q_head, q_tail, r_next)
                r_next[i] = -1
                cmd_busy = True
                n, debt, cmd_free = _command(i, now, 0.0, defer, debt, debt_limit, cmd_hold, cmd_gap, ht, hk, ha, hb, n)
                n = _push(ht, hk, ha, hb, n, cmd_free, _CMD_FREE, 0, 0)
        elif kind == _CMD:  # through the command stage, into the buffer's FIFO
            _append(Q_BUF, a, q_head, q_tail, r_next)
            start_server = Q_BUF
        elif kind == _RLINK or kind == _WLINK:
            q = Q_RLINK if kind == _RLINK else Q_WLINK
            busy[q] = 0
            start_server = q
            i = a
            if kind == _WLINK and window > 1:
                if cmd_busy:
                    _append(Q_CMD, i, q_head, q_tail, r_next)
                else:
                    cmd_busy = True
                    idle = max(0.0, now - cmd_free)
                    n, debt, cmd_free = _command(
                        i, now, idle, defer, debt, debt_limit, cmd_hold, cmd_gap, ht, hk, ha, hb, n
                    )
                    n = _push(ht, hk, ha, hb, n, cmd_free, _CMD_FREE, 0, 0)
            elif kind == _WLINK:  # commands start cmd_gap apart, in order; each holds its write cmd_hold
                idle = max(0.0, now - cmd_free)
                n, debt, cmd_free = _command(
                    i, max(now, cmd_free), idle, defer, debt, debt_limit, cmd_hold, cmd_gap, ht, hk, ha, hb, n
                )
            else:
                n = _enqueue(Q_HOST + r_job[i], i, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, host, _HOST)
                released += 1
                sq[2] -= size_r
        # servers that became free take their next request
        if start_server >= 0:
            q = start_server
            if q == Q_RLINK:
                n = _serve_next(q, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, t_rlink, _RLINK)
            elif q == Q_WLINK:
                n = _serve_next(q, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, t_wlink, _WLINK)
            elif q >= Q_HOST:
                busy[q] = 0
                n = _serve_next(q, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, host, _HOST)
            elif q == Q_BUF:
                while q_head[Q_BUF] >= 0 and buf_used + size_w <= buffer + 1e-9:
                    if window > 1:  # random writes: one of the `window` oldest waiting, at random
                        picks += 1
                        i = _take_random(Q_BUF, window, _uniform(seed, picks * _KEYS + 5), q_head, q_tail, r_next)
                    else:
                        i = _take_head(Q_BUF, q_head, q_tail, r_next)
                    r_next[i] = -1
                    buf_used += size_w
                    pending += size_w
                    n = _enqueue(Q_HOST + r_job[i], i, q_head, q_tail, r_next, busy, *heap, n, now, host, _HOST)
                    released += 1
                    sq[2] -= size_w
                # programs start on idle units in turn; a full buffer also flushes a partial program
                full = q_head[Q_BUF] >= 0
                for _k in range(units):
                    if pending < prog_bytes and not (full and pending > 0):
                        break
                    u = rr
                    rr = (rr + 1) % units
                    if u_mode[u] == _IDLE and u_head[u] < 0:
                        take = min(pending, prog_bytes)
                        pending -= take
                        t_prog, shared_free = _program_span(now, shared_free, take, shared_w, params[P_PROG_TIME])
                        n = _start_program(u, take, now, t_prog, u_mode, u_ver, u_prog_end, u_prog_bytes, *heap, n)
                        programs += 1
        # completed commands free their slots for requests waiting to be submitted
        sq[0] += released
        released = 0
        if sq[1] > 0:
            n = _fetch(sq, Q_SQ, n_sq, q_head, q_tail, r_next, r_dir, sizes, data_room, r_delay, heap, n, now, _DELAY)
        if start_unit >= 0 and u_mode[start_unit] == _IDLE:
            u = start_unit
            prog_ready = pending >= prog_bytes or (pending > 0 and q_head[Q_BUF] >= 0)
            if u_head[u] >= 0 and not (prog_first and prog_ready):
                n = _unit_next(u, now, u_head, u_tail, u_mode, u_chunk, u_ver, c_next, c_svc, ht, hk, ha, hb, n, 0.0)
            elif prog_ready:
                take = min(pending, prog_bytes)
                pending -= take
                t_prog, shared_free = _program_span(now, shared_free, take, shared_w, params[P_PROG_TIME])
                n = _start_program(u, take, now, t_prog, u_mode, u_ver, u_prog_end, u_prog_bytes, *heap, n)
                programs += 1
    return out_dir, out_lat, now - t0, programmed - prog_at_t0


@njit(cache=True)
def _read_in(i, slots, win_ready, q_win, q_rlink, q_head, q_tail, r_next, busy, heap, n, now, t_rlink):
    """Read i's data is in the controller: it goes to the host link; or read-ahead window i - slots is, and the reads
    waiting for it go."""
    ht, hk, ha, hb = heap
    if i < slots:
        return _enqueue(q_rlink, i, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, t_rlink, _RLINK)
    win_ready[i - slots] = True
    j = _take_head(q_win + i - slots, q_head, q_tail, r_next)
    while j >= 0:
        n = _enqueue(q_rlink, j, q_head, q_tail, r_next, busy, ht, hk, ha, hb, n, now, t_rlink, _RLINK)
        j = _take_head(q_win + i - slots, q_head, q_tail, r_next)
    return n
