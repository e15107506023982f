"""One download of every table the site shows: ``downloads/benchwatch-data.zip``, each table as CSV and as
Parquet, with a data dictionary (``DATA_DICTIONARY.md``) that defines every column of every table, with its unit,
and names no file outside the zip. Byte-stable: the same reports give the same bytes.

The definitions of a benchmark's figures and of an alert's fields are the typed records' own
(``benchwatch.history.records``: each field's ``metadata["doc"]``); only the columns of tables no record class types
(items, models, a date's row) are defined here."""

from __future__ import annotations

import io
import json
import typing
import zipfile

import pandas as pd

from benchwatch.history import (
    VARIANT_DOCS,
    Alert,
    BenchmarkRecord,
    csv_text,
    documented_fields,
    field_types,
    written,
)
from benchwatch.vocabulary import COVERAGE_FIGURES, GAP_BOUNDS, NO_BOUND_FROM

BUNDLE = "downloads/benchwatch-data.zip"
ZIP_TIME = (2026, 1, 1, 0, 0, 0)  # fixed member times: the bundle changes only when its tables do

TABLES = {
    "benchmarks": "one row per benchmark: its latest figures, flags and provenance (the scalar fields of its record; "
    "`schema/latest.schema.json` describes the whole record, lists included)",
    "history": "one row per snapshot of a benchmark whose figures changed, oldest first",
    "alerts": "one row per alert: a change of a benchmark's state, flag, tier, verdict or data",
    "items": "one row per item of each benchmark with per-item data: its fitted difficulty and its place on z",
    "models": "one row per model of each benchmark: its score with its interval, its tier and rank interval, and "
    "(per-item data) its fitted ability",
    "by_date": "one row per publication date of each benchmark with dated models: the figures over the models "
    "published by that date",
}

# A bare figure's name says which figure it holds: the model-based figures (posterior medians under smooth
# difficulties) apart from Max Gap's bound, the figure the site's home page shows in its Max Gap column. Nothing
# reads the bundle's CSVs under the old names; the records (schema/latest.schema.json) keep them.
RENAMED = {
    **{k: f"{k}_model_based" for k in COVERAGE_FIGURES},
    "detection_limit": "max_gap_bound",
    "detection_limit_low_end": "max_gap_bound_low_end",
    "detection_limit_high_end": "max_gap_bound_high_end",
}
RENAMED_TABLES = ("benchmarks", "history", "by_date")
RENAMED_WORDS = {  # the bound's place on the site, said beside its definition
    "detection_limit": "the figure the site's home page shows in its Max Gap column (as ≤ this; empty where it "
    "would span 0.95 of the axis or more: no bound with these models): ",
}
_ORIGINAL = {new: old for old, new in RENAMED.items()}

RECORD_DOCS = documented_fields(BenchmarkRecord)
ALERT_DOCS = documented_fields(Alert)
TABLE_DOCS = {"benchmarks": RECORD_DOCS, "history": RECORD_DOCS, "by_date": RECORD_DOCS, "alerts": ALERT_DOCS}

