"""Each item's posterior on the grid against brute-force integration, and the marginal abilities."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

from benchwatch.irt import (
    difficulty_b,
    difficulty_z,
    encode_responses,
    fit_map,
    item_posterior_dense,
    marginal_abilities,
)
from benchwatch.irt.responses import ResponseArrays


def _arrays(trials: np.ndarray, successes: np.ndarray) -> ResponseArrays:
    m, n = trials.shape
    mi, ii = np.nonzero(trials > 0)
    return ResponseArrays(
        np.array([f"m{j:03d}" for j in range(m)], dtype=object),
        np.array([f"i{i:05d}" for i in range(n)], dtype=object),
        mi.astype(np.int32),
        ii.astype(np.int32),
        successes[mi, ii] / trials[mi, ii],
        trials[mi, ii],
    )


def _simulate(m: int, n: int, seed: int, trials: int = 1):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, m)
    b = rng.normal(0.3, 1.2, n)
    w = np.full((m, n), float(trials))
    s = rng.binomial(trials, expit(theta[:, None] - b[None, :])).astype(float)
    return theta, b, w, s


def test_grid_posterior_quantiles_match_numerical_integration():
    theta = np.array([-1.5, -0.4, 0.2, 0.9, 2.0])
    w = np.array([[1.0, 3.0], [1.0, 3.0], [1.0, 0.0], [1.0, 3.0], [1.0, 3.0]])  # a missing cell, trials
    s = np.array([[0.0, 1.0], [1.0, 2.0], [0.0, 0.0], [1.0, 3.0], [1.0, 2.0]])
    prior = (0.4, 1.3)
    post = item_posterior_dense(w, s, theta, prior=prior)
    for item in range(2):

        def density(b: float, item: int = item) -> float:
            p = expit(theta - b)
            like = np.prod(stats.binom.pmf(s[:, item], w[:, item].astype(int), p))
            return like * stats.norm.pdf(b, *prior)

        total = integrate.quad(density, -30, 30, limit=200)[0]
        for q in (0.1, 0.5, 0.9):  # the grid's q-quantile has posterior mass q below it, by quadrature
            got = post.quantile(q)[item]
            assert integrate.quad(density, -30, got, limit=200)[0] / total == pytest.approx(q, abs=2e-3), (item, q)


def test_draws_follow_each_items_posterior():
    theta, _, w, s = _simulate(8, 3, seed=2)
    post = item_posterior_dense(w, s, theta, prior=(0.0, 1.0))
    draws = post.draws(4000, np.random.default_rng(0))
    for item in range(3):
        values = np.sort(draws[:, item])
        step = post.grid[1] - post.grid[0]
        edges = np.concatenate([[post.grid[0] - step / 2], post.grid + step / 2])
        cdf = np.concatenate([[0.0], post.cdf[post.pattern[item]]])
        # the posterior CDF at a point, from the grid: piecewise linear within each cell
        assert stats.kstest(values, lambda x, cdf=cdf, edges=edges: np.interp(x, edges, cdf)).pvalue > 0.01


def test_empirical_bayes_prior_recovers_the_items_distribution():
    theta, b, w, s = _simulate(40, 3000, seed=3)
    post = item_posterior_dense(w, s, theta)
    assert post.prior_mean == pytest.approx(b.mean(), abs=0.06)
    assert post.prior_sd == pytest.approx(b.std(), rel=0.05)
    cov = post.prior_cov
    assert cov is not None and np.all(np.linalg.eigvalsh(cov) > 0) and np.sqrt(cov[0, 0]) < 0.05


def test_marginal_abilities_undo_the_joint_maps_stretch_with_few_models():
    ratios_map, ratios_marginal = [], []
    for seed in range(4):
        theta, _, w, s = _simulate(12, 2000, seed=10 + seed)
        fit = fit_map(_arrays(w, s))
        marginal, iterations = marginal_abilities(w, s, fit.theta)
        assert iterations < 300
        ratios_map.append(fit.theta.std() / theta.std())
        ratios_marginal.append(marginal.std() / theta.std())
    assert np.mean(ratios_map) > 1.04  # the joint MAP stretches the scale with 12 models ...
    assert abs(np.mean(ratios_marginal) - 1) < 0.02  # ... the marginal fit does not


def test_a_model_that_solves_everything_stays_finite():
    _, _, w, s = _simulate(10, 300, seed=5)
    s[0] = w[0]  # model 0 solves every item
    marginal, _ = marginal_abilities(w, s, fit_map(_arrays(w, s)).theta)
    assert np.all(np.isfinite(marginal)) and marginal[0] == marginal.max() and marginal[0] < 15


@pytest.mark.parametrize("scale", ["ability-quantile", "expected-failure"])
def test_difficulty_b_inverts_difficulty_z(scale):
    theta = np.random.default_rng(1).normal(0.5, 1.4, 30)
    z = np.linspace(0.01, 0.99, 99)
    assert difficulty_z(difficulty_b(z, theta, scale), theta, scale) == pytest.approx(z, abs=1e-9)


def test_pattern_mass_matches_the_log_space_sums_even_where_the_prior_underflows():
    from benchwatch.irt.difficulty.item_posterior import _pattern_mass

    rng = np.random.default_rng(3)
    grid = np.linspace(-12, 12, 200)
    loglik = -0.5 * ((grid[None, :] - rng.uniform(-11, 11, (40, 1))) / 0.2) ** 2 - rng.uniform(0, 50, (40, 1))
    counts = rng.integers(1, 5, 40).astype(float)
    prior = np.exp(-0.5 * (grid / 0.05) ** 2)  # a narrow prior: far patterns' marginals underflow in linear space
    like = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    mass, log_marginal = _pattern_mass(loglik, like, counts, prior)
    joint = loglik + np.log(np.maximum(prior, 1e-320))[None, :]  # the direct computation, all in log space
    top = joint.max(axis=1, keepdims=True)
    weight = np.exp(joint - top)
    assert ((like @ prior) < 1e-250).sum() >= 10  # the fallback is exercised
    np.testing.assert_allclose(log_marginal, top[:, 0] + np.log(weight.sum(axis=1)), rtol=1e-9)
    np.testing.assert_allclose(mass, counts @ (weight / weight.sum(axis=1, keepdims=True)), rtol=1e-9, atol=1e-12)


def test_cells_version_of_marginal_abilities_matches_the_dense_one():
    from benchwatch.irt import marginal_abilities, marginal_abilities_cells
    from tests.irt.test_rasch_map import simulate

    df, _, _ = simulate(10, 60, seed=21, missing=0.2)
    data = encode_responses(df)
    trials, successes = data.dense()
    start = fit_map(data).theta
    dense, _ = marginal_abilities(trials, successes, start)
    grid = np.linspace(start.min() - 8.0, start.max() + 8.0, 200)
    cells, *_ = marginal_abilities_cells(data.model_idx, data.item_idx, data.weight, data.weight * data.y, start, grid)
    np.testing.assert_allclose(cells, dense, atol=1e-4)


def test_a_new_model_calibrated_by_moments_equals_the_grid_iteration():
    """One 0/1 cell per item takes the moment path; a weightless extra cell forces the grid path, whose
    answer must be the same (the extra cell adds nothing to the likelihood)."""
    from benchwatch.irt import cell_loglik, marginal_abilities_cells
    from tests.irt.test_rasch_map import simulate

    df, _, _ = simulate(9, 50, seed=8)
    data = encode_responses(df)
    theta = fit_map(data).theta
    grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, 200)
    old = data.model_idx < 8
    base = cell_loglik(data.model_idx[old], data.item_idx[old], data.weight[old], data.y[old], theta, grid, 50)
    new = ~old
    m, i, w, s = data.model_idx[new], data.item_idx[new], data.weight[new], data.y[new]
    start = theta.copy()
    start[8] = theta[:8].mean()
    kw = {"base": base, "prior": (0.1, 1.4), "anchor": float(theta[:8].mean())}
    fast, items, ll, *_ = marginal_abilities_cells(m, i, w, s, start, grid, **kw)
    pad = lambda a, v: np.concatenate([a, [v]])  # noqa: E731
    slow, *_ = marginal_abilities_cells(pad(m, 8), pad(i, i[0]), pad(w, 0.0), pad(s, 0.0), start, grid, **kw)
    assert abs(fast[8] - start[8]) > 0.05  # it moved
    np.testing.assert_allclose(fast, slow, atol=1e-7)
    np.testing.assert_allclose(ll, cell_loglik(m, i, w, s, fast, grid, 50)[items])


def test_the_priors_em_reaches_the_fixed_point_of_the_plain_iteration():
    """``_marginal_ml`` extrapolates its EM (``benchwatch.irt.fits.accelerate``); the plain EM, run here to its fixed
    point, gives the same prior."""
    from benchwatch.irt.difficulty.item_posterior import _marginal_ml, _pattern_mass

    theta, _, w, s = _simulate(6, 400, seed=4)  # few models: broad posteriors, the slow case
    grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, 200)
    eta = theta[:, None] - grid[None, :]
    loglik = s.T @ np.log(expit(eta)) + (w - s).T @ np.log(expit(-eta))
    counts = np.ones(loglik.shape[0])
    like = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    mu, sigma = 0.0, 1.5
    for _ in range(100_000):
        mass, _ = _pattern_mass(loglik, like, counts, np.exp(-0.5 * ((grid - mu) / sigma) ** 2))
        new_mu = float(mass @ grid / mass.sum())
        new_sigma = float(np.sqrt(mass @ (grid - new_mu) ** 2 / mass.sum()))
        done = abs(new_mu - mu) < 1e-13 and abs(new_sigma - sigma) < 1e-13
        mu, sigma = new_mu, new_sigma
        if done:
            break
    assert _marginal_ml(loglik, counts, grid) == pytest.approx((mu, sigma), abs=1e-5)
