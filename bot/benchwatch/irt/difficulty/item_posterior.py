"""Each item's exact posterior of difficulty given the pool's abilities, under an empirical-Bayes prior.

With few models many items share one response pattern: the data say only that they lie somewhere in
the stretch of the axis that pattern allows, and the MAP puts them all at one point. Here each item's
difficulty b has the posterior

    p(b | y_i, theta)  proportional to  N(b; mu, sigma^2) * prod_j Binomial(s_ij | w_ij, sigmoid(theta_j - b)),

computed exactly on a fine grid (one row per distinct response pattern: observed cells, trials and
successes), with the prior's mu and sigma estimated from all items by marginal maximum likelihood (EM on
the same grid). A normal prior on b is the uniform target on the ability-quantile scale, so when a
benchmark matches its target, draws from these posteriors are distributed like the true difficulties:
figures computed on them have calibrated intervals. The abilities are held at their fitted values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_expit

from benchwatch.irt.fits.accelerate import iterate
from benchwatch.irt.fits.cells import CellPatterns, cell_patterns, pattern_loglik
from benchwatch.irt.fits.em_steps import prior_moments
from benchwatch.irt.responses import ResponseArrays

GRID_SIZE = 200
EM_TOL = 1e-7
EM_MAX_ITER = 500


@dataclass(frozen=True)
class ItemPosterior:
    """Grid posteriors of every distinct response pattern, and which pattern each item has."""

    grid: np.ndarray  # G grid points (logits), evenly spaced
    cdf: np.ndarray  # patterns x G: cumulative posterior mass, last column 1
    pattern: np.ndarray  # items -> row of cdf
    prior_mean: float
    prior_sd: float
    prior_cov: np.ndarray | None = None  # 2 x 2 covariance of (mu, log sigma) where they were estimated
    loglik: np.ndarray | None = None  # patterns x G: each pattern's log likelihood on the grid, for other priors

    def with_prior(self, mu: float, sigma: float) -> ItemPosterior:
        """The same items' posteriors under the prior N(mu, sigma^2), from the kept likelihood (no pass over
        the responses)."""
        if self.loglik is None:
            raise ValueError("this posterior kept no likelihood")
        return ItemPosterior(
            self.grid, _cdf(self.loglik, self.grid, mu, sigma), self.pattern, mu, sigma, None, self.loglik
        )

    @property
    def n_patterns(self) -> int:
        return self.cdf.shape[0]

    def quantile(self, q: float) -> np.ndarray:
        """Each item's posterior q-quantile of b."""
        return self._invert(np.full(self.pattern.size, q))

    def draws(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` independent joint draws of every item's b (n x items)."""
        return self._invert(rng.random((n, self.pattern.size)))

    def _invert(self, u: np.ndarray) -> np.ndarray:
        """Inverse CDF of each item's posterior at u (any shape ending in items), linear within a grid cell:
        a binary search in each item's own CDF row (compiled: ``benchwatch.irt.kernels.invert_cdf``)."""
        from benchwatch.irt.kernels import invert_cdf

        flat = np.ascontiguousarray(u, dtype=float).reshape(-1, self.pattern.size)
        out = np.empty_like(flat)
        invert_cdf(self.cdf, self.pattern.astype(np.int64), flat, self.grid, out)
        return out.reshape(np.shape(u))


def _patterns(trials: np.ndarray, successes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (trials, successes) columns: W and S (patterns x models), counts, and each item's pattern."""
    both = np.ascontiguousarray(np.concatenate([trials.T, successes.T], axis=1))
    if np.all(both == np.round(both)) and both.max(initial=0) < 32767:  # counts: compare rows as short bytes
        both = both.astype(np.int16)
    rows = both.view(np.dtype((np.void, both.dtype.itemsize * both.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(rows, return_index=True, return_inverse=True, return_counts=True)
    unique = both[first].astype(float)
    m = trials.shape[0]
    return unique[:, :m], unique[:, m:], counts, inverse.ravel()


def item_posterior(
    data: ResponseArrays | None,
    theta: np.ndarray,
    *,
    grid_size: int = GRID_SIZE,
    prior: tuple[float, float] | None = None,
    prior_uncertainty: bool = True,
    patterns: CellPatterns | None = None,
) -> ItemPosterior:
    """Exact grid posteriors of b for every item given ``theta``, from the observed cells; ``prior`` = (mu, sigma)
    skips the EM. The same posteriors as ``item_posterior_dense`` without a models x items array. With
    ``patterns`` (the cells' ``CellPatterns``, at no floor) ``data`` is not read (None will do)."""
    theta = np.asarray(theta, float)
    if patterns is None:
        if data is None:
            raise ValueError("item_posterior reads the cells: give data or their patterns")
        patterns = cell_patterns(data)
    cp = patterns
    grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, grid_size)
    loglik = pattern_loglik(cp, theta, grid)
    cov = None
    if prior is None:
        mu, sigma = _marginal_ml(loglik, cp.counts, grid)
        if prior_uncertainty:
            cov = _hyper_covariance(loglik, cp.counts, grid, mu, sigma)
    else:
        mu, sigma = prior
    return ItemPosterior(grid, _cdf(loglik, grid, mu, sigma), cp.pattern, float(mu), float(sigma), cov, loglik)


def item_posterior_dense(
    trials: np.ndarray,
    successes: np.ndarray,
    theta: np.ndarray,
    *,
    grid_size: int = GRID_SIZE,
    prior: tuple[float, float] | None = None,
    prior_uncertainty: bool = True,
) -> ItemPosterior:
    """The same from model x item matrices of trials (0 where missing) and successes.

    ``prior_uncertainty`` also estimates the covariance of the fitted prior's (mu, log sigma).
    """
    theta = np.asarray(theta, float)
    w, s, counts, pattern = _patterns(trials, successes)
    lo, hi = theta.min() - 8.0, theta.max() + 8.0
    grid = np.linspace(lo, hi, grid_size)
    eta = theta[:, None] - grid[None, :]  # models x G
    loglik = s @ log_expit(eta) + (w - s) @ log_expit(-eta)  # patterns x G, exact
    cov = None
    if prior is None:
        mu, sigma = _marginal_ml(loglik, counts, grid)
        if prior_uncertainty:
            cov = _hyper_covariance(loglik, counts, grid, mu, sigma)
    else:
        mu, sigma = prior
    return ItemPosterior(grid, _cdf(loglik, grid, mu, sigma), pattern, float(mu), float(sigma), cov, loglik)


def _cdf(loglik: np.ndarray, grid: np.ndarray, mu: float, sigma: float) -> np.ndarray:
    """Each pattern's posterior CDF on the grid under the prior N(mu, sigma^2)."""
    post = loglik - 0.5 * ((grid - mu) / sigma) ** 2
    post = np.exp(post - post.max(axis=1, keepdims=True))
    cdf = np.cumsum(post, axis=1)
    cdf /= cdf[:, -1:]
    return cdf


def loglik_posterior(loglik: np.ndarray, grid: np.ndarray, *, prior_uncertainty: bool = True) -> ItemPosterior:
    """Every item's grid posterior from its log likelihood rows (items x G) under the normal prior of maximum
    marginal likelihood, the likelihood kept (for the prior's own uncertainty): ``item_posterior`` for an item
    model whose likelihood is not built from the cells here (the 2PL's, its discriminations integrated out)."""
    counts = np.ones(loglik.shape[0])
    mu, sigma = _marginal_ml(loglik, counts, grid)
    cov = _hyper_covariance(loglik, counts, grid, mu, sigma) if prior_uncertainty else None
    return ItemPosterior(grid, _cdf(loglik, grid, mu, sigma), np.arange(loglik.shape[0]), mu, sigma, cov, loglik)


def grid_posterior(loglik: np.ndarray, grid: np.ndarray, *, start: tuple[float, float] = (0.0, 1.5)) -> ItemPosterior:
    """Every item's exact grid posterior from its log likelihood (items x G), under the normal prior of
    maximum marginal likelihood (EM from ``start``: a warm start makes a small change cheap)."""
    mu, sigma = _marginal_ml(loglik, np.ones(loglik.shape[0]), grid, start)
    post = loglik - 0.5 * ((grid - mu) / sigma) ** 2
    post = np.exp(post - post.max(axis=1, keepdims=True))
    cdf = np.cumsum(post, axis=1)
    cdf /= cdf[:, -1:]
    return ItemPosterior(grid, cdf, np.arange(loglik.shape[0]), float(mu), float(sigma))


def _marginal_loglik(
    loglik: np.ndarray, counts: np.ndarray, grid: np.ndarray, mu: float, log_sigma: float, like: np.ndarray
) -> float:
    """Log marginal likelihood of all items under the prior N(mu, sigma^2) (on the grid); ``like`` is
    exp(loglik) scaled to 1 at each pattern's maximum."""
    log_prior = -0.5 * ((grid - mu) / np.exp(log_sigma)) ** 2
    log_prior -= np.logaddexp.reduce(log_prior)
    _, log_marginal = _pattern_mass(loglik, like, counts, np.exp(log_prior))
    return float(counts @ log_marginal)


def _hyper_covariance(loglik: np.ndarray, counts: np.ndarray, grid: np.ndarray, mu: float, sigma: float) -> np.ndarray:
    """Covariance of (mu, log sigma) from the curvature of the marginal likelihood at its maximum."""
    x0 = np.array([mu, np.log(sigma)])
    h = np.array([1e-3 * max(1.0, sigma), 1e-3])
    like = np.exp(loglik - loglik.max(axis=1, keepdims=True))

    def f(x: np.ndarray) -> float:
        return -_marginal_loglik(loglik, counts, grid, x[0], x[1], like)

    hess = np.empty((2, 2))
    f0 = f(x0)
    for i in range(2):
        e_i = np.eye(2)[i] * h[i]
        hess[i, i] = (f(x0 + e_i) - 2 * f0 + f(x0 - e_i)) / h[i] ** 2
        for j in range(i + 1, 2):
            e_j = np.eye(2)[j] * h[j]
            hess[i, j] = hess[j, i] = (
                f(x0 + e_i + e_j) - f(x0 + e_i - e_j) - f(x0 - e_i + e_j) + f(x0 - e_i - e_j)
            ) / (4 * h[i] * h[j])
    try:
        cov = np.linalg.inv(hess)
    except np.linalg.LinAlgError:
        return np.zeros((2, 2))
    return cov if np.all(np.linalg.eigvalsh(cov) > 0) else np.zeros((2, 2))


def _pattern_mass(loglik: np.ndarray, like: np.ndarray, counts: np.ndarray, prior: np.ndarray):
    """Expected number of items at each grid point, and each pattern's log marginal, under ``prior`` (on the
    grid, unnormalised). Two matrix products instead of a pass per step over the patterns x grid table;
    a pattern whose marginal underflows is done in log space."""
    norm = like @ prior
    bad = norm < 1e-250
    safe = np.where(bad, 1.0, norm)
    mass = prior * ((np.where(bad, 0.0, counts) / safe) @ like)
    log_marginal = np.log(safe) + loglik.max(axis=1)
    if bad.any():
        joint = loglik[bad] + np.log(np.maximum(prior, 1e-320))[None, :]
        top = joint.max(axis=1, keepdims=True)
        weight = np.exp(joint - top)
        total = weight.sum(axis=1, keepdims=True)
        mass += counts[bad] @ (weight / total)
        log_marginal[bad] = top[:, 0] + np.log(total[:, 0])
    return mass, log_marginal


def _marginal_ml(
    loglik: np.ndarray, counts: np.ndarray, grid: np.ndarray, start: tuple[float, float] = (0.0, 1.5)
) -> tuple[float, float]:
    """The normal prior (mu, sigma) that maximises the marginal likelihood of all items (EM on the grid,
    extrapolated)."""
    like = np.exp(loglik - loglik.max(axis=1, keepdims=True))

    def update(x: np.ndarray) -> np.ndarray:
        mass, _ = _pattern_mass(loglik, like, counts, np.exp(-0.5 * ((grid - x[0]) / x[1]) ** 2))
        return np.array(prior_moments(mass, grid))

    x, _ = iterate(
        update,
        np.array(start, float),
        converged=lambda a, b: bool(np.all(np.abs(b - a) < EM_TOL)),
        max_steps=EM_MAX_ITER,
        valid=lambda x: x[1] > 0,
    )
    mu, sigma = float(x[0]), float(x[1])
    return mu, sigma
