"""EcoTune's DPs (lsmsim/policies/ecotune/): numba vs Python reference, brute force, the cost model, the
interpretations I1-I11 of the paper documented in dp.py, laziness vs r, the schedule's table format and the CLI."""

import argparse
import io
import math
import random

import numpy as np
import pytest

from lsmsim.policies.ecotune import (
    PAPER_TABLES,
    EcoTuneParamError,
    EcoTuneParams,
    Schedule,
    brute_force,
    count_schedules,
    evaluate_schedule,
    format_layout,
    merge_score,
    paper_schedule,
    q,
    q_mlc,
    solve,
    solve_reference,
)
from lsmsim.policies.ecotune.solve_cli import add_parser


def P(R=8, C=3, T_w=1.0, T_c=0.2, beta=0.5, r=0.5, f=0.01):
    return EcoTuneParams(R=R, C=C, T_w=T_w, T_c=T_c, beta=beta, r=r, f=f)


def random_params(rng, R_lo, R_hi, max_ratio=1.5):
    """Random parameters; C integral so C*R is exact (I10); T_c/T_w log-uniform in [0.02, max_ratio]."""
    T_w = rng.uniform(0.5, 10.0)
    ratio = math.exp(rng.uniform(math.log(0.02), math.log(max_ratio)))
    beta = rng.choice([0.0, 1.0, rng.random(), rng.random()])
    f = rng.choice([0.0, rng.uniform(0.0, 0.2)])
    return EcoTuneParams(
        R=rng.randint(R_lo, R_hi),
        C=rng.choice([0, 1, 2, 3, 7]),
        T_w=T_w,
        T_c=T_w * ratio,
        beta=beta,
        r=rng.random(),
        f=f,
    )


# ---------------------------------------------------------------------------------------------------- the model


def test_q_and_q_mlc():
    assert q(0, 0.5, 0.0) == pytest.approx(1 / (2 * 0.5 + 0.5))
    assert q(3, 0.2, 0.05) == pytest.approx(1 / (5 * 0.2 + 0.8 * 1.05))
    assert q(7, 0.0, 0.1) == pytest.approx(1 / 1.1)  # no long scans: the run count does not matter
    assert all(q(e, 0.3, 0.01) > q(e + 1, 0.3, 0.01) for e in range(30))
    assert q_mlc(4, 0.4, 0.3, 0.01) == 0.4 * q(4, 0.3, 0.01)
    p = P(beta=0.25)
    assert p.q_mlc(2) == 0.25 * p.q(2)


def test_merge_score_hand_values():
    """I5/I6: Delta_b = ceil(m T_c / T_w) - 1 whole T_w periods at q'(e), q'(e+1), .. then the rest of m T_c."""
    p = P(T_w=1.0, T_c=0.5, beta=0.5)
    qp = p.q_mlc
    assert merge_score(p, 2, 1) == pytest.approx(0.5 * qp(2))  # 0.5 T_w: Delta_b = 0
    assert merge_score(p, 2, 3) == pytest.approx(qp(2) + 0.5 * qp(3))  # 1.5 T_w: Delta_b = 1
    assert merge_score(p, 2, 4) == pytest.approx(qp(2) + qp(3))  # exactly 2 T_w: Delta_b = 1 (I6)
    assert merge_score(p, 0, 7) == pytest.approx(qp(0) + qp(1) + qp(2) + 0.5 * qp(3))


# ------------------------------------------------------------------------------ interpretations, hand-computed


def test_simplified_x1_costs_no_mlc_and_root_adds_first_slot():
    """I1: x = 1 is charged T_w q(e+1), not (T_w - T_c) q(e+1); I2: score = T_w q(0) + f(0, R)."""
    p = P(T_w=1.0, T_c=0.3)
    q0, q1, q2 = p.q(0), p.q(1), p.q(2)
    assert solve(P(R=1), 0).score == pytest.approx(P(R=1).q(0))
    assert solve(P(R=2, T_c=0.3), 0).score == pytest.approx(q0 + q1)  # literal: q0 + 0.7 q1
    # R = 3: x = 1 (no MLC) or x = 2 (merge units 1-2 at TMC 2, 2 T_c without queries)
    want = q0 + max(q1 + q2, q1 + (1.0 - 0.6) * q1)
    assert solve(P(R=3, T_c=0.3), 0).score == pytest.approx(want)
    assert solve_reference(P(R=3, T_c=0.3), 0).score == pytest.approx(want)


