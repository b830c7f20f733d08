"""docs/validation.md in parts, each written by its own benchmark script: the matrix (benchmarks/validation_matrix.py),
the matrix's regimes (benchmarks/validation_regimes.py) and decision fidelity (benchmarks/decision_fidelity.py).
A part after the first starts at its marker line; `put_section` replaces one part and keeps the others."""

from __future__ import annotations

MARKERS = {
    "regimes": "<!-- regimes: written by benchmarks/validation_regimes.py --markdown docs/validation.md -->",
    "fidelity": "<!-- decision fidelity: written by benchmarks/decision_fidelity.py --markdown docs/validation.md -->",
}
ORDER = ("matrix", *MARKERS)


def sections(doc: str) -> dict[str, str]:
    """The parts of `doc` by name (the matrix's is what comes before any marker)."""
    out, name, lines = {}, "matrix", []
    by_line = {m: n for n, m in MARKERS.items()}
    for line in doc.splitlines():
        if line.strip() in by_line:
            out[name] = "\n".join(lines).strip("\n")
            name, lines = by_line[line.strip()], []
        else:
            lines.append(line)
    out[name] = "\n".join(lines).strip("\n")
    return {k: v for k, v in out.items() if v}


def put_section(doc: str, name: str, text: str) -> str:
    """`doc` with part `name` replaced by `text` (added in its place when missing)."""
    parts = sections(doc)
    parts[name] = text.strip("\n")
    out = []
    for n in ORDER:
        if n in parts:
            out += ([MARKERS[n]] if n in MARKERS else []) + [parts[n], ""]
    return "\n".join(out)


__all__ = ["MARKERS", "put_section", "sections"]
