"""Fault isolation over a real local server: each fault ends with the right log line, the other
source done, and the failing source's previous snapshot untouched."""

from __future__ import annotations

import json
import time

import pytest

from benchwatch.cli import main

MODELS = [f"model-{i}" for i in range(7)]


def _board(shift: float = 0.0) -> bytes:
    return json.dumps({m: {"pass@1": {"humaneval": 90 - 5 * i + shift}} for i, m in enumerate(MODELS)}).encode()


def _flaky_record(tmp_path) -> dict:
    latest = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]
    return next(r for r in latest if r["source_name"] == "flaky")


def _sources(tmp_path) -> dict:
    return json.loads((tmp_path / "r" / "sources.json").read_text())["sources"]


def _line(out: str, name: str) -> str:
    return [line for line in out.splitlines() if line.startswith("source") and f" {name}:" in line][-1]


def test_500_then_success_is_retried(setup, capsys):
    server, tmp_path, argv, _ = setup
    capsys.readouterr()
    server.script["/flaky.json"] = ["500"]
    (server.root / "flaky.json").write_bytes(_board(2.0))
    before = server.hits["/flaky.json"]
    assert main(argv) == 0
    assert server.hits["/flaky.json"] == before + 2
    assert "flaky: fetched" in _line(capsys.readouterr().out, "flaky")
    assert _sources(tmp_path)["flaky"]["status"] == "ok"


def test_429_honours_retry_after(setup, capsys):
    server, _tmp_path, argv, _ = setup
    server.script["/flaky.json"] = ["429:1"]
    start = time.perf_counter()
    assert main(argv) == 0
    assert time.perf_counter() - start >= 1.0
    assert ("/flaky.json", 429) in server.statuses
    assert "flaky: " in _line(capsys.readouterr().out, "flaky")


def test_not_modified_costs_one_request_and_no_refit(setup, capsys):
    server, tmp_path, argv, _ = setup
    capsys.readouterr()
    before = server.hits["/flaky.json"]
    history = (tmp_path / "r" / "history.csv").read_text()
    assert main(argv) == 0
    assert server.hits["/flaky.json"] == before + 1
    assert ("/flaky.json", 304) in server.statuses
    assert "flaky: not-modified" in _line(capsys.readouterr().out, "flaky")
    assert (tmp_path / "r" / "history.csv").read_text() == history


@pytest.mark.parametrize(
    ("fault", "http", "words"),
    [
        ("truncated", {}, "invalid or truncated JSON"),
        ("hang:2", {"read_timeout": 0.5, "retries": 0}, "timed out after 1 attempt"),
        ("html", {}, "unexpected content type"),
        ("ok", {"max_bytes": 100}, "exceeds the cap"),
        ("loop", {}, "too many redirects"),  # issue 27: the message named no URL
    ],
)
def test_a_failing_source_keeps_its_last_good_data(setup, capsys, fault, http, words):
    server, tmp_path, argv, write_config = setup
    write_config(**http)
    previous = _flaky_record(tmp_path)
    server.script["/flaky.json"] = [fault] * 3
    (server.root / "flaky.json").write_bytes(_board(3.0))  # new data that must not leak in through a fault
    (server.root / "good.json").write_bytes(_board(-1.0) if fault != "ok" else b"{}")
    capsys.readouterr()
    status = main(argv)
    out = capsys.readouterr().out
    flaky = _line(out, "flaky")
    assert "FAILED" in flaky and words in flaky and "/flaky.json" in flaky
    assert _flaky_record(tmp_path) == previous
    sources = _sources(tmp_path)
    assert sources["flaky"]["status"] == "failed" and words in sources["flaky"]["error"]
    if fault != "ok":
        assert status == 0 and sources["good"]["status"] == "ok"
        assert "good: fetched" in _line(out, "good")


def test_all_sources_failing_exits_1(setup, capsys):
    server, tmp_path, argv, _ = setup
    server.script["/flaky.json"] = ["500"] * 3
    server.script["/good.json"] = ["500"] * 3
    assert main(argv) == 1
    runs = (tmp_path / "r" / "runs.csv").read_text().splitlines()
    assert runs[-1].split(",")[5] == "failed"