_SHARED = {
    "benchmark": "the benchmark's id as its source publishes it",
    "name": "the benchmark's name as the site's pages show it (its configured display name, else its id)",
}
OWN = {  # the columns no record class types, by table
    "benchmarks": {
        "flags": "the flags raised, space-separated: retire, watch, revise, fill (empty: none)",
        "top_gap": "the top-1 minus top-5 score difference (paired item-level where per-item data exist, else from "
        "the published standard errors or the binomial error)",
    },
    "history": {"flags": "the flags raised at that snapshot, space-separated: retire, watch, revise, fill"},
    "by_date": {
        "date": "the publication date: the row's figures are over the models published on or before it",
        "top_tier_size": "models in the top tier over the models published by that date",
    },
    "alerts": {},
    "items": {
        "item_id": "the item's id as its source publishes it",
        "b": "the item's fitted difficulty (posterior mean; higher: harder)",
        "b_sd": "the posterior standard deviation of b (the 1PL fit's, at the item model's floors)",
        "z": "the item's position on the difficulty axis: the benchmark's scale (see `scale` in benchmarks)",
    },
    "models": {
        "model": "the model's name as its source publishes it",
        "score": "the model's mean score over the items it answered, or the score its board publishes",
        "n_items": "the items the board's score stands on (its test-set size; empty for per-item data)",
        "n_answered": "per-item data: the items the model answered",
        "date": "the model's publication date, as its source gives it (empty: none given)",
        "stderr": "the standard error of the score the source publishes (empty: none published)",
        "tier": "the model's tier: 1 holds the best models up to the first one some model is significantly "
        "better than (Holm-corrected tests), 2 the next run, and so on (empty: beyond the tiered models)",
        "rank": "the model's rank among the tiered models (1 = best), from the tiers' tests",
        "note": "why the model's tier deserves a word: every item alike, or few items answered",
        "theta": "per-item data: the model's fitted ability (posterior mean; higher: abler)",
        "theta_sd": "the posterior standard deviation of theta",
        "theta_axis": "the ability that places the items on z and behind the bounds (the item model's path)",
    },
}
for _table, _own in OWN.items():  # a record's own definition first where it has the column
    _own.update({k: v for k, v in _SHARED.items() if k not in TABLE_DOCS.get(_table, {})})

SUFFIXES = VARIANT_DOCS  # a figure's variants, beside it ({} is the figure)

Z = "z (the difficulty axis, 0 to 1)"
PROPORTION = "proportion (0 to 1)"
LOGITS = "logits (the fitted item model's scale)"
COUNT = "count"
UTC = "UTC time (ISO 8601, 2026-12-01T06:00:00Z)"
DATE = "date (YYYY-MM-DD)"
UNITS = {  # a column's unit by its base name (before a suffix, under the record's name); text and true/false
    # fields take theirs from the record's type
    **dict.fromkeys(
        (
            *COVERAGE_FIGURES,
            *("ddm_bound_lo", "ddm_bound_hi", "top5_gap_sum_bound_hi"),
            *("detection_limit", "detection_limit_low_end", "detection_limit_high_end", "detection_boundary"),
            *("thin_width", "thin_top5", "z"),
        ),
        Z,
    ),
    **dict.fromkeys(
        (
            *("top1", "top5", "top5_mean", "ceiling", "solved_share", "score", "stderr", "top_gap"),
            *("top_gap_se_paired", "chance_nominal", "floor_share", "floor_effective", "floor_undeclared"),
        ),
        PROPORTION,
    ),
    **dict.fromkeys(("b", "b_sd", "theta", "theta_sd", "theta_axis"), LOGITS),
    **dict.fromkeys(
        (
            *("n_items", "n_models", "n_cells", "n_answered", "n_tiers", "top_tier_size", "iterations"),
            *("calibrated_models", "calibrated_items", "chance_items", "floor_items", "shared_items_top1_top5"),
            *("spread_items", "sample_cells"),
            "size",
        ),
        COUNT,
    ),
    **dict.fromkeys(("snapshot_at", "raised_at", "gone_since"), UTC),
    **dict.fromkeys(("date", "first_saturated_date", "fell_back_date", "saturated_since"), DATE),
    "saturation_index": "index (0: separated, 1: cannot be told apart; no unit)",
    "rank_flip_bound_per_lipschitz": "z (times L, the score's Lipschitz constant on z: a proportion)",
    "figures_version": "version number",
    "tier": "tier number (1 = best)",
    "rank": "rank (1 = best)",
    "tier_alpha": "probability (0 to 1)",
    "fit_p": "probability (0 to 1)",
    "fit_statistic": "standard deviations",
    "max_rhat": "ratio (no unit; 1 at convergence)",
    "min_ess_bulk": "effective draws",
    "discrimination_spread": "natural log of a discrimination (no unit)",
    "sample_correlation": "correlation (0 to 1)",
    "flags": "words, space-separated",
    "revision": "hash (text)",
    **dict.fromkeys(("benchmark", "name", "item_id", "model", "note"), "text"),
}