def test_simplified_does_not_enforce_short_mlcs():
    """I3: an MLC longer than T_w gets negative idle time (T_w - x T_c) q(e+1), literally."""
    p = P(R=3, T_w=1.0, T_c=0.8, r=1.0, f=0.0)
    assert evaluate_schedule(p, [(2, 1, 2)], 0) == pytest.approx(p.q(0) + p.q(1) + (1.0 - 1.6) * p.q(1))
    assert solve(p, 0).schedule.n_merges == 0


def test_algorithm1_charges_q_prime_of_e():
    """I4: line 4 charges (m + c) T_c q'(e): one run fewer than physically present (the unit just made)."""
    C, T_w, T_c = 3, 1.0, 0.2
    p2 = P(R=2, C=C, T_w=T_w, T_c=T_c)
    qq, qp = p2.q, p2.q_mlc
    assert solve(p2, 1).score == pytest.approx(T_w * qq(0) + T_w * qq(1) + (2 * C + 2) * T_c * qp(1))
    p3 = P(R=3, C=C, T_w=T_w, T_c=T_c)
    no_merge = T_w * qq(1) + T_w * qq(2) + (3 * C + 3) * T_c * qp(2)
    merge12 = (T_w * qq(1) + 2 * T_c * qp(1)) + (T_w - 2 * T_c) * qq(1) + (3 * C + 3) * T_c * qp(1)
    assert solve(p3, 1).score == pytest.approx(T_w * qq(0) + max(no_merge, merge12))
    assert evaluate_schedule(p3, [(2, 1, 2)], 1) == pytest.approx(T_w * qq(0) + merge12)


def test_algorithm2_root_has_no_extra_first_slot():
    """I7: score = f(0, 0, R, C R); the first T_w is line 14's T_w q(0)."""
    for C in (0, 3):
        p1 = P(R=1, C=C)
        assert solve(p1, 2).score == pytest.approx(p1.q(0) * p1.T_w + merge_score(p1, 1, C + 1))
        p2 = P(R=2, C=C)
        want = p2.T_w * (p2.q(0) + p2.q(1)) + merge_score(p2, 2, 2 * C + 2)
        assert solve(p2, 2).score == pytest.approx(want)
        assert solve_reference(p2, 2).score == pytest.approx(want)


def test_algorithm2_long_mlc_hand_case():
    """I5 (T_e -> T_c, T_cc -> T_w) and I8 by hand: R = 5, C = 0, T_c = 0.6 T_w, r = 1, beta = 0.9. The optimum
    merges units 1-3 after TMC 3: the MLC takes 1.8 T_w, unit 4 arrives during it (pending), then 0.2 T_w idle
    with 2 runs until TMC 5; Delta_b = ceil(3 T_c / T_w) = 2. Reading T_cc as T_c gives Delta_b = 3 > available,
    and that schedule would be infeasible."""
    p = P(R=5, C=0, T_w=1.0, T_c=0.6, beta=0.9, r=1.0, f=0.0)
    qq, qp = p.q, p.q_mlc
    want = (
        qq(0)
        + qq(1)
        + qq(2)  # [0, 3): 0, 1, 2 runs
        + qp(3)
        + 0.8 * qp(4)  # MLC [3, 4.8): MergeScore(3, 3), unit 4 at 4
        + 0.2 * qq(2)  # idle [4.8, 5): runs 1-3 and 4
        + qp(3)
        + qp(4)
        + qp(5)
    )  # global compaction of 5 units, [5, 8)
    for res in (solve(p, 2), solve_reference(p, 2)):
        assert [(m.tmc, m.lo, m.hi) for m in res.schedule.merges] == [(3, 1, 3)]
        assert res.score == pytest.approx(want, rel=1e-14)
    assert evaluate_schedule(p, [(3, 1, 3)], 2) == pytest.approx(want, rel=1e-14)
    assert merge_score(p, 3, 3) == pytest.approx(qp(3) + 0.8 * qp(4))


