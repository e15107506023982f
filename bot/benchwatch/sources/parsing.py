"""Parsing helpers for adapters: errors name the source, the URL, the field and the value."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Mapping
from datetime import UTC
from typing import TYPE_CHECKING, Any

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Download, Fetcher

if TYPE_CHECKING:
    import pandas as pd


def where(source: str, url: str) -> str:
    """How an error names its origin."""
    return f"{source} ({url})"


def read_bytes(download: Download, source: str) -> bytes:
    """A download's body, decompressed when it is gzip (a bundled snapshot, a mirror's ``.gz``)."""
    body = download.path.read_bytes()
    if body[:2] != b"\x1f\x8b":
        return body
    try:
        return gzip.decompress(body)
    except (OSError, EOFError) as exc:
        raise InputError(where(source, download.url), f"a damaged gzip body ({exc})") from None


class _DuplicateKey(ValueError):
    def __init__(self, key: str, first: Any, second: Any):
        super().__init__(key)
        self.key, self.first, self.second = key, first, second


def _text(value: Any) -> Any:
    """A string as UTF-8 can hold it: a lone surrogate (JSON's ``\\ud800`` escape, which no UTF-8 file can
    store) kept as its escape, as text; anything else unchanged."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def escape_surrogates(pairs: list[tuple[str, Any]]) -> dict:
    """A JSON object hook: every key and string value as UTF-8 can hold it (``_text``)."""
    return {_text(k): _text(v) for k, v in pairs}


def surrogate_hook(body: bytes | str):
    """The object hook a JSON text needs: ``escape_surrogates`` where it escapes a lone surrogate
    (``SURROGATE_ESCAPE``), none otherwise (its strings are then as UTF-8 holds them: the same objects, read
    without a Python call per object)."""
    found = SURROGATE_ESCAPE.search(body) if isinstance(body, bytes) else SURROGATE_TEXT.search(body)
    return escape_surrogates if found else None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """An object's members; a key given twice must have one value (the JSON standard leaves it undefined,
    and Python's reader silently keeps the last). Strings with a lone surrogate are kept escaped (``_text``)."""
    out: dict = {}
    for key, value in pairs:
        key, value = _text(key), _text(value)
        if key in out and out[key] != value:
            raise _DuplicateKey(key, out[key], value)
        out[key] = value
    return out


def _unique_plain(pairs: list[tuple[str, Any]]) -> dict:
    """``_unique_keys`` for a document with no surrogate escape (every string as UTF-8 holds it): the members at
    once, and the member by member check only where a key repeats."""
    out = dict(pairs)
    return out if len(out) == len(pairs) else _unique_keys(pairs)


SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # the only way a lone surrogate reaches a JSON string
SURROGATE_TEXT = re.compile(SURROGATE_ESCAPE.pattern.decode())


def read_json(download: Download, source: str) -> Any:
    """The JSON document of a download; truncated or invalid JSON, or an object with one key given twice with
    two values, is an InputError."""
    try:
        body = read_bytes(download, source)
        hook = _unique_keys if SURROGATE_ESCAPE.search(body) else _unique_plain
        return json.loads(body, object_pairs_hook=hook)
    except _DuplicateKey as exc:
        raise InputError(
            where(source, download.url),
            f"the key {exc.key!r} appears twice in one object, with two values ({_short(exc.first)} and "
            f"{_short(exc.second)}): which is meant cannot be told",
            field=exc.key,
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            where(source, download.url),
            f"invalid or truncated JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
        ) from None
    except UnicodeDecodeError:
        raise InputError(where(source, download.url), "the body is not UTF-8 text") from None


def read_once(frame: pd.DataFrame, keys: list[str], src: str, url: str) -> tuple[pd.DataFrame, str | None]:
    """Rows given twice, as every adapter treats them: a row repeated whole is read once (and said, the
    returned note); two rows of one ``keys`` with other values are an InputError naming the key's values
    (the item and the model) and both."""
    same = frame.duplicated()
    note = f"{int(same.sum())} row(s) repeated whole: read once" if same.any() else None
    frame = frame[~same]
    clash = frame.duplicated(keys, keep=False)
    if clash.any():
        rows = frame[clash]
        first = rows.iloc[0]
        both = rows[(rows[keys] == first[keys]).all(axis=1)].drop(columns=keys)
        raise InputError(
            where(src, url),
            f"two rows for one ({', '.join(keys)}) with two values: "
            + ", ".join(f"{k}={first[k]!r}" for k in keys)
            + f": {both.to_dict('records')[:2]}",
            field=", ".join(keys),
        )
    return frame.reset_index(drop=True), note


