"""The item model's floor in words: declared, undeclared and small (a nuisance), or none (issue 64)."""

from __future__ import annotations

from benchwatch.record import as_record
from benchwatch.site.fit_notes import item_model_lines

FLOOR = {"floor_share": 0.5, "floor_share_lo": 0.2, "floor_share_hi": 0.8, "floor_items": 400}


def test_a_declared_floor_is_one_over_the_options_and_a_small_undeclared_one_a_nuisance_on_every_item():
    declared = item_model_lines(
        as_record(
            FLOOR
            | {"chance_nominal": 0.25, "chance_from": "a chance column", "chance_items": 400, "fit_verdict": "fits"}
        )
    )["floor"]
    assert "one over its number of options" in declared and "none declared" not in declared
    small = item_model_lines(
        as_record(
            FLOOR
            | {"chance_nominal": 1.0, "chance_items": 500, "fit_verdict": "fits"}
            | {"floor_undeclared": 0.0113, "floor_undeclared_lo": 0.0, "floor_undeclared_hi": 0.0226}
        )
    )["floor"]
    assert small.startswith("none declared") and "0.011 [0.000, 0.023]" in small and "options" not in small
    assert "the bounds hold over that interval" in small
    none = item_model_lines(as_record({"fit_verdict": "fits"}))["floor"]
    assert none.startswith("none: the items declare no options")