def _base(column: str, table: str) -> tuple[str, str]:
    """A column's base name (under the record's name) and the words for its suffix ("" for none)."""
    name = _ORIGINAL.get(column, column) if table in RENAMED_TABLES else column
    if name in OWN.get(table, {}) or name in TABLE_DOCS.get(table, {}):
        return name, ""
    for suffix, words in SUFFIXES.items():
        if name.endswith(suffix):
            base = name.removesuffix(suffix)
            return _ORIGINAL.get(base, base), words
    return name, ""


def column_meaning(column: str, table: str = "benchmarks", columns: tuple[str, ...] = ()) -> str:
    """What a column of a table holds, in words ("" when nothing defines it): its table's own definition, else
    its record field's documentation; a suffixed figure's from its base figure (by name where ``columns``, the
    table's, hold it)."""
    base, words = _base(column, table)
    own, docs = OWN.get(table, {}), TABLE_DOCS.get(table, {})
    meaning = own.get(column) or own.get(base) or docs.get(base, "")
    if not meaning:
        return ""
    if words:
        shown = RENAMED.get(base, base) if table in RENAMED_TABLES else base
        return words.format(f"`{shown}`" if shown in columns else meaning)
    if table in RENAMED_TABLES and base in RENAMED and column not in own:
        meaning = RENAMED_WORDS.get(base, "") + meaning + f" (the record's `{base}`)"
    return meaning


TABLE_HINTS = {"benchmarks": field_types(BenchmarkRecord), "alerts": field_types(Alert)}
TABLE_HINTS["history"] = TABLE_HINTS["by_date"] = TABLE_HINTS["benchmarks"]


def column_unit(column: str, table: str = "benchmarks") -> str:
    """A column's unit ("" when nothing says it): by its base name, else by its record field's type (text, true or
    false, a list as JSON text)."""
    base, _ = _base(column, table)
    if base in UNITS:
        return UNITS[base]
    hint = TABLE_HINTS.get(table, {}).get(base)
    kinds = (set(typing.get_args(hint)) - {type(None)}) or {hint}
    if kinds == {str}:
        return "text"
    if kinds == {bool}:
        return "true or false"
    if any(typing.get_origin(k) is list for k in kinds):
        return "JSON text (a list)"
    return ""


def _flat(records: dict[str, BenchmarkRecord]) -> pd.DataFrame:
    rows = []
    for name in sorted(records):
        rec = records[name]
        scalars = {k: v for k, v in written(rec).items() if v is None or isinstance(v, str | int | float | bool)}
        rows.append({**scalars, "flags": " ".join(rec.flags or [])})
    frame = pd.DataFrame(rows)
    return frame[sorted(frame.columns, key=lambda c: (c != "benchmark", c))] if len(frame) else frame


def _alert_row(alert: Alert) -> dict:
    """An alert as a row of the alerts table: its fields as alerts.json holds them, in its order (names sorted, as
    ``to_json`` writes them), without its figures (an object, not a cell)."""
    return {k: v for k, v in sorted(written(alert).items()) if k != "figures"}


def _stack(tables: dict[str, pd.DataFrame | None]) -> pd.DataFrame:
    parts = [t.assign(benchmark=name) for name, t in sorted(tables.items()) if t is not None and len(t)]
    if not parts:
        return pd.DataFrame({"benchmark": []})
    frame = pd.concat(parts, ignore_index=True)
    return frame[["benchmark", *[c for c in frame.columns if c != "benchmark"]]]


def bundle_tables(
    records: dict[str, BenchmarkRecord], history: pd.DataFrame, alerts: list[Alert], per_benchmark: dict[str, dict]
) -> dict[str, pd.DataFrame]:
    """The bundle's tables; ``per_benchmark`` maps a benchmark to its {"items", "models", "by_date"} tables."""
    alert_rows = [_alert_row(a) for a in alerts]
    out = {
        "benchmarks": _flat(records),
        "history": history.reset_index(drop=True) if history is not None else pd.DataFrame(),
        "alerts": pd.DataFrame(alert_rows).sort_values(["raised_at", "id"]) if alert_rows else pd.DataFrame(),
    }
    for kind in ("items", "models", "by_date"):
        out[kind] = _stack({name: tables.get(kind) for name, tables in per_benchmark.items()})
    for kind in ("benchmarks", "history"):  # a gap's bound over (nearly) the whole axis: empty, as the pages say
        for column in GAP_BOUNDS:
            if column in out[kind].columns:
                values = pd.to_numeric(out[kind][column], errors="coerce")
                out[kind][column] = values.where(values < NO_BOUND_FROM)
    for kind in RENAMED_TABLES:  # a bare figure under a name that says which figure it is
        out[kind] = out[kind].rename(columns=RENAMED)
    return out


