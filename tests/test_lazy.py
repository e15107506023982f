"""The stages' names load on first use: the command line's help and its input errors load no numerical
library, and a submodule never replaces the function of the same name on its package."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from benchwatch.cli import COMMANDS

STAGES = ("sources", "store", "irt", "metrics", "rules", "alerts", "history", "site", "pipeline", "fill")
HEAVY = ("pandas", "scipy", "matplotlib", "httpx", "numba", "pymc")


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint('LOADED:', *sorted(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(done.stdout.splitlines()[-1].removeprefix("LOADED:").split())


@pytest.mark.parametrize("argv", [["--help"], *([c, "--help"] for c in COMMANDS)])
def test_help_loads_no_numerical_library(argv):
    code = f"from benchwatch.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"
    assert _loaded_after(code) == set()


def test_an_input_error_about_the_path_loads_no_numerical_library(tmp_path):
    code = (
        "from benchwatch.cli import main\n"
        f"assert main(['audit', {str(tmp_path / 'none.csv')!r}]) == 2\n"
        f"assert main(['audit', {str(tmp_path)!r}]) == 2\n"
        f"assert main(['run', '--config', {str(tmp_path / 'none.toml')!r}]) == 2"
    )
    assert _loaded_after(code) == set()


def test_the_python_api_loads_no_numerical_library_until_it_runs():
    code = "import benchwatch\nbenchwatch.audit, benchwatch.audit_each, benchwatch.run, benchwatch.AuditResult"
    assert _loaded_after(code) == set()


@pytest.mark.parametrize("stage", STAGES)
def test_every_exported_name_resolves_to_what_its_module_defines(stage):
    package = importlib.import_module(f"benchwatch.{stage}")
    for name in package.__all__:
        value = getattr(package, name)
        home = package.__dict__["_exported"][name]
        assert value is getattr(importlib.import_module(home, package.__name__), name), (stage, name)


@pytest.mark.parametrize(
    ("module", "package", "name"),
    [
        ("benchwatch.metrics.coverage", "benchwatch.metrics", "coverage"),
        ("benchwatch.irt.difficulty.item_posterior", "benchwatch.irt", "item_posterior"),
    ],
)
def test_a_submodule_never_shadows_the_function_of_its_name(module, package, name):
    """Imported in either order, in a fresh interpreter: the stage's attribute stays the function."""
    for first in (f"import {module}", f"from {package} import {name}"):
        check = f"assert type({name}).__name__ == 'function', {name}"
        code = f"{first}\nimport {module}\nfrom {package} import {name}\n{check}"
        subprocess.run([sys.executable, "-c", code], check=True)


def test_an_unchanged_run_loads_neither_numba_nor_scipy(sample_site, tmp_path):
    """A rerun whose sources hold what the last run audited carries every benchmark: it never loads the audit's
    numerical stack (issue 42: the unchanged rerun of the sample, 0.5 s of imports)."""
    import shutil

    root, _, _ = sample_site
    for part in ("r", "c", "s"):
        shutil.copytree(root / part, tmp_path / part)
    argv = ["run", "--sample", "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
    argv += ["--site-out", str(tmp_path / "s")]
    code = f"from benchwatch.cli import main\nassert main({argv!r}) == 0"
    loaded = _loaded_after(code)
    assert "pandas" in loaded and not loaded & {"numba", "scipy", "pymc"}
