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


# The rooms (top-level folders of the package) in layers, from the top: a room may import rooms of its own layer
# or below, never above (docs/architecture.md says what each layer holds). Sub-folders belong to their room.
LAYERS: list[tuple[str, set[str]]] = [
    ("entry points", {"entry", "testing"}),
    (
        "verbs and reports",
        {"report", "gate", "label", "importers", "generate", "synthesize", "contextualize", "rewrite", "tracking"},
    ),
    ("run folder and wiring", {"run_folder", "pipeline"}),
    ("config", {"config", "launch"}),
    ("stages", {"data", "parse", "chunk", "embed", "index", "retrieve", "rerank", "score"}),
    ("ground", {"core", "remote"}),
]
FACE = {"rag_bench", "rag_bench.__main__"}  # the package's face: the only modules outside a room


def room(module: str) -> str | None:
    """The room of a module (``rag_bench.index.bm25.terms`` -> ``index``); None for the package's face."""
    return None if module in FACE else module.split(".")[1]


def climbs(graph: dict[str, set[str]], layers: list[tuple[str, set[str]]]) -> list[str]:
    """Imports from a room to a room of a higher layer (import-linter's layers contract, by room)."""
    level = {r: i for i, (_, rooms) in enumerate(layers) for r in rooms}
    found = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            a, b = room(module), room(target)
            if a is not None and b is not None and a != b and level[b] < level[a]:
                found.append(f"{module} -> {target}")
    return found


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Room -> the other rooms its modules import."""
    rooms: dict[str, set[str]] = {}
    for module, targets in graph.items():
        if room(module) is None:
            continue
        rooms.setdefault(room(module), set()).update(
            room(t) for t in targets if room(t) is not None and room(t) != room(module)
        )
    return rooms


def test_layer_checker_finds_a_climb():
    layers = [("top", {"a"}), ("bottom", {"b"})]
    graph = {"rag_bench.b.x": {"rag_bench.a.y"}, "rag_bench.a.y": {"rag_bench.b.z"}, "rag_bench.b.z": set()}
    assert climbs(graph, layers) == ["rag_bench.b.x -> rag_bench.a.y"]
    assert cycles(room_graph(graph)) == [["a", "b"]]


def test_every_room_has_a_layer():
    rooms = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert rooms == set().union(*(r for _, r in LAYERS))


def test_no_import_climbs_a_layer():
    assert climbs(import_graph(), LAYERS) == []


def test_no_cycle_between_rooms():
    assert cycles(room_graph(import_graph())) == []


def test_no_module_imports_the_package_face():
    """``rag_bench/__init__.py`` imports the Python API, which imports the rest: a module that imports the face
    (``from rag_bench import files``) would import everything and close a cycle through it."""
    faced = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            face = isinstance(node, ast.ImportFrom) and node.module == "rag_bench" and node.level == 0
            if face or (isinstance(node, ast.Import) and any(a.name == "rag_bench" for a in node.names)):
                faced.append(module_name(path))
    assert faced == []


def test_every_package_says_what_its_room_holds():
    silent = [
        init.relative_to(PACKAGE.parent).as_posix()
        for init in PACKAGE.rglob("__init__.py")
        if not (ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or "").strip()
    ]
    assert silent == []
