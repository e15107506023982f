"""The benchmark record is typed (benchwatch.record): a misspelt field in code that reads it, or in a page
template, fails loudly (the type checker, AttributeError, StrictUndefined), never as a silent None."""

from __future__ import annotations

import jinja2
import pytest

from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.rules import verdicts

FIGURES = {
    "benchmark": "b",
    "ddm_bound_lo": 0.2,
    "ddm_bound_hi": 0.3,
    "ddm_sampling_p95": 0.05,
    "detection_limit": 0.08,
    "thin_width": 0.0,
    "max_gap_sampling_p95": 0.05,
}


def test_the_type_checker_catches_a_misspelt_field_where_the_rules_read_one(tmp_path):
    """What renaming ddm_bound_lo silently did to the dict-reading rules (['revise', 'fill'] became ['fill']) is a
    type error now: mypy over code reading the record names the field."""
    from mypy import api

    probe = tmp_path / "probe.py"
    probe.write_text(
        "from benchwatch.record import BenchmarkRecord\n\n\n"
        "def lower(rec: BenchmarkRecord) -> float | None:\n"
        "    return rec.ddm_bound_loo\n\n\n"
        "def upper(rec: BenchmarkRecord) -> float | None:\n"
        "    return rec.ddm_bound_hi\n"
    )
    out, _, status = api.run([str(probe), "--follow-imports=silent", "--no-incremental", "--ignore-missing-imports"])
    assert status == 1
    assert '"BenchmarkRecord" has no attribute "ddm_bound_loo"' in out
    assert out.count("error:") == 1  # the correct field checks


def test_a_misspelt_field_read_at_run_time_is_an_error_not_none():
    rec = as_record(FIGURES)
    assert rec.ddm_bound_lo == 0.2 and rec.top5_gap_sum_bound_hi is None  # declared and absent: None
    with pytest.raises(AttributeError):
        _ = rec.ddm_bound_loo  # type: ignore[attr-defined]


def test_the_rules_read_the_record_by_attribute_and_a_dict_alike():
    """verdicts() reads a written record (a dict) through the typed record: the same verdicts either way."""
    typed = BenchmarkRecord.model_construct(**FIGURES)
    assert verdicts(FIGURES) == verdicts(typed)
    assert verdicts(FIGURES)["ddm"]["verdict"] == "found" and verdicts(FIGURES)["max_gap"]["verdict"] == "clear"


def test_a_template_reading_a_misspelt_field_fails_to_render():
    from benchwatch.site.render import environment

    env = environment()
    assert env.from_string("{{ rec.ddm_bound_lo }}").render(rec=FIGURES) == "0.2"
    with pytest.raises(jinja2.UndefinedError, match="ddm_bound_loo"):
        env.from_string("{{ rec.ddm_bound_loo }}").render(rec=FIGURES)
