"""The package's layout: no module over 400 lines, no import circle between its modules or between its packages, and
the stages in order: a stage imports no later stage and nothing of the job that runs them."""

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
    # ``from benchwatch.irt.difficulty.npmle import ...``
    assert "benchwatch.irt.difficulty.npmle" in graph["benchwatch.irt.item_model.profile"]


def test_no_import_circle_between_the_packages_modules():
    assert cycles(import_graph()) == []


# The stages in the order the data goes through them (``benchwatch.__doc__``, the README's "Layout"): each may import
# only earlier ones. Above them the job that runs them, and the package's face; below them the shared modules (every
# other module of the package's top: the record, the vocabulary, errors, progress...), which import no stage.
STAGES = ("sources", "store", "irt", "metrics", "rules", "alerts", "history", "fill", "site")
JOB = (
    *("pipeline", "kernel_build", "api", "cli", "__main__"),
    *("calibration", "file_audit", "gap_filling", "jobs", "standings", "upkeep"),  # the API's other modules
)


def package_of(module: str) -> str:
    """The package a module is part of (``benchwatch.site`` for ``benchwatch.site.pages``); a module of the package's
    top is a package of its own, and so is the package's face (``benchwatch``)."""
    return ".".join(module.split(".")[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each package and the other packages its modules import."""
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        own = package_of(module)
        packages.setdefault(own, set()).update(package_of(t) for t in targets if package_of(t) != own)
    return packages


def rank(package: str) -> int:
    """A package's place: 0 a shared module, then each stage in order, then the job and the face (the top)."""
    name = package.removeprefix("benchwatch.")
    if name in STAGES:
        return 1 + STAGES.index(name)
    return len(STAGES) + 1 if package == "benchwatch" or name in JOB or name in MKDOCS else 0


# In an installed wheel, the MkDocs project it carries (the checkout's site/, hatch's force-include): its hooks run
# inside MkDocs while the site is built, above every stage.
MKDOCS = ("site_project",)


PACKAGES = package_graph(import_graph())


def test_the_package_graph_gathers_each_packages_modules():
    graph = {"benchwatch.site.pages": {"benchwatch.fill.plan", "benchwatch.site.fill"}, "benchwatch.fill.plan": set()}
    assert package_graph(graph) == {"benchwatch.site": {"benchwatch.fill"}, "benchwatch.fill": set()}
    assert cycles(package_graph({"benchwatch.a.x": {"benchwatch.b.y"}, "benchwatch.b.y": {"benchwatch.a.z"}})) == [
        ["benchwatch.a", "benchwatch.b"]
    ]
    assert "benchwatch.history" in PACKAGES["benchwatch.site"] and "benchwatch.fill" in PACKAGES["benchwatch.site"]
    assert {"benchwatch.record", "benchwatch.vocabulary"} <= set(PACKAGES)  # the shared modules, each its own


def test_no_import_circle_between_the_packages():
    assert cycles(PACKAGES) == []


def test_a_stage_imports_no_later_stage_and_nothing_of_the_job():
    assert {f"benchwatch.{s}" for s in (*STAGES, *JOB)} <= set(PACKAGES)  # every name above is a package
    back = sorted(f"{a} -> {b}" for a, targets in PACKAGES.items() for b in targets if rank(a) < rank(b))
    assert back == []


def test_the_job_is_handed_the_site_build_and_imports_no_stage_after_the_history():
    assert PACKAGES["benchwatch.pipeline"] & {"benchwatch.fill", "benchwatch.site"} == set()


LONG = sorted(
    str(path.relative_to(PACKAGE))
    for path in MODULES.values()
    if len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES
)


def test_no_module_is_over_400_lines():
    assert LONG == []
