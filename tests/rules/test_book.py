"""Per-benchmark settings from [rules]: thresholds, ceiling and target, checked and applied."""

from __future__ import annotations

import json

import pytest

from benchwatch.errors import InputError
from benchwatch.pipeline import run_job
from benchwatch.rules import RuleBook, Thresholds, rules_from_config
from benchwatch.sources import SourceTable
from tests.irt.test_rasch_map import simulate


def test_defaults_and_overrides():
    book = rules_from_config(
        {"revise_ddm": 0.2, "benchmarks": {"B": {"fill_max_gap": 0.5, "ceiling": 0.8, "target": {"beta": [2, 5]}}}}
    )
    assert book.thresholds_for("A") == Thresholds(revise_ddm=0.2)
    assert book.thresholds_for("B") == Thresholds(revise_ddm=0.2, fill_max_gap=0.5)
    assert (book.ceiling_for("A"), book.ceiling_for("B")) == (1.0, 0.8)
    assert book.target_spec("B") == {"beta": [2, 5]} and book.target_spec("A") == {}


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ({"revise_ddm": -1}, "revise_ddm"),
        ({"benchmarks": {"B": {"ceiling": 1.5}}}, "ceiling"),
        ({"benchmarks": {"B": {"target": {"gamma": 1}}}}, "target"),
    ],
)
def test_bad_rules_name_the_table_and_field(table, field):
    with pytest.raises(InputError) as err:
        rules_from_config(table)
    assert field in str(err.value) and "benchwatch.toml" in str(err.value)


def test_overrides_change_the_figures_and_flags(tmp_path):
    df, _, _ = simulate(40, 150, seed=95)  # a pool that places the DDM off 0 against Beta(2, 2), its spread and all
    source = [("sim", lambda: SourceTable("sim", "simulated", df.astype(str)))]
    plain = tmp_path / "plain"
    run_job(source, reports_dir=plain, site_out=None, cache_dir=tmp_path / "c1", log=lambda s: None)
    book = RuleBook(
        overrides={"sim": Thresholds(revise_ddm=0.001, fill_max_gap=5, fill_top5_gap_sum=5)},
        targets={"sim": {"beta": [2.0, 2.0]}},
    )
    tuned = tmp_path / "tuned"
    run_job(source, reports_dir=tuned, site_out=None, cache_dir=tmp_path / "c2", rules=book, log=lambda s: None)
    a = json.loads((plain / "latest.json").read_text())["benchmarks"][0]
    b = json.loads((tuned / "latest.json").read_text())["benchmarks"][0]
    assert a["target"] == "Uniform(0, 1)" and b["target"] == "Beta(2, 2)" and a["ddm"] != b["ddm"]
    assert "revise" in b["flags"] and "fill" not in b["flags"]


def test_a_display_name_is_configured_per_benchmark_and_changes_no_figure():
    import pytest

    from benchwatch.errors import InputError
    from benchwatch.rules import rules_from_config

    plain = rules_from_config({})
    named = rules_from_config({"benchmarks": {"Epoch x_y": {"display_name": "  X and Y  "}}})
    assert named.name_for("Epoch x_y") == "X and Y" and named.name_for("other") is None
    assert named.fingerprint() == rules_from_config({"benchmarks": {"Epoch x_y": {}}}).fingerprint()
    assert plain.name_for("Epoch x_y") is None
    with pytest.raises(InputError) as err:
        rules_from_config({"benchmarks": {"b": {"display_name": ""}}})
    assert "display_name" in str(err.value) and 'rules.benchmarks."b"' in str(err.value)


def test_a_benchmarks_chance_floor_is_read_and_checked():
    book = rules_from_config({"benchmarks": {"MMLU": {"chance": 0.25}, "Yes/no": {"chance": 0}, "Other": {}}})
    assert book.chance_for("MMLU") == 0.25 and isinstance(book.chance_for("MMLU"), float)
    assert book.chance_for("Yes/no") == 0.0 and isinstance(book.chance_for("Yes/no"), float)
    assert book.chance_for("Other") is None and book.chance_for("unknown") is None
    assert RuleBook().chance_for("MMLU") is None


@pytest.mark.parametrize("value", [1, 1.0, 1.5, -0.1, "0.25", True, float("nan"), float("inf"), [0.25]])
def test_a_chance_floor_outside_0_1_names_the_file_the_table_the_field_and_the_value(value):
    with pytest.raises(InputError) as err:
        rules_from_config({"benchmarks": {"MMLU": {"chance": value}}}, source="my.toml")
    text = str(err.value)
    assert err.value.field == "chance" and err.value.value is value
    assert text.startswith('my.toml [rules.benchmarks."MMLU"]') and "'chance'" in text and "[0, 1)" in text
    assert f"(value: {value!r})" in text


def _old_fingerprint(book: RuleBook) -> str:
    """The hash as it was made before chance floors existed: every field but the display names."""
    import dataclasses
    import hashlib

    rules = {k: v for k, v in dataclasses.asdict(book).items() if k not in ("names", "chances")}
    return hashlib.sha256(json.dumps(rules, sort_keys=True, default=sorted).encode()).hexdigest()[:12]


def test_a_book_without_chance_floors_keeps_its_fingerprint_and_one_that_sets_a_floor_changes_it():
    tables = [
        {},
        {"revise_ddm": 0.2, "max_growth": 2, "benchmarks": {"B": {"ceiling": 0.8, "target": {"beta": [2, 5]}}}},
        {"expect_shrink": ["A"], "benchmarks": {"B": {"display_name": "Bee", "fill_max_gap": 0.5}}},
    ]
    for table in tables:
        book = rules_from_config(table, benchmarks={"P": {"aliases": ["A"]}})
        assert book.chances == {} and book.fingerprint() == _old_fingerprint(book)
    assert RuleBook().fingerprint() == _old_fingerprint(RuleBook())
    plain = rules_from_config({"benchmarks": {"B": {}}})
    floored = rules_from_config({"benchmarks": {"B": {"chance": 0.25}}})
    other = rules_from_config({"benchmarks": {"B": {"chance": 0.2}}})
    assert len({plain.fingerprint(), floored.fingerprint(), other.fingerprint()}) == 3
    assert floored.fingerprint() == rules_from_config({"benchmarks": {"B": {"chance": 0.25}}}).fingerprint()
