"""The home page's reasons (issue 14): each flag names the figure that crossed which threshold."""

from __future__ import annotations

from benchwatch.rules import DEFAULT_THRESHOLDS, evaluate_flags, explain

FIGS = {
    "state": "stagnant",
    "saturation_index": 0.82,
    "top5_mean": 0.41,
    "ceiling": 1.0,
    "ddm_bound_lo": 0.163,
    "ddm_bound_hi": 0.25,
    "thin_width": 0.214,
    "detection_limit": 0.4,
    "thin_top5": 0.214,
    "top5_gap_sum_bound_hi": 1.0,
}


def test_every_flag_raised_is_explained_by_its_figure_and_threshold():
    flags = evaluate_flags(FIGS)
    assert flags == ["watch", "revise", "fill"]
    why = explain(FIGS, flags)
    assert why[0] == (
        "stagnant: its top five are within noise of each other by the paper's saturation index (sqrt(n) effective "
        "items): 0.82, within noise from 0.7, their mean 41% more than 5% below the ceiling 100%"
    )
    assert why[1].startswith("watch: not yet solved")
    assert why[2] == "revise: DDM: found, at least 0.163 (>= 0.1) for any difficulty distribution"
    # only the figure found is named: the top-5 gap sum (0.214 of 0.3 shown) is not
    assert why[3] == (
        "fill: Coverage hole: found, a thin stretch 0.214 wide (>= 0.1), shown to hold less than a quarter of "
        "the items the target puts there"
    )


def test_a_held_flag_says_it_is_held_at_the_lowered_level():
    figs = {**FIGS, "thin_width": 0.095}  # below 0.10, above 0.9 x 0.10: a raised fill flag stays
    assert "fill" not in evaluate_flags(figs)
    flags = evaluate_flags(figs, {"fill"}, "stagnant")
    assert "fill" in flags
    line = next(w for w in explain(figs, flags, {"fill"}, "stagnant") if w.startswith("fill"))
    assert f"(>= {DEFAULT_THRESHOLDS.fill_max_gap * DEFAULT_THRESHOLDS.hysteresis:.3g})" in line


def test_the_state_alone_when_nothing_is_flagged():
    figs = {"state": "discriminating", "saturation_index": 0.31, "ddm_bound_lo": 0.0, "ddm_bound_hi": 0.05}
    assert explain(figs, evaluate_flags(figs)) == [
        "discriminating: its top five are told apart by the paper's saturation index (sqrt(n) effective items): "
        "0.31, within noise from 0.7"
    ]
