"""A real HTTP server on 127.0.0.1 that serves files byte for byte, with scripted faults."""

from __future__ import annotations

import calendar
import hashlib
import threading
import time
from collections import Counter
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

ETAG_KEPT_FROM = 1_000_000  # bytes from which a file's ETag is kept for its version (``Upstream._etag``)
FIXED_MTIME = 1_700_000_000  # Last-Modified of a file with no upstream date below
# The date of each real file's upstream commit (../shared/upstream/README.md), sent as its Last-Modified as a
# server that knows it would (GitHub Pages, epoch.ai); the longest matching path prefix decides. EvalPlus's
# results.json has no date there: it is served without Last-Modified, as raw.githubusercontent.com serves.
UPSTREAM_DATES: dict[str, str | None] = {
    "evalplus/": None,
    "swebench/": "2025-12-10",
    "livecodebench/": "2025-08-01",
    "livecodebench/performances_generation.json": "2025-04-22",
    "evalarena/": "2024-10-29",
    "epoch/": "2026-01-20",
    "mmlu_pro/": "2026-03-18",
    "epoch_samples/": "2025-07-14",
    "alpaca_eval/": "2025-08-09",
    "livebench_site/": "2026-07-01",
    "eee/": "2026-08-13",
    "all_the_noises/": "2025-12-10",
    "terminal_bench/": "2025-09-25",
    "can_ai_code/": "2025-06-21",
    "llmstats/": "2025-05-22",
    "benchbench/": "2024-11-26",
    "bfcl_result/": "2024-08-12",
    "gorilla_bfcl/": "2025-12-16",  # the newest version: the date the adapter states for the whole
    **{f"gorilla_bfcl/{day}/": day for day in ("2024-08-14", "2024-10-21", "2025-01-19", "2025-04-14", "2025-12-16")},
}


def last_modified(path: str) -> dict:
    """The Last-Modified header this server sends for a path under its root (none where the date is unknown)."""
    matches = [prefix for prefix in UPSTREAM_DATES if path.lstrip("/").startswith(prefix)]
    if not matches:
        return {"Last-Modified": formatdate(FIXED_MTIME, usegmt=True)}
    day = UPSTREAM_DATES[max(matches, key=len)]
    if day is None:
        return {}
    return {"Last-Modified": formatdate(calendar.timegm(time.strptime(day, "%Y-%m-%d")) + 43_200, usegmt=True)}


class _Server(ThreadingHTTPServer):
    """A threading server whose listen queue holds the connections a run opens at once (the unchanged check asks
    eight questions at a time; socketserver's default queue of 5 drops the rest, whose clients try again a second
    later, as no real server would make them)."""

    request_queue_size = 64


class Upstream:
    """Serves ``root``; ``script[path]`` is a list of faults played one per request before normal service."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.script: dict[str, list[str]] = {}
        self.hits: Counter[str] = Counter()
        self.statuses: list[tuple[str, int]] = []
        self.etags: dict[tuple, str] = {}
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep the test output clean
                pass

            def do_GET(self) -> None:
                upstream.handle(self)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __enter__(self) -> Upstream:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: bytes = b"", headers: dict | None = None) -> None:
        self.statuses.append((h.path, status))
        h.send_response(status)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if body:
            h.wfile.write(body)

    def _trickle(self, h: BaseHTTPRequestHandler, body: bytes, every: float) -> None:
        self.statuses.append((h.path, 200))
        h.send_response(200)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        try:
            for k in range(len(body)):
                h.wfile.write(body[k : k + 1])
                h.wfile.flush()
                time.sleep(every)
        except OSError:  # the client gave up
            pass

    def _etag(self, file: Path, body: bytes) -> str:
        """The body's ETag; a large file's kept for its version (as a real server keeps it, instead of hashing
        tens of megabytes at every conditional request). A small one is hashed every time: a test may rewrite it
        within the clock's resolution."""
        if len(body) < ETAG_KEPT_FROM:
            return '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        stat = file.stat()
        key = (str(file), stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if key not in self.etags:
            self.etags[key] = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        return self.etags[key]

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        path = unquote(h.path.split("?")[0])  # HELM's frontend encodes every path component
        self.hits[path] += 1
        fault = self.script.get(path, [])
        action = fault.pop(0) if fault else "ok"
        file = (self.root / path.lstrip("/")).resolve()
        if self.root.resolve() not in file.parents or not file.is_file():
            return self._send(h, 404, b"not found")
        body = file.read_bytes()
        if action == "500":
            return self._send(h, 500, b"boom")
        if action == "loop":  # a redirect to itself
            self.script.setdefault(path, []).insert(0, "loop")
            return self._send(h, 302, b"", {"Location": h.path})
        if action.startswith("429:"):
            return self._send(h, 429, b"slow down", {"Retry-After": action.split(":")[1]})
        if action.startswith("hang:"):
            time.sleep(float(action.split(":")[1]))
        if action == "truncated":
            body = body[: len(body) // 2]
        if action == "304":  # Not Modified, whatever the request said
            return self._send(h, 304, headers={"ETag": '"stale"'})
        if action.startswith("trickle:"):  # the whole body, one byte every so many seconds
            return self._trickle(h, body, float(action.split(":")[1]))
        if action == "html":
            return self._send(h, 200, b"<html>rate limited</html>", {"Content-Type": "text/html; charset=utf-8"})
        etag = self._etag(file, body)
        if h.headers.get("If-None-Match") == etag:
            return self._send(h, 304, headers={"ETag": etag})
        headers = {"ETag": etag, **last_modified(path), "Content-Type": "text/plain"}
        self._send(h, 200, body, headers)
