"""What the site's tests share: an atlas's build switched on for the sample (its workers, the assets and the
Markdown beside MkDocs: ``benchwatch.site.pages.PARALLEL_FROM``), and a built folder's files."""

from __future__ import annotations

from pathlib import Path

import pytest

import benchwatch.site.pages as pages_module


def site_files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by its path there, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def as_atlas(monkeypatch):
    """The sample's 15 benchmark pages built as an atlas's are, on two cores."""
    monkeypatch.setattr(pages_module, "PARALLEL_FROM", 2)
    monkeypatch.setattr(pages_module.threads, "CORES", 2)
