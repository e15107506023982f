"""Nothing sticks: a trickled body ends at its deadline, and a bad cache entry is dropped and fetched
again instead of failing the source on every run while upstream is healthy (issue 12)."""

from __future__ import annotations

import hashlib
import json
import os
import time

import pytest

from benchwatch.cli import main
from benchwatch.sources import Fetcher, FetchError
from tests.sources.test_faults import _board, _line, _sources


def test_a_trickled_body_ends_at_the_download_deadline(fixture_server, tmp_path):
    (fixture_server.root / "slow.json").write_bytes(_board())
    fixture_server.script["/slow.json"] = ["trickle:0.2"]
    with Fetcher(tmp_path, read_timeout=5, retries=0, deadline=1.5) as fetcher:
        start = time.perf_counter()
        with pytest.raises(FetchError, match=r"took longer than 1\.5 s"):
            fetcher.get(fixture_server.url + "slow.json", source="slow")
        assert time.perf_counter() - start < 4  # each byte arrives well within the read timeout
    assert not list((tmp_path / "http").glob("*.part"))  # the partial download is gone


def test_the_run_deadline_caps_every_download(fixture_server, tmp_path):
    (fixture_server.root / "slow.json").write_bytes(_board())
    fixture_server.script["/slow.json"] = ["trickle:0.2"]
    fetcher = Fetcher(tmp_path, retries=0, deadline=600, stop_at=time.monotonic() + 1.0)
    with fetcher, pytest.raises(FetchError, match="or the run's"):
        fetcher.get(fixture_server.url + "slow.json", source="slow")


def test_a_part_left_by_a_killed_run_is_removed(tmp_path):
    part = tmp_path / "http" / "abc.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(b"half")
    old = time.time() - 3600
    os.utime(part, (old, old))
    Fetcher(tmp_path, deadline=60).close()
    assert not part.exists()


def test_a_trickling_source_fails_alone_with_its_last_good_data(setup, capsys):
    server, tmp_path, argv, write_config = setup
    write_config(deadline=1)
    (server.root / "flaky.json").write_bytes(_board(4.0))
    server.script["/flaky.json"] = ["trickle:0.2"] * 4
    (server.root / "good.json").write_bytes(_board(-2.0))
    capsys.readouterr()
    start = time.perf_counter()
    assert main(argv) == 0
    assert time.perf_counter() - start < 30
    out = capsys.readouterr().out
    assert "FAILED" in _line(out, "flaky") and "took longer than 1 s" in _line(out, "flaky")
    assert "good: fetched" in _line(out, "good")
    assert _sources(tmp_path)["flaky"]["status"] == "failed"


def _entry(tmp_path, server, name):
    """The cache's metadata and body files of one URL."""
    key = hashlib.sha256((server.url + name).encode()).hexdigest()[:24]
    return tmp_path / "c" / "http" / f"{key}.json", tmp_path / "c" / "http" / f"{key}.body"


def _recovers(server, tmp_path, argv, capsys) -> str:
    """Two runs on a healthy upstream: the first must already succeed; returns its flaky line."""
    (server.root / "flaky.json").write_bytes(_board(5.0))  # new data, so that a success is visible
    capsys.readouterr()
    assert main(argv) == 0
    line = _line(capsys.readouterr().out, "flaky")
    assert "FAILED" not in line, line
    assert _sources(tmp_path)["flaky"]["status"] == "ok"
    return line


def test_a_304_to_a_request_without_a_cached_copy_does_not_stick(setup, capsys):
    server, tmp_path, argv, _ = setup
    meta, body = _entry(tmp_path, server, "flaky.json")
    meta.unlink()
    body.unlink()
    server.script["/flaky.json"] = ["304"]
    capsys.readouterr()
    main(argv)
    assert "304 Not Modified to a request sent without a cached copy" in _line(capsys.readouterr().out, "flaky")
    assert not body.exists()  # nothing was stored from it
    assert "fetched" in _recovers(server, tmp_path, argv, capsys)


@pytest.mark.parametrize("damage", ["body", "meta-cut", "meta-missing-fields", "meta-gone"])
def test_a_damaged_cache_entry_is_dropped_and_fetched_again(setup, capsys, damage):
    server, tmp_path, argv, _ = setup
    meta, body = _entry(tmp_path, server, "flaky.json")
    if damage == "body":
        body.write_bytes(b'{"model-0": {"pass@1": ')  # cut, but the server's ETag still matches the metadata
    elif damage == "meta-cut":
        meta.write_text(meta.read_text()[:20])
    elif damage == "meta-missing-fields":
        meta.write_text(json.dumps({"etag": json.loads(meta.read_text())["etag"]}))
    else:
        meta.unlink()
    (server.root / "flaky.json").write_bytes(_board(1.0))  # the same data as cached: the server says 304
    capsys.readouterr()
    assert main(argv) == 0
    line = _line(capsys.readouterr().out, "flaky")
    assert "FAILED" not in line and "flaky: fetched" in line  # fetched whole again, not trusted
    assert _sources(tmp_path)["flaky"]["status"] == "ok"


def test_a_cached_body_that_no_longer_parses_is_fetched_again_once(setup, capsys):
    server, tmp_path, argv, _ = setup
    meta, body = _entry(tmp_path, server, "flaky.json")
    junk = b'{"model-0": {"pass@1": {"humaneval": "not a number"}}}'
    body.write_bytes(junk)  # a cached copy consistent with its hash that the adapter cannot read
    info = json.loads(meta.read_text())
    meta.write_text(json.dumps({**info, "sha256": hashlib.sha256(junk).hexdigest()}))
    capsys.readouterr()
    before = server.hits["/flaky.json"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "FAILED" not in _line(out, "flaky")
    assert "a cached copy failed to parse" in out
    assert server.hits["/flaky.json"] == before + 2  # the 304, then one unconditional request
    assert _sources(tmp_path)["flaky"]["status"] == "ok"
