"""The house by job (issue 25), kept: the import graph of pipeline/ (every import, lazy and
TYPE_CHECKING ones included) has no circle, the store imports nothing above it, only the store
touches SQLite, no module is over 650 lines, and the top level stays short."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pipeline"
MAX_LINES = 650
MAX_TOP_LEVEL = 12
# What the store may import besides itself: the foundations, which import nothing of memroute's
# above them either (types, errors, small utilities, the ledgers' text rules, the guards' detectors).
BELOW_THE_STORE = ("pipeline.types", "pipeline.sections", "pipeline.limits", "pipeline.vocabulary", "pipeline.errors", "pipeline._util", "pipeline.ledgers", "pipeline.guards")


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The module of ours a dotted import names (`pipeline.store.files.UserDir` -> pipeline.store.files)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for name in names:
            owner = _owner(name) if name.startswith("pipeline") else None
            if owner is not None and owner != module:
                out.add(owner)
                break
    return out


GRAPH = {module: _imports(module) for module in MODULES}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
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

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_real() -> None:
    assert len(MODULES) > 100 and "pipeline.ops.turn" in GRAPH["pipeline.core"]
    assert "pipeline.store.interface" in GRAPH["pipeline.ops.workspace"]


def test_no_import_circle_between_files() -> None:
    assert _cycles() == []


def test_the_store_imports_nothing_above_it() -> None:
    above = {
        module: sorted(dep for dep in deps if not dep.startswith(("pipeline.store", *BELOW_THE_STORE)) and dep != "pipeline")
        for module, deps in GRAPH.items()
        if module.startswith("pipeline.store")
    }
    assert {m: deps for m, deps in above.items() if deps} == {}


def test_the_foundations_import_nothing_above_them() -> None:
    for module, deps in GRAPH.items():
        if module.startswith(BELOW_THE_STORE):
            assert all(dep.startswith(BELOW_THE_STORE) or dep == "pipeline" for dep in deps), (module, deps)


def test_sqlite3_is_imported_under_the_store_only() -> None:
    users = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import) and any(alias.name == "sqlite3" for alias in node.names):
                users.append(module)
            elif isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
                users.append(module)
    assert users and all(module.startswith("pipeline.store") for module in users), users


def test_no_module_is_over_650_lines_and_the_top_level_is_short() -> None:
    long = {module: n for module, path in MODULES.items() if (n := len(path.read_text("utf-8").splitlines())) > MAX_LINES}
    assert long == {}
    top = [p.name for p in PACKAGE.glob("*.py")]
    assert len(top) <= MAX_TOP_LEVEL, top


def test_a_private_module_is_imported_only_inside_its_package() -> None:
    """`ledgers/_text.py` is the ledgers' own: other packages import what they need of it from `pipeline.ledgers`."""
    crossing = sorted(
        (module, dep)
        for module, deps in GRAPH.items()
        for dep in deps
        if dep.rpartition(".")[2].startswith("_") and not dep.rpartition(".")[2].startswith("__")
        and not (module == dep.rpartition(".")[0] or module.startswith(dep.rpartition(".")[0] + "."))
    )
    assert crossing == []


def test_no_package_exports_a_private_name() -> None:
    exported = {}
    for module, path in MODULES.items():
        if path.name != "__init__.py":
            continue
        for node in ast.parse(path.read_text("utf-8")).body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                exported[module] = [n for n in ast.literal_eval(node.value) if n.startswith("_") and not n.endswith("__")]
    assert "pipeline.engines.llm" in exported and {m: n for m, n in exported.items() if n} == {}
