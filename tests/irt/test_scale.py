"""The z scales against direct calculation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bot.irt import difficulty_z


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
