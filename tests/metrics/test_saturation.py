"""The saturation index against the paper's worked examples and its definition."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchwatch.metrics import band, classify_state, saturation, saturation_index


def test_worked_examples_of_the_paper():
    # The paper prints four decimals, truncated: 0.91640 -> 0.9163... is 0.916397, 0.219758 -> 0.2197.
    math500 = saturation_index(0.992, 0.982, 500)
    hle = saturation_index(0.3772, 0.2632, 2500)
    assert math500 == pytest.approx(0.916397, abs=1e-6)
    assert hle == pytest.approx(0.219758, abs=1e-6)
    assert (math.floor(math500 * 1e4) / 1e4, math.floor(hle * 1e4) / 1e4) == (0.9163, 0.2197)


def test_definition_step_by_step():
    s1, s5, n = 0.71, 0.52, 900
    n_eff = n**0.5
    se = math.sqrt(s1 * (1 - s1) / n_eff + s5 * (1 - s5) / n_eff)
    assert saturation_index(s1, s5, n) == pytest.approx(math.exp(-(((s1 - s5) / se) ** 2)), rel=1e-12)


def test_standard_errors_are_zero_at_the_ends():
    assert saturation_index(1.0, 1.0, 100) == 1.0  # SE_delta = 0 -> R = 0
    # s1 = 1 contributes no error: only s5's SE is left.
    se5 = math.sqrt(0.9 * 0.1 / 10)
    assert saturation_index(1.0, 0.9, 100) == pytest.approx(math.exp(-((0.1 / se5) ** 2)))


@pytest.mark.parametrize(
    ("s", "name"),
    [
        (0.0, "very low"),
        (0.00999, "very low"),
        (0.01, "low"),
        (0.2999, "low"),
        (0.3, "moderate"),
        (0.6999, "moderate"),
        (0.7, "high"),
        (0.8999, "high"),
        (0.9, "very high"),
        (1.0, "very high"),
    ],
)
def test_bands(s, name):
    assert band(s) == name


def test_states():
    assert classify_state(0.9, 0.96) == "saturated"
    assert classify_state(0.9, 0.95) == "saturated"  # within 0.05 of the ceiling, boundary included
    assert classify_state(0.9, 0.90) == "stagnant"
    assert classify_state(0.7, 0.5) == "stagnant"
    assert classify_state(0.69, 0.99) == "discriminating"
    assert classify_state(0.9, 0.80, ceiling=0.82) == "saturated"
    assert classify_state(None, None) == "unknown"


def test_leaderboard_saturation_picks_the_top_five():
    models = np.array([f"m{i}" for i in range(8)])
    scores = np.array([0.5, 0.9, 0.91, 0.2, 0.93, 0.92, 0.95, 0.1])
    sat = saturation(models, scores, n_items=400)
    assert [m for m, _ in sat.top_models] == ["m6", "m4", "m5", "m2", "m1"]
    assert (sat.top1, sat.top5) == (0.95, 0.9)
    assert sat.saturation_index == pytest.approx(saturation_index(0.95, 0.9, 400))
    assert sat.top5_mean == pytest.approx(np.mean([0.95, 0.93, 0.92, 0.91, 0.9]))


def test_fewer_than_five_models_is_unknown():
    sat = saturation(np.array(["a", "b"]), np.array([0.9, 0.8]), 100)
    assert sat.state == "unknown" and sat.saturation_index is None


@pytest.mark.parametrize(("s1", "s5", "n"), [(1.2, 0.5, 10), (0.5, -0.1, 10), (0.5, 0.4, 0)])
def test_bad_inputs(s1, s5, n):
    with pytest.raises(ValueError):
        saturation_index(s1, s5, n)


@pytest.mark.parametrize("top_tier", [1, 4, 5, 24])
@pytest.mark.parametrize("scores", [(0.99, 0.985, 0.98, 0.98, 0.975), (0.6, 0.45, 0.4, 0.35, 0.3)])
def test_the_state_is_the_tiers_the_top_five_within_noise_exactly_when_five_share_the_best_tier(top_tier, scores):
    """Issue 60, one rule per claim: whatever the paired test or the paper's index said, the tiers decide (a
    fifth-best in the best's tier is within noise; near the ceiling saturated, far below it stagnant)."""
    from benchwatch.metrics import decided_by_tiers, state_evidence

    names = np.array([f"m{k}" for k in range(len(scores))])
    sat = saturation(names, np.array(scores), 400)
    apart = sat.decided_by("paired", 0.02, 0.08)  # the paired interval said "told apart"
    got = decided_by_tiers(apart, top_tier)
    near = 1.0 - np.mean(scores) <= 0.05
    want = "discriminating" if top_tier < 5 else ("saturated" if near else "stagnant")
    assert got.state == want and got.state_from == "tiers"
    assert (got.gap_lo, got.gap_hi) == (0.02, 0.08)  # the interval kept as a figure of its own
    rec = {**got.summary(), "top_tier_size": top_tier, "top_gap_lo": 0.02, "top_gap_hi": 0.08}
    words = state_evidence(rec)
    assert words.startswith("by the tiers (every pair of models tested at once, Holm's correction): ")
    assert (f"{top_tier} models share the best's tier" in words) == (top_tier >= 5)
    assert "95% interval 2.0 to 8.0" in words


def test_fewer_than_five_models_stay_unknown_whatever_the_tiers():
    from benchwatch.metrics import decided_by_tiers

    sat = saturation(np.array(["a", "b", "c"]), np.array([0.9, 0.8, 0.7]), 100)
    assert decided_by_tiers(sat, 3).state == "unknown"
