"""The README documents every command and keeps its Quick start to two commands."""

from __future__ import annotations

import re

from benchwatch.cli import COMMANDS
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_command_is_in_the_readme():
    missing = [name for name in COMMANDS if f"benchwatch {name}" not in README]
    assert missing == []


def test_quick_start_is_two_commands():
    block = re.search(r"## Quick start\s+```bash\n(.*?)```", README, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]
    assert commands == ["pip install .", "benchwatch run --sample"]


def test_every_benchmark_script_is_in_the_readme():
    missing = [p.name for p in sorted((ROOT / "benchmarks").glob("*.py")) if f"`{p.name}`" not in README]
    assert missing == []


def test_quick_start_is_on_the_first_screen():
    head = README.splitlines()[:40]
    assert "## Quick start" in head and "benchwatch run --sample" in head
    assert len(" ".join(head[: head.index("## Quick start")]).split()) < 120  # a few plain sentences first


def test_readme_has_the_sections_a_reader_needs_and_no_paths_outside_the_repo():
    for heading in ("## Reading a benchmark page", "## Adding a leaderboard"):
        assert heading in README
    assert "ADAPTERS" in README and "def load(fetcher: Fetcher, cfg: SourceConfig)" in README
    assert "../shared" not in README and "every figure it ever published" not in README
    assert "default branch" in README and "> plan.json" not in README