UNDEFINED = "(not defined)"


def dictionary(tables: dict[str, pd.DataFrame]) -> str:
    """The data dictionary: every table and every column, with its unit and what it holds; it names no file
    outside the bundle."""
    lines = ["# benchwatch data: the tables of this bundle", ""]
    lines += [
        "Each table comes as CSV and as Parquet under its name (`benchmarks.csv`, `benchmarks.parquet`, ...; the same",
        "rows); `schema/` holds the JSON Schema of",
        "each record (a benchmark, an alert, a source, a snapshot's changes), every field described.",
        "",
        "- Units: scores are proportions (0 to 1); positions on the difficulty axis z run from 0 to 1 (see `scale`),",
        "  as do the coverage figures measured on it; abilities and difficulties are in logits; times are UTC.",
        "- A figure's name says which figure it holds: `_model_based` is the posterior median under smooth",
        "  difficulties; `_bound_lo`, `_bound_hi` and `max_gap_bound` hold for every difficulty distribution the",
        "  data allow (the site's home page shows DDM's bounds and Max Gap's bound where a benchmark has them).",
        "- A column ending in `_lo` or `_hi` is an end of the 95% interval of the column it extends; `_plugin` is",
        "  the figure at the items' fitted positions; `_sampling_p95` what items drawn from the target show by",
        "  chance (95th percentile); `_paired` the figure with the paired item-level error.",
        "- An empty cell (null in a definition): the figure does not apply or could not be computed for that row.",
    ]
    for name, frame in tables.items():
        lines += ["", f"## {name}", "", TABLES[name] + ".", "", "| column | unit | meaning |", "|---|---|---|"]
        for col in frame.columns:
            unit, meaning = column_unit(col, name), column_meaning(col, name, tuple(frame.columns))
            lines.append(f"| `{col}` | {unit or UNDEFINED} | {(meaning or UNDEFINED).replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def _as_text(value: object) -> object:
    return json.dumps(value, sort_keys=True) if isinstance(value, list | dict) else value


def bundle_bytes(tables: dict[str, pd.DataFrame], schemas: dict[str, str] | None = None) -> bytes:
    """The zip of every table (CSV and Parquet), the dictionary and the JSON Schemas of reports/ (``schema/``)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(zipfile.ZipInfo("DATA_DICTIONARY.md", ZIP_TIME), dictionary(tables), zipfile.ZIP_DEFLATED)
        for name, text in sorted((schemas or {}).items()):
            zf.writestr(zipfile.ZipInfo(f"schema/{name}", ZIP_TIME), text, zipfile.ZIP_DEFLATED)
        for name, frame in tables.items():
            clean = frame.copy()
            for col in clean.columns:  # lists and dicts (a record's nested fields) as JSON text
                if clean[col].map(lambda v: isinstance(v, list | dict)).any():
                    clean[col] = clean[col].map(_as_text)
            text = csv_text(clean)  # as every CSV of the site: a text cell a spreadsheet would run stays text
            zf.writestr(zipfile.ZipInfo(f"{name}.csv", ZIP_TIME), text, zipfile.ZIP_DEFLATED)
            buffer = io.BytesIO()
            clean.astype({c: "string" for c in clean.columns if clean[c].dtype == object}).to_parquet(
                buffer, index=False
            )
            zf.writestr(zipfile.ZipInfo(f"{name}.parquet", ZIP_TIME), buffer.getvalue(), zipfile.ZIP_DEFLATED)
    return out.getvalue()
