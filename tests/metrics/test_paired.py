"""Paired, item-clustered uncertainty of the top-1 minus top-5 gap, checked by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

from benchwatch.metrics import paired_difference, paired_saturation_index, score_interval


def test_paired_difference_by_hand():
    y1 = np.array([1, 1, 0, 1, 0.5])
    y5 = np.array([1, 0, 0, 0, 0.5])
    d = y1 - y5
    out = paired_difference(y1, y5)
    assert out["difference"] == pytest.approx(d.mean())
    assert out["se"] == pytest.approx(math.sqrt(((d - d.mean()) ** 2).sum() / 4 / 5))
    assert out["lo"] == pytest.approx(d.mean() - 1.959964 * out["se"], abs=1e-6)
    assert paired_saturation_index(0.0, 0.1) == 1.0
    assert paired_saturation_index(0.2, 0.1) == pytest.approx(math.exp(-4))


def test_paired_interval_covers_the_true_difference_at_its_nominal_rate():
    # Two fixed models answer n items drawn from a difficulty population; the estimand is the
    # difference of their expected scores over that population, computed by quadrature.
    theta1, theta5, n, reps = 1.0, 0.6, 300, 2000
    truth = integrate.quad(lambda b: (expit(theta1 - b) - expit(theta5 - b)) * stats.norm.pdf(b), -12, 12)[0]
    rng = np.random.default_rng(61)
    hits = 0
    for _ in range(reps):
        b = rng.normal(size=n)
        y1 = rng.random(n) < expit(theta1 - b)
        y5 = rng.random(n) < expit(theta5 - b)
        ci = paired_difference(y1, y5)
        hits += ci["lo"] <= truth <= ci["hi"]
    assert 0.935 <= hits / reps <= 0.965


def test_score_interval_covers_at_its_nominal_rate():
    theta, n, reps = 0.3, 200, 2000
    truth = integrate.quad(lambda b: expit(theta - b) * stats.norm.pdf(b), -12, 12)[0]
    rng = np.random.default_rng(62)
    hits = 0
    for _ in range(reps):
        b = rng.normal(size=n)
        lo, hi = score_interval(rng.random(n) < expit(theta - b))
        hits += lo <= truth <= hi
    assert 0.935 <= hits / reps <= 0.965


def test_score_interval_stays_inside_zero_one_and_has_width_at_the_ends():
    lo, hi = score_interval(np.ones(200))
    assert hi == pytest.approx(1.0) and 0.97 < lo < 1.0
    lo, hi = score_interval(np.zeros(50))
    assert lo == pytest.approx(0.0, abs=1e-12) and 0 < hi < 0.1


def test_pairing_is_tighter_than_the_unpaired_error_when_items_drive_both():
    rng = np.random.default_rng(63)
    b = rng.normal(0, 2, 400)
    y1 = rng.random(400) < expit(1.2 - b)
    y5 = rng.random(400) < expit(1.0 - b)
    unpaired = math.sqrt(y1.var(ddof=1) / 400 + y5.var(ddof=1) / 400)
    assert paired_difference(y1, y5)["se"] < unpaired


def test_the_state_follows_the_paired_interval_not_the_papers_index():
    """A top-1 minus top-5 gap the paired comparison separates is not "within noise", whatever the paper's
    sqrt(n) index says; one it cannot separate is, near the ceiling saturated and far from it stagnant."""
    from benchwatch.metrics import saturation

    names = np.array([f"m{k}" for k in range(6)])
    far = saturation(names, np.array([0.40, 0.39, 0.38, 0.37, 0.345, 0.1]), 400)
    assert far.state == "stagnant" and far.state_from == "paper_index"  # the paper's index: 20 effective items
    separated = far.decided_by("paired", 0.031, 0.079, 0.0)
    assert separated.state == "discriminating" and separated.state_from == "paired"
    tied = far.decided_by("paired", -0.01, 0.12, 0.2)
    assert tied.state == "stagnant"
    near = saturation(names, np.array([0.99, 0.985, 0.98, 0.975, 0.97, 0.5]), 400).decided_by("paired", -0.001, 0.04)
    assert near.state == "saturated"
    assert (
        saturation(names, np.array([0.99, 0.985, 0.98, 0.975, 0.97, 0.5]), 400)
        .decided_by("published_se", 0.005, 0.035)
        .state
        == "discriminating"
    )
