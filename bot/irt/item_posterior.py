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
from scipy.special import expit, log_expit

from bot.irt.responses import ResponseArrays

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
        """Inverse CDF of each item's posterior at u (any shape ending in items), linear within a grid cell.

        A binary search in each item's own CDF row, all items at once (one search over the whole table
        would take its log of every pattern's cells, and miss the cache on each step)."""
        n_grid = self.grid.size
        flat = self.cdf.ravel()
        base = np.broadcast_to(self.pattern * n_grid, u.shape)
        lo = np.zeros(u.shape, dtype=np.intp)  # the count of CDF cells below u lies in [lo, hi]
        hi = np.full(u.shape, n_grid, dtype=np.intp)
        for _ in range(int(np.ceil(np.log2(n_grid + 1)))):
            mid = (lo + hi) // 2
            below = flat[base + np.minimum(mid, n_grid - 1)] < u
            open_ = lo < hi
            lo = np.where(open_ & below, mid + 1, lo)
            hi = np.where(open_ & ~below, mid, hi)
        cell = np.minimum(lo, n_grid - 1)
        upper = flat[base + cell]
        lower = np.where(cell > 0, flat[base + np.maximum(cell - 1, 0)], 0.0)
        frac = np.clip((u - lower) / np.maximum(upper - lower, 1e-300), 0.0, 1.0)
        step = self.grid[1] - self.grid[0]
        return self.grid[cell] - 0.5 * step + frac * step


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
    data: ResponseArrays, theta: np.ndarray, *, grid_size: int = GRID_SIZE, prior: tuple[float, float] | None = None
) -> ItemPosterior:
    """Exact grid posteriors of b for every item given ``theta``; ``prior`` = (mu, sigma) skips the EM."""
    trials, successes = data.dense()
    return item_posterior_dense(trials, successes, theta, grid_size=grid_size, prior=prior)


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
    post = loglik - 0.5 * ((grid - mu) / sigma) ** 2
    post = np.exp(post - post.max(axis=1, keepdims=True))
    cdf = np.cumsum(post, axis=1)
    cdf /= cdf[:, -1:]
    return ItemPosterior(grid, cdf, pattern, float(mu), float(sigma), cov)


def marginal_abilities(
    trials: np.ndarray,
    successes: np.ndarray,
    theta: np.ndarray,
    *,
    grid_size: int = GRID_SIZE,
    tol: float = 1e-5,
    max_iter: int = 300,
    sd_theta: float = 3.0,
) -> tuple[np.ndarray, int]:
    """Abilities by marginal MAP, the items' difficulties integrated out (EM on the grid).

    The joint MAP stretches the logit scale when there are few models (every item's b is fitted from a
    handful of responses, the abilities follow); integrating the items out removes that stretch. The
    abilities keep the joint fit's prior N(mean, ``sd_theta``^2), so a model that solves every item stays
    finite. Starts from ``theta``, keeps its mean (the location is free), returns (abilities, iterations).
    """
    theta = np.asarray(theta, float).copy()
    anchor = theta.mean()
    w, s, counts, _ = _patterns(trials, successes)
    grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, grid_size)
    observed = counts @ s  # each model's successes
    mu, sigma = theta.mean(), max(theta.std(), 0.5)
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (reported after the loop)
        eta = theta[:, None] - grid[None, :]
        loglik = s @ log_expit(eta) + (w - s) @ log_expit(-eta)
        joint = loglik - 0.5 * ((grid - mu) / sigma) ** 2
        post = np.exp(joint - joint.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        mass = counts @ post
        mu = float(mass @ grid / mass.sum())
        sigma = max(float(np.sqrt(mass @ (grid - mu) ** 2 / mass.sum())), 2 * (grid[1] - grid[0]))
        exposure = w.T @ (counts[:, None] * post)  # models x G: expected trials at each difficulty
        p = expit(eta)
        gradient = observed - (exposure * p).sum(axis=1) - (theta - anchor) / sd_theta**2
        step = gradient / ((exposure * p * (1 - p)).sum(axis=1) + 1 / sd_theta**2)
        step = np.clip(step, -1.0, 1.0)
        theta += step
        shift = theta.mean() - anchor
        theta -= shift
        mu -= shift
        if np.max(np.abs(step - step.mean())) < tol:
            break
    return theta, iterations


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


def _marginal_ml(loglik: np.ndarray, counts: np.ndarray, grid: np.ndarray) -> tuple[float, float]:
    """The normal prior (mu, sigma) that maximises the marginal likelihood of all items (EM on the grid)."""
    like = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    mu, sigma = 0.0, 1.5
    floor = 2 * (grid[1] - grid[0])
    for _ in range(EM_MAX_ITER):
        mass, _ = _pattern_mass(loglik, like, counts, np.exp(-0.5 * ((grid - mu) / sigma) ** 2))
        total = mass.sum()
        new_mu = float(mass @ grid / total)
        new_sigma = max(float(np.sqrt(mass @ (grid - new_mu) ** 2 / total)), floor)
        done = abs(new_mu - mu) < EM_TOL and abs(new_sigma - sigma) < EM_TOL
        mu, sigma = new_mu, new_sigma
        if done:
            break
    return mu, sigma
