"""Fixtures: the real upstream files served over real HTTP on 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED
from tests.sources.upstream_server import Upstream


@pytest.fixture
def shared_upstream():
    """A server over ../shared/upstream (absent on a user's clone)."""
    root = SHARED / "upstream"
    if not root.is_dir():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    with Upstream(root) as server:
        yield server


@pytest.fixture
def fixture_server(tmp_path):
    """A server over a folder the test fills with fixtures built from the documented formats."""
    root = tmp_path / "upstream"
    root.mkdir()
    with Upstream(root) as server:
        yield server
