"""Flags over scripted sequences of snapshots: raise, hold, clear, and no flapping at a threshold."""

from __future__ import annotations

from bot.rules import DEFAULT_THRESHOLDS, Thresholds, evaluate_flags


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
