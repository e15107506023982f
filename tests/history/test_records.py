"""The records of reports/ against their published schemas (benchwatch.history.records): a real run's files validate;
a wrong type, a missing field or an undeclared one is one line naming the file, the record, the field and the
value; a file of the older version (today's format without its version) upgrades; the site reads only
declared fields."""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest

from benchwatch.history import Reports, load_alerts, load_latest, load_sources
from benchwatch.history.check import check_reports, schema_problems
from benchwatch.history.records import (
    FILES,
    SCHEMA_VERSION,
    BenchmarkRecord,
    documented_fields,
    file_schema,
    schema_of,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_schema_is_valid_draft_7_and_documents_every_field(name):
    schema = file_schema(name)
    jsonschema.Draft7Validator.check_schema(schema)
    record = schema["properties"][FILES[name][0]]
    record = record.get("items") or record["additionalProperties"]
    assert all(len(p["description"]) > 8 for p in record["properties"].values())


def test_a_sample_runs_reports_validate_and_say_their_version(sample_site):
    _, reports, _ = sample_site
    for name in FILES:
        body = json.loads((reports / name).read_text())
        assert body["schema_version"] == SCHEMA_VERSION, name
        assert schema_problems(reports / name) == [], name
    assert check_reports(reports) == []


def test_a_wrong_type_a_missing_field_and_an_undeclared_one_are_one_line_each(sample_site, tmp_path):
    _, reports, _ = sample_site
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    body = json.loads((copy / "latest.json").read_text())
    first, second = body["benchmarks"][0], body["benchmarks"][1]
    first["n_items"] = "many"
    del second["state"]
    second["colour"] = "blue"
    (copy / "latest.json").write_text(json.dumps(body))
    problems = check_reports(copy)
    path = copy / "latest.json"
    assert f"{path}: benchmarks[0] ({first['benchmark']!r}): field 'n_items': expected integer, got 'many'" in problems
    assert f"{path}: benchmarks[1] ({second['benchmark']!r}): missing the required field 'state'" in problems
    assert any(p.startswith(f"{path}: benchmarks[1]") and "'colour'" in p for p in problems)
    assert all("\n" not in p for p in problems)
    sources = json.loads((copy / "sources.json").read_text())
    name = sorted(sources["sources"])[0]
    sources["sources"][name]["status"] = 3
    (copy / "sources.json").write_text(json.dumps(sources))
    assert f"{copy / 'sources.json'}: source {name!r}: field 'status': expected string, got 3" in check_reports(copy)


def test_a_file_of_the_older_version_is_read_and_upgraded_and_a_newer_one_refused(sample_site, tmp_path):
    """Version 0 is today's format without its schema_version: read as it is, written back with the version."""
    _, reports, _ = sample_site
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    for name, (key, _, _) in FILES.items():
        body = json.loads((copy / name).read_text())
        (copy / name).write_text(json.dumps({key: body[key]}))  # as benchwatch wrote it before versions
    old = Reports(copy)
    assert load_latest(old) == load_latest(Reports(reports))
    assert load_alerts(old) == load_alerts(Reports(reports)) and load_sources(old) == load_sources(Reports(reports))
    assert check_reports(copy) == []
    body = json.loads((copy / "latest.json").read_text())
    (copy / "latest.json").write_text(json.dumps({**body, "schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(ValueError, match=rf"schema_version {SCHEMA_VERSION + 1}: this benchwatch reads versions"):
        load_latest(Reports(copy))


@pytest.mark.parametrize("version", [0, 1])
def test_files_of_versions_0_and_1_hold_todays_fields_and_upgrade(sample_site, tmp_path, version):
    """Version 1 matched a figure's variants by a pattern; version 2 names each: the same fields, so a version 0 or
    1 file reads as today's and checks clean."""
    _, reports, _ = sample_site
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    for name, (key, _, _) in FILES.items():
        body = json.loads((copy / name).read_text())
        (copy / name).write_text(json.dumps({key: body[key], **({"schema_version": 1} if version else {})}))
    assert load_latest(Reports(copy)) == load_latest(Reports(reports))
    assert check_reports(copy) == []


def test_a_variant_the_record_does_not_name_is_an_undeclared_field(sample_site, tmp_path):
    """A suffix no longer makes a field: max_gap_bound_lo (the pattern of version 1 accepted it) is undeclared, in
    check's line and in the typed record's error."""
    from benchwatch.errors import InputError
    from benchwatch.history.records import typed

    _, reports, _ = sample_site
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    body = json.loads((copy / "latest.json").read_text())
    first = body["benchmarks"][0]
    first["max_gap_bound_lo"] = 0.1
    (copy / "latest.json").write_text(json.dumps(body))
    problems = check_reports(copy)
    assert len(problems) == 1 and "max_gap_bound_lo" in problems[0] and first["benchmark"] in problems[0]
    with pytest.raises(InputError, match=r"field 'max_gap_bound_lo' = 0.1: Extra inputs are not permitted"):
        typed(BenchmarkRecord, first, "latest.json: " + first["benchmark"])


def _read_keys(source: str, names: set[str], typed: frozenset[str] = frozenset({"rec"})) -> set[str]:
    """The record fields a module reads: rec["k"], rec.get("k") for every name in ``names``, and rec.k for every
    name in ``typed`` (the typed record's attributes, not pydantic's own ``model_*``)."""
    keys = set()
    for node in ast.walk(ast.parse(source)):
        attribute = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in typed
        if attribute and not node.attr.startswith("model_"):
            keys.add(node.attr)
        subscript = isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names
        if subscript and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            keys.add(node.slice.value)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in names
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            keys.add(node.args[0].value)
    return keys


def test_the_site_reads_no_field_the_records_schema_does_not_declare():
    """Every field the page code reads from a benchmark record (``rec``) is declared in BenchmarkRecord's schema
    (a figure's variants each by name)."""
    declared = set(schema_of(BenchmarkRecord)["properties"])
    read = set()
    for module in sorted((ROOT / "bot" / "benchwatch" / "site").glob("*.py")):
        read |= _read_keys(module.read_text(), {"rec", "record"})
    assert len(read) > 40  # the scan finds what the pages read
    undeclared = {k for k in read if k not in declared}
    assert undeclared == set()


def test_the_data_page_documents_fields_a_run_has(sample_site):
    """site/docs/data.md names record fields in backticks: each is declared, and each is in the sample's
    records (a field no run writes is not documented as one)."""
    _, reports, _ = sample_site
    text = (ROOT / "site" / "docs" / "data.md").read_text()
    named = set(re.findall(r"^\| `([a-z0-9_]+)` \|", text, flags=re.M))
    declared = documented_fields(BenchmarkRecord)
    records = load_latest(Reports(reports)).values()
    assert len(named) >= 15
    for name in sorted(named):
        assert name in declared, name
        assert any(name in rec.model_fields_set for rec in records), name


def test_a_rebuilt_record_leaves_out_a_cell_that_is_not_a_number_and_check_names_it(sample_site, tmp_path):
    """repair rebuilds latest.json from the history; a figure cell that is not a number is left out of the
    rebuilt record (which stays valid: records are validated when read) and repair and check say which benchmark,
    which field and what value."""
    from benchwatch.history.repair import repair_reports

    _, reports, _ = sample_site
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    lines = (copy / "history.csv").read_text().splitlines()
    header = lines[0].split(",")
    row = lines[-1].split(",")
    row[header.index("ddm")] = "abc"
    (copy / "history.csv").write_text("\n".join([*lines[:-1], ",".join(row)]) + "\n")
    (copy / "latest.json").unlink()
    done = repair_reports(copy, log=lambda _line: None)
    name = row[header.index("benchmark")]
    assert f"{copy / 'latest.json'}: {name!r}'s 'ddm' left out: history.csv holds 'abc', not a number" in done
    assert "ddm" not in load_latest(Reports(copy))[name].model_fields_set
    assert check_reports(copy, pending=False) == [f"{copy / 'history.csv'}: {name!r}'s 'ddm' is 'abc', not a number"]
    # issue 62: `check` names each record still as rebuilt, until a run refits it
    rebuilt = [p for p in check_reports(copy) if "is as rebuilt from history.csv" in p]
    assert len(rebuilt) == len(load_latest(Reports(copy))) and any(repr(name) in p for p in rebuilt)


def test_a_record_is_validated_when_read_as_when_written(sample_site, tmp_path):
    """Issue 39: latest.json and alerts.json are read as the typed records they are written as: a misspelt or
    mistyped field is an error naming the file, the record, the field and the value (never a record read with a
    field missing); check still names every problem, and repair rebuilds the file."""
    from benchwatch.errors import InputError
    from benchwatch.history.repair import repair_reports

    _, reports, _ = sample_site
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    body = json.loads((copy / "latest.json").read_text())
    first = body["benchmarks"][0]
    first["ddm_bound_low"] = first.pop("ddm")
    (copy / "latest.json").write_text(json.dumps(body))
    with pytest.raises(
        InputError, match=rf"latest.json: record {re.escape(first['benchmark'])}: field 'ddm_bound_low'"
    ):
        load_latest(Reports(copy))
    assert len(load_latest(Reports(copy), validate=False)) == len(body["benchmarks"])
    assert any("ddm_bound_low" in p for p in check_reports(copy))
    alerts = json.loads((copy / "alerts.json").read_text())
    alerts["alerts"][0]["title"] = 7
    (copy / "alerts.json").write_text(json.dumps(alerts))
    with pytest.raises(InputError, match=r"alerts.json: record .*field 'title' = 7"):
        load_alerts(Reports(copy))
    repair_reports(copy)
    assert check_reports(copy, pending=False) == []  # what repair can mend; the rebuilt records wait for a run
    assert first["benchmark"] in load_latest(Reports(copy))


def test_latest_read_again_gives_the_same_records_and_a_changed_file_its_new_ones(sample_site, tmp_path):
    """A run reads latest.json several times; an unchanged file gives the records of the first read (the dict
    its own: a caller's change to it is not the next reader's), a changed one is read anew."""
    _, reports, _ = sample_site
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    first = load_latest(Reports(copy))
    name = sorted(first)[0]
    del first[name]
    again = load_latest(Reports(copy))
    assert name in again and len(again) == len(first) + 1
    body = json.loads((copy / "latest.json").read_text())
    body["benchmarks"][0]["n_items"] += 1
    (copy / "latest.json").write_text(json.dumps(body))
    changed = load_latest(Reports(copy))
    assert changed[body["benchmarks"][0]["benchmark"]].n_items == body["benchmarks"][0]["n_items"]
    assert changed[body["benchmarks"][0]["benchmark"]].n_items == again[body["benchmarks"][0]["benchmark"]].n_items + 1
