"""The house rules the code keeps (issue 63): functions a reader can follow, the record read by attribute where the
stages pass it, the CLI over the API, and a type checker that catches a misspelt record field in every stage."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import benchwatch
from benchwatch.record import BenchmarkRecord

PACKAGE = Path(benchwatch.__file__).parent
ROOT = Path(__file__).resolve().parents[1]  # the checkout (the package may be installed elsewhere, as in CI)
MAX_FUNCTION_LINES = 80
MAX_KEY_READS = 40  # reads of a record field by string key where the stages pass records (issue 63: 387 before)
KEY_READ_PLACES = ("site", "fill", "alerts", "cli", "rules", "pipeline", "api.py")
STAGE_PACKAGES = ("sources", "store", "irt", "metrics", "rules", "alerts", "history", "site", "fill", "pipeline")
MAX_CLI_STAGE_IMPORTS = 2
FIELDS = frozenset(BenchmarkRecord.model_fields) | {f.alias for f in BenchmarkRecord.model_fields.values() if f.alias}


def _files(*places: str) -> list[Path]:
    out: list[Path] = []
    for place in places:
        path = PACKAGE / place
        out += [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))
    return out


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _where(path: Path) -> str:
    return str(path.relative_to(PACKAGE)) if path.is_relative_to(PACKAGE) else path.name


def long_functions(paths: list[Path]) -> list[str]:
    """Every function (methods and nested ones too) over ``MAX_FUNCTION_LINES`` lines, as file:line name (lines)."""
    out = []
    for path in paths:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    out.append(f"{_where(path)}:{node.lineno} {node.name} ({lines})")
    return out


def key_reads(paths: list[Path]) -> list[str]:
    """Every read of a record field by string key: ``x["ddm"]`` and ``x.get("ddm", ...)`` where the key is a field of
    ``BenchmarkRecord`` (a dict of another kind with such a key counts too: the count errs on the strict side)."""
    out = []
    for path in paths:
        for node in ast.walk(_tree(path)):
            key = None
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                key = node.slice
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                key = node.args[0] if node.args else None
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value in FIELDS:
                out.append(f"{_where(path)}:{node.lineno} {key.value}")
    return out


def stage_imports(path: Path) -> set[str]:
    """The stage packages a module imports (anywhere in it, functions included)."""
    found = set()
    for node in ast.walk(_tree(path)):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "benchwatch" and len(parts) > 1 and parts[1] in STAGE_PACKAGES:
                found.add(parts[1])
    return found


def test_no_function_of_the_package_is_over_80_lines():
    assert long_functions(_files(".")) == []


def test_the_counters_find_what_they_count(tmp_path):
    probe = tmp_path / "probe.py"
    body = "\n".join(f"    x = {i}" for i in range(MAX_FUNCTION_LINES))
    probe.write_text(f'def f(rec, d):\n{body}\n    return rec["ddm"], d.get("state"), d["not_a_field"], d.get("x")\n')
    assert [line.split()[-1] for line in long_functions([probe])] == [f"({MAX_FUNCTION_LINES + 2})"]
    assert [line.split()[-1] for line in key_reads([probe])] == ["ddm", "state"]
    probe.write_text("from benchwatch.history import load_latest\nimport benchwatch.site.pages\n")
    probe.write_text(probe.read_text() + "from benchwatch import api\n")
    assert stage_imports(probe) == {"history", "site"}


def test_the_stages_read_records_by_attribute():
    reads = key_reads(_files(*KEY_READ_PLACES))
    assert len(reads) <= MAX_KEY_READS, "\n".join(reads)


def test_the_commands_stand_on_the_api():
    """Each command calls the package's public functions; at most two command modules reach a stage package."""
    reaching = {p.name: sorted(stage_imports(p)) for p in _files("cli") if stage_imports(p)}
    assert len(reaching) <= MAX_CLI_STAGE_IMPORTS, reaching


# Each stage that reads records, and the files it holds: every one must hold a function whose parameter is annotated
# as the typed record and that reads a field of it (what the probe misspells).
PROBED = {
    "rules": ("rules",),
    "alerts": ("alerts",),
    "history": ("history",),
    "site": ("site",),
    "fill": ("fill",),
    "pipeline": ("pipeline",),
    "cli": ("cli",),
    "api": ("api.py", "file_audit.py", "gap_filling.py", "jobs.py", "standings.py", "upkeep.py", "calibration.py"),
}


def _record_read(path: Path) -> tuple[int, int, str] | None:
    """The first read of a field of a parameter annotated ``BenchmarkRecord`` (or of a name bound to ``as_record``
    of one) in ``path``: (line, column after the field's name, the field), or None."""
    for node in ast.walk(_tree(path)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        typed = {a.arg for a in args if a.annotation is not None and "BenchmarkRecord" in ast.unparse(a.annotation)}
        typed |= {  # and the names bound to the typed record of what came in (``rec = as_record(figures)``)
            target.id
            for inner in ast.walk(node)
            if isinstance(inner, ast.Assign)
            and isinstance(inner.value, ast.Call)
            and getattr(inner.value.func, "id", None) == "as_record"
            for target in inner.targets
            if isinstance(target, ast.Name)
        }
        for inner in ast.walk(node):
            if (
                isinstance(inner, ast.Attribute)
                and isinstance(inner.value, ast.Name)
                and inner.value.id in typed
                and inner.attr in BenchmarkRecord.model_fields
                and inner.end_lineno == inner.lineno
            ):
                return inner.lineno, inner.end_col_offset or 0, inner.attr
    return None


@pytest.mark.slow
def test_a_misspelt_record_field_in_any_stage_fails_the_type_checker(tmp_path):
    """In a copy of the package, one real read of a record's field in each stage misspelt: mypy (as CI runs it)
    names every one, so a field renamed or mistyped anywhere the stages read records is an error, not a None."""
    copy = tmp_path / "bot"
    shutil.copytree(
        PACKAGE, copy / "benchwatch", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "site_project")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    probes = {}
    for stage, places in PROBED.items():
        found = next(((p, r) for p in _files(*places) if (r := _record_read(p)) is not None), None)
        assert found is not None, f"{stage}: no function reads a field of a parameter typed BenchmarkRecord"
        path, (line, end, field) = found
        target = copy / "benchwatch" / path.relative_to(PACKAGE)
        lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[line - 1] = lines[line - 1][:end] + "_misspelt" + lines[line - 1][end:]
        target.write_text("".join(lines), encoding="utf-8")
        probes[stage] = (str(path.relative_to(PACKAGE)), line, f"{field}_misspelt")
    if (ROOT / ".mypy_cache").is_dir():  # CI's own mypy ran first: its cache of the libraries' stubs (two thirds
        # of a run) is read, not rebuilt; every module whose text differs from the cached one is checked again
        shutil.copytree(ROOT / ".mypy_cache", tmp_path / "cache")
    done = subprocess.run(  # from the copy's root, as CI runs it: its [tool.mypy] reads the copy's bot/
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    for stage, (where, line, name) in probes.items():
        assert f'has no attribute "{name}"' in out and f"{where}:{line}:" in out, (stage, where, line, out[-3000:])
