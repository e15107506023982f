"""Per-benchmark settings from [rules]: thresholds, ceiling and target, checked and applied."""

from __future__ import annotations

import json

import pytest

from bot.errors import InputError
from bot.pipeline import run_job
from bot.rules import RuleBook, Thresholds, rules_from_config
from bot.sources import SourceTable
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
    df, _, _ = simulate(12, 60, seed=95)
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

    from bot.errors import InputError
    from bot.rules import rules_from_config

    plain = rules_from_config({})
    named = rules_from_config({"benchmarks": {"Epoch x_y": {"display_name": "  X and Y  "}}})
    assert named.name_for("Epoch x_y") == "X and Y" and named.name_for("other") is None
    assert named.fingerprint() == rules_from_config({"benchmarks": {"Epoch x_y": {}}}).fingerprint()
    assert plain.name_for("Epoch x_y") is None
    with pytest.raises(InputError) as err:
        rules_from_config({"benchmarks": {"b": {"display_name": ""}}})
    assert "display_name" in str(err.value) and 'rules.benchmarks."b"' in str(err.value)
