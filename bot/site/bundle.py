"""One download of every table the site shows: ``downloads/benchwatch-data.zip``, each table as CSV and as
Parquet, with a data dictionary (``DATA_DICTIONARY.md``). Byte-stable: the same reports give the same bytes."""

from __future__ import annotations

import io
import json
import zipfile

import pandas as pd

from bot.history import csv_text

BUNDLE = "downloads/benchwatch-data.zip"
ZIP_TIME = (2026, 1, 1, 0, 0, 0)  # fixed member times: the bundle changes only when its tables do

TABLES = {
    "benchmarks": "one row per benchmark: its latest figures (the scalar fields of its JSON record)",
    "history": "one row per snapshot of a benchmark whose figures changed (reports/history.csv)",
    "alerts": "one row per alert (reports/alerts.json), the figures at the time left out",
    "items": "one row per item of each per-item benchmark: its difficulty b (logits), b_sd and z on [0, 1]",
    "models": "one row per model of each benchmark: score, ability theta, tier and rank interval",
    "by_date": "one row per publication date of each benchmark: the figures over the models published by then",
}
COLUMNS = {
    "benchmark": "the benchmark's id as published by its source",
    "n_items": "items in the benchmark",
    "n_models": "models in the benchmark",
    "ddm": "DDM, model-based: the 1-Wasserstein distance of the items' z from the target (posterior median)",
    "ddm_bound_lo": "DDM's lower bound over every difficulty distribution the data allow",
    "ddm_bound_hi": "DDM's upper bound over every difficulty distribution the data allow",
    "max_gap": "Max Gap, model-based: the widest spacing of sorted z, ends 0 and 1 included",
    "detection_limit": "the widest stretch of z these models cannot rule out as empty (Max Gap's bound)",
    "top5_gap_sum": "the sum of the five widest spacings, model-based",
    "saturation_index": "the saturation index of arXiv:2602.16763 (0: separated, 1: indistinguishable)",
    "state": "saturated, stagnant, discriminating or unknown",
    "flags": "retire, watch, revise, fill (space-separated)",
    "top1": "the best score (a proportion)",
    "top5": "the fifth-best score (a proportion)",
    "top5_mean": "the mean score of the top five (a proportion)",
    "snapshot_at": "when benchwatch first saw this revision of the data (UTC)",
    "revision": "a hash of the benchmark's responses: equal revisions, equal data",
    "item_id": "the item's id as published",
    "b": "the item's difficulty on the fitted logit scale",
    "b_sd": "its posterior standard deviation",
    "z": "the item's position on the difficulty axis [0, 1] (the benchmark's scale)",
    "model": "the model's name as published",
    "score": "the model's mean score over the items it answered (a proportion)",
    "theta": "the model's ability on the fitted logit scale",
    "tier": "1: the best models up to the first one some model is significantly better than; 2: the next run; ...",
    "rank": "the model's rank (1 = best), from the tiers' tests (Holm over all pairs)",
    "note": "why a model's tier deserves a word: every item alike, or few items answered",
    "date": "the publication date (of the model, or of the alert's run)",
    "raised_at": "when the alert was raised (UTC)",
    "kind": "state, raised or cleared (an alert's kind)",
    "title": "the alert in a sentence",
}


SUFFIXES = {
    "_lo": "the lower end of the 95% interval of: ",
    "_hi": "the upper end of the 95% interval of: ",
    "_plugin": "at the items' fitted positions (plug-in), the figure: ",
    "_paired": "with the paired item-level error, the figure: ",
}


def column_meaning(column: str) -> str:
    """What a column holds: its own entry, or its base figure's with the suffix's meaning, or a pointer."""
    if column in COLUMNS:
        return COLUMNS[column]
    for suffix, words in SUFFIXES.items():
        base = column.removesuffix(suffix)
        if column.endswith(suffix) and base in COLUMNS:
            return words + COLUMNS[base]
    return "see the benchmark's JSON record (reports/latest.json; the site's methodology page)"


def _flat(records: dict[str, dict]) -> pd.DataFrame:
    rows = []
    for name in sorted(records):
        rec = records[name]
        row = {k: v for k, v in rec.items() if v is None or isinstance(v, str | int | float | bool)}
        row["flags"] = " ".join(rec.get("flags", []))
        rows.append(row)
    frame = pd.DataFrame(rows)
    return frame[sorted(frame.columns, key=lambda c: (c != "benchmark", c))] if len(frame) else frame


def _stack(tables: dict[str, pd.DataFrame | None]) -> pd.DataFrame:
    parts = [t.assign(benchmark=name) for name, t in sorted(tables.items()) if t is not None and len(t)]
    if not parts:
        return pd.DataFrame({"benchmark": []})
    frame = pd.concat(parts, ignore_index=True)
    return frame[["benchmark", *[c for c in frame.columns if c != "benchmark"]]]


def bundle_tables(
    records: dict[str, dict], history: pd.DataFrame, alerts: list[dict], per_benchmark: dict[str, dict]
) -> dict[str, pd.DataFrame]:
    """The bundle's tables; ``per_benchmark`` maps a benchmark to its {"items", "models", "by_date"} tables."""
    alert_rows = [{k: v for k, v in a.items() if k != "figures"} for a in alerts]
    out = {
        "benchmarks": _flat(records),
        "history": history.reset_index(drop=True) if history is not None else pd.DataFrame(),
        "alerts": pd.DataFrame(alert_rows).sort_values(["raised_at", "id"]) if alert_rows else pd.DataFrame(),
    }
    for kind in ("items", "models", "by_date"):
        out[kind] = _stack({name: tables.get(kind) for name, tables in per_benchmark.items()})
    return out


def dictionary(tables: dict[str, pd.DataFrame]) -> str:
    """The data dictionary: every table and every column, with what it holds."""
    lines = ["# benchwatch data: the tables of this bundle", ""]
    lines += ["Each table comes as `NAME.csv` and `NAME.parquet` (the same rows). Scores are proportions."]
    for name, frame in tables.items():
        lines += ["", f"## {name}", "", TABLES[name] + ".", "", "| column | meaning |", "|---|---|"]
        for col in frame.columns:
            meaning = column_meaning(col)
            lines.append(f"| `{col}` | {meaning} |")
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
