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
def quiet_progress():
    """Progress lines off in the suite (tests read standard error); ``tests/test_progress.py`` turns them on."""
    import os

    before = os.environ.get("BENCHWATCH_PROGRESS")
    os.environ["BENCHWATCH_PROGRESS"] = "0"
    yield
    if before is None:
        os.environ.pop("BENCHWATCH_PROGRESS", None)
    else:
        os.environ["BENCHWATCH_PROGRESS"] = before


@pytest.fixture(scope="session", autouse=True)
def shared_floor_cache(tmp_path_factory):
    """One folder of resolution floors for the whole session: a floor depends only on pool, size and target."""
    import os

    folder = tmp_path_factory.mktemp("floors")
    before = os.environ.get("BENCHWATCH_FLOOR_CACHE")
    os.environ["BENCHWATCH_FLOOR_CACHE"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("BENCHWATCH_FLOOR_CACHE", None)
    else:
        os.environ["BENCHWATCH_FLOOR_CACHE"] = before


@pytest.fixture(scope="session", autouse=True)
def committed_reports_untouched():
    """No test may write into the committed reports/ (tests use their own folders)."""

    def listing() -> dict[str, bytes]:
        folder = ROOT / "reports"
        return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    before = listing()
    yield
    assert listing() == before, "a test wrote into the committed reports/ folder"


@pytest.fixture
def shared_upstream():
    """A server over ../shared/upstream on 127.0.0.1 (absent on a user's clone)."""
    from tests.sources.upstream_server import Upstream

    root = SHARED / "upstream"
    if not root.is_dir():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    with Upstream(root) as server:
        yield server


@pytest.fixture
def fixture_server(tmp_path):
    """A server on 127.0.0.1 over a folder the test fills with fixtures built from the producers' formats."""
    from tests.sources.upstream_server import Upstream

    root = tmp_path / "upstream"
    root.mkdir()
    with Upstream(root) as server:
        yield server


@pytest.fixture(scope="session")
def sample_site(tmp_path_factory):
    """One `benchwatch run --sample` for the tests that only read its reports and site (root, reports, site): one
    for the whole session, whichever of xdist's workers asks first builds it (under a lock in the folder the
    workers' temporary folders share) and the others read it (a test that changes them works on a copy)."""
    import os
    import shutil

    from filelock import FileLock

    from benchwatch.cli import main

    def build(root: Path) -> None:
        argv = ["run", "--sample", "--reports", str(root / "r"), "--cache", str(root / "c"), "--site-out"]
        assert main([*argv, str(root / "s")]) == 0

    if os.environ.get("PYTEST_XDIST_WORKER") is None:  # one process: its own
        root = tmp_path_factory.mktemp("sample-site")
        build(root)
    else:
        shared = tmp_path_factory.getbasetemp().parent  # this session's, shared by its workers
        root = shared / "sample-site"
        with FileLock(str(shared / "sample-site.lock")):
            if not (root / "built").exists():
                shutil.rmtree(root, ignore_errors=True)
                root.mkdir()
                build(root)
                (root / "built").touch()
    return root, root / "r", root / "s"
