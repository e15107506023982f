"""Load one configured source through its adapter, recording what was downloaded."""

from __future__ import annotations

import dataclasses
import zlib

from bot.sources.adapters import ADAPTERS
from bot.sources.config import SourceConfig
from bot.sources.http import Fetcher
from bot.sources.table import SourceTable


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


def load_source(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """The source's table, its provenance extended with every download (status, bytes, seconds)."""
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
        )
    downloads = [
        {"url": d.url, "status": d.status, "bytes": d.size, "seconds": round(d.seconds, 3)} for d in fetcher.log
    ]
    status = "not-modified" if downloads and all(d["status"] == "not-modified" for d in downloads) else "fetched"
    provenance = {
        **table.provenance,
        **({"origin": str(cfg.options["origin"])} if cfg.options.get("origin") else {}),
        "adapter": cfg.adapter,
        "status": status,
        "bytes": sum(d["bytes"] for d in downloads),
        "downloads": len(downloads),
    }
    return dataclasses.replace(table, provenance=provenance)
