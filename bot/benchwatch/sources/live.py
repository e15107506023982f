"""Load one configured source through its adapter, recording what was downloaded."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import os
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchwatch.errors import InputError
from benchwatch.sources.adapters import ADAPTERS
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.table import SourceTable, empty_long


def _read(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """The adapter's table; when it fails on a body the cache served, that copy is dropped and fetched again, once."""
    fetcher.log.clear()
    try:
        return ADAPTERS[cfg.adapter](fetcher, cfg)
    except (ValueError, KeyError, TypeError, OSError, EOFError, zlib.error) as exc:
        cached = [d.url for d in fetcher.log if d.status == "not-modified"]
        if not cached:
            raise
        for url in cached:
            fetcher.forget(url)
        note = f"{cfg.name}: a cached copy failed to parse ({type(exc).__name__}); fetched again without it"
    fetcher.log.clear()
    table = ADAPTERS[cfg.adapter](fetcher, cfg)
    return dataclasses.replace(table, notes=(*table.notes, note))


def _key(cfg: SourceConfig) -> str:
    """What the table read from a source depends on besides its downloads: its configuration and adapter code."""
    code = Path(inspect.getfile(ADAPTERS[cfg.adapter])).read_bytes()
    text = json.dumps([cfg.name, cfg.adapter, cfg.url, cfg.options], sort_keys=True, default=str)
    return hashlib.sha256(text.encode() + code).hexdigest()


def _manifest_path(fetcher: Fetcher, cfg: SourceConfig) -> Path:
    return fetcher.cache.parent / "manifests" / f"{hashlib.sha256(cfg.name.encode()).hexdigest()[:24]}.json"


def _unchanged(fetcher: Fetcher, cfg: SourceConfig) -> bool:
    """Whether every download of the source's last published table still answers 304 with the same body (a
    local file: the same bytes); a download marked immutable (a run's log, a dated snapshot's file: never changed
    once published) is not asked again: the listing that names it says whether the set of files changed."""
    try:
        manifest = json.loads(_manifest_path(fetcher, cfg).read_text(encoding="utf-8"))
        downloads, key = manifest["downloads"], manifest["key"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if key != _key(cfg) or not downloads:
        return False
    fetcher.log.clear()
    # a file that never changes once published (its name carries its time or date) is as it was
    asked = [(url, sha) for url, sha, *immutable in downloads if not (immutable and immutable[0] and "://" in url)]
    # the questions at once (each a conditional GET answered 304 when nothing changed): a few hundred of them cost
    # a round trip each, one after the other
    answers = fetcher.get_all([url for url, _ in asked], source=cfg.name)
    for (url, sha), got in zip(asked, answers, strict=True):
        local = "://" not in url or url.startswith("file://")  # a file is read again; its bytes say if it changed
        if (got.status != "not-modified" and not local) or got.sha256 != sha:
            return False
    return True


def _publisher(fetcher: Fetcher, cfg: SourceConfig, more: bool = False) -> Callable[[], None]:
    """Keeps the downloads of a table once it is published, so that the next run can tell nothing changed
    (not while a cap holds files back: ``more``, the next run reads again and fetches the next ones)."""
    path = _manifest_path(fetcher, cfg)
    body = json.dumps({"key": _key(cfg), "downloads": [[d.url, d.sha256, d.immutable] for d in fetcher.log]})

    def publish() -> None:
        if more:
            path.unlink(missing_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(body, encoding="utf-8")
        os.replace(tmp, path)

    return publish


def load_source(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """The source's table, its provenance extended with every download (status, bytes, seconds).

    When every download of the last published table answers 304 with the same body (and the configuration
    and adapter are the same), nothing is parsed: the table comes back ``unchanged``, with ``reload`` to read
    it all the same."""
    if _unchanged(fetcher, cfg):
        size = sum(d.size for d in fetcher.log)
        provenance = {
            "adapter": cfg.adapter,
            **_homepage(cfg),
            "status": "not-modified",
            "bytes": size,
            "downloads": len(fetcher.log),
        }
        return SourceTable(
            cfg.name, cfg.url, empty_long(), provenance=provenance, unchanged=True, reload=lambda: _load(fetcher, cfg)
        )
    return _load(fetcher, cfg)


def _as_of(cfg: SourceConfig) -> dict:
    """The upstream date a source's configuration states (``as_of = "YYYY-MM-DD"``: a bundled or pinned copy,
    whose date no server sends); it replaces the servers' Last-Modified."""
    when = cfg.options.get("as_of")
    if when is None:
        return {}
    if not (isinstance(when, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", when)):
        raise InputError(cfg.name, f"as_of must be a date YYYY-MM-DD, got {when!r}", field="as_of")
    return {"upstream_date": when}


def _bundled(cfg: SourceConfig) -> str | None:
    """The date of a bundled copy (``bundled = "YYYY-MM-DD"``: a file shipped with benchwatch, read from disk)."""
    when = cfg.options.get("bundled")
    if when is None:
        return None
    if not (isinstance(when, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", when)):
        raise InputError(cfg.name, f"bundled must be a date YYYY-MM-DD, got {when!r}", field="bundled")
    return when


def _homepage(cfg: SourceConfig) -> dict:
    """The leaderboard page a person reads (``homepage`` in the source's table), when it is an http(s) address."""
    page = cfg.options.get("homepage")
    return {"homepage": page} if isinstance(page, str) and re.fullmatch(r"https?://[^\s\"'<>]+", page) else {}


def _load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    table = _read(fetcher, cfg)
    prefix = str(cfg.options.get("prefix", ""))
    if prefix:  # keeps two sources that publish the same benchmark name apart
        frame = table.frame.assign(benchmark=prefix + table.frame["benchmark"].astype(str))
        aggs = (
            None
            if table.aggregates is None
            else table.aggregates.assign(benchmark=prefix + table.aggregates["benchmark"].astype(str))
        )
        excluded = tuple({**e, "benchmark": prefix + str(e.get("benchmark", ""))} for e in table.excluded)
        table = dataclasses.replace(
            table,
            frame=frame,
            aggregates=aggs,
            excluded=excluded,
            gone=tuple(prefix + g for g in table.gone),
            pages={prefix + k: v for k, v in table.pages.items()},
            rescored={prefix + k: v for k, v in table.rescored.items()},
        )
    downloads: list[dict[str, Any]] = [
        {"url": d.url, "status": d.status, "bytes": d.size, "seconds": round(d.seconds, 3)} for d in fetcher.log
    ]
    status = "not-modified" if downloads and all(d["status"] == "not-modified" for d in downloads) else "fetched"
    bundled = _bundled(cfg)
    if bundled:  # a copy shipped with benchwatch: read from disk, never fetched
        status = "bundled"
    provenance = {
        **table.provenance,
        **({"origin": str(cfg.options["origin"])} if cfg.options.get("origin") else {}),
        **_as_of(cfg),
        **_homepage(cfg),
        **({"bundled": bundled} if bundled else {}),
        **({"chance": float(cfg.options["chance"])} if cfg.options.get("chance") is not None else {}),
        **({"licence": str(cfg.options["licence"])} if cfg.options.get("licence") else {}),
        "adapter": cfg.adapter,
        "status": status,
        "bytes": sum(d["bytes"] for d in downloads),
        "downloads": len(downloads),
    }
    return dataclasses.replace(table, provenance=provenance, published=_publisher(fetcher, cfg, table.more))
