"""A stage's public names, imported when first used: ``benchwatch --help`` and input errors load no
numerical library (pandas, scipy, httpx come in with the command that needs them).

Each stage's ``__init__`` calls ``exports(__name__, {".module": ("name", ...)})``. A submodule that shares
its name with a function it exports (``benchwatch.metrics.coverage``) never replaces that function on the package:
``from benchwatch.metrics import coverage`` is the function, whichever was imported first.
"""

from __future__ import annotations

import importlib
import sys
import types


class _Stage(types.ModuleType):
    """A package whose exported names are looked up in their modules on first use."""

    def __getattr__(self, name: str):
        where = self.__dict__.get("_exported", {}).get(name)
        if where is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where, self.__name__), name)
        self.__dict__[name] = value
        return value

    def __setattr__(self, name: str, value: object) -> None:
        # the import system binds each imported submodule on its package: an export of that name wins
        exported = self.__dict__.get("_exported", {})
        if isinstance(value, types.ModuleType) and name in exported and value.__name__ == f"{self.__name__}.{name}":
            return
        super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return sorted({*self.__dict__, *self.__dict__.get("_exported", {})})


def exports(package: str, names: dict[str, tuple[str, ...]]) -> list[str]:
    """Make ``package`` look its names up lazily; returns them sorted, for ``__all__``."""
    module = sys.modules[package]
    if any(isinstance(group, str) for group in names.values()):
        raise TypeError(f"{package}: each module's names must be a tuple of names")
    module.__dict__["_exported"] = {name: where for where, group in names.items() for name in group}
    module.__class__ = _Stage
    return sorted(module.__dict__["_exported"])
