"""``Fetcher.get_all``: a source's many files asked ``AT_ONCE`` at a time, given back (and logged) in their order,
and a failure raised as asking one after the other would raise it (the first in order), the others kept."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from benchwatch.sources.http import AT_ONCE, Fetcher, FetchError


class Counting:
    """A transport that answers each path with its own body after a pause, counting the requests in flight."""

    def __init__(self, missing: frozenset[str] = frozenset()) -> None:
        self.lock = threading.Lock()
        self.now = self.most = 0
        self.asked: list[str] = []
        self.missing = missing

    def __call__(self, request: httpx.Request) -> httpx.Response:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.asked.append(request.url.path)
        time.sleep(0.02)
        with self.lock:
            self.now -= 1
        if request.url.path in self.missing:
            return httpx.Response(404, text="not found")
        return httpx.Response(200, content=f"body of {request.url.path}".encode())


def _fetcher(tmp_path, transport: Counting) -> Fetcher:
    fetcher = Fetcher(tmp_path / "cache", retries=0)
    fetcher.client = httpx.Client(transport=httpx.MockTransport(transport))
    return fetcher


def test_the_files_come_back_in_their_order_asked_several_at_once(tmp_path):
    served = Counting()
    urls = [f"https://example.org/f{i}.json" for i in range(30)]
    urls.insert(5, urls[20])  # asked twice: fetched once, given (and logged) at both places
    with _fetcher(tmp_path, served) as fetcher:
        got = fetcher.get_all(urls, source="many")
        assert [d.url for d in got] == urls and [d.url for d in fetcher.log] == urls
        assert [d.path.read_bytes() for d in got] == [f"body of {u.split('.org')[1]}".encode() for u in urls]
    assert len(served.asked) == 30
    assert 1 < served.most <= AT_ONCE


def test_a_failing_file_raises_the_first_failure_in_order_and_the_others_are_kept(tmp_path):
    served = Counting(missing=frozenset({"/f7.json", "/f3.json"}))
    urls = [f"https://example.org/f{i}.json" for i in range(12)]
    with _fetcher(tmp_path, served) as fetcher:
        with pytest.raises(FetchError, match=r"many: https://example.org/f3.json: HTTP 404"):
            fetcher.get_all(urls, source="many")
        assert all(fetcher.has(u) for u in urls if u.rsplit("/", 1)[1] not in ("f3.json", "f7.json"))
        assert not fetcher.has(urls[3]) and not fetcher.has(urls[7])
