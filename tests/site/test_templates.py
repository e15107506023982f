"""The page templates (bot/benchwatch/site/templates/, benchwatch.site.render): every record field a template reads
is declared in the published schema; the page code lays out no Markdown itself; the table macro drops the columns that
say nothing, as the pages always did."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jinja2.nodes as j
import pytest

from benchwatch.history.records import Alert, BenchmarkRecord, SourceStatus, schema_of
from benchwatch.site.render import TEMPLATES, environment, kept_columns

ROOT = Path(__file__).resolve().parents[2]
# the names the templates give each kind of record, and the record's class
RECORD_NAMES = {"rec": BenchmarkRecord, "a": Alert, "alert": Alert, "s": SourceStatus}


def _reads(template: str) -> dict[str, set[str]]:
    """The keys a template reads of each record name: rec["k"], rec.k and rec.get("k")."""
    tree = environment().parse((TEMPLATES / template).read_text(encoding="utf-8"))
    out: dict[str, set[str]] = {}
    for node in tree.find_all((j.Getitem, j.Getattr, j.Call)):
        if isinstance(node, j.Call):
            fn = node.node
            if not (isinstance(fn, j.Getattr) and fn.attr == "get" and isinstance(fn.node, j.Name) and node.args):
                continue
            base, key = fn.node.name, node.args[0]
            key = key.value if isinstance(key, j.Const) else None
        elif isinstance(node, j.Getitem):
            base = node.node.name if isinstance(node.node, j.Name) else None
            key = node.arg.value if isinstance(node.arg, j.Const) and isinstance(node.arg.value, str) else None
        else:
            base = node.node.name if isinstance(node.node, j.Name) else None
            key = None if node.attr == "get" else node.attr
        if base in RECORD_NAMES and isinstance(key, str):
            out.setdefault(base, set()).add(key)
    return out


TEMPLATE_FILES = sorted(p.name for p in TEMPLATES.glob("*.md.j2"))


def test_there_is_a_template_per_page_kind():
    assert {"index.md.j2", "benchmark.md.j2", "also.md.j2", "proposal.md.j2", "alerts.md.j2"} <= set(TEMPLATE_FILES)


@pytest.mark.parametrize("template", TEMPLATE_FILES)
def test_a_template_reads_only_fields_its_records_schema_declares(template):
    for name, keys in _reads(template).items():
        declared = set(schema_of(RECORD_NAMES[name])["properties"])
        undeclared = {k for k in keys if k not in declared}
        assert undeclared == set(), f"{template} reads {sorted(undeclared)} of {name}, not in the schema"


def test_the_scan_sees_what_the_templates_read():
    """The scan finds the record fields the pages show (a scan that saw nothing would pass anything)."""
    read = set().union(*(_reads(t).get("rec", set()) for t in TEMPLATE_FILES))
    assert {"n_models", "method", "scale", "ddm", "detection_limit", "top_models", "gaps", "revision"} <= read
    alerts = set().union(*(_reads(t).get("a", set()) for t in TEMPLATE_FILES))
    assert {"raised_at", "title"} <= alerts


def test_an_undeclared_field_in_a_template_is_caught(tmp_path, monkeypatch):
    (tmp_path / "probe.md.j2").write_text('{{ rec["not_a_field"] }} {{ rec.get("also_not") }} {{ rec.n_items }}\n')
    monkeypatch.setattr("tests.site.test_templates.TEMPLATES", tmp_path)
    assert _reads("probe.md.j2") == {"rec": {"not_a_field", "also_not", "n_items"}}


SITE = ROOT / "bot" / "benchwatch" / "site"
# the modules that prepare the pages' values and format their cells (one per page kind, and what they share)
PAGE_MODULES = ("home", "sources_table", "benchmark", "figures", "fit_notes", "alerts", "fill", "cells", "paths")


def _renders(path: Path) -> bool:
    """Whether a module renders a page template (calls ``render``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "render" for n in ast.walk(tree)
    )


def test_every_module_that_renders_a_page_is_read_by_the_markdown_check():
    rendering = {p.stem for p in SITE.glob("*.py") if _renders(p)}
    assert {"home", "benchmark", "alerts"} <= rendering <= set(PAGE_MODULES)


@pytest.mark.parametrize("module", PAGE_MODULES)
def test_the_page_code_lays_out_no_markdown(module):
    """Headings, paragraphs, lists and tables are in the templates: the page code joins no lines and writes no
    heading or table rule."""
    source = (SITE / f"{module}.py").read_text(encoding="utf-8")
    strings = [n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert not [s for s in strings if s == "\n" or re.search(r"(^|\n)#{1,3} |\|---|^\?\?\?|^!!!", s)]


def test_the_table_macro_drops_empty_columns_and_keeps_the_first():
    columns = [("A", "l"), ("B", "r"), ("C", "l")]
    rows = [["", "1", "–"], ["x", "", " – "]]
    assert kept_columns(columns, rows) == [0, 1]
    plain = environment().from_string('{% from "_macros.md.j2" import table %}{{ table(c, r) }}')
    text = plain.render(c=columns, r=rows)
    assert text == "| A | B |\n|---|---:|\n|  | 1 |\n| x |  |"
    padded = environment().from_string('{% from "_macros.md.j2" import table %}{{ table(c, r, "    ") }}')
    assert padded.render(c=columns, r=rows[:1]).splitlines() == ["    | A | B |", "    |---|---:|", "    |  | 1 |"]


def test_a_long_table_collapses_its_older_rows_with_the_header_again():
    columns = [("N", "r")]
    rows = [[str(k)] for k in range(5)]
    macro = '{% from "_macros.md.j2" import collapsed %}{{ collapsed(c, r, 2, "%d older") }}'
    lines = environment().from_string(macro).render(c=columns, r=rows).splitlines()
    assert lines[:4] == ["| N |", "|---:|", "| 0 |", "| 1 |"]
    assert lines[4:] == [
        "",
        '??? note bw-rest "3 older"',
        "    | N |",
        "    |---:|",
        "    | 2 |",
        "    | 3 |",
        "    | 4 |",
    ]
