"""A source whose downloads all answer 304 with the bodies of its last published run is not parsed again;
anything that could change its records makes it read again (issue 13)."""

from __future__ import annotations

import json

import pytest

from benchwatch.cli import main
from benchwatch.sources import ADAPTERS
from tests.sources.conftest import run_argv
from tests.sources.test_faults import _board, _line


@pytest.fixture
def reads(monkeypatch):
    """How many times the EvalPlus adapter parsed a body (requested before `setup`: its first run counts too)."""
    calls = []
    real = ADAPTERS["evalplus"]

    def counting(fetcher, cfg):
        calls.append(cfg.name)
        return real(fetcher, cfg)

    monkeypatch.setitem(ADAPTERS, "evalplus", counting)
    return calls


def _reports(tmp_path) -> dict[str, bytes]:
    root = tmp_path / "r"
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file() and "lock" not in p.name}


def test_an_unchanged_source_costs_one_request_and_no_parse(reads, setup, capsys):
    reads.clear()  # forget the first run's reads
    server, tmp_path, argv, _ = setup
    before = _reports(tmp_path)
    hits = server.hits["/good.json"]
    capsys.readouterr()
    assert main(argv) == 0
    assert reads == []  # neither source was parsed
    assert server.hits["/good.json"] == hits + 1
    assert "nothing read" in _line(capsys.readouterr().out, "good")
    after = _reports(tmp_path)
    assert {k for k in after if after[k] != before.get(k)} == {"runs.csv"}
    assert after["runs.csv"].decode().splitlines()[-1].endswith("good:not-modified flaky:not-modified")


def test_a_changed_source_is_read_with_one_request(reads, setup):
    reads.clear()  # forget the first run's reads
    server, _, argv, _ = setup
    (server.root / "flaky.json").write_bytes(_board(7.0))
    hits = server.hits["/flaky.json"]
    assert main(argv) == 0
    assert reads == ["flaky"] and server.hits["/flaky.json"] == hits + 1  # the check's download is reused


@pytest.mark.parametrize("why", ["rules", "method", "force", "failed before"])
def test_whatever_could_change_the_records_reads_the_source_again(reads, setup, why):
    reads.clear()  # forget the first run's reads
    _, tmp_path, argv, _ = setup
    if why == "rules":
        config = next(a for a in argv if a.endswith(".toml"))
        with open(config, "a") as fh:
            fh.write('[rules]\nexpect_shrink = ["good humaneval"]\n')
    elif why == "force":
        argv = [*argv, "--force"]
    elif why == "failed before":
        status = json.loads((tmp_path / "r" / "sources.json").read_text())
        status["sources"]["good"]["status"] = "failed"
        (tmp_path / "r" / "sources.json").write_text(json.dumps(status))
    if why == "method":  # boards have no fit: the method does not matter to them
        assert main([*argv, "--method", "nuts"]) == 0 and reads == []
        return
    assert main(argv) == 0
    assert "good" in reads


def test_a_local_file_with_the_same_bytes_is_not_parsed_again(reads, tmp_path, capsys):
    """A source read from a file on disk: the same bytes, nothing parsed; one byte changed, read again."""
    board = tmp_path / "board.json"
    board.write_bytes(_board(5.0))
    config = tmp_path / "benchwatch.toml"
    config.write_text(f'[sources.disk]\nadapter = "evalplus"\nurl = "{board.as_posix()}"\n')
    argv = run_argv(config, tmp_path)
    assert main(argv) == 0 and reads == ["disk"]
    capsys.readouterr()
    assert main(argv) == 0 and reads == ["disk"]  # the same bytes: not parsed
    assert "nothing read" in _line(capsys.readouterr().out, "disk")
    board.write_bytes(_board(6.0))
    assert main(argv) == 0 and reads == ["disk", "disk"]


def test_the_upstream_date_is_the_newest_last_modified_a_server_sent():
    from pathlib import Path

    from benchwatch.sources.http import Download
    from benchwatch.sources.parsing import provenance, upstream_date

    def dl(when):
        return Download("u", Path("p"), "fetched", "ab" * 32, 1, "", "2026-12-01T00:00:00Z", 0.0, False, when)

    downloads = [dl("Tue, 22 Apr 2025 12:00:00 GMT"), dl(None), dl("Wed, 20 Aug 2025 23:30:00 GMT"), dl("not a date")]
    assert upstream_date(downloads) == "2025-08-20"
    assert provenance("u", downloads)["upstream_date"] == "2025-08-20"
    assert "upstream_date" not in provenance("u", [dl(None)])  # a local file, a server that says nothing
