"""The records of ``reports/``, typed (pydantic models: validated where they are written and read): a benchmark's
record (``latest.json``), an alert (``alerts.json``), a
source's status (``sources.json``), a snapshot's changes (``changelog.json``), a history row (``history.csv``)
and a run (``runs.csv``). Each field says what it holds and in what unit; the JSON Schema of each file is
generated from these classes (``schema_of``, ``file_schema``), published with the site (``schema/*.json``)
and in the downloads bundle, and ``benchwatch check`` validates ``reports/`` against it. Every field is named: a
figure's interval ends and variants (``ddm_lo``, ``ddm_plugin``, ...) are fields of their own
(``VARIANTS``), so a misspelt one is an undeclared field, not a pattern's match.

Figures are proportions or positions on the difficulty axis z in [0, 1] unless a field says otherwise;
times are UTC ISO 8601 (``2026-12-01T06:00:00Z``), dates ``YYYY-MM-DD``. Every JSON file of ``reports/``
carries ``schema_version``; reading a file of an older version upgrades it (``upgrade``).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from benchwatch.record import (
    OLDER_REQUIRED,
    OPT,
    REBUILT_REQUIRED,
    Json,
    Text,
    _BenchmarkFields,
    _f,
    _Record,
    field_name_of,
    required_fields,
)
from benchwatch.record import VARIANT_DOCS as VARIANT_DOCS  # the record's vocabulary, with the files' records
from benchwatch.record import VARIANTS as VARIANTS
from benchwatch.record import BenchmarkRecord as BenchmarkRecord

SCHEMA_VERSION = 2  # 0: the files before they carried a version; 1: variants matched by a pattern (same fields)
SCHEMA_BASE = "https://benchwatch.github.io/benchwatch/schema/"
RecordT = TypeVar("RecordT", bound=_Record)  # a record of reports/, whichever its class


class Alert(_Record):
    """A change of state or flag: an entry of ``alerts.json``'s ``alerts`` (append-only)."""

    id: str = _f("benchmark/kind/revision: one alert per change")
    benchmark: str = _f("the benchmark it is about")
    kind: str = _f(
        "state, raised, cleared, tier, verdict, model (the bounds' path) or a notice (held, gone, moved, grew, "
        "rescored)"
    )
    revision: str = _f("the revision of the data that raised it")
    raised_at: str = _f("when the alert was raised (UTC)")
    title: str = _f("the alert in a sentence")
    figures: Json | None = _f("the figures at the time", OPT)
    flag: Text = _f("the flag raised or cleared", OPT)
    to: Text = _f("the new state, tier, verdict or path of the bounds", OPT)
    figure: Text = _f("the figure whose verdict changed", OPT)
    joined: list[str] | None = _f("models that joined the top tier", OPT)
    size: int | None = _f("the top tier's new size", OPT)
    left: list[str] | None = _f("models that left it", OPT)
    from_: Text = Field(default=None, alias="from", description="the previous state, tier or verdict")


class SourceStatus(_Record):
    """A source's last attempt: an entry of ``sources.json``'s ``sources`` (by source name)."""

    status: str = _f('"ok" or "failed"')
    error: Text = _f("the last failure in words (null when ok)", OPT)
    failed_since: Text = _f("since when it fails (UTC)", OPT)
    data_since: Text = _f("when this revision of its data first reached benchwatch (UTC)", OPT)
    url: Text = _f("its URL, or a file's name", OPT)
    homepage: Text = _f("the leaderboard page a person reads", OPT)
    licence: Text = _f("the upstream data's licence, as the configuration states it", OPT)
    revision: Text = _f("hashes of its downloads (or of its benchmarks' revisions)", OPT)
    adapter: Text = _f("the adapter that reads it", OPT)
    as_of: Text = _f("the data's own date: the upstream's, else the newest dated result", OPT)
    as_of_from: Text = _f('"upstream" or "newest dated result"', OPT)
    bundled: Text = _f("the date of the copy shipped with benchwatch that it reads, never fetched (YYYY-MM-DD)", OPT)
    excluded: list[Json] = _f("what it left out, with the reason", OPT)
    skipped: list[Json] = _f("benchmarks not published from the last run, with the reason", OPT)
    gone: list[str] = _f("benchmarks it no longer publishes", OPT)
    notes: list[str] = _f("what its adapter noticed", OPT)
    rules: Text = _f("the fingerprint of the rules it was audited under", OPT)


class Change(_Record):
    """What changed with a snapshot: an entry of ``changelog.json``'s ``changes``."""

    snapshot_at: str = _f("the run that saw it (UTC)")
    source: str = _f("the source")
    benchmark: str = _f("the benchmark")
    revision: str = _f("the new revision")
    models_added: Json = _f("count and names (the first 50)")
    models_removed: Json = _f("count and names")
    models_rescored: Json = _f("count and names")
    items_added: Json | None = _f("count and names (per-item data)", OPT)
    items_removed: Json | None = _f("count and names", OPT)
    items_rescored: Json | None = _f("count and names", OPT)
    upstream: Text = _f("what the source says of the change: a rescoring (its checker changed), not progress", OPT)


# file -> (its top-level key, the record class, keyed by name (an object) or a list)
FILES: dict[str, tuple[str, type[_Record], type]] = {
    "latest.json": ("benchmarks", BenchmarkRecord, list),
    "alerts.json": ("alerts", Alert, list),
    "sources.json": ("sources", SourceStatus, dict),
    "changelog.json": ("changes", Change, list),
}


