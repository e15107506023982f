"""kill -9 at every phase boundary of a run, then a normal run: reports/ (with the snapshots) and the site
are those of a run that was never killed (issue 12)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from tests.conftest import ROOT
from tests.irt.test_rasch_map import simulate

pytestmark = pytest.mark.slow

PHASES = ["fetch", "fit", "snapshot save", "staging", "run log", "commit swap", "site build", "site swap"]
COMMITTED = PHASES.index("commit swap")  # from here on the killed run's reports are in
NOW = ["2026-03-01T06:00:00Z", "2026-03-02T06:00:00Z"]

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, {root!r})
    import pandas as pd
    import benchwatch.pipeline.job as job
    import benchwatch.pipeline.phases as phases
    from benchwatch.site import build_site
    from benchwatch.sources import SourceTable
    kill_at = {kill_at!r}
    def phase(name):
        if name == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
    phases.phase = phase
    df = pd.read_csv({data!r}, dtype=str, keep_default_na=False)
    board = pd.read_csv({board!r}, dtype=str, keep_default_na=False)
    sources = [
        ("sim", lambda: SourceTable("sim", "simulated", df)),
        ("board", lambda: SourceTable("board", "board", df.iloc[0:0], aggregates=board)),
    ]
    job.run_job(sources, reports_dir={reports!r}, site_out={site!r}, cache_dir={cache!r}, now={now!r},
                build_site=build_site, log=lambda s: None)
    """
)


def _data(tmp_path, k: int) -> tuple[str, str]:
    df, _, _ = simulate(10, 40, seed=21)
    if k:
        df.loc[df.index[:25], "score"] = 1 - df.loc[df.index[:25], "score"]
    board = pd.DataFrame(
        {
            "benchmark": "board",
            "model": [f"m{j}" for j in range(6 + k)],
            "score": [round(0.9 - 0.07 * j, 3) for j in range(6 + k)],
            "n_items": 200,
        }
    )
    data, agg = tmp_path / f"data{k}.csv", tmp_path / f"board{k}.csv"
    df.to_csv(data, index=False)
    board.to_csv(agg, index=False)
    return str(data), str(agg)


def _run(tmp_path, folder, k: int, kill_at: str | None = None) -> int:
    data, board = _data(tmp_path, k)
    script = SCRIPT.format(
        root=str(ROOT),
        kill_at=kill_at,
        data=data,
        board=board,
        reports=str(folder / "reports"),
        site=str(folder / "_site"),
        cache=str(folder / "cache"),
        now=NOW[k],
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode in (0, -signal.SIGKILL), done.stderr
    return done.returncode


def _state(folder) -> dict[str, bytes]:
    """Every file of reports/ and of the site; the run log without its timings."""
    out = {}
    for top in ("reports", "_site"):
        base = folder / top
        for p in sorted(base.rglob("*")):
            if p.is_file() and not p.name.endswith(".lock"):
                out[f"{top}/{p.relative_to(base)}"] = p.read_bytes()
    runs = pd.read_csv(folder / "reports" / "runs.csv", dtype=str)
    out["reports/runs.csv"] = runs.drop(columns="seconds")
    out.pop("_site/sitemap.xml.gz", None)  # gzip's header carries the build time; sitemap.xml is compared
    return out


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """The folder after the first run (reports, site, cache), copied by each test."""
    folder = tmp_path_factory.mktemp("first")
    assert _run(folder, folder, 0) == 0
    return folder


@pytest.fixture(scope="module")
def never_killed(first_run, tmp_path_factory):
    folder = tmp_path_factory.mktemp("never")
    shutil.copytree(first_run, folder, dirs_exist_ok=True)
    assert _run(folder, folder, 1) == 0
    return _state(folder)


@pytest.mark.parametrize("kill_at", PHASES)
def test_a_run_killed_at_any_phase_is_made_whole_by_the_next(first_run, never_killed, tmp_path, kill_at):
    shutil.copytree(first_run, tmp_path, dirs_exist_ok=True)
    assert _run(tmp_path, tmp_path, 1, kill_at) == -signal.SIGKILL  # it did reach the phase
    assert _run(tmp_path, tmp_path, 1) == 0
    state = _state(tmp_path)
    assert sorted(state) == sorted(never_killed)
    runs, expected = state.pop("reports/runs.csv"), never_killed["reports/runs.csv"]
    assert {k for k in state if state[k] != never_killed[k]} == set()
    if PHASES.index(kill_at) >= COMMITTED:  # the killed run did the work and logged it; the next found nothing new
        assert runs.iloc[:-1].equals(expected) and runs.iloc[-1]["new_snapshots"] == "0"
    else:  # the killed run left nothing, not even a log line
        assert runs.equals(expected)
    assert not (tmp_path / "reports" / ".staging").exists()
    assert not any(p.name.startswith(("._site", ".tmp")) for p in tmp_path.iterdir())


def test_the_kill_runs_do_stop_where_they_say(tmp_path):
    """The phase hook is reached in the order the job runs (a kill at a later phase leaves more behind)."""
    assert _run(tmp_path, tmp_path, 0, "commit swap") == -signal.SIGKILL
    assert not (tmp_path / "reports" / "latest.json").exists()  # committed but not yet swapped in
    assert (tmp_path / "reports" / ".staging" / "COMMIT.json").exists()
    assert _run(tmp_path, tmp_path, 0, "site swap") == -signal.SIGKILL
    assert (tmp_path / "reports" / "latest.json").exists() and not (tmp_path / "_site").exists()
    os.sync()
