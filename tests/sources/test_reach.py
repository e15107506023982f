"""A server no connection can be made to (issue 60): one attempt and one short retry, every source's server tried
at once; the retries and backoff of a server's faults are left as they were."""

from __future__ import annotations

import socket
import time

import pytest

from benchwatch.sources import Fetcher, FetchError, unreachable
from benchwatch.sources.http import CONNECT_WAIT
from benchwatch.sources.reach import address


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_is_tried_twice_with_a_short_wait_not_the_backoff(tmp_path):
    waits: list[float] = []
    url = f"http://127.0.0.1:{_closed_port()}/board.json"
    with Fetcher(tmp_path, retries=3, backoff=8.0, sleep=waits.append) as fetcher, pytest.raises(FetchError) as err:
        fetcher.get(url, source="board")
    assert waits == [CONNECT_WAIT]
    assert "after 2 attempt(s)" in str(err.value) and url in str(err.value) and "refused" in str(err.value)


def test_a_server_fault_keeps_its_retries_and_backoff(tmp_path, fixture_server):
    (fixture_server.root / "board.json").write_text("{}")
    fixture_server.script["/board.json"] = ["500"] * 4
    waits: list[float] = []
    with Fetcher(tmp_path, retries=3, backoff=0.01, sleep=waits.append) as fetcher, pytest.raises(FetchError) as err:
        fetcher.get(fixture_server.url + "board.json", source="board")
    assert len(waits) == 3 and "HTTP 500 after 4 attempt(s)" in str(err.value)


def test_every_server_is_tried_at_once(fixture_server, tmp_path):
    urls = {f"s{k}": f"http://127.0.0.1:{_closed_port()}/x.json" for k in range(8)}
    urls |= {"up": fixture_server.url + "x.json", "file": str(tmp_path / "x.csv"), "local": "file:///x.csv"}
    start = time.perf_counter()
    found = unreachable(urls, timeout=5, wait=0.5)
    assert time.perf_counter() - start < 0.5 * 8 / 2  # eight waits in turn would take 4 s
    assert sorted(found) == [f"s{k}" for k in range(8)]
    assert all("refused" in why for why in found.values())


def test_a_proxy_is_where_the_connection_goes(monkeypatch):
    for key in ("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(key, raising=False)
    assert address("https://example.org/a.json") == ("example.org", 443)
    assert address("http://example.org:8080/a.json") == ("example.org", 8080)
    assert address("/data/a.csv") is None and address("http://example.org:x/") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "near.example.org")
    assert address("https://example.org/a.json") == ("proxy.internal", 3128)
    assert address("https://near.example.org/a.json") == ("near.example.org", 443)