def whole_csv(data: bytes, src: str, url: str, *, newline: bool = False) -> None:
    """Refuse a CSV body cut short: a last line with fewer fields than the header (a cut mid-row, which a CSV
    reader pads with empty cells), or, where the producer always ends its file with one (``newline``), a body
    not ending in a newline (a cut inside the last value)."""
    import csv
    import io

    text = data.decode("utf-8", errors="replace")
    if not text.strip():
        return
    if '"' not in text:  # no quoted field: a row is a line (the header's and the last one's fields are all it reads)
        lines = [line for line in (raw.rstrip("\r") for raw in text.split("\n")) if line]
        rows = [
            lines[0].split(","),
            *([[]] * max(0, len(lines) - 2)),
            *([lines[-1].split(",")] if len(lines) > 1 else []),
        ]
    else:
        rows = [r for r in csv.reader(io.StringIO(text)) if r]
    if newline and not text.endswith("\n"):
        raise InputError(where(src, url), "the body does not end with a newline: cut short?", row=len(rows))
    if len(rows) > 1 and len(rows[-1]) < len(rows[0]):
        raise InputError(
            where(src, url),
            f"the last line has {len(rows[-1])} of the header's {len(rows[0])} fields: cut short?",
            row=len(rows),
            value=_short(",".join(rows[-1])),
        )


def require(obj: Any, key: str, kind: type | tuple[type, ...], source: str, url: str, context: str = "") -> Any:
    """obj[key], which must exist and be of ``kind``."""
    label = f"{context}.{key}" if context else key
    if not isinstance(obj, Mapping) or key not in obj:
        raise InputError(where(source, url), "missing field", field=label)
    value = obj[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InputError(where(source, url), f"expected {names}", field=label, value=_short(value))
    return value


def proportion(value: Any, source: str, url: str, label: str, *, percent: bool) -> float:
    """A score as a proportion in [0, 1]; out of range or not a number is an InputError."""
    top = 100.0 if percent else 1.0
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(where(source, url), "score is not a number", field=label, value=_short(value)) from None
    if not 0.0 <= number <= top:
        raise InputError(where(source, url), f"score must lie in [0, {top:g}]", field=label, value=number)
    return number / top


def _short(value: Any) -> Any:
    text = repr(value)
    return value if len(text) <= 80 else text[:77] + "..."


def fetch_files(fetcher: Fetcher, cfg: SourceConfig, files: list[str]) -> list[Download]:
    """Every file of a source: ``url`` itself, or each of ``files`` (its option of that name) joined to it."""
    urls = [cfg.url + f for f in files] if files else [cfg.url]
    return fetcher.get_all(urls, source=cfg.name)


def upstream_date(downloads: list[Download]) -> str | None:
    """The newest date (YYYY-MM-DD, UTC) the servers say these bodies were last modified, or None when none
    says (a local file, a server without Last-Modified)."""
    from email.utils import parsedate_to_datetime

    dates = []
    for d in downloads:
        try:
            when = parsedate_to_datetime(d.last_modified) if d.last_modified else None
        except (TypeError, ValueError):
            when = None
        if when is not None:
            dates.append(when.astimezone(UTC).strftime("%Y-%m-%d") if when.tzinfo else when.strftime("%Y-%m-%d"))
    return max(dates, default=None)


def provenance(url: str, downloads: list[Download]) -> dict:
    """Where a source's data came from: its URL, the content hashes, the fetch time and the upstream's own date."""
    out = {
        "url": url,
        "revision": "+".join(d.sha256[:12] for d in downloads),
        "fetched_at": max((d.fetched_at for d in downloads), default=""),
    }
    date = upstream_date(downloads)
    if date is not None:
        out["upstream_date"] = date
    return out


class NewDownloads:
    """At most ``cap`` new downloads a run for the sources whose files never change once written (logs, records,
    details): a file already in the cache is always allowed, a new one while the cap lasts; the rest wait for
    later runs (``waiting``), and the source says so (``note``)."""

    def __init__(self, fetcher: Fetcher, cap: int, what: str, option: str) -> None:
        self.fetcher, self.cap, self.what, self.option = fetcher, cap, what, option
        self.fetched = self.waiting = 0

    def allow(self, url: str) -> bool:
        if self.fetcher.has(url):
            return True
        if self.fetched >= self.cap:
            self.waiting += 1
            return False
        self.fetched += 1
        return True

    def note(self) -> str | None:
        if not self.waiting:
            return None
        return (
            f"{self.waiting} {self.what}(s) not fetched yet: at most {self.cap} new {self.what}s a run "
            f"({self.option}); later runs fetch them"
        )