def test_ties_pick_the_smallest_x():
    """I9: with r = 0, q does not depend on the run count; with beta = 1 every policy of algs 1 and 2 scores the
    same, and the strict '<' keeps x = 1: no MLC at all. Alg 0 loses queries to every MLC."""
    for alg in (0, 1, 2):
        for beta in (0.0, 0.5, 1.0):
            res = solve(P(R=12, r=0.0, beta=beta), alg)
            assert res.schedule.n_merges == 0, (alg, beta)
            assert solve_reference(P(R=12, r=0.0, beta=beta), alg).schedule.n_merges == 0


def test_algorithm2_equals_simplified_when_mlc_is_short_and_blocks_queries():
    """With beta = 0 and R T_c < T_w (assumptions (1) and (2) hold) the three DPs agree."""
    rng = random.Random(5)
    for _ in range(25):
        R = rng.randint(2, 14)
        p = EcoTuneParams(
            R, rng.choice([0, 1, 3]), 1.0, rng.uniform(0.001, 0.99) / R, 0.0, rng.random(), rng.uniform(0, 0.1)
        )
        s0, s1, s2 = (solve(p, a) for a in (0, 1, 2))
        assert s1.score == pytest.approx(s0.score, rel=1e-12)
        assert s2.score == pytest.approx(s0.score, rel=1e-12)
        assert s0.schedule.merges == s1.schedule.merges == s2.schedule.merges


# --------------------------------------------------------------------------------- numba vs Python reference


@pytest.mark.parametrize("alg, R_hi, n", [(0, 16, 40), (1, 10, 40), (2, 10, 40)])
def test_numba_equals_python_reference(alg, R_hi, n):
    rng = random.Random(100 + alg)
    for _ in range(n):
        p = random_params(rng, 1, R_hi)
        fast, ref = solve(p, alg), solve_reference(p, alg)
        assert fast.score == ref.score, p  # bit for bit (I10)
        assert fast.schedule == ref.schedule, p
        for key, x in ref.argmax.items():  # the whole reachable argmax table
            if alg == 0:
                assert fast.choice(*key) == x
            elif alg == 1:
                e, c, m = key
                assert fast.choice(e, c, m=m) == x, (p, key)
            else:
                e, b, c, m = key
                assert fast.choice(e, c, b=b, m=m) == x, (p, key)


def test_numba_equals_reference_with_long_mlcs():
    """T_c > T_w: many pending runs, the kernel's pending bound B falls back to R."""
    rng = random.Random(7)
    for _ in range(15):
        R = rng.randint(3, 9)
        p = EcoTuneParams(R, rng.choice([1, 3]), 1.0, rng.uniform(0.3, 3.0), rng.random(), rng.random(), 0.01)
        fast, ref = solve(p, 2), solve_reference(p, 2)
        assert fast.score == ref.score and fast.schedule == ref.schedule


def test_deterministic():
    p = P(R=24, T_c=0.21, beta=0.5, r=0.4)
    for alg in (0, 1, 2):
        a, b = solve(p, alg), solve(p, alg)
        assert a.score == b.score and a.schedule == b.schedule
        if alg == 2:
            assert all(np.array_equal(x, y) for x, y in zip(a.argmax, b.argmax))
        else:
            assert np.array_equal(a.argmax, b.argmax)


# ------------------------------------------------------------------------------- brute force and cost model


