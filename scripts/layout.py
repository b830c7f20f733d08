"""Print the package layout: every module with its line count and the first line of its docstring.

python scripts/layout.py            # the tree
python scripts/layout.py --imports  # also the import graph's cycles (none expected), via grimp
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "lsmsim"


def first_line(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text()))
    return doc.strip().splitlines()[0] if doc else ""


def main() -> None:
    biggest = (0, "")
    shown: set = set()
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent)
        n = len(path.read_text().splitlines())
        biggest = max(biggest, (n, str(rel)))
        for depth in range(1, len(rel.parts)):  # each folder once, before its modules
            folder = rel.parts[:depth]
            if folder not in shown:
                shown.add(folder)
                print("  " * (depth - 1) + folder[-1] + "/")
        indent = "  " * (len(rel.parts) - 1)
        print(f"{indent}{rel.name:<{34 - len(indent)}} {n:4d}  {first_line(path)[:90]}")
    print(f"\nlargest module: {biggest[1]} ({biggest[0]} lines)")
    if "--imports" in sys.argv:
        import grimp

        sys.path.insert(0, str(ROOT.parent / "tests"))
        from test_architecture import import_cycles

        g = grimp.build_graph("lsmsim", exclude_type_checking_imports=True)
        cycles = import_cycles(g)
        print(
            f"{len(g.modules)} modules, {sum(len(g.find_modules_directly_imported_by(m)) for m in g.modules)} "
            f"imports, {len(cycles)} cycles" + "".join(f"\n  {' -> '.join(c)}" for c in cycles)
        )


if __name__ == "__main__":
    main()
