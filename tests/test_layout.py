"""The package's layout: no module over 400 lines, and no import circle between its modules."""

from __future__ import annotations

import ast
from pathlib import Path

import benchwatch

PACKAGE = Path(benchwatch.__file__).parent
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = ("benchwatch", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _lazy_exports(tree: ast.Module, package: str) -> dict[str, str]:
    """A stage's ``exports(__name__, {".module": ("name", ...)})``: each exported name's module."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "exports" and len(node.args) == 2:
            table = node.args[1]
            if isinstance(table, ast.Dict):
                for key, names in zip(table.keys, table.values, strict=True):
                    for name in getattr(names, "elts", []):
                        found[name.value] = package + key.value
    return found


TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}
EXPORTS = {name: _lazy_exports(tree, name) for name, tree in TREES.items() if MODULES[name].name == "__init__.py"}


def _targets(module: str, node: ast.AST) -> list[str]:
    """The package's modules one import statement (anywhere in the module, functions included) loads: a name
    imported from a package is its submodule if it is one, else the module the package exports it from."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module or ""
    out = []
    for alias in node.names:
        whole = f"{source}.{alias.name}"
        if whole in MODULES:
            out.append(whole)
        else:
            out.append(EXPORTS.get(source, {}).get(alias.name, source))
    return out


def import_graph() -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports; a package's ``__init__`` re-exporting
    its own submodules is no edge (it loads them only when a name is asked for)."""
    graph = {}
    for module, tree in TREES.items():
        edges = set()
        for node in ast.walk(tree):
            for target in _targets(module, node):
                while target and target not in MODULES:  # ``import a.b.c`` of a name: its nearest module
                    target = target.rpartition(".")[0]
                if target and target != module and not target.startswith(module + "."):
                    edges.add(target)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan's algorithm), sorted."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_cycle_finder_finds_a_circle_through_a_function_level_import():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    graph = import_graph()
    assert "benchwatch.sources.record_paths" in graph["benchwatch.sources.inspect_logs"]  # a module-level import
    assert "benchwatch.sources.inspect_logs" in graph["benchwatch.sources.eee"]  # one inside a function
    assert "benchwatch.irt.npmle" in graph["benchwatch.irt.profile"]  # ``from benchwatch.irt.npmle import ...``


def test_no_import_circle_between_the_packages_modules():
    assert cycles(import_graph()) == []


LONG = sorted(
    str(path.relative_to(PACKAGE))
    for path in MODULES.values()
    if len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES
)


def test_no_module_is_over_400_lines():
    assert LONG == []
