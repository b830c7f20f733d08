"""Decision fidelity's report: docs/validation.md's part for one host (the scores and the per-set table), written
by benchmarks/decision_fidelity.py --markdown."""

from __future__ import annotations

import math

from .fidelity import OPTION_SETS, WORKLOADS, Fidelity
from .report import MARKERS, put_section


def markdown(recorded: dict, fid: Fidelity, machine: str | None, name: str) -> str:
    """The scores and the per-set table as Markdown: docs/validation.md's decision-fidelity part for the host whose
    recorded runs are `name`-fidelity.json."""
    from .host_disk import host_device

    host = recorded["host"]
    scores = fid.scores()
    out = [
        f"## Decision fidelity on {host['cpu']}: does lsmsim rank option sets as db_bench does?",
        "",
        f"Written by `python benchmarks/decision_fidelity.py --host {name} --markdown docs/validation.md` "
        "(lsmsim/validation/"
        "fidelity.py: the option sets, workloads and metrics). *db_bench vs itself* is the mean Spearman between "
        "two of db_bench's own repeats; *attainable* is the highest Spearman any model can reach against the mean "
        "of the repeats that agree so little (sqrt of the mean's Spearman-Brown reliability, `fidelity.attainable`): "
        "a goal above it cannot be met on this recording, whatever the model. Goals (issue 34): "
        "Spearman >= 0.9 for throughput and W-Amp, >= 0.8 for p99 and stall time, median error <= 10%; the misses "
        f"and their causes are `KNOWN_SHORTFALLS[{name!r}]` in tests/test_decision_fidelity.py.",
        "",
        f"db_bench: {recorded['db_bench']} on {host['cpu']} x {host['cores']} (recorded {host['date']}), "
        f"{len(recorded['runs'])} option sets x {len(WORKLOADS)} workloads x "
        f"{min(len(v) for v in recorded['runs'].values())} runs, {recorded['num']:,} keys, mixed workloads "
        f"{recorded['duration_s']} s; lsmsim "
        + (
            f"on the costs `lsmsim calibrate` fitted from the calibration measured just before the runs (host date "
            f"{recorded['calibration']['host']['date']}; kept in the recording), the machine preset "
            f"`{machine}` of that day."
            if recorded.get("costs")
            else f"on the machine preset `{machine}` and the device preset `{host_device(machine)}`."
        ),
        "",
        "| workload | metric | sets | Spearman | db_bench vs itself | attainable | median error | p90 error | "
        "db_bench's best | lsmsim's best | agrees |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for _, r in scores.iterrows():
        rho = "-" if math.isnan(r.spearman) else f"{r.spearman:+.2f}"
        own = "-" if math.isnan(r.db_bench_self) else f"{r.db_bench_self:+.2f}"
        ceiling = "-" if math.isnan(r.attainable) else f"{r.attainable:.2f}"
        out.append(
            f"| {r.workload} | {r.metric} | {r.sets} | {rho} | {own} | {ceiling} | {r.median_err:.0%} | "
            f"{r.p90_err:.0%} | "
            f"{r.db_bench_best} | {r.lsmsim_best} | {'yes' if r.best_agrees else '**no**'} |"
        )
    out += ["", "Per option set (db_bench mean, its spread over the runs, lsmsim):", ""]
    t = fid.table
    for w in WORKLOADS:
        shown = " ".join(a for a in WORKLOADS[w] if not a.startswith(("--hist", "--stat")))
        out += [
            f"**{w}**: `{shown}`",
            "",
            "| option set | ops/s db_bench | spread | lsmsim | p99 us db_bench | lsmsim | stall s db_bench | lsmsim "
            "| W-Amp db_bench | lsmsim |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, _ in OPTION_SETS:
            g = t[(t["option_set"] == name) & (t["workload"] == w)].set_index("metric")
            if g.empty:
                continue
            cells = []
            for m, scale, fmt in (("throughput", 1, "{:,.0f}"), ("p99", 1e6, "{:.1f}"), ("stall_s", 1, "{:.2f}")):
                for col in ("db_bench", "lsmsim"):
                    cells.append(fmt.format(g.loc[m, col] * scale) if m in g.index else "-")
                    if m == "throughput" and col == "db_bench":
                        cells.append(f"{g.loc[m, 'spread']:.0%}" if m in g.index else "-")
            cells += [f"{g.loc['w_amp', c]:.2f}" if "w_amp" in g.index else "-" for c in ("db_bench", "lsmsim")]
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out) + "\n"


SECTION = MARKERS["fidelity"]


def with_section(doc: str, section: str, name: str) -> str:
    """docs/validation.md with host `name`'s decision-fidelity part replaced by `section` (the other parts, other
    hosts' among them, kept)."""
    return put_section(doc, f"fidelity:{name}", section)


__all__ = ["SECTION", "markdown", "with_section"]
