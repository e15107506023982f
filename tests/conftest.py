"""Shared fixtures: paths to the project and to the shared real data sets."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture
def shared_data() -> Path:
    """The real per-item data sets in ../shared/data (absent on a user's clone)."""
    folder = SHARED / "data"
    if not folder.is_dir():
        pytest.skip("../shared/data is not here: it exists in CI and on the developers' machines only")
    return folder


@pytest.fixture(scope="session", autouse=True)
def committed_reports_untouched():
    """No test may write into the committed reports/ (tests use their own folders)."""

    def listing() -> dict[str, bytes]:
        folder = ROOT / "reports"
        return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    before = listing()
    yield
    assert listing() == before, "a test wrote into the committed reports/ folder"
