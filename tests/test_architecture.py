"""The package's structure: no import cycle between its modules, and no module past the size limit."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rag_bench"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the rag_bench modules it imports, anywhere in it (function-level imports included)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # ``from a.b import c``: the module a.b.c when c is one, else a.b
                targets = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names
                ]
            else:
                continue
            edges |= {t for t in targets if t in modules and t != name and t != "rag_bench"}
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, 1972)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_the_package():
    assert cycles(import_graph()) == []


MAX_LINES = 300  # the house guide is about 250 lines per module; past 300 a module holds more than one job
OVERSIZED: dict[str, str] = {}  # "rag_bench/x.py" -> why it may stay longer (none today)


def oversized(package: Path, limit: int) -> dict[str, int]:
    """Every .py file below ``package`` longer than ``limit`` lines, as its path from the package's parent -> lines."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found[path.relative_to(package.parent).as_posix()] = lines
    return found


def test_size_finder_counts_lines(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "short.py").write_text("a = 1\nb = 2\n")
    (package / "sub" / "long.py").write_text("x = 0\n" * 4)
    (package / "notes.txt").write_text("z\n" * 9)
    assert oversized(package, 3) == {"pkg/sub/long.py": 4}
    assert oversized(package, 4) == {}


def test_no_module_exceeds_the_size_limit():
    too_long = {path: n for path, n in oversized(PACKAGE, MAX_LINES).items() if path not in OVERSIZED}
    assert too_long == {}, f"split these along their seams (or list them in OVERSIZED with a reason): {too_long}"
