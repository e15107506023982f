"""The z scales against direct calculation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchwatch.irt import difficulty_z, uncertain_abilities


def test_ability_quantile_is_the_normal_cdf_of_the_standardised_difficulty():
    theta = np.array([-1.0, 0.0, 1.0, 2.0])
    b = np.array([0.5, -3.0])
    mu, sd = theta.mean(), theta.std()
    expected = [0.5 * (1 + math.erf((v - mu) / sd / math.sqrt(2))) for v in b]
    np.testing.assert_allclose(difficulty_z(b, theta), expected, rtol=1e-12)


def test_ability_quantile_ignores_the_logit_scale_location_and_spread():
    rng = np.random.default_rng(0)
    theta, b = rng.normal(size=30), rng.normal(size=50)
    np.testing.assert_allclose(difficulty_z(b, theta), difficulty_z(2 * b + 7, 2 * theta + 7), rtol=1e-12)


def test_expected_failure_is_the_mean_failure_probability():
    theta = np.array([-0.5, 0.3, 2.0])
    b = np.array([0.0, 1.0])
    brute = [1 - sum(1 / (1 + math.exp(-(t - d))) for t in theta) / len(theta) for d in b]
    np.testing.assert_allclose(difficulty_z(b, theta, "expected-failure"), brute, rtol=1e-12)


def test_unknown_scale_and_degenerate_pool_are_refused():
    with pytest.raises(ValueError, match="unknown difficulty scale"):
        difficulty_z([0.0], [0.0, 1.0], "logit")
    with pytest.raises(ValueError, match="two models"):
        difficulty_z([0.0], [1.0, 1.0])


def test_abilities_without_errors_are_the_point_estimates():
    theta = np.array([-1.0, 0.2, 0.5, 2.0])
    a = uncertain_abilities(theta, None)
    np.testing.assert_array_equal(a.theta, theta)
    np.testing.assert_array_equal(a.population, theta)
    np.testing.assert_array_equal(a.slope, np.ones(4))
    assert a.noise == 0.0


def test_abilities_with_errors_recover_the_population_and_are_calibrated():
    """Simulated truth: abilities N(0.3, 1), estimates with known errors of 0.2 to 0.6. The spread of the
    population is recovered (the estimates' own spread is too wide), and the shrunk abilities are calibrated:
    regressing the true abilities on them gives a slope of 1."""
    rng = np.random.default_rng(4)
    truth = rng.normal(0.3, 1.0, 20_000)
    se = rng.uniform(0.2, 0.6, truth.size)
    estimate = truth + rng.normal(0.0, se)
    a = uncertain_abilities(estimate, se)
    assert estimate.std() > 1.05
    assert a.spread == pytest.approx(1.0, abs=0.02)
    assert a.population.std() == pytest.approx(1.0, abs=0.02)
    slope = np.polyfit(a.theta, truth, 1)[0]
    assert slope == pytest.approx(1.0, abs=0.03)
    assert a.noise == pytest.approx(np.sqrt(np.mean(se**2)))


def test_the_slope_averages_the_logistic_over_the_ability():
    """sigmoid(slope (m - b)) against the logistic integrated numerically over the ability's posterior
    N(m, v) (every model with the same error, so the pool's one slope is each model's own): the probit
    approximation, within 0.01 everywhere."""
    from scipy.special import expit

    theta = np.array([-2.0, -0.5, 0.0, 0.7, 2.0])
    se = np.full(theta.size, 0.6)
    a = uncertain_abilities(theta, se)
    assert np.all(a.slope == a.slope[0]) and a.slope[0] < 1
    v = a.spread**2 * se[0] ** 2 / (a.spread**2 + se[0] ** 2)
    x = np.linspace(-8, 8, 4001)
    density = np.exp(-0.5 * x**2)
    for j in range(theta.size):
        for b in (-3.0, -1.0, 0.0, 1.5, 3.0):
            exact = np.sum(expit(a.theta[j] + np.sqrt(v) * x - b) * density) / density.sum()
            assert expit(a.slope[j] * (a.theta[j] - b)) == pytest.approx(exact, abs=0.01)
