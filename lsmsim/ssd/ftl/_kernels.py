"""The numba kernels of the page-mapped FTL (`model.FTL` calls them): host writes, TRIM, idle GC, and the
erase-unit bookkeeping and GC victim selection they share.

Every `@njit` function (and the `_prefetch` intrinsic) of the FTL lives here: numba's cache does not see edits to
functions defined in other files (numba issue 1833). The plain-Python reference of the same algorithm, which the
tests compare with these kernels step by step, is tests/ftl_reference.py.

State (arrays owned by `model.FTL`; P pages per block, F host frontiers, frontier F is GC's):
  l2p[lpn] / p2l[ppn]   the page mapping, -1 = unmapped / invalid
  valid, bstate, btime, ecnt   per block: valid pages, FREE/OPEN/CLOSED/VICTIM, last write time, erase count
  bnext, bprev, bhead, btail   closed blocks in buckets by valid count, doubly-linked, appended at the tail
  ring                  the free blocks, a FIFO ring (ctr[C_FREE_HEAD], ctr[C_FREE_COUNT])
  open_blk, wp          per frontier: its open block (-1 = none) and write pointer
  ctr                   int64 counters and scalars, slots C_* below (named by counters.SLOTS)
"""

from __future__ import annotations

from llvmlite import ir as llvm_ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from ..._numba import numba


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Hint the CPU to fetch &arr[idx] into cache for writing (llvm.prefetch; never faults)."""
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        i = context.cast(builder, args[1], idxty, types.intp)
        ptr = builder.gep(ary.data, [i])
        if getattr(ptr.type, "is_opaque", False):  # LLVM >= 15 opaque pointers
            name, arg = "llvm.prefetch.p0", ptr
        else:  # typed pointers (older llvmlite)
            arg = builder.bitcast(ptr, llvm_ir.IntType(8).as_pointer())
            name = "llvm.prefetch.p0i8"
        i32 = llvm_ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, llvm_ir.FunctionType(llvm_ir.VoidType(), [arg.type, i32, i32, i32]), name
        )
        # rw = 1 (write), locality = 3 (keep in all levels), cache type = 1 (data)
        builder.call(fn, [arg, llvm_ir.Constant(i32, 1), llvm_ir.Constant(i32, 3), llvm_ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


_PF = 16  # prefetch distance in host writes: l2p at i + _PF, then p2l of the old copy at i + _PF // 2

FREE, OPEN, CLOSED, VICTIM = 0, 1, 2, 3  # bstate
GREEDY, COST_BENEFIT = 0, 1  # `kind`: the victim policy
# slots of the int64 counter/scalar array `ctr` (counters.SLOTS names the counters among them)
C_HOST, C_FLASH, C_GC, C_ERASE, C_FG, C_BG, C_TRIM, C_FREE_HEAD, C_FREE_COUNT, C_MINB, C_MAPPED = range(11)
NCTR = 12


@numba.njit(cache=True)
def _unlink(b, v, bnext, bprev, bhead, btail):
    n = bnext[b]
    p = bprev[b]
    if p >= 0:
        bnext[p] = n
    else:
        bhead[v] = n
    if n >= 0:
        bprev[n] = p
    else:
        btail[v] = p


@numba.njit(cache=True)
def _push(b, v, bnext, bprev, bhead, btail, ctr):
    t = btail[v]
    bprev[b] = t
    bnext[b] = -1
    if t >= 0:
        bnext[t] = b
    else:
        bhead[v] = b
    btail[v] = b
    if v < ctr[C_MINB]:
        ctr[C_MINB] = v


@numba.njit(cache=True)
def _invalidate(ppn, P, p2l, valid, bstate, bnext, bprev, bhead, btail, ctr):
    b = ppn // P
    p2l[ppn] = -1
    v = valid[b]
    valid[b] = v - 1
    if bstate[b] == CLOSED:
        _unlink(b, v, bnext, bprev, bhead, btail)
        _push(b, v - 1, bnext, bprev, bhead, btail, ctr)


@numba.njit(cache=True)
def _alloc(ring, bstate, btime, ctr):
    cnt = ctr[C_FREE_COUNT]
    if cnt == 0:
        return -1
    n = ring.shape[0]
    h = ctr[C_FREE_HEAD]
    b = ring[h]
    h += 1
    if h == n:
        h = 0
    ctr[C_FREE_HEAD] = h
    ctr[C_FREE_COUNT] = cnt - 1
    bstate[b] = OPEN
    btime[b] = 0
    return b


@numba.njit(cache=True)
def _erase(b, ring, bstate, ecnt, ctr):
    n = ring.shape[0]
    bstate[b] = FREE
    ecnt[b] += 1
    ctr[C_ERASE] += 1
    t = ctr[C_FREE_HEAD] + ctr[C_FREE_COUNT]
    if t >= n:
        t -= n
    ring[t] = b
    ctr[C_FREE_COUNT] += 1


@numba.njit(cache=True)
def _select(kind, P, valid, bstate, btime, bhead, ctr):
    """GC victim block, or -1 if no block is closed. GC picks an erase unit with as little live data as possible,
    migrates its live data and erases it (Spooky, Dayan et al., PVLDB 2022, Sec. 2 "Write-Amplification").

    greedy: the head of the lowest non-empty valid-count bucket: fewest valid pages, FIFO among ties; ctr[C_MINB]
    is a lower bound on the lowest non-empty bucket, so selection is O(1) amortised.
    cost_benefit (Rosenblum & Ousterhout, SOSP 1991; Kawaguchi, Nishioka & Motoda, USENIX 1995): the closed block
    maximising age * (1 - u) / (2u) = age * (P - v) / (2v), u = v / P, age = now - btime + 1 (now = host page
    writes), by an O(blocks) scan, ties to the lowest block id; a block with no valid page (bucket 0) first."""
    if kind == GREEDY or bhead[0] >= 0:
        m = ctr[C_MINB]
        while m <= P and bhead[m] < 0:
            m += 1
        ctr[C_MINB] = m
        if m > P:
            return -1
        return bhead[m]
    now = ctr[C_HOST]
    best = -1
    best_s = -1.0
    for b in range(valid.shape[0]):
        if bstate[b] == CLOSED:
            v = valid[b]
            s = (now - btime[b] + 1) * (P - v) / (2.0 * v)
            if s > best_s:
                best_s = s
                best = b
    return best


@numba.njit(cache=True)
def _collect(
    victim, fg, P, F, l2p, p2l, valid, bstate, btime, ecnt, bnext, bprev, bhead, btail, ring, open_blk, wp, ctr
):
    """Copy the victim's valid pages to the GC frontier and erase it. Copies, or -1 if no block was free."""
    v = valid[victim]
    _unlink(victim, v, bnext, bprev, bhead, btail)
    bstate[victim] = VICTIM
    now = ctr[C_HOST]
    base = victim * P
    copies = 0
    g = open_blk[F]
    w = wp[F]
    for i in range(P):
        if copies == v:
            break
        lpn = p2l[base + i]
        if lpn >= 0:
            if g < 0:
                g = _alloc(ring, bstate, btime, ctr)
                if g < 0:
                    return -1
                w = 0
            dst = g * P + w
            p2l[dst] = lpn
            l2p[lpn] = dst
            p2l[base + i] = -1
            valid[g] += 1
            btime[g] = now
            w += 1
            copies += 1
            if w == P:
                bstate[g] = CLOSED
                _push(g, valid[g], bnext, bprev, bhead, btail, ctr)
                g = -1
                w = 0
    open_blk[F] = g
    wp[F] = w
    valid[victim] = 0
    _erase(victim, ring, bstate, ecnt, ctr)
    ctr[C_GC] += copies
    ctr[C_FLASH] += copies
    if fg:
        ctr[C_FG] += copies
    else:
        ctr[C_BG] += copies
    return copies


