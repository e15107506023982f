"""HTTP done properly: one client, timeouts, retries with backoff, Retry-After, conditional requests, size cap."""

from __future__ import annotations

import email.utils
import hashlib
import json
import os
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import httpx

from benchwatch import threads

USER_AGENT = "benchwatch/0.1 (+https://github.com/benchwatch/benchwatch; benchmark health monitor)"
MAX_BYTES = 512 * 1024 * 1024
DEADLINE = 600.0  # seconds for one download, retries included: a body trickled byte by byte ends here
AT_ONCE = 8  # requests of one ``get_all`` in flight at once (a source of thousands of files: a round trip each)
# A connection that cannot be made (refused, a name that does not resolve, no answer) is tried once more after
# this many seconds at most, never with the backoff of a server's faults: without network a run ends in seconds
CONNECT_WAIT = 0.5


class FetchError(RuntimeError):
    """A download that failed for good: names the source and the URL."""

    def __init__(self, source: str, url: str, message: str) -> None:
        self.source, self.url = source, url
        super().__init__(f"{source}: {url}: {message}")


@dataclass(frozen=True)
class Download:
    """A body on disk (fresh, or the cached one after 304 Not Modified) and where it came from."""

    url: str
    path: Path
    status: str  # "fetched" or "not-modified"
    sha256: str
    size: int
    content_type: str
    fetched_at: str
    seconds: float
    immutable: bool = False  # a body that never changes at its URL (an evaluation log): never asked for again
    last_modified: str | None = None  # the server's Last-Modified header for this body, as sent