def test_schedule_count_is_catalan():
    assert [count_schedules(R) for R in range(1, 10)] == [math.comb(2 * k, k) // (k + 1) for k in range(9)]


@pytest.mark.parametrize("alg", [0, 1])
def test_dp_equals_brute_force(alg):
    """Every policy of the alg-0/1 space (merge the newest k runs after TMC t < R), scored event by event."""
    rng = random.Random(11 + alg)
    for R in range(1, 9):
        for _ in range(8 if R < 8 else 4):
            p = random_params(rng, R, R, max_ratio=1.5)
            best, merges = brute_force(p, alg)
            res = solve(p, alg)
            assert res.score == pytest.approx(best, rel=1e-12, abs=1e-12), (p, merges, res.schedule.merges)
            assert evaluate_schedule(p, res.schedule.merges, alg) == pytest.approx(res.score, rel=1e-12)


def test_algorithm2_schedule_replays_on_the_timeline():
    """The reconstructed alg-2 schedule, simulated with real MLC durations, scores what the DP says (I5-I8)."""
    rng = random.Random(3)
    long_mlcs = 0
    for _ in range(60):
        p = random_params(rng, 2, 30, max_ratio=1.5)
        res = solve(p, 2)
        assert evaluate_schedule(p, res.schedule.merges, 2) == pytest.approx(res.score, rel=1e-9)
        long_mlcs += any(m.size * p.T_c > p.T_w for m in res.schedule.merges)
    assert long_mlcs >= 10  # the check covers MLCs that outlast T_w (pending runs)


def test_paper_schedules_never_beat_the_optimum():
    """The paper's Tables 5-8 are schedules in Algorithm 2's space: under the model they never beat the DP."""
    rng = random.Random(9)
    for _ in range(20):
        p = EcoTuneParams(29, 3, 1.0, rng.uniform(0.02, 0.25), rng.random(), rng.random(), 0.01)
        best = solve(p, 2).score
        for t in PAPER_TABLES:
            try:
                s = evaluate_schedule(p, PAPER_TABLES[t]["merges"], 2)
            except ValueError:  # overlapping MLCs at this T_c/T_w: not a valid schedule
                continue
            assert s <= best * (1 + 1e-12)


# --------------------------------------------------------------------------------------- lazier as r falls

RS = [round(0.1 * i, 1) for i in range(1, 11)]


def test_no_mlc_without_long_scans():
    for alg in (0, 1, 2):
        assert solve(P(R=29, r=0.0, beta=0.5), alg).schedule.mlc_work == 0


@pytest.mark.parametrize("alg", [0, 1])
def test_lazier_as_r_falls_simplified_and_alg1(alg):
    """Laziness = MLC work W (unit runs rewritten by MLCs in a round; fewer = lazier). W(r) is non-decreasing in r
    on this whole grid for algs 0 and 1."""
    for R in (12, 29):
        for ratio in (0.05, 0.1, 0.2, 0.3, 0.4):
            for beta in (0.0, 0.5):
                for C in (1, 3):
                    w = [solve(EcoTuneParams(R, C, 1.0, ratio, beta, r, 0.01), alg).schedule.mlc_work for r in RS]
                    assert w == sorted(w), (R, ratio, beta, C, w)
                    assert w[0] < w[-1]


def test_lazier_as_r_falls_algorithm2():
    """Alg 2, C = 3, 0.3 <= beta <= 0.7: as r falls, W never grows and the mean number of main-level runs after
    a TMC never falls."""
    for R in (12, 20, 29):
        for ratio in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4):
            for beta in (0.3, 0.5, 0.7):
                pols = [solve(EcoTuneParams(R, 3, 1.0, ratio, beta, r, 0.01), 2).schedule for r in RS]
                w = [p.mlc_work for p in pols]
                runs = [p.mean_runs for p in pols]
                assert w == sorted(w), (R, ratio, beta, w)
                assert runs == sorted(runs, reverse=True), (R, ratio, beta, runs)
                assert w[0] < w[-1]


def test_laziness_is_not_monotone_everywhere():
    """Where the claim fails (documented): alg 2 with beta = 1 (an MLC costs no query speed) does more MLC work
    at r = 0.1 than at r = 1."""
    w = [solve(EcoTuneParams(20, 1, 1.0, 0.25, 1.0, r, 0.0), 2).schedule.mlc_work for r in (0.1, 1.0)]
    assert w[0] > w[1]


