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
