"""The downloads bundle: every table of the site as CSV and Parquet (the same rows), with a dictionary that
names every column; the same reports give the same bytes."""

from __future__ import annotations

import io
import json
import re
import typing
import zipfile

import pandas as pd

from benchwatch.history.records import VARIANT_DOCS, Alert, BenchmarkRecord
from benchwatch.record import as_record
from benchwatch.site.bundle import BUNDLE, TABLES, UNDEFINED, bundle_bytes, bundle_tables, column_meaning, column_unit


def _records():
    return {
        "b": as_record(
            {"benchmark": "b", "n_items": 3, "ddm": 0.2, "ddm_lo": 0.1, "flags": ["fill"], "gaps": [{"lo": 0.1}]}
        ),
        "a": as_record({"benchmark": "a", "n_items": 2, "ddm": 0.1, "flags": [], "top_models": [{"model": "m"}]}),
    }


def _tables():
    items = pd.DataFrame({"item_id": ["i1", "i2"], "b": [0.5, -0.5], "b_sd": [0.2, 0.3], "z": [0.7, 0.3]})
    models = pd.DataFrame({"model": ["m"], "score": [0.5], "theta": [0.0], "tier": [1]})
    history = pd.DataFrame({"benchmark": ["a"], "ddm": [0.1]})
    alerts = [
        Alert.model_construct(id="a/x", benchmark="a", kind="state", raised_at="2026-01-01", title="t", figures={})
    ]
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
                assert f"| `{column}` | " in dictionary, (table, column)
        items = pd.read_parquet(io.BytesIO(zf.read("items.parquet")))
        assert sorted(items["benchmark"]) == ["a", "a", "b", "b"] and items.columns[0] == "benchmark"
        benchmarks = pd.read_csv(io.BytesIO(zf.read("benchmarks.csv")))
        assert list(benchmarks["benchmark"]) == ["a", "b"] and list(benchmarks["flags"].fillna("")) == ["", "fill"]
        ddm_lo = "| `ddm_lo` | z (the difficulty axis, 0 to 1) | the lower end of the 95% interval of `ddm_model_based`"
        assert ddm_lo in dictionary  # from its base figure
        assert "figures" not in pd.read_csv(io.BytesIO(zf.read("alerts.csv"))).columns


def test_a_cell_a_spreadsheet_would_run_stays_text():
    """Upstream names reach the bundle's CSVs as every CSV of the site writes them (benchwatch.history.csv_text)."""
    records = {"=HYPERLINK(1)": as_record({"benchmark": "=HYPERLINK(1)", "n_items": 1, "flags": []})}
    tables = bundle_tables(records, pd.DataFrame(), [], {})
    with zipfile.ZipFile(io.BytesIO(bundle_bytes(tables))) as zf:
        text = zf.read("benchmarks.csv").decode()
    assert "\n=HYPERLINK" not in text and "HYPERLINK(1)" in text


def test_the_same_reports_give_the_same_bytes():
    assert bundle_bytes(_tables()) == bundle_bytes(_tables())


def _sections(dictionary: str) -> dict[str, dict[str, tuple[str, str]]]:
    """The dictionary's tables: table -> column -> (unit, meaning)."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for block in dictionary.split("\n## ")[1:]:
        name, *lines = block.splitlines()
        rows = [re.fullmatch(r"\| `([^`]+)` \| (.*) \| (.*) \|", line) for line in lines]
        out[name.strip()] = {m[1]: (m[2], m[3]) for m in rows if m}
    return out


FILE_NAME = re.compile(r"[\w./-]+\.(?:json|csv|parquet|md|toml|py|yaml|yml|txt|zip|html)\b|reports/")


def test_the_sample_sites_bundle_defines_every_column_with_a_unit_and_names_no_file_outside_it(sample_site):
    """Every column of every CSV of the downloads zip the sample builds has a row in its table's section of
    DATA_DICTIONARY.md, with a unit and a definition in words; the dictionary names no file the zip lacks."""
    _, reports, site = sample_site
    with zipfile.ZipFile(site / BUNDLE) as zf:
        members = set(zf.namelist())
        dictionary = zf.read("DATA_DICTIONARY.md").decode()
        csvs = {n.removesuffix(".csv"): pd.read_csv(io.BytesIO(zf.read(n))) for n in members if n.endswith(".csv")}
    sections = _sections(dictionary)
    assert set(csvs) == set(TABLES) == set(sections)
    defined = 0
    for table, frame in csvs.items():
        assert list(sections[table]) == list(frame.columns), table  # every column, none beyond
        for column, (unit, meaning) in sections[table].items():
            assert UNDEFINED not in (unit, meaning) and len(meaning) > 15, (table, column, unit, meaning)
            assert "see the" not in meaning and "JSON record" not in meaning, (table, column, meaning)
            defined += 1
    assert defined > 100
    for named in FILE_NAME.findall(dictionary):
        assert named.lstrip("`") in members, named  # a file the dictionary names is in the zip
    # the figures under names that say which: the home page's Max Gap (the bound) apart from the model-based one
    benchmarks = csvs["benchmarks"].set_index("benchmark")
    assert {"max_gap_model_based", "max_gap_bound", "ddm_model_based"} <= set(benchmarks.columns)
    assert not {"max_gap", "detection_limit", "ddm"} & set(benchmarks.columns)
    for table in ("history", "by_date"):
        assert "max_gap_model_based" in csvs[table].columns and "max_gap" not in csvs[table].columns, table
    latest = {r["benchmark"]: r for r in json.loads((reports / "latest.json").read_text())["benchmarks"]}
    bounded = [b for b, r in latest.items() if r.get("detection_limit") is not None]
    assert bounded
    for name in bounded:
        row = benchmarks.loc[name]
        assert row["max_gap_bound"] == latest[name]["detection_limit"], name
        assert row["max_gap_model_based"] == latest[name]["max_gap"], name
    unit, meaning = sections["benchmarks"]["max_gap_bound"]
    assert unit.startswith("z") and "Max Gap column" in meaning and "cannot rule out as empty" in meaning
    assert "model-based" in sections["benchmarks"]["max_gap_model_based"][1]


def test_every_scalar_record_field_has_a_unit_and_its_records_definition():
    """A field a record gains reaches the dictionary defined: from the record class's own documentation."""
    for cls, table in ((BenchmarkRecord, "benchmarks"), (Alert, "alerts")):
        hints = typing.get_type_hints(cls)
        for attribute, f in cls.model_fields.items():
            name = attribute.removesuffix("_")
            if "dict" in str(hints[attribute]) or name in ("gaps", "top_models"):
                continue  # nested: the schema describes them, the tables leave them out
            if "variant_of" in (f.json_schema_extra or {}):  # a figure's variant: defined from its figure's words
                suffix = name.removeprefix(f.json_schema_extra["variant_of"])
                words = VARIANT_DOCS[suffix].split("{}")
                assert all(w in column_meaning(name, table) for w in words), (table, name)
                continue
            assert column_unit(name, table), (table, name)
            assert f.description in column_meaning(name, table) or name == "flags", (table, name)
    assert column_meaning("name", "benchmarks") and column_unit("name", "models") == "text"  # a display-name column
    assert column_meaning("thin_width_sampling_p95", "benchmarks", ("thin_width",)).endswith("(95th percentile)")
