"""The home page's reasons (issue 14): each flag names the figure that crossed which threshold."""

from __future__ import annotations

from bot.rules import DEFAULT_THRESHOLDS, evaluate_flags, explain

FIGS = {
    "state": "stagnant",
    "saturation_index": 0.82,
    "top5_mean": 0.41,
    "ceiling": 1.0,
    "ddm": 0.163,
    "ddm_null_flag": 0.05,
    "max_gap": 0.214,
    "max_gap_null_flag": 0.09,
    "top5_gap_sum": 0.2,
    "top5_gap_sum_null_flag": 0.25,
}


def test_every_flag_raised_is_explained_by_its_figure_and_threshold():
    flags = evaluate_flags(FIGS)
    assert flags == ["watch", "revise", "fill"]
    why = explain(FIGS, flags)
    assert why[0] == "stagnant: saturation index 0.82 >= 0.7, the top five's mean 0.41 far below the ceiling 1"
    assert why[1].startswith("watch: stagnant")
    assert why[2] == "revise: DDM 0.163 >= 0.1, above this pool's floor 0.050"
    # only the figure that crossed is named: the top-5 gap sum (0.2 < 0.3) is not
    assert why[3] == "fill: Max Gap 0.214 >= 0.1, above this pool's floor 0.090"


def test_a_held_flag_says_it_is_held_at_the_lowered_level():
    figs = {**FIGS, "max_gap": 0.095}  # below 0.10, above 0.9 x 0.10: a raised fill flag stays
    flags = evaluate_flags(figs, {"fill"}, "stagnant")
    assert "fill" in flags
    line = next(w for w in explain(figs, flags, {"fill"}, "stagnant") if w.startswith("fill"))
    assert f">= {DEFAULT_THRESHOLDS.fill_max_gap * DEFAULT_THRESHOLDS.hysteresis:.3g} (held" in line


def test_the_state_alone_when_nothing_is_flagged():
    figs = {"state": "discriminating", "saturation_index": 0.31, "ddm": 0.02, "max_gap": 0.03, "top5_gap_sum": 0.1}
    assert explain(figs, evaluate_flags(figs)) == ["discriminating: saturation index 0.31 < 0.7"]
