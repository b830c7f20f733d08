"""The controller fetching waiting requests from the host's submission queues (a piece of `drive_sim`, numba).

A request waits in the SQ of the CPU its thread ran on when the drive has no command slot for it, or when the data
of the commands it serves (`held` bytes) would pass `room` with it (`command_bytes`: the staging DRAM the controller
moves commands' data through). The controller fetches from the non-empty SQs in turn, one command each (round robin,
NVMe base specification §3.4.4), and stops at a head whose data does not fit: it keeps each SQ's order.
"""

from __future__ import annotations

from .._numba import njit
from .des import push, take_head


@njit(cache=True)
def fits(held, size, room):
    """Whether a command of `size` bytes joins those in service (one always does)."""
    return held == 0.0 or held + size <= room


@njit(cache=True)
def fetch(state, q_sq, n_sq, q_head, q_tail, r_next, r_dir, sizes, room, r_delay, heap, n, now, kind):
    """Start the commands the freed slots and room allow, in turn over the SQs from `state`'s next one; `state` is
    [free slots, requests waiting, bytes held, next SQ]. Each started command's event `kind` fires after its delay."""
    ht, hk, ha, hb = heap
    while state[0] > 0 and state[1] > 0:
        q = q_sq + int(state[3])
        while q_head[q] < 0:  # a non-empty SQ exists: `state[1]` requests wait
            state[3] = (state[3] + 1) % n_sq
            q = q_sq + int(state[3])
        size = sizes[r_dir[q_head[q]]]
        if not fits(state[2], size, room):
            break
        j = take_head(q, q_head, q_tail, r_next)
        state[3] = (state[3] + 1) % n_sq
        state[0] -= 1
        state[1] -= 1
        state[2] += size
        n = push(ht, hk, ha, hb, n, now + r_delay[j], kind, j, 0)
    return n
