"""One vocabulary (benchwatch.vocabulary): every flag, state and verdict the rules raise, the alerts word and the
pages show is one of its entries, and no other module keeps a copy of its names, words or colours."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import benchwatch
from benchwatch import vocabulary
from benchwatch.record import BenchmarkRecord
from benchwatch.vocabulary import FIGURES, FLAGS, STATES, VERDICTS

PACKAGE = Path(benchwatch.__file__).parent
ENTRIES = [*FLAGS.values(), *STATES.values(), *VERDICTS.values(), *FIGURES.values()]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{type(e).__name__}-{getattr(e, 'name', '')}")
def test_each_entry_has_words(entry):
    texts = {k: v for k, v in vars(entry).items() if isinstance(v, str)}
    assert texts and all(v.strip() for v in texts.values()), texts


def test_each_table_is_keyed_by_its_entries_names_with_one_severity_each():
    assert all(k == f.name for k, f in FLAGS.items()) and all(k == s.name for k, s in STATES.items())
    assert all(k == v.name for k, v in VERDICTS.items()) and all(k == f.field for k, f in FIGURES.items())
    assert sorted(f.severity for f in FLAGS.values()) == list(range(len(FLAGS)))
    assert sorted(s.severity for s in STATES.values()) == list(range(len(STATES)))
    assert len({s.colour for s in STATES.values()}) == len(STATES)


def test_the_figures_name_record_fields_and_flags():
    fields = set(BenchmarkRecord.model_fields)
    for figure in FIGURES.values():
        assert {figure.field, figure.upper, figure.lower} <= fields
        assert figure.flag in FLAGS


def test_the_rules_read_the_bounds_the_vocabulary_names():
    """Each verdict's reads (benchwatch.rules.flags) are the record fields its figure's entry names."""
    from benchwatch.rules.flags import _VERDICT_KEYS

    values = {f: 0.01 * (k + 1) for k, f in enumerate(sorted(BenchmarkRecord.model_fields)) if "bound" in f}
    values |= {"detection_limit": 0.5, "thin_width": 0.6, "thin_top5": 0.7}
    rec = BenchmarkRecord.model_construct(**values)
    assert set(_VERDICT_KEYS) == set(FIGURES)
    for key, reads in _VERDICT_KEYS.items():
        assert reads.upper(rec) == values[FIGURES[key].upper]
        assert reads.lower(rec) == values[FIGURES[key].lower]


def test_the_unknown_states_colour_is_the_pictures_ink():
    from benchwatch.site.svg import INK

    assert STATES["unknown"].colour == INK


def test_a_why_line_gives_its_reason_back_by_name():
    why = [vocabulary.why_line("stagnant", "a: b"), vocabulary.why_line("watch", "c: d"), 3]
    assert vocabulary.reason(why, "watch") == "c: d"
    assert vocabulary.reason(why, "stagnant") == "a: b"
    assert vocabulary.reason(why, "fill") is None and vocabulary.reason(None, "fill") is None


def test_the_rules_alerts_and_pages_use_only_the_vocabularys_names(sample_site):
    from benchwatch.record import as_record
    from benchwatch.site.cells import flag_reason

    _, reports, site = sample_site
    records = json.loads((reports / "latest.json").read_text(encoding="utf-8"))["benchmarks"]
    alerts = json.loads((reports / "alerts.json").read_text(encoding="utf-8"))["alerts"]
    flags = {f for r in records for f in r["flags"]}
    states = {r["state"] for r in records}
    verdicts = {v["verdict"] for r in records for v in (r.get("verdicts") or {}).values()}
    assert flags and flags <= set(FLAGS) and states and states <= set(STATES) and verdicts <= set(VERDICTS)
    assert {"found", "clear"} <= verdicts  # the sample judges some figures both ways
    for r in records:
        assert set(r.get("verdicts") or {}) <= set(FIGURES)
        for flag in r["flags"]:  # the rules wrote a reason for each flag, and the pages read it back by name
            assert vocabulary.reason(r["why"], flag) == flag_reason(as_record(r), flag) != FLAGS[flag].meaning
    raised = {a["flag"] for a in alerts if a["kind"] in ("raised", "cleared")}
    assert raised and raised <= set(FLAGS)
    assert {a["to"] for a in alerts if a["kind"] == "state"} <= set(STATES)
    assert {a["to"] for a in alerts if a["kind"] == "verdict"} <= set(VERDICTS)
    assert {a["figure"] for a in alerts if a["kind"] == "verdict"} <= set(FIGURES)
    page = (site / "index.html").read_text(encoding="utf-8")
    import re

    badges = set(re.findall(r'class="bw-badge bw-(flag|state)-([a-z]+)"', page))
    assert badges and badges <= {("flag", f) for f in FLAGS} | {("state", s) for s in STATES}


def _literal_strings(node: ast.AST) -> set[str]:
    """The strings of a tuple, list or set literal, or a dict literal's keys and values."""
    if isinstance(node, ast.Dict):
        parts: list = [*node.keys, *node.values]
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        parts = list(node.elts)
    else:
        return set()
    return {p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)}


def copies(source: str) -> list[str]:
    """The literal collections of ``source`` that repeat two or more of the vocabulary's flag, state or verdict
    names, or maps a state to a colour (a table of the vocabulary's own, copied)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        strings = _literal_strings(node)
        for kind, names in (("flags", FLAGS), ("states", STATES), ("verdicts", VERDICTS)):
            if len(strings & set(names)) >= 2:
                found.append(f"line {node.lineno}: {kind} {sorted(strings & set(names))}")
        if isinstance(node, ast.Dict) and strings & set(STATES) and any(x.startswith("#") for x in strings):
            found.append(f"line {node.lineno}: a state's colour")
    return found


def test_the_copy_finder_finds_a_copied_table():
    assert copies('KNOWN = ("retire", "watch", "revise", "fill")')
    assert copies('S = {"saturated": 0, "stagnant": 1}')
    assert copies('W = {"found": "found", "cannot tell": "cannot tell with these models"}')
    assert copies('C = {"unknown": "#8a8f98"}')
    assert copies('INK = "#8a8f98"') == []  # a colour of the palette, no state's
    assert copies('if flag == "watch" or state == "stagnant": pass') == []


def test_no_module_but_the_vocabulary_copies_its_names_or_colours():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "vocabulary.py" and path.parent == PACKAGE:
            continue
        hits = copies(path.read_text(encoding="utf-8"))
        if hits:
            found[str(path.relative_to(PACKAGE))] = hits
    assert found == {}


@pytest.mark.parametrize(
    ("value", "shown"), [(None, None), (float("nan"), None), (0.995, None), (0.95, None), (0.949, 0.949), (0.2, 0.2)]
)
def test_a_gap_bound_over_the_whole_axis_is_no_bound_everywhere_it_is_given(value, shown):
    """Issue 60: a detection limit of 0.995 over 0.0025 - 0.9975 bounds nothing; the commands, pages and feeds read
    it through ``as_bound`` and say "no bound with these models"."""
    from benchwatch.rules import bound_text
    from benchwatch.site.feed import figures_sentence

    assert vocabulary.as_bound(value) == shown
    assert bound_text(value) == (vocabulary.NO_BOUND if shown is None else f"{shown:.3f}")
    if value is not None and value == value:
        sentence = figures_sentence({"detection_limit": value})
        assert (vocabulary.NO_BOUND in sentence) == (shown is None)
        assert (f"{value:.3f}" in sentence) == (shown is not None)