# ---------------------------------------------------------------------------------------- tables and schedule


def test_format_layout():
    assert format_layout([14, 7, 4, 1, 1, 1, 1]) == "14 7 4 4[1]"
    assert format_layout([3, 1, 1, 1, 1]) == "3 4[1]"
    assert format_layout([1]) == "1[1]"
    assert format_layout([8, 1, 3]) == "8 1[1] 3"
    assert format_layout([]) == "-"


def test_table_prints_like_the_paper():
    """I11 on the paper's Table 7 (its misprinted last row read as 14 7 4 4[1])."""
    rows = [line.split("  ") for line in paper_schedule(7).table().splitlines()[1:]]
    rows = [[c.strip() for c in r if c.strip()][:2] for r in rows]
    assert rows == [
        ["3", "3[1] -> 3"],
        ["7", "3 4[1] -> 7"],
        ["10", "7 3[1] -> 7 3"],
        ["14", "7 3 4[1] -> 14"],
        ["17", "14 3[1] -> 14 3"],
        ["21", "14 3 4[1] -> 14 7"],
        ["25", "14 7 4[1] -> 14 7 4"],
        ["29", "14 7 4 4[1]"],
    ]
    for t in PAPER_TABLES:
        assert all(sum(s.after) == s.tmc for s in paper_schedule(t).steps)


def test_schedule_layouts_are_consistent():
    for alg in (0, 1, 2):
        pol = solve(P(R=29, T_c=0.3, r=0.7), alg).schedule
        assert [sum(l) for l in pol.layouts] == list(range(1, 30))
        assert pol.mlc_work == sum(m.size for m in pol.merges) == sum(sum(m.inputs) for m in pol.merges)
        assert pol.steps[-1].merge is None  # the global compaction follows TMC R
        assert all(len(m.inputs) >= 2 for m in pol.merges)


def test_schedule_from_merges_rejects_bad_schedules():
    with pytest.raises(ValueError):
        Schedule.from_merges(5, [(3, 2, 4)])  # unit 4 does not exist at TMC 3
    with pytest.raises(ValueError):
        Schedule.from_merges(5, [(3, 1, 3), (4, 2, 4)])  # splits the run 1..3


# ---------------------------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "kw, word",
    [
        ({"R": 0}, "R"),
        ({"R": -3}, "R"),
        ({"R": 2.5}, "R"),
        ({"R": True}, "R"),
        ({"R": "8"}, "R"),
        ({"C": -1}, "C"),
        ({"T_w": 0}, "T_w"),
        ({"T_c": -0.1}, "T_c"),
        ({"T_c": 0}, "T_c"),
        ({"beta": 1.5}, "beta"),
        ({"beta": -0.1}, "beta"),
        ({"r": 1.01}, "r"),
        ({"f": 2.0}, "f"),
        ({"T_w": float("nan")}, "T_w"),
        ({"T_c": float("inf")}, "T_c"),
        ({"r": "abc"}, "r"),
    ],
)
def test_bad_params_raise(kw, word):
    with pytest.raises(EcoTuneParamError, match=rf"^{word} ") as ei:
        P(**kw)
    assert isinstance(ei.value, ValueError) and "\n" not in str(ei.value)


def test_bad_alg_and_sizes_raise():
    with pytest.raises(ValueError, match="alg"):
        solve(P(), 3)
    with pytest.raises(ValueError, match="too large"):
        solve(P(R=65), 2)
    with pytest.raises(ValueError, match="too large"):
        brute_force(P(R=12), 0)
    with pytest.raises(ValueError):
        brute_force(P(R=4), 2)
    assert P(R=4.0).R == 4


# ------------------------------------------------------------------------------------------------------ CLI


def _cli(argv):
    parser = argparse.ArgumentParser(prog="lsmsim")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    out = io.StringIO()
    rc = args.func(args, file=out) if args.func.__name__ == "cmd_solve" else args.func(args)
    return rc, out.getvalue()


