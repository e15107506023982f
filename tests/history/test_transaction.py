"""A run killed in the middle of writing leaves reports/ as it was; a lock keeps runs apart."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest
from filelock import FileLock

from benchwatch.history import Reports, recover
from benchwatch.pipeline import BusyError, run_job
from benchwatch.sources import SourceTable
from tests.conftest import ROOT
from tests.irt.test_rasch_map import simulate


def _files(root) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".staging" not in p.parts and not p.name.endswith(".lock")
    }


def _source(df: pd.DataFrame):
    return [("sim", lambda: SourceTable("sim", "simulated", df.astype(str)))]


@pytest.fixture
def before(tmp_path):
    df, _, _ = simulate(12, 60, seed=91)
    reports = tmp_path / "r"
    run_job(
        _source(df),
        reports_dir=reports,
        site_out=None,
        cache_dir=tmp_path / "c",
        now="2026-01-01T00:00:00Z",
        log=lambda s: None,
    )
    changed = df.copy()
    changed.loc[changed.index[:30], "score"] = 1 - changed.loc[changed.index[:30], "score"]
    return reports, changed


@pytest.mark.parametrize("writes_before_kill", [0, 1, 3, 6])
def test_kill_while_writing_leaves_reports_as_they_were(before, tmp_path, writes_before_kill):
    reports, changed = before
    snapshot = _files(reports)
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        import pandas as pd
        import benchwatch.history.folder as rep
        from benchwatch.pipeline import run_job
        from benchwatch.sources import SourceTable
        real, count = rep.atomic_write_bytes, [0]
        def dying(path, text):
            if ".staging" in str(path) and count[0] >= {writes_before_kill}:
                os._exit(9)  # as abrupt as SIGKILL: no cleanup runs
            count[0] += 1
            real(path, text)
        rep.atomic_write_bytes = dying
        df = pd.read_csv({str(tmp_path / "changed.csv")!r}, dtype=str, keep_default_na=False)
        run_job([("sim", lambda: SourceTable("sim", "simulated", df))], reports_dir={str(reports)!r},
                site_out=None, cache_dir={str(tmp_path / "c")!r}, now="2026-01-02T00:00:00Z")
        """
    )
    changed.to_csv(tmp_path / "changed.csv", index=False)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 9, done.stderr
    assert _files(reports) == snapshot  # the staged part never became visible
    recover(reports)
    assert not (reports / ".staging").exists() and _files(reports) == snapshot


def test_a_commit_interrupted_while_swapping_is_completed_by_recovery(before, tmp_path, monkeypatch):
    reports, changed = before
    import benchwatch.history.folder as rep

    real, calls = os.replace, [0]

    def flaky_replace(src, dst):
        swapping = ".staging" in str(src) and ".staging" not in str(dst)
        calls[0] += swapping
        if swapping and calls[0] == 2:  # the commit marker is down, the second file is being swapped in
            raise OSError("power cut")
        real(src, dst)

    monkeypatch.setattr(rep.os, "replace", flaky_replace)
    with pytest.raises(OSError):
        run_job(
            _source(changed),
            reports_dir=reports,
            site_out=None,
            cache_dir=tmp_path / "c",
            now="2026-01-02T00:00:00Z",
            log=lambda s: None,
        )
    monkeypatch.setattr(rep.os, "replace", real)
    recover(reports)
    history = pd.read_csv(reports / "history.csv")
    assert history["snapshot_at"].tolist() == ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]
    assert not (reports / ".staging").exists()


def test_a_second_run_waits_for_the_lock_then_gives_up_clearly(before, tmp_path):
    reports, changed = before
    with FileLock(str(reports / ".benchwatch.lock")):
        start = time.perf_counter()
        with pytest.raises(BusyError, match="another benchwatch run holds"):
            run_job(
                _source(changed),
                reports_dir=reports,
                site_out=None,
                cache_dir=tmp_path / "c",
                lock_timeout=0.5,
                log=lambda s: None,
            )
        assert time.perf_counter() - start >= 0.5


def test_reads_inside_a_transaction_see_their_own_writes(tmp_path):
    reports = Reports(tmp_path / "r")
    with reports.transaction():
        reports.write(reports.latest, "{}")
        assert reports.read(reports.latest) == "{}"
        assert not reports.latest.exists()
    assert reports.latest.read_text() == "{}"