# complexity: numba kernel, the FTL write path with foreground GC in one loop
@numba.njit(cache=True)
def write_kernel(  # noqa: C901
    lpns,
    fr,
    bcast,
    P,
    F,
    low,
    kind,
    l2p,
    p2l,
    valid,
    bstate,
    btime,
    ecnt,
    bnext,
    bprev,
    bhead,
    btail,
    ring,
    open_blk,
    wp,
    ctr,
):
    """Host writes in order. Returns -1 on success, else the index of the write that found no free block."""
    now = ctr[C_HOST]
    start = now
    mapped = 0
    n = lpns.shape[0]
    for i in range(n):
        lpn = lpns[i]
        f = fr[0] if bcast else fr[i]
        b = open_blk[f]
        if b < 0:
            ctr[C_HOST] = now
            ctr[C_FLASH] += now - start
            ctr[C_MAPPED] += mapped
            start = now
            mapped = 0
            while ctr[C_FREE_COUNT] < low:
                vb = _select(kind, P, valid, bstate, btime, bhead, ctr)
                if vb < 0 or valid[vb] >= P:
                    break
                if (
                    _collect(
                        vb,
                        True,
                        P,
                        F,
                        l2p,
                        p2l,
                        valid,
                        bstate,
                        btime,
                        ecnt,
                        bnext,
                        bprev,
                        bhead,
                        btail,
                        ring,
                        open_blk,
                        wp,
                        ctr,
                    )
                    < 0
                ):
                    return i
            b = _alloc(ring, bstate, btime, ctr)
            if b < 0:
                return i
            open_blk[f] = b
            wp[f] = 0
        if i + _PF < n:
            _prefetch(l2p, lpns[i + _PF])
        if i + _PF // 2 < n:
            o = l2p[lpns[i + _PF // 2]]
            if o >= 0:
                _prefetch(p2l, o)
        old = l2p[lpn]
        if old >= 0:
            # _invalidate, written out: calls to helpers cost refcount updates of every array argument
            ob = old // P
            p2l[old] = -1
            v = valid[ob]
            valid[ob] = v - 1
            if bstate[ob] == CLOSED:
                nx = bnext[ob]
                pv = bprev[ob]
                if pv >= 0:
                    bnext[pv] = nx
                else:
                    bhead[v] = nx
                if nx >= 0:
                    bprev[nx] = pv
                else:
                    btail[v] = pv
                v -= 1
                t = btail[v]
                bprev[ob] = t
                bnext[ob] = -1
                if t >= 0:
                    bnext[t] = ob
                else:
                    bhead[v] = ob
                btail[v] = ob
                if v < ctr[C_MINB]:
                    ctr[C_MINB] = v
        else:
            mapped += 1
        w = wp[f]
        dst = b * P + w
        l2p[lpn] = dst
        p2l[dst] = lpn
        valid[b] += 1
        now += 1
        btime[b] = now
        w += 1
        if w == P:
            bstate[b] = CLOSED
            _push(b, valid[b], bnext, bprev, bhead, btail, ctr)
            open_blk[f] = -1
            w = 0
        wp[f] = w
    ctr[C_HOST] = now
    ctr[C_FLASH] += now - start
    ctr[C_MAPPED] += mapped
    return -1


@numba.njit(cache=True)
def trim_kernel(lpns, P, l2p, p2l, valid, bstate, bnext, bprev, bhead, btail, ctr):
    n = lpns.shape[0]
    for i in range(n):
        if i + _PF < n:
            _prefetch(l2p, lpns[i + _PF])
        lpn = lpns[i]
        old = l2p[lpn]
        if old >= 0:
            _invalidate(old, P, p2l, valid, bstate, bnext, bprev, bhead, btail, ctr)
            l2p[lpn] = -1
            ctr[C_TRIM] += 1
            ctr[C_MAPPED] -= 1


@numba.njit(cache=True)
def idle_gc_kernel(
    max_copies,
    high,
    P,
    F,
    kind,
    l2p,
    p2l,
    valid,
    bstate,
    btime,
    ecnt,
    bnext,
    bprev,
    bhead,
    btail,
    ring,
    open_blk,
    wp,
    ctr,
):
    """Background GC up to `high` free blocks without exceeding max_copies. Copies, or -1 on failure."""
    done = 0
    while ctr[C_FREE_COUNT] < high:
        vb = _select(kind, P, valid, bstate, btime, bhead, ctr)
        if vb < 0:
            break
        v = valid[vb]
        if v >= P or v > max_copies - done:
            break
        r = _collect(
            vb, False, P, F, l2p, p2l, valid, bstate, btime, ecnt, bnext, bprev, bhead, btail, ring, open_blk, wp, ctr
        )
        if r < 0:
            return -1
        done += r
    return done
