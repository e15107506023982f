"""The defects of the fault campaign (issue 12), each as the run that showed it: names that collide, a
source that fails late, phantom changes, a failed site build, read-only folders, a held lock."""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest
from filelock import FileLock, Timeout

import benchwatch.pipeline.benchmark as benchmark_module
import benchwatch.pipeline.phases as phases_module
import benchwatch.pipeline.workers as workers_module
from benchwatch.cli import main
from benchwatch.pipeline import BusyError, run_job
from benchwatch.sources import SourceTable
from benchwatch.store import safe_slug, slug_collisions
from tests.conftest import ROOT
from tests.irt.test_rasch_map import simulate


def _quiet(*_: object) -> None:
    pass


def _per_item(name: str, seed: int = 3, flip: int = 0) -> pd.DataFrame:
    df, _, _ = simulate(8, 30, seed=seed)
    if flip:
        df.loc[df.index[:flip], "score"] = 1 - df.loc[df.index[:flip], "score"]
    return df.assign(benchmark=name)


def _run(tmp_path, sources, **kw):
    return run_job(
        sources,
        reports_dir=tmp_path / "r",
        site_out=kw.pop("site_out", None),
        cache_dir=tmp_path / "c",
        log=_quiet,
        **kw,
    )


def _files(root) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "lock" not in p.name
    }


# --- names and files -------------------------------------------------------------------------------------------


def test_file_names_are_one_to_one_even_for_names_that_look_like_slugs():
    names = ["humaneval+", safe_slug("humaneval+"), "HumanEval+", "humaneval", "humaneval-", "a" * 61, "a" * 60]
    names += [safe_slug(n) for n in list(names)] + ["x", "x ", "", "-", "--"]
    slugs = {n: safe_slug(n) for n in names}
    assert len(set(slugs.values())) == len(set(names))  # distinct names, distinct files
    assert slugs["humaneval"] == "humaneval"  # a plain slug stays readable
    assert slug_collisions(names) == []


def test_a_benchmark_whose_file_name_is_taken_is_refused(tmp_path, monkeypatch):
    first = _per_item("alpha")
    _run(tmp_path, [("a", lambda: SourceTable("a", "a.csv", first.astype(str)))], strict=False)
    before = _files(tmp_path / "r")
    monkeypatch.setattr(
        "benchwatch.pipeline.run_state.slug_collisions", lambda names: [("alpha", "beta")] if "beta" in names else []
    )
    second = _per_item("beta")
    result = _run(tmp_path, [("b", lambda: SourceTable("b", "b.csv", second.astype(str)))], strict=False)
    assert result.sources_failed == 1
    status = json.loads((tmp_path / "r" / "sources.json").read_text())["sources"]["b"]
    assert "would share one file name" in status["error"]
    after = _files(tmp_path / "r")
    assert {k for k in after if after.get(k) != before.get(k)} <= {"sources.json", "runs.csv"}


def test_an_upstream_name_that_looks_like_a_hashed_slug_writes_its_own_files(tmp_path):
    plus = _per_item("humaneval+", seed=3)
    look_alike = _per_item(safe_slug("humaneval+"), seed=4)
    both = pd.concat([plus, look_alike]).astype(str)
    _run(tmp_path, [("s", lambda: SourceTable("s", "s.csv", both))])
    latest = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]
    assert sorted(r["benchmark"] for r in latest) == sorted(["humaneval+", safe_slug("humaneval+")])
    assert len(list((tmp_path / "r" / "items").glob("*.csv"))) == 2
    assert len(list((tmp_path / "r" / "snapshots" / "responses").glob("*.csv.gz"))) == 2


# --- a source commits all or nothing -----------------------------------------------------------------------------


@pytest.mark.parametrize("forked", [True, False])
def test_a_source_that_fails_after_auditing_a_benchmark_publishes_none_of_it(tmp_path, monkeypatch, forked):
    base = pd.concat([_per_item("one"), _per_item("two", seed=8)]).astype(str)
    _run(tmp_path, [("s", lambda: SourceTable("s", "s.csv", base))])
    before = _files(tmp_path / "r")
    changed = pd.concat([_per_item("one", flip=20), _per_item("two", seed=8, flip=20)]).astype(str)
    real = benchmark_module.audit_with_history

    def two_dies(rows, *args, **kwargs):  # by name: the same in a forked worker as one at a time
        if rows["benchmark"].iloc[0] == "two":
            raise RuntimeError("the machine ran out of something")
        return real(rows, *args, **kwargs)

    monkeypatch.setattr(benchmark_module, "audit_with_history", two_dies)
    monkeypatch.setattr(workers_module, "PARALLEL_CELLS", 10**9 if forked else 0)
    result = _run(tmp_path, [("s", lambda: SourceTable("s", "s.csv", changed))], strict=False)
    assert result.sources_failed == 1  # "one" was audited, "two" failed: the source publishes neither
    after = _files(tmp_path / "r")
    assert {k for k in after if after.get(k) != before.get(k)} == {"sources.json", "runs.csv"}
    assert json.loads(after["sources.json"])["sources"]["s"]["status"] == "failed"


