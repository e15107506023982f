"""Abilities and item posteriors over the observed cells equal the dense models x items computation, on the
bundled sample and on the real matrices of ../shared/data (issue 23: speed changes nothing a reader sees)."""

from __future__ import annotations

import numpy as np
import pytest

from benchwatch.irt import (
    cell_patterns,
    encode_responses,
    fit_map,
    item_posterior,
    item_posterior_dense,
    marginal_abilities,
    marginal_abilities_patterns,
)
from benchwatch.sources import fetch_csv_file, fetch_sample
from benchwatch.store import validate_responses


def _dense_marginal_abilities(trials, successes, theta, grid_size=200, tol=1e-5, max_iter=300, sd_theta=3.0):
    """The marginal MAP over models x items matrices (the computation benchwatch did before issue 23, the plain
    EM iteration without extrapolation), written here as the independent reference: patterns by unique
    columns, likelihood by matrix products."""
    from scipy.special import expit, log_expit

    theta = np.asarray(theta, float).copy()
    anchor = theta.mean()
    both = np.concatenate([trials.T, successes.T], axis=1)
    unique, counts = np.unique(both, axis=0, return_counts=True)
    m = trials.shape[0]
    w, s = unique[:, :m], unique[:, m:]
    grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, grid_size)
    observed = counts @ s
    mu, sigma = theta.mean(), max(theta.std(), 0.5)
    for _ in range(max_iter):
        eta = theta[:, None] - grid[None, :]
        loglik = s @ log_expit(eta) + (w - s) @ log_expit(-eta)
        joint = loglik - 0.5 * ((grid - mu) / sigma) ** 2
        post = np.exp(joint - joint.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        mass = counts @ post
        mu = float(mass @ grid / mass.sum())
        sigma = max(float(np.sqrt(mass @ (grid - mu) ** 2 / mass.sum())), 2 * (grid[1] - grid[0]))
        exposure = w.T @ (counts[:, None] * post)
        p = expit(eta)
        gradient = observed - (exposure * p).sum(axis=1) - (theta - anchor) / sd_theta**2
        step = np.clip(gradient / ((exposure * p * (1 - p)).sum(axis=1) + 1 / sd_theta**2), -1.0, 1.0)
        theta += step
        shift = theta.mean() - anchor
        theta -= shift
        mu -= shift
        if np.max(np.abs(step - step.mean())) < tol:
            break
    return theta


def _same(rows) -> None:
    data = encode_responses(rows)
    fit = fit_map(data)
    trials, successes = data.dense()
    # both iterations run to the fixed point (the benchwatch one extrapolates: other iterates, the same limit)
    dense = _dense_marginal_abilities(trials, successes, fit.theta, tol=1e-11, max_iter=20_000)
    assert np.abs(marginal_abilities(trials, successes, fit.theta, tol=1e-11, max_iter=2000)[0] - dense).max() < 1e-8
    patterns = cell_patterns(data)
    cells, _ = marginal_abilities_patterns(patterns, fit.theta, tol=1e-11, max_iter=2000)
    assert np.abs(dense - cells).max() < 1e-8
    usual, steps = marginal_abilities_patterns(patterns, fit.theta)  # at the audit's tolerance
    assert np.abs(dense - usual).max() < 1e-4 and steps < 300
    a, b = item_posterior_dense(trials, successes, dense), item_posterior(data, dense, patterns=patterns)
    assert a.n_patterns == b.n_patterns  # the same items share a pattern
    assert (a.prior_mean, a.prior_sd) == pytest.approx((b.prior_mean, b.prior_sd), abs=1e-12)
    for q in (0.025, 0.5, 0.975):
        assert np.abs(a.quantile(q) - b.quantile(q)).max() < 1e-9
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    assert np.abs(a.draws(20, rng_a) - b.draws(20, rng_b)).max() < 1e-9  # the same draws, to rounding


def test_the_bundled_sample():
    table = fetch_sample()
    table = table[0] if isinstance(table, list) else table
    frame = validate_responses(table.frame, "sample")
    for _, rows in frame.groupby("benchmark"):
        _same(rows)


@pytest.mark.slow
@pytest.mark.parametrize(
    "path",
    [
        "swebench_verified_bashonly/verified.csv",
        "livecodebench/codegeneration_v2025-04.csv",
        "mmlu_pro/mmlu_pro.csv",
    ],
)
def test_the_real_matrices(shared_data, path):
    table = fetch_csv_file(shared_data / path)
    frame = validate_responses(table.frame, table.location)
    for _, rows in frame.groupby("benchmark"):
        _same(rows)
