"""docs/validation.md in parts, each written by its own benchmark script: the matrix (benchmarks/validation_matrix.py),
the matrix on other hosts' records (the same script with --reference), the matrix's regimes
(benchmarks/validation_regimes.py) and decision fidelity (benchmarks/decision_fidelity.py). A part after the first
starts at its marker line; `put_section` replaces one part and keeps the others."""

from __future__ import annotations

import re

MARKERS = {
    "regimes": "<!-- regimes: written by benchmarks/validation_regimes.py --markdown docs/validation.md -->",
    "fidelity": "<!-- decision fidelity: written by benchmarks/decision_fidelity.py --markdown docs/validation.md -->",
}
ORDER = ("matrix", *MARKERS)
# a host's matrix is part "matrix:<preset>", after the built-in costs' matrix
HOST_MARKER = (
    "<!-- matrix on {0}: written by benchmarks/validation_matrix.py --reference "
    "benchmarks/validation/hosts/{0}-matrix.json --markdown docs/validation.md -->"
)
_HOST = re.compile(r"^<!-- matrix on ([\w.-]+): ")


def marker(name: str) -> str | None:
    if name.startswith("matrix:"):
        return HOST_MARKER.format(name.split(":", 1)[1])
    return MARKERS.get(name)


def sections(doc: str) -> dict[str, str]:
    """The parts of `doc` by name (the matrix's is what comes before any marker)."""
    out, name, lines = {}, "matrix", []
    by_line = {m: n for n, m in MARKERS.items()}
    for line in doc.splitlines():
        host = _HOST.match(line.strip())
        if line.strip() in by_line or host:
            out[name] = "\n".join(lines).strip("\n")
            name, lines = (f"matrix:{host.group(1)}" if host else by_line[line.strip()]), []
        else:
            lines.append(line)
    out[name] = "\n".join(lines).strip("\n")
    return {k: v for k, v in out.items() if v}


def put_section(doc: str, name: str, text: str) -> str:
    """`doc` with part `name` replaced by `text` (added in its place when missing)."""
    parts = sections(doc)
    parts[name] = text.strip("\n")
    hosts = sorted(n for n in parts if n.startswith("matrix:"))
    out = []
    for n in (ORDER[0], *hosts, *ORDER[1:]):
        if n in parts:
            out += ([marker(n)] if marker(n) else []) + [parts[n], ""]
    return "\n".join(out)


__all__ = ["HOST_MARKER", "MARKERS", "put_section", "sections"]
