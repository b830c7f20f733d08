"""`lsmsim ecotune solve`: solve EcoTune's DP for one parameter set and print the score and the policy table.

`add_parser(subparsers)` registers `ecotune` (with its `solve` sub-command) on the `lsmsim` sub-parsers; the
handler returns the exit code and raises `EcoTuneParamError` (a ValueError) with a one-line message on bad values.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from .model import ALGORITHMS, MAX_R, EcoTuneParamError, EcoTuneParams  # the DPs (numba) load when a command runs

_DESCRIPTION = """\
Solve EcoTune's dynamic program (Wang et al., SIGMOD 2025, Sec. 4.3) for one compaction round and print the
optimal score and the policy as the paper's Tables 5-8 print it: per TMC at which a main-level compaction (MLC)
starts, the main-level layout before -> after it, in unit runs ('n[1]' = n unit runs), and the layout at TMC R.
Only the ratio T_c/T_w matters for the policy (times may be in any one unit; seconds below)."""

_EPILOG = """\
Algorithms: 0 = simplified recurrence f(e,c) of Sec. 4.3.1 (no queries during MLC, MLC shorter than T_w);
1 = Algorithm 1 f(e,c,m) (queries at beta*q during MLC); 2 = Algorithm 2 f(e,b,c,m) (MLCs may outlast T_w,
unit runs created meanwhile are pending). Interpretations of the paper: lsmsim/policies/ecotune/dp.py."""


def _int(name: str, s: str) -> int:
    try:
        v = float(s)
    except ValueError:
        raise EcoTuneParamError(f"{name}: expected an integer, got {s!r}") from None
    if not v.is_integer():
        raise EcoTuneParamError(f"{name}: expected an integer, got {s!r}")
    return int(v)


def _float(name: str, s: str) -> float:
    try:
        return float(s)
    except ValueError:
        raise EcoTuneParamError(f"{name}: expected a number, got {s!r}") from None


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `ecotune solve` on an argparse sub-parsers object; returns the `ecotune` parser."""
    eco = subparsers.add_parser(
        "ecotune",
        help="EcoTune (SIGMOD 2025): solve its compaction-policy DP",
        description="EcoTune's compaction-policy dynamic programs (Sec. 4.3).",
    )
    eco_sub = eco.add_subparsers(dest="ecotune_command", metavar="SUBCOMMAND")
    s = eco_sub.add_parser(
        "solve",
        help="solve the DP for one parameter set, print score and policy table",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument(
        "--alg",
        default="2",
        metavar="{0,1,2}",
        help="0 simplified recurrence (4.3.1), 1 Algorithm 1 (4.3.2), 2 Algorithm 2 (4.3.3); default 2",
    )
    s.add_argument(
        "--R",
        default="29",
        metavar="INT",
        help="number of TMCs (unit runs created by top-to-main compactions) in a compaction round; "
        f"default 29, the paper's; at most {MAX_R[2]} for alg 2",
    )
    s.add_argument(
        "--C",
        default="3",
        metavar="X",
        help="capped size ratio last level : main level (the last level holds C*R unit runs and the "
        "global compaction rewrites (C+1)*R); default 3, the paper's",
    )
    s.add_argument(
        "--Tw",
        required=True,
        metavar="SEC",
        help="T_w, time between two consecutive TMCs (unit-run size S / write speed), seconds",
    )
    s.add_argument(
        "--Tc",
        required=True,
        metavar="SEC",
        help="T_c, time for the MLC threads to rewrite S data (one unit run), seconds",
    )
    s.add_argument(
        "--beta",
        required=True,
        metavar="X",
        help="beta = q'/q, query speed while an MLC runs over query speed without one, in [0, 1]",
    )
    s.add_argument(
        "--r",
        required=True,
        metavar="X",
        help="long-range-scan ratio of the query mix, in [0, 1]; q(e) = 1/((e+2) r + (1-r)(1+f))",
    )
    s.add_argument(
        "--f", required=True, metavar="X", help="false-positive rate of the main-level range filters, in [0, 1]"
    )
    s.add_argument("--all-rows", action="store_true", help="print the layout after every TMC, not only at MLCs")
    s.add_argument(
        "--reference",
        action="store_true",
        help="also time the plain-Python reference solvers (slow for large R) and check they agree",
    )
    s.set_defaults(func=cmd_solve)
    eco.set_defaults(func=lambda a: (eco.print_help(), 2)[1])
    return eco


def params_from_args(args) -> tuple[EcoTuneParams, int]:
    alg = _int("--alg", args.alg)
    if alg not in ALGORITHMS:
        raise EcoTuneParamError(f"--alg: expected 0, 1 or 2, got {args.alg!r}")
    try:
        p = EcoTuneParams(
            R=_int("--R", args.R),
            C=_float("--C", args.C),
            T_w=_float("--Tw", args.Tw),
            T_c=_float("--Tc", args.Tc),
            beta=_float("--beta", args.beta),
            r=_float("--r", args.r),
            f=_float("--f", args.f),
        )
    except EcoTuneParamError as e:
        names = {
            "T_w ": "--Tw ",
            "T_c ": "--Tc ",
            "beta ": "--beta ",
            "r ": "--r ",
            "f ": "--f ",
            "C ": "--C ",
            "R ": "--R ",
        }
        msg = str(e)
        for k, v in names.items():
            if msg.startswith(k):
                msg = v + msg[len(k) :]
                break
        raise EcoTuneParamError(msg) from None
    if p.R > MAX_R[alg]:
        raise EcoTuneParamError(f"--R: at most {MAX_R[alg]} for alg {alg}, got {p.R}")
    return p, alg


def _solve_ms(p: EcoTuneParams, alg: int, repeat: int = 3) -> float:
    """Best of `repeat` solve times in ms (`SolveResult.seconds`), after a small solve that compiles the kernel
    or loads it from numba's cache."""
    from .dp import solve

    solve(dataclasses.replace(p, R=3), alg)
    return 1e3 * min(solve(p, alg).seconds for _ in range(repeat))


def cmd_solve(args, file=None) -> int:
    from .dp import solve
    from .reference import solve_reference

    out = file or sys.stdout
    p, alg = params_from_args(args)
    w = lambda *a: print(*a, file=out)  # noqa: E731
    res = solve(p, alg)
    pol = res.schedule
    w(
        f"EcoTune {ALGORITHMS[alg]}: R={p.R} C={p.C:g} T_w={p.T_w:g} s T_c={p.T_c:g} s (T_c/T_w={p.T_c / p.T_w:.3f}) "
        f"beta={p.beta:g} r={p.r:g} f={p.f:g}"
    )
    w(f"optimal score {res.score:.6g} (queries served in the round, in units of q = 1/cost)")
    w(
        f"MLCs {pol.n_merges}, unit runs rewritten by MLCs {pol.mlc_work}, "
        f"main-level runs after a TMC {pol.mean_runs:.2f} on average, {len(pol.steps[-1].after)} at TMC {p.R}"
    )
    w("")
    w(pol.table(all_rows=args.all_rows))
    w("")
    times = [f"alg {a} {_solve_ms(p, a):.3f} ms" for a in ALGORITHMS if p.R <= MAX_R[a]]
    w("solve time, numba (compiled, best of 3): " + ", ".join(times))
    if args.reference:
        ref_times = []
        for a in ALGORITHMS:
            ref = solve_reference(p, a)
            ref_times.append(f"alg {a} {ref.seconds * 1e3:.1f} ms")
            if a == alg:
                same = ref.score == res.score and ref.schedule.merges == pol.merges
                w(f"reference alg {a}: score {ref.score:.6g}, {'identical to numba' if same else 'DIFFERS from numba'}")
        w("solve time, Python reference: " + ", ".join(ref_times))
    return 0