# --- the changelog: no phantom changes -----------------------------------------------------------------------------


def _board(models: int) -> pd.DataFrame:
    # 75.6 / 100 is 0.7559999999999999 in binary: the source publishes 75.6
    scores = [s / 100 for s in (91.3, 88.7, 84.1, 80.9, 75.6, 71.7, 69.9, 64.2)[:models]]
    return pd.DataFrame(
        {"benchmark": "board", "model": [f"m{k}" for k in range(models)], "score": scores, "n_items": 164}
    )


def _board_source(models: int):
    board = _board(models)
    return [("b", lambda: SourceTable("b", "b.json", pd.DataFrame(), aggregates=board))]


@pytest.mark.parametrize("lose_cache", [False, True])
def test_a_new_model_is_the_only_change_logged(tmp_path, lose_cache):
    _run(tmp_path, _board_source(7))
    if lose_cache:
        shutil.rmtree(tmp_path / "c", ignore_errors=True)
    _run(tmp_path, _board_source(8))
    changes = json.loads((tmp_path / "r" / "changelog.json").read_text())["changes"]
    assert changes[-1]["models_added"] == {"count": 1, "names": ["m7"]}
    assert changes[-1]["models_rescored"]["count"] == 0
    assert changes[-1]["models_removed"]["count"] == 0


# --- the site: the last good one stays --------------------------------------------------------------------------


def test_a_failed_site_build_keeps_the_last_good_site_and_says_why_in_one_line(tmp_path, monkeypatch, capsys):
    data = tmp_path / "in.csv"
    _per_item("sim").to_csv(data, index=False)
    argv = ["run", "--input", str(data), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
    argv += ["--site-out", str(tmp_path / "_site")]
    assert main(argv) == 0
    site = _files(tmp_path / "_site")
    assert "index.html" in site

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "docs" / "index.md"))

    monkeypatch.setattr("benchwatch.site.build.write_pages", full)
    _per_item("sim", flip=20).to_csv(data, index=False)  # new data: the site must be built again
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"benchwatch: error: {tmp_path / 'docs' / 'index.md'}: No space left on device"]
    assert _files(tmp_path / "_site") == site  # byte for byte
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("._site")]


