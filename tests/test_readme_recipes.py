"""The README's recipes, followed literally: "Adding a leaderboard" and "Adding a figure". Every code block of a
recipe is pieces, each headed by a comment line that says where it goes (a new file; after, or instead of, the
first line holding a quoted text; a file's end). The pieces are applied to a copy of the repository, and the copy's
own tests (and, for the figure, an audit) then run on it: a recipe that leaves out a step fails here."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # each runs the copy's own tests in a process of its own

FENCE = re.compile(r"^(?P<indent> *)```\w+\n(?P<body>.*?)^(?P=indent)```$", re.M | re.S)
HEAD = re.compile(  # where a piece goes: a path, then nothing (a new file), "at its end", or where in the file
    r"^# (?P<path>[\w./-]+\.(?:py|toml))(?:, (?:(?P<end>at its end)|(?P<how>after|instead of) `(?P<text>.+)`))?$"
)


@dataclass(frozen=True)
class Piece:
    """What one step adds: to ``path``, ``lines``; ``how``: "new" (the file), "end" (appended), "after" or
    "instead of" the first line holding ``text``."""

    path: str
    how: str
    text: str
    lines: tuple[str, ...]


def pieces(title: str) -> list[Piece]:
    """The pieces of the README section ``title``, in its order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    out: list[Piece] = []
    for block in FENCE.finditer(section):
        indent = len(block["indent"])
        lines = [line[indent:] for line in block["body"].splitlines()]
        assert HEAD.match(lines[0]), f"a block of {title!r} does not say where it goes: {lines[0]!r}"
        for line in lines:
            head = HEAD.match(line)
            if head:
                how = "end" if head["end"] else head["how"] or "new"
                out.append(Piece(head["path"], how, head["text"] or "", ()))
            else:
                last = out[-1]
                out[-1] = Piece(last.path, last.how, last.text, (*last.lines, line))
    return out


def apply(piece: Piece, root: Path) -> None:
    """Make the change ``piece`` says in the copy at ``root``."""
    path = root / piece.path
    if piece.how == "new":
        assert not path.exists(), f"{piece.path} is there already"
        path.write_text("\n".join(piece.lines) + "\n", encoding="utf-8")
        return
    lines = path.read_text(encoding="utf-8").splitlines()
    if piece.how == "end":
        lines += piece.lines
    else:
        at = next((k for k, line in enumerate(lines) if piece.text in line), None)
        assert at is not None, f"{piece.path} has no line holding {piece.text!r}"
        lines[at : at + 1] = [*([] if piece.how == "instead of" else [lines[at]]), *piece.lines]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def followed(title: str, tmp_path: Path) -> Path:
    """A copy of the repository (its package with numba's cache of its kernels, its tests, its configuration) with
    the recipe ``title`` applied."""
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "bot", copy / "bot", ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copytree(ROOT / "tests", copy / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "benchwatch.toml", "README.md"):
        shutil.copy(ROOT / name, copy / name)
    for piece in pieces(title):
        apply(piece, copy)
    return copy


def run_in(copy: Path, *argv: str) -> subprocess.CompletedProcess:
    """Python in the copy, its package imported from there."""
    env = {**os.environ, "PYTHONPATH": f"{copy / 'bot'}{os.pathsep}{copy}", "BENCHWATCH_PROGRESS": "0"}
    return subprocess.run([sys.executable, *argv], cwd=copy, env=env, capture_output=True, text=True, timeout=900)


def passed(done: subprocess.CompletedProcess) -> int:
    """How many tests a pytest run in the copy passed; it failed none."""
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return int(re.search(r"(\d+) passed", done.stdout)[1])


def test_the_pieces_say_where_they_go_and_are_found():
    board = pieces("Adding a leaderboard")
    assert [p.path for p in board if p.how == "new"] == [
        "bot/benchwatch/sources/adapters/myboard.py",
        "tests/sources/test_myboard.py",
    ]
    assert {p.path for p in board} >= {"tests/sources/test_fault_battery.py", "tests/sources/test_catalog.py"}
    figure = pieces("Adding a figure")
    assert {p.path for p in figure} == {
        "bot/benchwatch/metrics/coverage.py",
        "bot/benchwatch/record.py",
        "bot/benchwatch/vocabulary.py",
    }


def test_a_leaderboard_added_as_the_readme_says_is_registered_tested_and_passes_the_fault_battery(tmp_path):
    copy = followed("Adding a leaderboard", tmp_path)
    done = run_in(
        copy,
        *("-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q"),
        *("tests/sources/test_catalog.py", "tests/sources/test_myboard.py", "tests/sources/test_fault_battery.py"),
        *("-k", "catalog or myboard or every_registered_adapter"),
    )
    battery = [line for line in done.stdout.splitlines() if "myboard-" in line]
    assert passed(done) >= 25 and not battery, battery  # the catalog's tests, the adapter's, its 15 faults


def test_a_figure_added_as_the_readme_says_is_in_every_audit_with_its_interval_and_plugin(tmp_path):
    copy = followed("Adding a figure", tmp_path)
    probe = (
        "import json, benchwatch; from tests.test_api import _frame\n"
        "rec = benchwatch.audit(_frame(models=12, items=40)).as_dict()\n"
        "print(json.dumps({k: v for k, v in rec.items() if 'gap_sum' in k or k.startswith('max_gap')}))"
    )
    done = run_in(copy, "-c", probe)
    assert done.returncode == 0, done.stderr[-4000:]
    rec = json.loads(done.stdout.splitlines()[-1])
    assert rec["top2_gap_sum_lo"] <= rec["top2_gap_sum"] <= rec["top2_gap_sum_hi"]
    assert rec["max_gap_plugin"] <= rec["top2_gap_sum_plugin"] <= rec["top3_gap_sum_plugin"]
    assert rec["max_gap"] <= rec["top2_gap_sum"] <= rec["top3_gap_sum"]
    tests = ("tests/metrics/test_coverage.py", "tests/metrics/test_kernels.py", "tests/test_api.py")
    schema = ("tests/history/test_records.py", "-k", "schema_is_valid or does_not_declare")
    assert passed(run_in(copy, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q", *tests)) > 5
    assert passed(run_in(copy, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q", *schema)) >= 4
