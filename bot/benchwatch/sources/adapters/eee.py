"""Every Eval Ever's datastore (the Hugging Face dataset ``evaleval/EEE_datastore``), collection by collection.

``url`` is the datastore's file root (``https://huggingface.co/datasets/evaleval/EEE_datastore/resolve/main``);
``collections`` the collections to read (the ``<collection>`` of ``data/<collection>/<developer>/<model>/``).
Each collection's records are listed by the datastore's own index, ``flat/indexes/by_collection/
<collection>.jsonl`` (rows ``{benchmark, eval_schema_version, legacy_path, object_path, object_uuid,
record_type, sha256, size_bytes}``, as ``every_eval_ever/cron/flat_rebuild.py`` writes them, checked against the
index row in Every Eval Ever's tests): each aggregate record is fetched at its ``legacy_path`` (``data/...``)
and must have the index's sha256; its samples file, where it has one, at the ``file_path`` its record gives,
with the record's checksum. Records and samples are read as ``bot/benchwatch/sources/eee.py`` reads a local folder
(validated against the shipped 0.3.0 schema; see there for which results become benchmarks).

A record never changes under its UUID: each is downloaded once, kept in the download cache, and never asked
for again; ``max_records`` (default 50) caps how many new records one run downloads, the rest wait for later
runs, named in the run log. A record that cannot be read (invalid, a wrong hash, an older schema) is listed and
left out; it never stops the others.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.eee import aggregate_rows, check_samples, instance_rows, table_from_records, validate_eee_record
from benchwatch.sources.http import Fetcher, FetchError
from benchwatch.sources.jsonl import json_lines
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import NewDownloads, provenance, read_bytes, where
from benchwatch.sources.table import SourceTable

INDEX = "flat/indexes/by_collection/{collection}.jsonl"
MAX_RECORDS = 50


class Options(SourceOptions):
    """Every Eval Ever's options."""

    collections: list[str] | None = None  # the datastore collections to read (required)
    max_records: int = MAX_RECORDS  # new records downloaded a run
    index: str = INDEX  # a collection's index under url ({collection}: its name)


def _index(body: bytes, src: str) -> list[dict]:
    """An index's rows: a row repeated whole is read once; two rows of one object with other values, an empty
    index (a collection of no record, or a body lost on the way) and a row without a data/ path are errors."""
    rows: list[dict] = []
    seen: dict[str, dict] = {}
    for number, row in json_lines(body.splitlines(), src):
        key = row.get("object_uuid") if isinstance(row, dict) else None
        if isinstance(key, str) and key in seen:
            if seen[key] == row:
                continue
            raise InputError(src, "one object's index row is given twice with two values", row=number, value=key)
        if isinstance(key, str):
            seen[key] = row
        path = row.get("legacy_path") if isinstance(row, dict) else None
        if not isinstance(path, str) or not path.startswith("data/") or ".." in path.split("/"):
            raise InputError(src, "an index row without a data/ path", row=number, field="legacy_path", value=path)
        rows.append(row)
    if not rows:
        raise InputError(src, "an empty index: no record to read")
    return rows


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Read each collection's index, fetch its new records up to the cap, and read every cached one."""
    opts = Options.of(cfg)
    base = cfg.url.rstrip("/")
    collections = opts.collections
    if not isinstance(collections, list) or not collections or not all(isinstance(c, str) for c in collections):
        raise InputError(
            where(cfg.name, cfg.url),
            "needs `collections`: the datastore collections to read",
            field="collections",
            value=collections,
        )
    parts: list[tuple[list[tuple], list[tuple], list[str]]]
    indexes, files, parts, notes = [], [], [], []
    cap = NewDownloads(fetcher, opts.max_records, "record", "max_records")
    for collection in collections:
        url = f"{base}/{opts.index.format(collection=collection)}"
        index = fetcher.get(url, source=cfg.name)
        indexes.append(index)
        for row in _index(read_bytes(index, cfg.name), where(cfg.name, url)):
            if row.get("record_type", "aggregate") != "aggregate":
                continue
            record_url = f"{base}/{row['legacy_path']}"
            if not cap.allow(record_url):
                continue
            try:
                dl = fetcher.get(record_url, source=cfg.name, immutable=True)
                body = read_bytes(dl, cfg.name)
                here = where(cfg.name, record_url)
                if row.get("sha256") and hashlib.sha256(body).hexdigest() != row["sha256"]:
                    raise InputError(here, "not the bytes its index row gives", field="sha256", value=row["sha256"])
                try:
                    record = json.loads(body)
                except ValueError as exc:
                    raise InputError(here, f"not a readable Every Eval Ever record: {exc}") from None
                validate_eee_record(record, "aggregate", here)
                detail = record.get("detailed_evaluation_results")
                if detail:
                    samples_url = f"{base}/{detail['file_path']}"
                    sdl = fetcher.get(samples_url, source=cfg.name, immutable=True)
                    sbody = read_bytes(sdl, cfg.name)
                    check_samples(record, sbody, where(cfg.name, samples_url))
                    rows, more = instance_rows(record, sbody.splitlines(), where(cfg.name, samples_url))
                    parts.append((rows, [], more))
                    files += [dl, sdl]
                else:
                    boards, more = aggregate_rows(record, here)
                    parts.append(([], boards, more))
                    files.append(dl)
            except (FetchError, InputError) as exc:  # one bad record: listed and left out, asked again next run
                fetcher.forget(record_url)
                notes.append(f"{collection}: a record was left out ({exc})")
    notes += [note] if (note := cap.note()) else []
    table = table_from_records([*parts, ([], [], notes)], cfg.name, cfg.url)
    prov = provenance(cfg.url, indexes)  # the indexes' hash, and one hash over every record and samples file read
    digest = hashlib.sha256("".join(sorted(d.sha256 for d in files)).encode()).hexdigest()[:12]
    return replace(
        table, more=cap.waiting > 0, provenance={**prov, "revision": f"{prov['revision']}+{len(files)}files:{digest}"}
    )