def test_a_read_only_reports_folder_is_one_line(tmp_path, monkeypatch, capsys):
    data = tmp_path / "in.csv"
    _per_item("sim").to_csv(data, index=False)

    def read_only(path, data):
        raise PermissionError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr("benchwatch.history.folder.atomic_write_bytes", read_only)
    argv = ["run", "--input", str(data), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c"), "--no-site"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Read-only file system" in err[0] and str(tmp_path / "r") in err[0]


# --- input that used to give a traceback -------------------------------------------------------------------------


def test_mixed_time_zones_are_read_as_utc(tmp_path, capsys):
    df = _per_item("sim")
    zones = ["2025-01-01T23:30:00-05:00", "2025-01-02", "2025-01-02T01:00:00+00:00", "2025-01-03T00:30:00+09:00"]
    df["date"] = [zones[hash(m) % 4] for m in df["model"]]
    data = tmp_path / "in.csv"
    df.to_csv(data, index=False)
    argv = ["run", "--input", str(data), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c"), "--no-site"]
    assert main(argv) == 0
    by_date = pd.read_csv(next((tmp_path / "r" / "by_date").glob("*.csv")), dtype=str)
    assert set(by_date["date"]) <= {"2025-01-02"}  # every one of these instants is 2 January in UTC


@pytest.mark.parametrize("trials", ["1e308", "0", "2.5", "inf"])
def test_absurd_trials_are_one_line(tmp_path, capsys, trials):
    df = _per_item("sim").astype(str)
    df["trials"] = "10"
    df.loc[5, "trials"] = trials
    data = tmp_path / "in.csv"
    df.to_csv(data, index=False)
    argv = ["run", "--input", str(data), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c"), "--no-site"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'trials'" in err[0] and "line 7" in err[0] and trials in err[0]


# --- the lock -----------------------------------------------------------------------------------------------------


def test_a_held_lock_is_announced_and_bounded_by_lock_timeout(tmp_path, capsys):
    (tmp_path / "r").mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time
                sys.path.insert(0, {str(ROOT)!r})
                from filelock import FileLock
                with FileLock({str(tmp_path / "r" / ".benchwatch.lock")!r}):
                    print("held", flush=True)
                    time.sleep(60)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        data = tmp_path / "in.csv"
        _per_item("sim").to_csv(data, index=False)
        argv = ["run", "--input", str(data), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
        start = time.perf_counter()
        assert main([*argv, "--no-site", "--lock-timeout", "1"]) == 3
        assert time.perf_counter() - start < 10
        captured = capsys.readouterr()
        assert "waiting up to 1 s" in captured.out and "gave up after 1 s" in captured.err
    finally:
        holder.kill()
        holder.wait()
    assert FileLock(str(tmp_path / "r" / ".benchwatch.lock")).acquire(timeout=5)  # the dead holder left it free
    with pytest.raises(BusyError):  # the Python API raises instead of waiting forever too
        lock = FileLock(str(tmp_path / "r" / ".benchwatch.lock"))
        lock.acquire()
        try:
            _run(tmp_path, [("s", lambda: SourceTable("s", "s.csv", _per_item("sim").astype(str)))], lock_timeout=0.2)
        finally:
            lock.release()


def test_sources_not_started_by_the_run_deadline_fail_and_keep_their_data(tmp_path):
    first = _per_item("sim").astype(str)
    _run(tmp_path, [("s", lambda: SourceTable("s", "s.csv", first))])
    latest = (tmp_path / "r" / "latest.json").read_bytes()
    loaded = []
    changed = _per_item("sim", flip=20).astype(str)
    result = _run(
        tmp_path, [("s", lambda: loaded.append(1) or SourceTable("s", "s.csv", changed))], strict=False, deadline=0
    )
    assert result.sources_failed == 1 and loaded == []  # never even fetched
    status = json.loads((tmp_path / "r" / "sources.json").read_text())["sources"]["s"]
    assert "deadline passed before this source started" in status["error"]
    assert (tmp_path / "r" / "latest.json").read_bytes() == latest


def test_the_lock_is_held_through_the_site_build(tmp_path, monkeypatch):
    """Issue 27, case 8: the lock ended before the site build, so a second run could start its own build and
    remove the first one's folder under it. While the site is built, no other run can take the lock."""
    held = {}

    def phase(name):
        if name == "site build":
            other = FileLock(str(tmp_path / "r" / ".benchwatch.lock"))
            try:
                other.acquire(timeout=0)
                other.release()
                held[name] = False
            except Timeout:
                held[name] = True

    monkeypatch.setattr(phases_module, "phase", phase)
    sources = [("s", lambda: SourceTable("s", "s.csv", _per_item("sim").astype(str)))]
    _run(tmp_path, sources, site_out=tmp_path / "_site")
    assert held == {"site build": True}
    assert (tmp_path / "_site" / "index.html").exists()


def test_an_item_count_that_more_than_doubles_is_an_alert(tmp_path):
    """Issue 27: the item count doubling overnight raised no alert (a shrink is held back; growth is usually
    real, so it is published, with an alert naming both counts)."""
    small, _, _ = simulate(8, 30, seed=3)
    large, _, _ = simulate(8, 70, seed=3)
    for df in (small, large):
        _run(tmp_path, [("s", lambda df=df: SourceTable("s", "s.csv", df.assign(benchmark="sim").astype(str)))])
    alerts = json.loads((tmp_path / "r" / "alerts.json").read_text())["alerts"]
    grew = [a for a in alerts if a["kind"] == "grew"]
    assert len(grew) == 1 and "30 -> 70 items" in grew[0]["title"] and "max_growth" in grew[0]["title"]
    latest = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]
    assert latest[0]["n_items"] == 70  # published


def test_max_growth_is_checked():
    from benchwatch.errors import InputError
    from benchwatch.rules import rules_from_config

    assert rules_from_config({"max_growth": 2}).max_growth == 2.0
    with pytest.raises(InputError, match="max_growth"):
        rules_from_config({"max_growth": -1})