def _json_type(hint: Any) -> dict:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        parts = [_json_type(a) for a in typing.get_args(hint)]
        kinds = []
        for p in parts:
            kinds += p["type"] if isinstance(p["type"], list) else [p["type"]]
        out = {"type": sorted(set(kinds), key=kinds.index)}
        items = [p["items"] for p in parts if "items" in p]
        if items:
            out["items"] = items[0]
        return out
    if hint is type(None):
        return {"type": "null"}
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is float:
        return {"type": "number"}
    if hint is str:
        return {"type": "string"}
    if origin is list:
        (inner,) = typing.get_args(hint) or (Any,)
        return {"type": "array", **({"items": _json_type(inner)} if inner is not Any else {})}
    if origin is dict or hint is dict:
        return {"type": "object"}
    return {}


def field_name(attribute: str) -> str:
    return attribute.removesuffix("_")


def _fields(cls: type[BaseModel], variants: bool = True) -> list[tuple[str, str, Any]]:
    """(name in the files, documentation, type) of each field, in the class's order; ``variants`` False leaves out a
    figure's variants (documented beside their figure)."""
    hints = typing.get_type_hints(cls)
    return [
        (field_name_of(cls, k), f.description or "", hints[k])
        for k, f in cls.model_fields.items()
        if variants or not _is_variant(f.json_schema_extra)
    ]


def _is_variant(extra: object) -> bool:
    """Whether a field's ``json_schema_extra`` marks it a figure's variant (``_f`` and the variants' fields give a
    dict or nothing, never pydantic's callable form)."""
    return isinstance(extra, dict) and "variant_of" in extra


def schema_of(cls: type[BaseModel]) -> dict:
    """The JSON Schema (draft 7) of one record: every field named, typed and described, the required ones
    required."""
    props = {name: {**_json_type(hint), "description": doc} for name, doc, hint in _fields(cls)}
    required = [field_name_of(cls, k) for k in required_fields(cls)]
    out = {
        "type": "object",
        "title": cls.__name__,
        "description": " ".join((cls.__doc__ or "").split()),
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }
    if issubclass(cls, _BenchmarkFields):
        # a record `repair` rebuilt from the history holds the history's fields only, until the next run refits it
        out["if"] = {"properties": {"rebuilt": {"const": True}}, "required": ["rebuilt"]}
        out["then"] = {"required": list(REBUILT_REQUIRED)}
        # one made before figures had versions holds the fields every version had, until the next run audits it
        out["else"] = {
            "if": {"required": ["figures_version"]},
            "then": {"required": required},
            "else": {"required": list(OLDER_REQUIRED)},
        }
        out["required"] = ["benchmark"]
    return out


def file_schema(name: str) -> dict:
    """The JSON Schema of one JSON file of ``reports/``."""
    key, cls, shape = FILES[name]
    record = schema_of(cls)
    body = {"type": "array", "items": record} if shape is list else {"type": "object", "additionalProperties": record}
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_BASE + name.replace(".json", ".schema.json"),
        "title": f"benchwatch reports/{name}",
        "type": "object",
        "properties": {"schema_version": {"type": "integer", "const": SCHEMA_VERSION}, key: body},
        "required": ["schema_version", key],
        "additionalProperties": False,
    }


def documented_fields(cls: type[BaseModel]) -> dict[str, str]:
    """Field -> its documentation, in the class's order (a figure's variants are documented beside it)."""
    return {name: doc for name, doc, _ in _fields(cls, variants=False)}


def typed(cls: type[BaseModel], body: dict, where: str) -> Any:
    """``body`` as a record of ``cls``, or an ``InputError`` of one line naming where, the field and the value."""
    from benchwatch.errors import InputError

    try:
        return cls.model_validate(body)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err.get("loc", ())) or "(record)"
        value = err.get("input")
        shown = repr(value) if not isinstance(value, dict) else "{...}"
        raise InputError(where, f"field {field!r} = {shown[:80]}: {err.get('msg', 'invalid')}") from None


def written(rec: _Record) -> dict[str, Any]:
    """A record as its file holds it: its fields as the files name them (``from``), a field never set left out (a
    key absent from the file stays absent), each value as the record holds it."""
    return rec.model_dump(exclude_unset=True, by_alias=True)


def without(rec: RecordT, *names: str) -> RecordT:
    """The record with the fields ``names`` absent (left out of its file, as a deleted key was): a derived record
    sets fields (``model_copy``), this unsets them."""
    kept = rec.model_fields_set - set(names)
    return type(rec).model_construct(_fields_set=kept, **{name: getattr(rec, name) for name in kept})


def as_typed(cls: type[RecordT], entry: RecordT | Mapping[str, Any]) -> RecordT:
    """An entry of a file of ``reports/`` (an alert, a change, a source's status) as its typed record ``cls``, to read
    by attribute (as ``as_record`` makes a benchmark's): a record as it is; a mapping unvalidated (its loader checked
    it, or the stage that made it), its fields set, the others None, keys that are not fields left out."""
    if not isinstance(entry, Mapping):
        return entry
    return cls.model_construct(**entry)


def upgrade(name: str, body: dict) -> dict:
    """A JSON file's body in today's version: a file without ``schema_version`` is version 0; versions 0 and 1 hold
    the same fields as today's (1 matched a figure's variants by a pattern, 2 names each), so they gain today's
    version. A newer version than this benchwatch knows is refused by the loader."""
    version = body.get("schema_version", 0)
    if version in (0, 1):
        body = {**body, "schema_version": SCHEMA_VERSION}
    return body


def field_types(cls: type[BaseModel]) -> dict[str, Any]:
    """Field (as named in the files) -> its type, every field."""
    return {name: hint for name, _, hint in _fields(cls)}
