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


def _dense_floored_abilities(trials, successes, floor, theta, grid_size=200, sd_theta=3.0):
    """The floored marginal MAP by EM with an exact M-step (each model's ability the root of its expected
    complete-data score, found by bisection, not a scoring step), over models x items arrays: the independent
    reference. Its fixed point is reached by the package's SQUAREM (an extrapolation changes the path, not the
    fixed point)."""
    from scipy.special import expit

    from benchwatch.irt.fits.accelerate import squarem

    theta = np.asarray(theta, float)
    anchor, m = theta.mean(), theta.size
    grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, grid_size)
    c = floor[None, :, None]
    s, f = successes[:, :, None], (trials - successes)[:, :, None]

    def update(x):
        th, mu, sigma = x[:m], x[m], x[m + 1]
        sig = expit(th[:, None, None] - grid[None, None, :])  # models x items x G
        p = c + (1 - c) * sig
        loglik = (s * np.log(p) + f * np.log1p(-p)).sum(axis=0)
        joint = loglik - 0.5 * ((grid - mu) / sigma) ** 2
        post = np.exp(joint - joint.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        mass = post.sum(axis=0)
        mu = float(mass @ grid / mass.sum())
        sigma = max(float(np.sqrt(mass @ (grid - mu) ** 2 / mass.sum())), 2 * (grid[1] - grid[0]))

        def score(t):  # each model's expected complete-data score at ability t (falls as t rises: one root)
            sg = expit(t[:, None, None] - grid[None, None, :])
            pt = c + (1 - c) * sg
            each = s * (1 - c) * sg * (1 - sg) / pt - f * sg
            return (post[None] * each).sum(axis=(1, 2)) - (t - anchor) / sd_theta**2

        lo, hi = np.full(m, grid[0]), np.full(m, grid[-1])
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            up = score(mid) > 0
            lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
        new = 0.5 * (lo + hi)
        shift = new.mean() - anchor
        return np.concatenate([new - shift, [mu - shift, sigma]])

    start = np.concatenate([theta, [theta.mean(), max(theta.std(), 0.5)]])
    x, _ = squarem(update, start, converged=lambda a, b: float(np.abs(b - a).max()) < 1e-9, max_steps=3000)
    return x[:m]


def test_floored_abilities_converge_with_models_below_the_floor():
    """A model far below a chance floor has an ability the answers barely place (its likelihood is nearly flat and
    not concave there): the floored EM's scoring step reads the answers' observed curvature where it exceeds their
    Fisher information, so it converges to the exact-M-step EM's fixed point in a few steps instead of cycling
    between two abilities until its step limit (GPQA Diamond's weakest model, right on 4% of four-option items, did
    so at every floor's end: 300 steps, 1.5 s a run)."""
    from benchwatch.irt.responses import arrays_from_dense

    rng = np.random.default_rng(64)
    theta_true = rng.normal(0.0, 1.5, 40)
    b = rng.normal(0.0, 1.0, 120)
    floor = np.full(b.size, 0.25)
    p = floor + (1 - floor) / (1 + np.exp(-(theta_true[:, None] - b[None, :])))
    p = np.vstack([p, np.full((2, b.size), 0.04)])  # two models right far less often than chance (a broken run)
    trials = np.ones_like(p)
    successes = (rng.random(p.shape) < p).astype(float)
    start = np.concatenate([theta_true + rng.normal(0, 0.3, theta_true.size), [-4.0, -4.0]])
    patterns = cell_patterns(arrays_from_dense(trials, successes), floor)
    got, steps = marginal_abilities_patterns(patterns, start)
    assert steps < 60
    reference = _dense_floored_abilities(trials, successes, floor, start)
    assert np.abs(got - reference).max() < 1e-3
