"""The nonparametric maximum likelihood solver against independent computations: plain EM and SciPy's SLSQP."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_expit

from benchwatch.irt import linear_range, mixture_loglik
from benchwatch.irt.difficulty.npmle import solve_mixing as solve
from tests.irt.em_oracle import em_reference


def _likelihood(seed: int, n_models: int = 8, n_items: int = 60, grid: int = 40):
    """Binary responses of a small pool; each item's likelihood at ``grid`` difficulties (rows scaled to max 1)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, n_models)
    b = rng.normal(0, 1.2, n_items)
    y = rng.random((n_models, n_items)) < 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    g = np.linspace(-4, 4, grid)
    eta = theta[:, None] - g[None, :]
    rows = y.T.astype(float) @ log_expit(eta) + (1 - y.T.astype(float)) @ log_expit(-eta)
    return np.exp(rows - rows.max(axis=1, keepdims=True)), np.ones(n_items)


def _loglik(like, counts, w):
    return float(counts @ np.log(like @ w))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unrestricted_maximum_equals_a_long_em_run(seed):
    like, counts = _likelihood(seed)
    fit = solve(like, counts)
    _, em = em_reference(like, counts, iterations=50_000)
    assert fit.gap < 1e-5
    assert fit.loglik == pytest.approx(em, abs=1e-3)
    assert fit.loglik >= em - 1e-9  # EM approaches the maximum from below
    assert fit.w.min() >= 0 and fit.w.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("n_models", [8, 200])
def test_on_many_points_the_sparse_start_reaches_the_same_maximum(n_models):
    """On more than SPARSE_FROM points a fit without a start begins on SPARSE_POINTS of them: the maximum is the
    long EM run's and the uniform start's, broad items (8 models) or sharp (200), with a stretch left out too."""
    from benchwatch.irt.difficulty.npmle import SPARSE_FROM

    like, counts = _likelihood(4, n_models=n_models, grid=200)
    assert like.shape[1] > SPARSE_FROM
    for free in (None, np.arange(200) < 120):
        fit = solve(like, counts, free=free)
        full = solve(like, counts, free=free, start=np.ones(200))
        kept = slice(None) if free is None else free
        _, em = em_reference(like[:, kept], counts, iterations=50_000)
        assert fit.gap < 1e-5 and fit.loglik == pytest.approx(full.loglik, abs=1e-9)
        assert em - 1e-9 <= fit.loglik <= em + 1e-3
        if free is not None:
            assert np.all(fit.w[~free] == 0)


def test_zero_mass_restriction_equals_em_on_the_free_points_and_the_certificate_holds():
    like, counts = _likelihood(3)
    free = np.ones(like.shape[1], bool)
    free[15:25] = False
    fit = solve(like, counts, free=free)
    _, em = em_reference(like, counts, free=free, iterations=50_000)
    assert np.all(fit.w[~free] == 0)
    assert fit.loglik == pytest.approx(em, abs=1e-3)
    # Stopped early, the iterate is still feasible and its certified upper bound still lies above the maximum.
    early = solve(like, counts, free=free, max_iter=1)
    assert early.loglik <= fit.loglik + 1e-9 <= early.upper + 1e-6


def _slsqp_max(like, counts, h, level):
    """max h . w over distributions with l(w) >= level, by SciPy's general-purpose SLSQP."""
    k = like.shape[1]
    res = minimize(
        lambda w: -(h @ w),
        np.full(k, 1 / k),
        method="SLSQP",
        bounds=[(0, 1)] * k,
        constraints=[
            {"type": "eq", "fun": lambda w: w.sum() - 1},
            {"type": "ineq", "fun": lambda w: _loglik(like, counts, np.maximum(w, 1e-300)) - level},
        ],
        options={"maxiter": 3000, "ftol": 1e-12},
    )
    assert res.success, res.message
    return -res.fun


@pytest.mark.parametrize("seed", [4, 6])
def test_linear_range_brackets_slsqps_maximum(seed):
    like, counts = _likelihood(seed, grid=25)
    k = like.shape[1]
    h = np.linspace(-1, 1, k) ** 3  # any linear function of the distribution
    top = solve(like, counts)
    level = top.loglik - 3.841 / 2
    lo, hi, w = linear_range(like, counts, h, level, start=top.w, tol=1e-4)
    reference = _slsqp_max(like, counts, h, level)
    assert lo - 1e-6 <= reference <= hi + 1e-6  # the certificates hold
    assert hi - lo <= 1e-4
    assert float(h @ w) == pytest.approx(lo) and _loglik(like, counts, w) >= level - 1e-9
    # and for the smallest value, through -h
    lo2, hi2, _ = linear_range(like, counts, -h, level, start=top.w, tol=1e-4)
    assert lo2 - 1e-6 <= _slsqp_max(like, counts, -h, level) <= hi2 + 1e-6


def test_early_stop_answers_which_side_of_a_level_the_maximum_lies():
    like, counts = _likelihood(5)
    free = np.ones(like.shape[1], bool)
    free[10:30] = False
    exact = solve(like, counts, free=free).loglik
    for level in (exact - 0.5, exact + 0.5):
        fit = solve(like, counts, free=free, above=level, below=level)
        assert (fit.loglik >= level) == (exact >= level)


def test_a_band_stops_the_fit_once_both_levels_are_placed():
    """With two levels (``band``), the fit stops as soon as it knows where the maximum lies against each: its
    attained value is at or above every level the maximum reaches and below the others."""
    like, counts = _likelihood(5)
    free = np.ones(like.shape[1], bool)
    free[10:30] = False
    exact = solve(like, counts, free=free).loglik
    for low, high in ((exact - 0.6, exact - 0.3), (exact - 0.3, exact + 0.3), (exact + 0.3, exact + 0.6)):
        fit = solve(like, counts, free=free, above=high, below=low, band=(low, high))
        for level in (low, high):
            assert (fit.loglik >= level) == (exact >= level)
        assert fit.iterations < solve(like, counts, free=free).iterations  # it stopped early


def test_the_likelihood_reads_the_same_in_either_memory_order():
    """The solver reads the likelihood point-major; a pattern-major array gives the same numbers to the bit."""
    like, counts = _likelihood(6)
    w = np.random.default_rng(0).dirichlet(np.ones(like.shape[1]))
    assert mixture_loglik(like, counts, w) == mixture_loglik(np.asfortranarray(like), counts, w)
    assert mixture_loglik(like, counts, w) == pytest.approx(_loglik(like, counts, w), abs=1e-9)
    a, b = solve(np.ascontiguousarray(like), counts), solve(np.asfortranarray(like), counts)
    assert np.array_equal(a.w, b.w) and a.loglik == b.loglik


def test_an_impossible_restriction_has_no_likelihood():
    like = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    fit = solve(like, np.ones(2), free=np.array([False, True, False]))
    assert fit.loglik == -np.inf
