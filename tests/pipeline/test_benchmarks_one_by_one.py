"""A source's benchmarks stand or fall one by one; a failing source publishes nothing new."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from benchwatch.cli import main
from benchwatch.pipeline import run_job
from benchwatch.sources import SourceTable
from tests.conftest import SHARED


def _config(tmp_path, url: str, files: list[str], extra: str = "") -> str:
    path = tmp_path / "benchwatch.toml"
    names = ", ".join(f'"{f}"' for f in files)
    path.write_text(
        f'[http]\nretries = 0\n[sources.arena]\nadapter = "evalarena"\nurl = "{url}"\nfiles = [{names}]\n{extra}'
    )
    return str(path)


def _lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def test_single_model_board_and_a_file_cut_at_a_line_boundary(fixture_server, tmp_path, capsys):
    # Built from the real eval-arena files (crux-eval/eval-arena @ 012edd75, data/<benchmark>.jsonl).
    real = SHARED / "upstream" / "evalarena"
    if not real.is_dir():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    root = fixture_server.root
    (root / "humaneval+.jsonl").write_bytes((real / "humaneval+.jsonl").read_bytes())
    mbpp = _lines(real / "mbpp+.jsonl")
    (root / "mbpp+.jsonl").write_text("".join(mbpp), encoding="utf-8")
    first_model = json.loads(mbpp[0])["model"]
    solo = [line.replace('"mbpp+"', '"solo"') for line in mbpp if json.loads(line)["model"] == first_model]
    (root / "solo.jsonl").write_text("".join(solo), encoding="utf-8")
    files = ["humaneval+.jsonl", "mbpp+.jsonl", "solo.jsonl"]
    config = _config(tmp_path, fixture_server.url, files)
    reports = tmp_path / "r"
    argv = ["run", "--config", config, "--reports", str(reports), "--cache", str(tmp_path / "c"), "--no-site"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "solo skipped: only one model" in out
    history = pd.read_csv(reports / "history.csv")
    assert sorted(history["benchmark"]) == ["humaneval+", "mbpp+"]
    status = json.loads((reports / "sources.json").read_text())["sources"]["arena"]
    assert status["status"] == "ok" and [s["benchmark"] for s in status["skipped"]] == ["solo"]

    # Upstream cuts mbpp+ at a line boundary (still valid JSONL) and changes humaneval+.
    (root / "mbpp+.jsonl").write_text("".join(mbpp[: len(mbpp) // 2]), encoding="utf-8")
    he = _lines(real / "humaneval+.jsonl")
    flipped = json.loads(he[0])
    flipped["pass1"] = 1.0 - flipped["pass1"]
    (root / "humaneval+.jsonl").write_text(json.dumps(flipped) + "\n" + "".join(he[1:]), encoding="utf-8")
    latest_before = {r["benchmark"]: r for r in json.loads((reports / "latest.json").read_text())["benchmarks"]}
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "mbpp+ HELD: lost 50% of its rows" in out and "solo skipped" in out
    history = pd.read_csv(reports / "history.csv")
    assert history.groupby("benchmark").size().to_dict() == {"humaneval+": 2, "mbpp+": 1}  # the rest published
    latest = {r["benchmark"]: r for r in json.loads((reports / "latest.json").read_text())["benchmarks"]}
    assert "solo" not in latest
    held = latest["mbpp+"]
    assert held["revision"] == latest_before["mbpp+"]["revision"] and "held back" in held["notice"]
    status = json.loads((reports / "sources.json").read_text())["sources"]["arena"]
    reasons = {s["benchmark"]: s["reason"] for s in status["skipped"]}
    assert set(reasons) == {"mbpp+", "solo"} and "lost 50%" in reasons["mbpp+"] and "one model" in reasons["solo"]
    alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    assert [a["kind"] for a in alerts if a["benchmark"] == "mbpp+"][-1] == "held"
    # The same cut file again raises no second alert; with the shrink declared expected, it is published.
    n_alerts = len(alerts)
    assert main(argv) == 0
    assert len(json.loads((reports / "alerts.json").read_text())["alerts"]) == n_alerts
    config = _config(tmp_path, fixture_server.url, files, '[rules]\nexpect_shrink = ["mbpp+"]\n')
    assert main(argv) == 0
    history = pd.read_csv(reports / "history.csv")
    assert history.groupby("benchmark").size().to_dict() == {"humaneval+": 2, "mbpp+": 2}
    assert (
        "notice"
        not in {r["benchmark"]: r for r in json.loads((reports / "latest.json").read_text())["benchmarks"]}["mbpp+"]
    )


def _table(frame: pd.DataFrame) -> SourceTable:
    return SourceTable(name="t", location="test", frame=frame.astype(str))


def _responses(bench: str, seed: int) -> pd.DataFrame:
    rng = __import__("numpy").random.default_rng(seed)
    rows = [(bench, f"m{m}", f"i{i}", float(rng.random() < 0.2 + 0.07 * m)) for m in range(8) for i in range(30)]
    return pd.DataFrame(rows, columns=["benchmark", "model", "item_id", "score"])


def test_a_source_that_fails_midway_publishes_nothing_new(tmp_path):
    kw = {"reports_dir": tmp_path / "r", "site_out": None, "cache_dir": tmp_path / "c", "log": lambda s: None}
    good = pd.concat([_responses("a", 1), _responses("b", 2)])
    run_job([("src", lambda: _table(good))], now="2026-01-01T00:00:00Z", strict=False, **kw)
    reports = tmp_path / "r"
    before = {p: p.read_bytes() for p in reports.rglob("*") if p.is_file() and p.name != "runs.csv"}
    # New data for `a`, then a target that names a benchmark with no difficulties: `b` fails the source.
    changed = pd.concat([_responses("a", 3), _responses("b", 4)])

    def failing() -> SourceTable:
        raise_on = changed.copy()
        raise_on.loc[raise_on.index[-1], "score"] = "not a number"
        return _table(raise_on)

    result = run_job([("src", failing)], now="2026-01-02T00:00:00Z", strict=False, **kw)
    assert result.sources_failed == 1 and result.new_snapshots == 0
    after = {
        p: p.read_bytes() for p in reports.rglob("*") if p.is_file() and p.name not in ("runs.csv", "sources.json")
    }
    assert after == {p: b for p, b in before.items() if p.name != "sources.json"}
    status = json.loads((reports / "sources.json").read_text())["sources"]["src"]
    assert status["status"] == "failed" and "not a number" in status["error"]


def test_a_benchmark_gone_upstream_is_kept_and_marked(tmp_path):
    kw = {"reports_dir": tmp_path / "r", "site_out": None, "cache_dir": tmp_path / "c", "log": lambda s: None}
    both = pd.concat([_responses("a", 1), _responses("b", 2)])
    run_job([("src", lambda: _table(both))], now="2026-01-01T00:00:00Z", **kw)
    run_job([("src", lambda: _table(_responses("a", 1)))], now="2026-01-02T00:00:00Z", **kw)
    reports = tmp_path / "r"
    latest = {r["benchmark"]: r for r in json.loads((reports / "latest.json").read_text())["benchmarks"]}
    assert latest["b"]["gone_since"] == "2026-01-02T00:00:00Z" and "gone_since" not in latest["a"]
    alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    assert [a["title"] for a in alerts if a["kind"] == "gone"] == ["b is no longer published by its source src"]
    # It comes back: the mark goes, and no second gone alert is raised meanwhile.
    run_job([("src", lambda: _table(_responses("a", 1)))], now="2026-01-03T00:00:00Z", **kw)
    run_job([("src", lambda: _table(both))], now="2026-01-04T00:00:00Z", **kw)
    latest = {r["benchmark"]: r for r in json.loads((reports / "latest.json").read_text())["benchmarks"]}
    assert "gone_since" not in latest["b"]
    alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    assert sum(a["kind"] == "gone" for a in alerts) == 1


@pytest.mark.parametrize("new_first", [False, True])
def test_a_benchmark_another_source_takes_over_has_moved_not_gone(tmp_path, new_first):
    """A source that continues another's files in a new format (all-the-noises after eval-arena) publishes one of
    its benchmarks under the same name: the record is the new source's, its history goes on (the same rows: no
    second history row), and the alerts say it moved, not that it is gone, whichever source runs first."""
    kw = {"reports_dir": tmp_path / "r", "site_out": None, "cache_dir": tmp_path / "c", "log": lambda s: None}
    a, b = _responses("a", 1), _responses("b", 2)
    run_job([("old", lambda: _table(pd.concat([a, b])))], now="2026-01-01T00:00:00Z", **kw)
    sources = [("old", lambda: _table(a)), ("new", lambda: _table(b))]
    run_job(sources[::-1] if new_first else sources, now="2026-01-02T00:00:00Z", **kw)
    reports = tmp_path / "r"
    latest = {r["benchmark"]: r for r in json.loads((reports / "latest.json").read_text())["benchmarks"]}
    assert latest["b"]["source_name"] == "new" and "gone_since" not in latest["b"]
    assert latest["a"]["source_name"] == "old"
    alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    assert not [x for x in alerts if x["kind"] == "gone"]
    moved = [x["title"] for x in alerts if x["kind"] == "moved"]
    assert moved == ["b is now read from source new (before: old)"]
    assert (pd.read_csv(reports / "history.csv")["benchmark"] == "b").sum() == 1
    statuses = json.loads((reports / "sources.json").read_text())["sources"]
    assert statuses["old"]["gone"] == []
