"""Flags over scripted sequences of snapshots: raise, hold, clear, and no flapping at a threshold."""

from __future__ import annotations

from bot.rules import DEFAULT_THRESHOLDS, Thresholds, evaluate_flags, retirement


def run(snapshots: list[dict], thresholds: Thresholds = DEFAULT_THRESHOLDS) -> list[list[str]]:
    flags: list[str] = []
    state = None
    out = []
    for fig in snapshots:
        flags = evaluate_flags(fig, set(flags), state, thresholds)
        state = fig["state"]
        out.append(flags)
    return out


def fig(state="discriminating", ddm=0.0, max_gap=0.0, top5=0.0) -> dict:
    return {"state": state, "ddm": ddm, "max_gap": max_gap, "top5_gap_sum": top5}


def test_revise_raises_holds_inside_the_band_and_clears_below_it():
    seq = [fig(ddm=0.05), fig(ddm=0.10), fig(ddm=0.095), fig(ddm=0.0905), fig(ddm=0.0899), fig(ddm=0.095)]
    assert ["revise" in f for f in run(seq)] == [False, True, True, True, False, False]


def test_a_figure_hovering_at_the_threshold_does_not_flap():
    seq = [fig(max_gap=v) for v in (0.101, 0.099, 0.1001, 0.0995, 0.1002, 0.098)]
    assert ["fill" in f for f in run(seq)] == [True] * 6


def test_fill_from_either_gap_figure():
    assert run([fig(top5=0.30)]) == [["fill"]]
    assert run([fig(max_gap=0.10)]) == [["fill"]]
    assert run([fig(max_gap=0.09, top5=0.29)]) == [[]]


def test_retire_needs_two_consecutive_saturated_snapshots():
    seq = [fig("saturated"), fig("saturated"), fig("discriminating"), fig("saturated"), fig("saturated")]
    assert ["retire" in f for f in run(seq)] == [False, True, False, False, True]


def test_watch_follows_the_stagnant_state():
    seq = [fig("stagnant"), fig("discriminating"), fig("stagnant")]
    assert ["watch" in f for f in run(seq)] == [True, False, True]


def test_per_benchmark_thresholds():
    strict = Thresholds(revise_ddm=0.05, fill_max_gap=0.5, fill_top5_gap_sum=0.9)
    assert run([fig(ddm=0.06, max_gap=0.2)], strict) == [["revise"]]
    assert run([fig(ddm=0.06, max_gap=0.2)]) == [["fill"]]


def test_a_figure_within_its_floor_raises_no_flag():
    above = fig(ddm=0.2, max_gap=0.2, top5=0.5)
    within = {**above, "ddm_null_flag": 0.25, "max_gap_null_flag": 0.21, "top5_gap_sum_null_flag": 0.55}
    assert run([above]) == [["revise", "fill"]]
    assert run([within]) == [[]]  # above every threshold, but no more than the pool shows by chance
    only_top5 = {**within, "top5_gap_sum_null_flag": 0.45}
    assert run([only_top5]) == [["fill"]]
    # Without the joint level, the 95th percentile is the floor.
    assert run([{**above, "ddm_null_p95": 0.3}]) == [["fill"]]


def test_retirement_reads_the_history_by_date_and_the_index_interval():
    long_saturated = {**fig("saturated"), "saturated_since": "2025-06-23", "saturation_index_lo": 0.81}
    assert run([long_saturated]) == [["retire"]]  # on the first audit
    ok, why = retirement(long_saturated, None)
    assert ok and "since 2025-06-23" in why
    uncertain = {**long_saturated, "saturation_index_lo": 0.55}
    assert run([uncertain]) == [[]]
    ok, why = retirement(uncertain, "saturated")
    assert not ok and "0.55 < 0.7" in why
    assert retirement(fig("saturated"), None) == (
        False,
        "saturated on this snapshot only: retirement needs a second snapshot or two dates in a row",
    )
