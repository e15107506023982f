"""The downloads bundle: every table of the site as CSV and Parquet (the same rows), with a dictionary that
names every column; the same reports give the same bytes."""

from __future__ import annotations

import io
import zipfile

import pandas as pd

from bot.site.bundle import TABLES, bundle_bytes, bundle_tables


def _records():
    return {
        "b": {"benchmark": "b", "n_items": 3, "ddm": 0.2, "ddm_lo": 0.1, "flags": ["fill"], "gaps": [[0.1, 0.2]]},
        "a": {"benchmark": "a", "n_items": 2, "ddm": 0.1, "flags": [], "top_models": [["m", 0.5]]},
    }


def _tables():
    items = pd.DataFrame({"item_id": ["i1", "i2"], "b": [0.5, -0.5], "b_sd": [0.2, 0.3], "z": [0.7, 0.3]})
    models = pd.DataFrame({"model": ["m"], "score": [0.5], "theta": [0.0], "tier": [1]})
    history = pd.DataFrame({"benchmark": ["a"], "ddm": [0.1]})
    alerts = [{"id": "a/x", "benchmark": "a", "kind": "state", "raised_at": "2026-01-01", "title": "t", "figures": {}}]
    per = {"a": {"items": items, "models": models, "by_date": None}, "b": {"items": items, "models": None}}
    return bundle_tables(_records(), history, alerts, per)


def test_every_table_as_csv_and_parquet_with_a_dictionary_of_every_column():
    data = bundle_bytes(_tables())
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        assert names == {"DATA_DICTIONARY.md"} | {f"{t}.{x}" for t in TABLES for x in ("csv", "parquet")}
        dictionary = zf.read("DATA_DICTIONARY.md").decode()
        for table in TABLES:
            csv = pd.read_csv(io.BytesIO(zf.read(f"{table}.csv")))
            parquet = pd.read_parquet(io.BytesIO(zf.read(f"{table}.parquet")))
            assert list(csv.columns) == list(parquet.columns) and len(csv) == len(parquet), table
            for column in parquet.columns:
                assert f"| `{column}` |" in dictionary, (table, column)
        items = pd.read_parquet(io.BytesIO(zf.read("items.parquet")))
        assert sorted(items["benchmark"]) == ["a", "a", "b", "b"] and items.columns[0] == "benchmark"
        benchmarks = pd.read_csv(io.BytesIO(zf.read("benchmarks.csv")))
        assert list(benchmarks["benchmark"]) == ["a", "b"] and list(benchmarks["flags"].fillna("")) == ["", "fill"]
        assert "the lower end of the 95% interval of: DDM" in dictionary  # ddm_lo, from its base figure
        assert "figures" not in pd.read_csv(io.BytesIO(zf.read("alerts.csv"))).columns


def test_a_cell_a_spreadsheet_would_run_stays_text():
    """Upstream names reach the bundle's CSVs as every CSV of the site writes them (bot.history.csv_text)."""
    records = {"=HYPERLINK(1)": {"benchmark": "=HYPERLINK(1)", "n_items": 1, "flags": []}}
    tables = bundle_tables(records, pd.DataFrame(), [], {})
    with zipfile.ZipFile(io.BytesIO(bundle_bytes(tables))) as zf:
        text = zf.read("benchmarks.csv").decode()
    assert "\n=HYPERLINK" not in text and "HYPERLINK(1)" in text


def test_the_same_reports_give_the_same_bytes():
    assert bundle_bytes(_tables()) == bundle_bytes(_tables())
