"""The names a type checker sees on each package are the names it exports at run time: every lazy map
(``exports(...)`` in a stage's ``__init__``, ``_HOMES`` in the top package) has a ``TYPE_CHECKING`` block that
imports exactly those names from exactly those modules, so the two never drift apart."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import benchwatch

PACKAGE = Path(benchwatch.__file__).parent
INITS = sorted(PACKAGE.glob("*/__init__.py"))


def _lazy_map(tree: ast.Module, package: str) -> dict[str, set[str]] | None:
    """{absolute module: names} of the file's exports(...) call or _HOMES, None where it has neither."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "exports":
            groups = ast.literal_eval(node.args[1])
            return {package + where: set(names) for where, names in groups.items()}
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_HOMES" for t in node.targets):
            homes: dict[str, set[str]] = {}
            for name, home in ast.literal_eval(node.value).items():
                homes.setdefault(home, set()).add(name)
            return homes
    return None


def _type_checking_imports(tree: ast.Module) -> dict[str, set[str]]:
    """{module: names} imported under the file's top-level ``if TYPE_CHECKING:``, each re-exported as itself."""
    seen: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.level == 0, ast.unparse(statement)
                for alias in statement.names:
                    assert alias.asname == alias.name, f"{alias.name} must be re-exported as itself"
                    seen.setdefault(statement.module or "", set()).add(alias.name)
    return seen


def test_the_packages_with_lazy_names_are_found():
    lazy = [init for init in INITS if "exports(" in init.read_text()]
    assert {init.parent.name for init in lazy} >= {"store", "irt", "metrics", "history", "site", "pipeline"}


LAZY_INITS = [PACKAGE / "__init__.py", *(init for init in INITS if "exports(" in init.read_text())]


@pytest.mark.parametrize("init", LAZY_INITS, ids=lambda p: p.parent.name)
def test_type_checking_block_names_exactly_the_exported_names(init):
    tree = ast.parse(init.read_text())
    package = "benchwatch" if init.parent == PACKAGE else f"benchwatch.{init.parent.name}"
    lazy = _lazy_map(tree, package)
    assert lazy is not None, f"{package}: no lazy exports map found"
    assert _type_checking_imports(tree) == lazy


def test_a_drifted_block_is_caught():
    """The check itself: a name exported but not imported for the type checker is a difference."""
    source = (
        "from typing import TYPE_CHECKING\nfrom benchwatch.lazy import exports\n"
        "__all__ = exports(__name__, {'.a': ('x', 'y')})\n"
        "if TYPE_CHECKING:\n    from benchwatch.p.a import x as x\n"
    )
    tree = ast.parse(source)
    assert _type_checking_imports(tree) != _lazy_map(tree, "benchwatch.p")
