"""Flags over scripted sequences of snapshots: raise, hold, clear, and no flapping at a threshold; the verdicts
(found, cannot tell, clear) that ``revise`` and ``fill`` read, checked by hand."""

from __future__ import annotations

import pytest

from benchwatch.rules import DEFAULT_THRESHOLDS, Thresholds, evaluate_flags, retirement, verdicts


def run(snapshots: list[dict], thresholds: Thresholds = DEFAULT_THRESHOLDS) -> list[list[str]]:
    flags: list[str] = []
    state = None
    out = []
    for fig in snapshots:
        flags = evaluate_flags(fig, set(flags), state, thresholds)
        state = fig["state"]
        out.append(flags)
    return out


def fig(state="discriminating", ddm=(0.0, 0.05), gap=(0.0, 0.05), top5=(0.0, 0.2), **levels) -> dict:
    """A record with bounds: ddm (lower, upper); gap (widest thin stretch, detection limit); top5 (the five
    widest thin stretches, upper bound)."""
    return {
        "state": state,
        "ddm_bound_lo": ddm[0],
        "ddm_bound_hi": ddm[1],
        "thin_width": gap[0],
        "detection_limit": gap[1],
        "thin_top5": top5[0],
        "top5_gap_sum_bound_hi": top5[1],
        **levels,
    }


def test_a_verdict_is_found_clear_or_cannot_tell_against_its_level():
    v = verdicts(fig(ddm=(0.12, 0.2), gap=(0.0, 0.09), top5=(0.1, 0.5)))
    assert v["ddm"]["verdict"] == "found"  # the lower bound reaches 0.10
    assert v["max_gap"]["verdict"] == "clear"  # no empty stretch of 0.10 is possible
    assert v["top5_gap_sum"]["verdict"] == "cannot tell"  # 0.1 found, up to 0.5 possible, threshold 0.3
    assert v["ddm"]["level"] == DEFAULT_THRESHOLDS.revise_ddm


def test_the_level_rises_to_what_so_many_items_show_by_chance():
    few = {"max_gap_sampling_p95": 0.15, "thin_width_sampling_p95": 0.225}
    v = verdicts(fig(gap=(0.2, 0.12), **few))
    assert v["max_gap"]["level"] == 0.15 and v["max_gap"]["found_level"] == 0.225
    assert v["max_gap"]["verdict"] == "clear"  # 0.2 thin is within chance for these few items; 0.12 < 0.15
    assert verdicts(fig(gap=(0.23, 0.3), **few))["max_gap"]["verdict"] == "found"


def test_revise_raises_holds_inside_the_band_and_clears_below_it():
    lows = (0.05, 0.10, 0.095, 0.0905, 0.0899, 0.095)
    seq = [fig(ddm=(lo, 0.3)) for lo in lows]
    assert ["revise" in f for f in run(seq)] == [False, True, True, True, False, False]


def test_a_figure_hovering_at_the_threshold_does_not_flap():
    seq = [fig(gap=(v, 0.4)) for v in (0.101, 0.099, 0.1001, 0.0995, 0.1002, 0.098)]
    assert ["fill" in f for f in run(seq)] == [True] * 6


def test_fill_only_on_found_never_on_cannot_tell():
    assert run([fig(top5=(0.30, 0.9))]) == [["fill"]]
    assert run([fig(gap=(0.10, 0.4))]) == [["fill"]]
    assert run([fig(gap=(0.09, 0.9), top5=(0.29, 1.0))]) == [[]]  # a wide gap is possible, none is shown
    assert run([fig(ddm=(0.09, 0.5))]) == [[]]


def test_retire_needs_two_consecutive_saturated_snapshots():
    seq = [fig("saturated"), fig("saturated"), fig("discriminating"), fig("saturated"), fig("saturated")]
    assert ["retire" in f for f in run(seq)] == [False, True, False, False, True]


def test_watch_follows_the_stagnant_state():
    seq = [fig("stagnant"), fig("discriminating"), fig("stagnant")]
    assert ["watch" in f for f in run(seq)] == [True, False, True]


def test_per_benchmark_thresholds():
    strict = Thresholds(revise_ddm=0.05, fill_max_gap=0.5, fill_top5_gap_sum=0.9)
    record = fig(ddm=(0.06, 0.2), gap=(0.2, 0.4))
    assert run([record], strict) == [["revise"]]
    assert run([record]) == [["fill"]]


def test_a_record_without_bounds_has_no_verdict_and_no_coverage_flag():
    aggregate = {"state": "stagnant", "ddm": None, "max_gap": None}
    assert verdicts(aggregate) == {}
    assert run([aggregate]) == [["watch"]]


@pytest.mark.parametrize("nan_key", ["ddm_bound_lo", "detection_limit"])
def test_a_bound_that_was_not_computed_gives_no_verdict_for_its_figure(nan_key):
    record = {**fig(ddm=(0.2, 0.3), gap=(0.2, 0.3)), nan_key: float("nan")}
    assert ("ddm" if nan_key == "ddm_bound_lo" else "max_gap") not in verdicts(record)


def test_retirement_reads_the_history_by_date_and_the_state_alone():
    long_saturated = {**fig("saturated"), "saturated_since": "2025-06-23", "saturation_index_lo": 0.81}
    assert run([long_saturated]) == [["retire"]]  # on the first audit
    ok, why = retirement(long_saturated, None)
    assert ok and "since 2025-06-23" in why
    # one rule per claim: the paper's index (its interval reaching below 0.7) no longer holds back a state that
    # the tiers decided twice
    uncertain = {**long_saturated, "saturation_index_lo": 0.55}
    assert run([uncertain]) == [["retire"]]
    assert retirement({**fig("stagnant"), "saturated_since": "2025-06-23"}, "saturated") == (False, "")
    assert retirement(fig("saturated"), None) == (
        False,
        "saturated on this snapshot only: retirement needs a second snapshot or two dates in a row",
    )
