"""docs/validation.md in parts, each written by its own benchmark script: the matrix (benchmarks/validation_matrix.py),
the matrix on other hosts' records (the same script with --reference), the matrix's regimes
(benchmarks/validation_regimes.py) and decision fidelity (benchmarks/decision_fidelity.py) on each recorded host.
A part after the first starts at its marker line; `put_section` replaces one part and keeps the others."""

from __future__ import annotations

import re

MARKERS = {
    "regimes": "<!-- regimes: written by benchmarks/validation_regimes.py --markdown docs/validation.md -->",
    "fidelity": "<!-- decision fidelity: written by benchmarks/decision_fidelity.py --markdown docs/validation.md -->",
}
# a host's matrix, regimes and decision fidelity are parts "<kind>:<preset>", each after the unnamed part of its kind
# (each host's recorded runs sit beside the others')
HOST_MARKERS = {
    "matrix": (
        "<!-- matrix on {0}: written by benchmarks/validation_matrix.py --reference "
        "benchmarks/validation/hosts/{0}-matrix.json --markdown docs/validation.md -->"
    ),
    "regimes": (
        "<!-- regimes on {0}: written by benchmarks/validation_regimes.py --host {0} --markdown docs/validation.md -->"
    ),
    "fidelity": (
        "<!-- decision fidelity on {0}: written by benchmarks/decision_fidelity.py --host {0} "
        "--markdown docs/validation.md -->"
    ),
}
_HOST = re.compile(r"^<!-- (matrix|regimes|decision fidelity) on ([\w.-]+): ")
_KIND = {"matrix": "matrix", "regimes": "regimes", "decision fidelity": "fidelity"}


def marker(name: str) -> str | None:
    kind, _, host = name.partition(":")
    if host:
        return HOST_MARKERS[kind].format(host)
    return MARKERS.get(name)


def sections(doc: str) -> dict[str, str]:
    """The parts of `doc` by name (the matrix's is what comes before any marker)."""
    out, name, lines = {}, "matrix", []
    by_line = {m: n for n, m in MARKERS.items()}
    for line in doc.splitlines():
        host = _HOST.match(line.strip())
        if line.strip() in by_line or host:
            out[name] = "\n".join(lines).strip("\n")
            if host:
                name = f"{_KIND[host.group(1)]}:{host.group(2)}"
            else:
                name = by_line[line.strip()]
            lines = []
        else:
            lines.append(line)
    out[name] = "\n".join(lines).strip("\n")
    return {k: v for k, v in out.items() if v}


def put_section(doc: str, name: str, text: str) -> str:
    """`doc` with part `name` replaced by `text` (added in its place when missing)."""
    parts = sections(doc)
    parts[name] = text.strip("\n")

    def hosts(kind: str) -> list[str]:
        return sorted(n for n in parts if n.startswith(f"{kind}:"))

    out = []
    for n in ("matrix", *hosts("matrix"), "regimes", *hosts("regimes"), "fidelity", *hosts("fidelity")):
        if n in parts:
            out += ([marker(n)] if marker(n) else []) + [parts[n], ""]
    return "\n".join(out)


__all__ = ["HOST_MARKERS", "MARKERS", "put_section", "sections"]
