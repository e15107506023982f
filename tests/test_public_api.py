"""The public API is explicit, and no stage reaches into another stage's private modules."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import benchwatch

PACKAGE = Path(benchwatch.__file__).parent
STAGES = ["sources", "store", "irt", "metrics", "rules", "alerts", "history", "site", "pipeline", "fill", "cli"]


@pytest.mark.parametrize("name", ["benchwatch", *(f"benchwatch.{s}" for s in STAGES)])
def test_every_stage_declares_its_public_names_and_they_exist(name):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} has no __all__"
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"
    for attr in exported:
        assert hasattr(module, attr), f"{name}.__all__ names {attr}, which does not exist"


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def test_stages_use_each_other_only_through_their_public_api():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        own = parts[0] if len(parts) > 1 else None
        for module in _imports(path):
            bits = module.split(".")
            if bits[0] != "benchwatch" or len(bits) < 3:
                continue
            if bits[1] != own and bits[1] in STAGES:
                offenders.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert offenders == []


def test_stages_never_reach_back_into_later_stages():
    order = {s: i for i, s in enumerate(["sources", "store", "irt", "metrics", "rules", "alerts", "history", "site"])}
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        own = parts[0] if len(parts) > 1 else None
        if own not in order:
            continue
        for module in _imports(path):
            bits = module.split(".")
            if bits[0] == "benchwatch" and len(bits) > 1 and bits[1] in order and order[bits[1]] > order[own]:
                offenders.append(f"{own} imports the later stage {module}")
    assert offenders == []


def test_the_command_line_loads_no_numerical_library_until_a_command_runs():
    import subprocess
    import sys

    probe = (
        "import sys; from benchwatch.cli import build_parser; build_parser(only='');"
        "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'matplotlib', 'httpx', 'pymc') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=PACKAGE.parent)
    assert done.stdout.strip() == "[]"
    assert benchwatch.coverage.__module__.startswith("benchwatch.metrics")  # the public names resolve on first use
    assert benchwatch.audit.__module__ == "benchwatch.api"


def test_the_package_exports_a_small_documented_api_and_no_test_oracle():
    assert set(benchwatch.__all__) == {
        "__version__",
        "AuditResult",
        "BenchmarkRecord",
        "InputError",
        "Target",
        "Thresholds",
        "audit",
        "audit_each",
        "audit_file",
        "bound_text",
        "calibrate",
        "check",
        "coverage",
        "ddm",
        "fill_check",
        "fill_generate",
        "fill_plan",
        "leaderboard_saturation",
        "max_gap",
        "merge",
        "repair",
        "resolve_line",
        "rounded",
        "run",
        "saturation",
        "saturation_index",
        "schedule",
        "state_evidence",
        "tiers",
        "top_k_gap_sum",
        "verdict_line",
        "verdicts",
    }
    undocumented = [name for name in benchwatch.__all__[1:] if f"``{name}" not in benchwatch.__doc__]
    assert undocumented == []
    assert (PACKAGE / "py.typed").is_file()  # the annotations are part of the API (PEP 561)
    irt = importlib.import_module("benchwatch.irt")
    assert "em_reference" not in irt.__all__  # the slow EM oracle lives with the tests that use it
    assert not hasattr(importlib.import_module("benchwatch.irt.difficulty.npmle"), "em_reference")
