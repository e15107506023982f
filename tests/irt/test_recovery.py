"""Recovery of known truth at the information limit, for both fitting methods."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_expit

from benchwatch.irt import encode_responses, fit_map
from tests.irt.test_rasch_map import simulate

SD_TRUE = 1.5


def oracle_posterior_means(df, theta_true: np.ndarray, n_items: int) -> np.ndarray:
    """Each item's posterior mean of b given the TRUE abilities and the true prior, on a fine grid."""
    data = encode_responses(df)
    trials, successes = data.dense()
    grid = np.linspace(-10, 10, 4001)
    theta = theta_true[[int(m[1:]) for m in data.models]]
    eta = theta[None, :] - grid[:, None]  # grid x models
    log_p, log_q = log_expit(eta), log_expit(-eta)
    loglik = successes.T @ log_p.T + (trials - successes).T @ log_q.T  # items x grid
    logpost = loglik - 0.5 * (grid / SD_TRUE) ** 2
    w = np.exp(logpost - logpost.max(axis=1, keepdims=True))
    return (w * grid).sum(axis=1) / w.sum(axis=1)


@pytest.fixture(scope="module")
def simulated():
    df, theta, b = simulate(60, 500, seed=11, sd=SD_TRUE)
    oracle = oracle_posterior_means(df, theta, 500)
    return df, theta, b, oracle


def test_oracle_is_at_the_information_limit(simulated):
    _, _, b, oracle = simulated
    assert 0.96 < np.corrcoef(oracle, b)[0, 1] < 0.98


def test_map_is_within_001_of_the_oracle(simulated):
    df, _, b, oracle = simulated
    fit = fit_map(encode_responses(df))
    assert np.corrcoef(fit.b, b)[0, 1] >= np.corrcoef(oracle, b)[0, 1] - 0.01


@pytest.mark.slow
def test_nuts_recovers_and_its_90_intervals_cover(simulated):
    from benchwatch.irt import fit_nuts

    df, _, b, oracle = simulated
    fit = fit_nuts(encode_responses(df), seed=3)
    assert fit.converged, fit.diagnostics
    assert np.corrcoef(fit.b, b)[0, 1] >= np.corrcoef(oracle, b)[0, 1] - 0.01
    # The data identify b only up to its mean (the model pins sum(b) = 0), so compare on that scale.
    truth = b - b.mean()
    lo, hi = np.quantile(fit.b_draws, [0.05, 0.95], axis=0)
    assert 0.85 <= np.mean((truth >= lo) & (truth <= hi)) <= 0.95
    assert np.corrcoef(fit.b, fit_map(encode_responses(df)).b)[0, 1] > 0.99
