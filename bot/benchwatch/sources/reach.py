"""Whether a live run's sources can be reached at all, every one at once, before anything is fetched: on a machine
without network (or behind a proxy that is down) the run ends in seconds, each source failed with its cause,
instead of retrying each download in turn. A connection is tried once, and once more after a short wait; no
request is sent (a server sees a connection opened and closed)."""

from __future__ import annotations

import socket
import time
import urllib.request
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import NoReturn
from urllib.parse import urlsplit

from benchwatch.sources.http import CONNECT_WAIT, FetchError


def address(url: str) -> tuple[str, int] | None:
    """The host and port a download of ``url`` connects to: its proxy's where the environment sets one (as httpx
    reads it), else its own; None for a local file or an address with no host."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port that is not a number: the download says so
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if proxy and not urllib.request.proxy_bypass(parts.hostname):
        via = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if via.hostname:
            return via.hostname, via.port or (443 if via.scheme == "https" else 80)
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def _connect(host: str, port: int, timeout: float) -> str | None:
    """Why a connection to ``host:port`` cannot be made, or None when it can."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except socket.gaierror as exc:
        return f"the name {host} does not resolve ({exc.strerror or exc})"
    except TimeoutError:
        return f"no answer from {host}:{port} in {timeout:g} s"
    except OSError as exc:
        return f"{host}:{port}: {exc.strerror or exc}"


def _tried(place: tuple[str, int], timeout: float, wait: float) -> str | None:
    """One attempt, and one more after ``wait`` seconds: why both failed, or None."""
    why = _connect(*place, timeout)
    if why is None:
        return None
    time.sleep(wait)
    return _connect(*place, timeout)


def unreachable(urls: Mapping[str, str], *, timeout: float = 10.0, wait: float = CONNECT_WAIT) -> dict[str, str]:
    """The sources (name -> URL) whose server no connection could be made to, each with why; every server is tried
    at once (threads), each once and once more after ``wait`` seconds. Local files are never unreachable."""
    places = {name: address(url) for name, url in urls.items()}
    wanted = sorted({p for p in places.values() if p is not None})
    if not wanted:
        return {}
    with ThreadPoolExecutor(max_workers=min(32, len(wanted))) as pool:
        found = dict(zip(wanted, pool.map(lambda p: _tried(p, timeout, wait), wanted), strict=True))
    return {name: why for name, p in places.items() if p is not None and (why := found[p]) is not None}


def unreached(source: str, url: str, why: str) -> NoReturn:
    """A source's load when no source could be reached: its failure, with the cause, fetching nothing."""
    raise FetchError(source, url, f"connection failed ({why}) after 2 attempt(s)")