def test_cli_solve_prints_score_table_and_timings():
    rc, out = _cli(
        [
            "ecotune",
            "solve",
            "--alg",
            "2",
            "--R",
            "29",
            "--C",
            "3",
            "--Tw",
            "6.55",
            "--Tc",
            "1.38",
            "--beta",
            "0.5",
            "--r",
            "0.5",
            "--f",
            "0.01",
        ]
    )
    assert rc == 0
    p = EcoTuneParams(29, 3, 6.55, 1.38, 0.5, 0.5, 0.01)
    res = solve(p, 2)
    assert f"optimal score {res.score:.6g}" in out
    assert "# TMC  Main Level Layout" in out and res.schedule.table() in out
    assert "solve time, numba" in out and "alg 0" in out and "alg 2" in out


def test_cli_reference_and_all_rows():
    rc, out = _cli(
        [
            "ecotune",
            "solve",
            "--alg",
            "1",
            "--R",
            "9",
            "--Tw",
            "1",
            "--Tc",
            "0.2",
            "--beta",
            "0.5",
            "--r",
            "0.6",
            "--f",
            "0",
            "--all-rows",
            "--reference",
        ]
    )
    assert rc == 0 and "identical to numba" in out and "Python reference" in out
    assert len([line for line in out.splitlines() if line[:5].strip().isdigit()]) == 9


@pytest.mark.parametrize(
    "argv, word",
    [
        (["--beta", "1.5"], "--beta"),
        (["--Tw", "abc"], "--Tw"),
        (["--R", "0"], "--R"),
        (["--R", "2.5"], "--R"),
        (["--alg", "3"], "--alg"),
        (["--R", "100"], "--R"),
        (["--Tc", "-1"], "--Tc"),
        (["--r", "nan"], "--r"),
    ],
)
def test_cli_bad_values_raise_one_line_value_error(argv, word):
    base = {"--Tw": "1", "--Tc": "0.2", "--beta": "0.5", "--r": "0.5", "--f": "0.01"}
    base.update(dict(zip(argv[::2], argv[1::2])))
    with pytest.raises(ValueError) as ei:
        _cli(["ecotune", "solve"] + [x for kv in base.items() for x in kv])
    assert isinstance(ei.value, EcoTuneParamError)
    assert str(ei.value).startswith(word) and "\n" not in str(ei.value)


def test_cli_help_documents_parameters(capsys):
    with pytest.raises(SystemExit) as ei:
        _cli(["ecotune", "solve", "--help"])
    assert ei.value.code == 0
    out = capsys.readouterr().out
    for word in (
        "T_w",
        "T_c",
        "beta",
        "long-range-scan ratio",
        "false-positive",
        "capped size ratio",
        "TMC",
        "Tables 5-8",
    ):
        assert word in out
    assert _cli(["ecotune"])[0] == 2


@pytest.mark.parametrize("r, f", [(0.3, 0.01), (0.0, 0.01), (1.0, 0.0), (0.05, 0.5)])
def test_q_sum_beyond_its_exact_terms(r, f):
    """An MLC of m T_c spans ceil(m T_c / T_w) TMC periods: a first-round T_c of 1e9 T_w made MergeScore a loop of
    1e9 terms (111 s for a 5,000-operation run). Past 2,048 terms the sum is an integral plus Euler-Maclaurin's
    two terms: against the exact sum, and the numba kernel's against the reference's."""
    from lsmsim.policies.ecotune import _kernels
    from lsmsim.policies.ecotune.model import Q_SUM_EXACT, q, q_sum

    for n, k in [(0, Q_SUM_EXACT), (2, Q_SUM_EXACT + 1), (0, 3000), (5, 100_000)]:
        exact = math.fsum(q(n + i, r, f) for i in range(k))
        assert q_sum(n, k, r, f) == pytest.approx(exact, rel=1e-12)
        assert _kernels._q_sum(n, k, r, f) == pytest.approx(q_sum(n, k, r, f), rel=1e-14)