def _cache_key(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:24]


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Fetcher:
    """Downloads for every source of a run through one ``httpx.Client``."""

    def __init__(
        self,
        cache_dir: str | Path,
        *,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 1.0,
        max_retry_after: float = 120.0,
        max_bytes: int = MAX_BYTES,
        deadline: float = DEADLINE,
        stop_at: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.cache = Path(cache_dir) / "http"
        self.deadline, self.stop_at = deadline, stop_at  # seconds per download; time.monotonic() of the run's end
        self._drop_parts()
        self.retries, self.backoff = retries, backoff
        self.max_retry_after, self.max_bytes = max_retry_after, max_bytes
        self.sleep = sleep
        timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self.client = httpx.Client(timeout=timeout, headers={"User-Agent": USER_AGENT}, follow_redirects=True)
        self.log: list[Download] = []
        self._got: dict[str, Download] = {}

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _drop_parts(self) -> None:
        """Partial downloads left by a run that was killed (older than any live download could be)."""
        if not self.cache.is_dir():
            return
        for part in self.cache.glob("*.part"):
            try:
                if time.time() - part.stat().st_mtime > self.deadline + 60:
                    part.unlink()
            except OSError:
                pass

    def forget(self, url: str) -> None:
        """Drop the cached copy of ``url`` (a body that failed to parse): the next get fetches it whole."""
        self._got.pop(url, None)
        self._meta_path(url).unlink(missing_ok=True)
        self._body_path(url).unlink(missing_ok=True)

    def _cached(self, url: str) -> dict:
        """The cached entry's metadata when the entry is whole and its body matches its hash; else none (dropped)."""
        meta_path, body_path = self._meta_path(url), self._body_path(url)
        if not meta_path.exists() and not body_path.exists():
            return {}
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            whole = isinstance(meta, dict) and all(isinstance(meta.get(k), str) for k in ("sha256", "fetched_at"))
            if whole and body_path.is_file() and _sha256_file(body_path) == meta["sha256"]:
                return meta
        except (OSError, ValueError):
            pass
        self.forget(url)
        return {}

    def _meta_path(self, url: str) -> Path:
        return self.cache / f"{_cache_key(url)}.json"

    def _body_path(self, url: str) -> Path:
        return self.cache / f"{_cache_key(url)}.body"

    def _wait(self, attempt: int, response: httpx.Response | None) -> None:
        delay = self.backoff * 2**attempt + random.uniform(0, self.backoff)
        if response is not None and response.status_code in (429, 503):
            after = _retry_after(response.headers.get("Retry-After"))
            if after is not None:
                delay = min(after, self.max_retry_after)
        self.sleep(delay)

    def has(self, url: str) -> bool:
        """Whether a whole copy of ``url`` is in the cache (what ``get(..., immutable=True)`` serves unasked)."""
        return "://" in url and not url.startswith("file://") and bool(self._cached(url))

    def get(self, url: str, *, source: str, immutable: bool = False) -> Download:
        """GET ``url`` with retries; a cached copy answers a 304. Raises FetchError when it fails for good.

        A URL is requested once per fetcher (one run): asking again gives the same download. With
        ``immutable`` (a body that never changes, such as an evaluation log), a whole cached copy is used
        without asking the server at all."""
        download = self._got.get(url) or self._get(url, source, immutable)
        self._got[url] = download
        self.log.append(download)
        return download

    def get_all(self, urls: list[str], *, source: str, immutable: bool = False) -> list[Download]:
        """``get`` of every URL, ``AT_ONCE`` in flight at once (a source of thousands of small files would wait a
        round trip for each, one after the other); the downloads, and the run's log of them, in the order of
        ``urls``. A URL that fails for good raises its FetchError, the first in that order, once the others are
        done."""
        wanted = [u for u in dict.fromkeys(urls) if u not in self._got]
        if len(wanted) > 1:
            pool = threads.thread_pool("downloads", AT_ONCE)
            futures = {u: pool.submit(self._get, u, source, immutable) for u in wanted}
            failed: Exception | None = None
            for url, future in futures.items():
                try:
                    self._got[url] = future.result()
                except Exception as exc:  # raised once every other download is done, as in turn it would be
                    failed = failed or exc
            if failed is not None:
                raise failed
        return [self.get(url, source=source, immutable=immutable) for url in urls]

    def _get(self, url: str, source: str, immutable: bool = False) -> Download:
        if "://" not in url or url.startswith("file://"):
            return self._local(url.removeprefix("file://"), source)
        self.cache.mkdir(parents=True, exist_ok=True)
        meta_path, body_path = self._meta_path(url), self._body_path(url)
        meta = self._cached(url)
        if immutable and meta:
            size = body_path.stat().st_size
            return Download(
                url,
                body_path,
                "not-modified",
                meta["sha256"],
                size,
                "",
                meta["fetched_at"],
                0.0,
                True,
                meta.get("last_modified"),
            )
        headers = {}
        if meta.get("etag"):
            headers["If-None-Match"] = meta["etag"]
        if meta.get("last_modified"):
            headers["If-Modified-Since"] = meta["last_modified"]
        start = time.perf_counter()
        limit = time.monotonic() + self.deadline
        if self.stop_at is not None:
            limit = min(limit, self.stop_at)
        last_error = "no attempt made"
        connects = 0  # attempts that could not connect: one short retry (CONNECT_WAIT), not the retries' backoff
        for attempt in range(self.retries + 1):
            response, connected = None, True
            if time.monotonic() > limit:
                last_error = f"{last_error}; the deadline of {self._limit_text(start)} passed"
                break
            try:
                with self.client.stream("GET", url, headers=headers) as response:
                    if response.status_code == 304 and not meta:
                        raise FetchError(source, url, "HTTP 304 Not Modified to a request sent without a cached copy")
                    if response.status_code == 304:
                        return Download(
                            url,
                            body_path,
                            "not-modified",
                            meta["sha256"],
                            body_path.stat().st_size,
                            meta.get("content_type", ""),
                            meta["fetched_at"],
                            time.perf_counter() - start,
                            last_modified=meta.get("last_modified"),
                        )
                    if response.status_code == 429 or response.status_code >= 500:
                        last_error = f"HTTP {response.status_code}"
                    elif response.status_code >= 400:
                        raise FetchError(source, url, f"HTTP {response.status_code}")
                    else:
                        got = self._store(url, source, response, meta_path, body_path, start, limit)
                        return replace(got, immutable=immutable)
            except httpx.TooManyRedirects:
                raise FetchError(source, url, "too many redirects (a redirect loop?)") from None
            except httpx.ConnectTimeout:
                last_error, connected = "timed out connecting", False
            except httpx.TimeoutException:
                last_error = "timed out"
            except httpx.ConnectError as exc:
                last_error, connected = f"connection failed ({type(exc).__name__}: {exc})", False
            except httpx.TransportError as exc:
                last_error = f"connection failed ({type(exc).__name__})"
            connects += not connected
            if connects > 1 or attempt >= self.retries:
                break
            if connected:
                self._wait(attempt, response)
            else:
                self.sleep(min(self.backoff, CONNECT_WAIT))
        raise FetchError(source, url, f"{last_error} after {attempt + 1} attempt(s)")

    def _limit_text(self, start: float) -> str:
        return f"{self.deadline:g} s" + (" (or the run's)" if self.stop_at is not None else "")

    def _store(self, url, source, response, meta_path: Path, body_path: Path, start: float, limit: float) -> Download:
        content_type = response.headers.get("Content-Type", "")
        if content_type.split(";")[0].strip().lower() == "text/html":
            raise FetchError(source, url, f"unexpected content type {content_type!r} (an HTML page, not data)")
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise FetchError(source, url, f"body of {int(declared):,} bytes exceeds the cap of {self.max_bytes:,}")
        fd, tmp = tempfile.mkstemp(dir=self.cache, suffix=".part")
        size = 0
        digest = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as fh:
                for chunk in response.iter_bytes():
                    if time.monotonic() > limit:
                        raise FetchError(
                            source,
                            url,
                            f"the download took longer than {self._limit_text(start)} ({size:,} bytes read)",
                        )
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise FetchError(source, url, f"body exceeds the cap of {self.max_bytes:,} bytes")
                    digest.update(chunk)
                    fh.write(chunk)
            os.replace(tmp, body_path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise _naming(exc, body_path) from exc
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        fetched_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        meta = {
            "url": url,
            "etag": response.headers.get("ETag"),
            "last_modified": response.headers.get("Last-Modified"),
            "sha256": digest.hexdigest(),
            "content_type": content_type,
            "fetched_at": fetched_at,
        }
        fd, tmp = tempfile.mkstemp(dir=self.cache, suffix=".part")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(meta, indent=2))
            os.replace(tmp, meta_path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise _naming(exc, meta_path) from exc
        return Download(
            url,
            body_path,
            "fetched",
            meta["sha256"],
            size,
            content_type,
            fetched_at,
            time.perf_counter() - start,
            last_modified=meta["last_modified"],
        )

    def _local(self, path: str, source: str) -> Download:
        p = Path(path)
        if not p.is_file():
            raise FetchError(source, path, "no such file")
        start = time.perf_counter()
        fetched_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return Download(
            path, p, "fetched", _sha256_file(p), p.stat().st_size, "", fetched_at, time.perf_counter() - start
        )


def _naming(exc: OSError, path: Path) -> OSError:
    """A write's error naming the file being written (a full disk names none: "No space left on device" alone)."""
    if exc.filename is not None:
        return exc
    return OSError(exc.errno, exc.strerror or str(exc), str(path))
