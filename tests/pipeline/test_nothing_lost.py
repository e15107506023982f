"""Issue 62, nothing lost part four: on real upstream files over loopback (eval-arena, EvalPlus, SWE-bench), each
damage that nobody repairs followed by one plain run whose sources all answer "not modified". A staging folder
left with its commit record (its latest.json lacks records: they come back rebuilt from history.csv, without
their source), alerts.json cut, changelog.json cut: after the run every record of before is whole (refitted from
the cached copies, not left rebuilt), every page is there, every alert is there with its title and evidence, every
changelog entry is there; `check` names each damage before the run and is clean after it."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest

from benchwatch.cli import main
from benchwatch.history import check_reports

pytestmark = pytest.mark.slow

SOURCES = "evalarena,evalplus,swebench"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The loopback upstream and the shipped configuration on it; a first run's folder (reports, cache, site)."""
    from tests.conftest import SHARED
    from tests.sources.shipped import served_root, shipped_config_on
    from tests.sources.upstream_server import Upstream

    if not (SHARED / "upstream").is_dir():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    root = tmp_path_factory.mktemp("first")
    with Upstream(served_root(SHARED / "upstream", tmp_path_factory.mktemp("served"))) as upstream:
        config = shipped_config_on(upstream, root)
        assert _run(config, root, "2026-12-01T06:00:00Z")[0] == 0
        yield config, root


def _run(config: str, folder: Path, now: str) -> tuple[int, str]:
    argv = ["run", "--config", config, "--sources", SOURCES, "--now", now]
    argv += ["--reports", str(folder / "r"), "--cache", str(folder / "c"), "--site-out", str(folder / "site")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def _json(path: Path, key: str) -> list[dict]:
    return json.loads(path.read_text())[key]


def _stale_commit(r: Path) -> str:
    """A run killed while swapping its files in, whose staged latest.json lacks most records (it read an older
    one): the commit record names it with the digest of today's, so it is swapped in, and the records it lacks
    come back from history.csv, rebuilt (without their source, kind and 33 more fields)."""
    body = json.loads((r / "latest.json").read_text())
    older = {**body, "benchmarks": body["benchmarks"][:1]}
    (r / ".staging").mkdir()
    (r / ".staging" / "latest.json").write_text(json.dumps(older))
    base = {"latest.json": hashlib.sha256((r / "latest.json").read_bytes()).hexdigest()}
    commit = {"files": ["latest.json", "alerts.json"], "base": base}  # alerts.json: already swapped in
    (r / ".staging" / "COMMIT.json").write_text(json.dumps(commit))
    return "interrupted while its files were swapped in"


def _cut(name: str):
    def cut(r: Path) -> str:
        text = (r / name).read_text()
        (r / name).write_text(text[: len(text) // 2])
        return name

    return cut


DAMAGE = {"a staging folder left": _stale_commit, "alerts.json cut": _cut("alerts.json")}
DAMAGE["changelog.json cut"] = _cut("changelog.json")


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_one_plain_run_on_unchanged_sources_leaves_nothing_lost(served, tmp_path, case):
    config, first = served
    shutil.copytree(first, tmp_path, dirs_exist_ok=True)
    r = tmp_path / "r"
    records = {rec["benchmark"]: rec for rec in _json(r / "latest.json", "benchmarks")}
    alerts = {a["id"]: a for a in _json(r / "alerts.json", "alerts")}
    changes = _json(r / "changelog.json", "changes")
    pages = sorted(p.relative_to(tmp_path / "site") for p in (tmp_path / "site" / "benchmarks").glob("*/index.html"))
    assert len(records) >= 10 and len(alerts) >= 10 and len(changes) >= 10 and len(pages) >= 5
    said = DAMAGE[case](r)
    found = check_reports(r, tmp_path / "site")
    assert any(said in line for line in found), found  # `check` names the damage before the run

    code, log = _run(config, tmp_path, "2026-12-02T06:00:00Z")
    assert code == 0 and "heal" in log
    # every source answered "not modified"; where a record had to be refitted it was read from its cached copy
    assert all(f"{source}: not-modified" in log for source in SOURCES.split(",")), log
    now = {rec["benchmark"]: rec for rec in _json(r / "latest.json", "benchmarks")}
    assert not [name for name, rec in now.items() if rec.get("rebuilt")]
    for name, rec in records.items():  # every record whole: each field of before, with its value
        assert name in now, name
        assert {k: now[name].get(k) for k in ("kind", "source_name", "revision", "state", "ddm")} == {
            k: rec.get(k) for k in ("kind", "source_name", "revision", "state", "ddm")
        }, name
        assert set(rec) <= set(now[name]), (name, set(rec) - set(now[name]))
    after = {a["id"]: a for a in _json(r / "alerts.json", "alerts")}
    assert {i: a["title"] for i, a in alerts.items()} == {i: after[i]["title"] for i in alerts}
    assert all(after[i] == a for i, a in alerts.items())  # equal to the originals, evidence included
    assert all(c in _json(r / "changelog.json", "changes") for c in changes)
    assert (
        sorted(p.relative_to(tmp_path / "site") for p in (tmp_path / "site" / "benchmarks").glob("*/index.html"))
        == pages
    )
    assert check_reports(r, tmp_path / "site") == []
