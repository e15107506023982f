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

from benchwatch.irt.accelerate import iterate
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


@dataclass(frozen=True)
class CellPatterns:
    """Items with the same cells (the same models, trials and successes) collapsed into one pattern each: the
    patterns' own cells, how many items each stands for, and each item's pattern. Built from the observed
    cells, never a models x items array."""

    model_idx: np.ndarray  # per cell of a pattern
    pattern_idx: np.ndarray
    trials: np.ndarray
    successes: np.ndarray
    counts: np.ndarray  # items per pattern
    pattern: np.ndarray  # items -> pattern
    n_models: int
    floor: np.ndarray | None = None  # per pattern: its items' chance floor (None: no floors)

    @property
    def n_patterns(self) -> int:
        return self.counts.size

    def observed(self) -> np.ndarray:
        """Each model's successes over all items."""
        return np.bincount(self.model_idx, self.counts[self.pattern_idx] * self.successes, minlength=self.n_models)


def cell_patterns(data: ResponseArrays, floor: np.ndarray | None = None) -> CellPatterns:
    """``CellPatterns`` of one benchmark's cells (a 64-bit fingerprint of each item's cells, compiled); with
    ``floor`` (each item's chance floor) items of different floors are different patterns."""
    from benchwatch.irt.kernels import hash_items

    rng = np.random.default_rng(20261201)
    r1 = rng.integers(1, 2**63, size=data.n_models, dtype=np.uint64) | np.uint64(1)
    r2 = rng.integers(1, 2**63, size=data.n_models, dtype=np.uint64) | np.uint64(1)
    successes = data.weight * data.y
    keys = hash_items(
        data.item_idx.astype(np.int64), data.model_idx.astype(np.int64), data.weight, successes, r1, r2, data.n_items
    )
    has_floor = floor is not None and np.any(np.asarray(floor) > 0)
    if has_floor:  # the floor's bits mixed in with one more odd multiplier
        bits = np.round(np.asarray(floor, float) * 2**40).astype(np.uint64)
        keys = keys + bits * np.uint64(0x9E3779B97F4A7C15)
    _, first, pattern, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    keep = np.zeros(data.n_items, bool)
    keep[first] = True
    cells = np.flatnonzero(keep[data.item_idx])
    pattern_of = pattern.ravel()[data.item_idx[cells]]
    cells = cells[np.argsort(pattern_of, kind="stable")]  # by pattern: the passes over them read memory in order
    return CellPatterns(
        model_idx=data.model_idx[cells].astype(np.int64),
        pattern_idx=pattern.ravel()[data.item_idx[cells]].astype(np.int64),
        trials=data.weight[cells].astype(float),
        successes=successes[cells].astype(float),
        counts=counts.astype(float),
        pattern=pattern.ravel().astype(np.int64),
        n_models=data.n_models,
        floor=_pattern_floor(floor, pattern.ravel(), counts.size) if has_floor else None,
    )


def _pattern_floor(floor: np.ndarray, pattern: np.ndarray, n_patterns: int) -> np.ndarray:
    """Each pattern's chance floor (its items share one: the floor is part of the pattern's key)."""
    out = np.zeros(n_patterns)
    out[pattern] = np.asarray(floor, float)
    return out


def _pattern_loglik(cp: CellPatterns, theta: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Each pattern's log likelihood on the grid (patterns x G), from its cells."""
    return cell_loglik(
        cp.model_idx, cp.pattern_idx, cp.trials, cp.successes, theta, grid, cp.n_patterns, floor=cp.floor
    )


def item_posterior(
    data: ResponseArrays,
    theta: np.ndarray,
    *,
    grid_size: int = GRID_SIZE,
    prior: tuple[float, float] | None = None,
    prior_uncertainty: bool = True,
    patterns: CellPatterns | None = None,
) -> ItemPosterior:
    """Exact grid posteriors of b for every item given ``theta``, from the observed cells; ``prior`` = (mu, sigma)
    skips the EM. The same posteriors as ``item_posterior_dense`` without a models x items array."""
    theta = np.asarray(theta, float)
    cp = patterns or cell_patterns(data)
    grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, grid_size)
    loglik = _pattern_loglik(cp, theta, grid)
    cov = None
    if prior is None:
        mu, sigma = _marginal_ml(loglik, cp.counts, grid)
        if prior_uncertainty:
            cov = _hyper_covariance(loglik, cp.counts, grid, mu, sigma)
    else:
        mu, sigma = prior
    return ItemPosterior(grid, _cdf(loglik, grid, mu, sigma), cp.pattern, float(mu), float(sigma), cov, loglik)


def marginal_abilities_patterns(
    cp: CellPatterns,
    theta: np.ndarray,
    *,
    grid_size: int = GRID_SIZE,
    tol: float = 1e-5,
    max_iter: int = 300,
    sd_theta: float = 3.0,
    extrapolate: bool = True,
    groups: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """Abilities by marginal MAP, the items' difficulties integrated out (EM on the grid, extrapolated by
    ``benchwatch.irt.accelerate``; ``extrapolate`` off: the plain EM), over the cells of collapsed patterns (never a
    models x items array).

    The joint MAP stretches the logit scale when there are few models (every item's b is fitted from a
    handful of responses, the abilities follow); integrating the items out removes that stretch. The
    abilities keep the joint fit's prior N(mean, ``sd_theta``^2), so a model that solves every item stays
    finite. Starts from ``theta``, keeps its mean (the location is free), stops when no ability and neither
    of the items' prior (mu, sigma) moved by ``tol`` in a step, returns (abilities, iterations).

    ``groups`` (each pattern's design group, ``benchwatch.irt.design``) gives each group of items its own prior
    N(mu_g, sigma_g^2), so that items answered by the strong models only are not pulled towards the others;
    with chance floors (``cp.floor``) each answer's probability has its item's floor. Either takes
    ``_marginal_abilities_general``; without them the step is the plain Rasch EM below."""
    if cp.floor is not None or groups is not None:
        return _marginal_abilities_general(cp, theta, groups, grid_size, tol, max_iter, sd_theta, extrapolate)
    from benchwatch.irt.kernels import rows_add

    theta = np.asarray(theta, float).copy()
    anchor = theta.mean()
    grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, grid_size)
    observed = cp.observed()
    weight = cp.trials * cp.counts[cp.pattern_idx]
    floor = 2 * (grid[1] - grid[0])

    def update(x: np.ndarray) -> np.ndarray:  # one EM step of (abilities, mu, sigma)
        theta, mu, sigma = x[:-2], x[-2], x[-1]
        eta = theta[:, None] - grid[None, :]
        joint = _pattern_loglik(cp, theta, grid) - 0.5 * ((grid - mu) / sigma) ** 2
        post = np.exp(joint - joint.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        mass = cp.counts @ post
        mu = float(mass @ grid / mass.sum())
        sigma = max(float(np.sqrt(mass @ (grid - mu) ** 2 / mass.sum())), floor)
        exposure = rows_add(np.zeros((cp.n_models, grid.size)), cp.model_idx, cp.pattern_idx, weight, post)
        p = expit(eta)
        gradient = observed - (exposure * p).sum(axis=1) - (theta - anchor) / sd_theta**2
        step = np.clip(gradient / ((exposure * p * (1 - p)).sum(axis=1) + 1 / sd_theta**2), -1.0, 1.0)
        shift = step.mean()  # the location is free: the abilities keep their mean
        return np.concatenate([theta + step - shift, [mu - shift, sigma]])

    start = np.concatenate([theta, [theta.mean(), max(theta.std(), 0.5)]])
    x, iterations = iterate(
        update,
        start,
        converged=lambda a, b: float(np.abs(b - a).max()) < tol,
        max_steps=max_iter,
        extrapolate=extrapolate,
        valid=lambda x: x[-1] > 0,
    )
    theta = x[:-2]
    return theta, iterations


def _marginal_abilities_general(
    cp: CellPatterns,
    theta: np.ndarray,
    groups: np.ndarray | None,
    grid_size: int,
    tol: float,
    max_iter: int,
    sd_theta: float,
    extrapolate: bool,
) -> tuple[np.ndarray, int]:
    """``marginal_abilities_patterns`` with a prior per design group and chance floors: EM on the grid of (the
    abilities, each group's mu and sigma). The abilities' step is Fisher scoring: per model, the expected
    gradient and information of its answers under each pattern's posterior, from one pass over the cells per
    distinct floor (a table of the answer's derivatives on the models x grid)."""
    from benchwatch.irt.kernels import rows_add

    theta = np.asarray(theta, float).copy()
    anchor = theta.mean()
    grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, grid_size)
    group = np.zeros(cp.n_patterns, np.int64) if groups is None else np.asarray(groups, np.int64)
    n_groups = int(group.max()) + 1
    floor_of = np.zeros(cp.n_patterns) if cp.floor is None else cp.floor
    cell_floor = floor_of[cp.pattern_idx]
    many = cp.counts[cp.pattern_idx]
    parts = []  # per distinct floor: its cells, and their successes, failures and trials times the items they stand for
    for c in np.unique(cell_floor):
        rows = np.flatnonzero(cell_floor == c)
        s, w = cp.successes[rows] * many[rows], cp.trials[rows] * many[rows]
        parts.append((float(c), cp.model_idx[rows], cp.pattern_idx[rows], s, w - s))
    smallest = 2 * (grid[1] - grid[0])

    def update(x: np.ndarray) -> np.ndarray:
        th, mu, sigma = x[: -2 * n_groups], x[-2 * n_groups : -n_groups], x[-n_groups:]
        joint = _pattern_loglik(cp, th, grid) - 0.5 * ((grid[None, :] - mu[group, None]) / sigma[group, None]) ** 2
        post = np.exp(joint - joint.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        weighted = post * cp.counts[:, None]
        mass = np.zeros((n_groups, grid.size))
        np.add.at(mass, group, weighted)
        total = mass.sum(axis=1)
        mu = (mass @ grid) / total
        sigma = np.maximum(np.sqrt(np.einsum("gk,gk->g", mass, (grid[None, :] - mu[:, None]) ** 2) / total), smallest)
        sig = expit(th[:, None] - grid[None, :])
        gradient = -(th - anchor) / sd_theta**2
        information = np.full(th.size, 1 / sd_theta**2)
        for c, m_idx, p_idx, s, f in parts:
            right = c + (1 - c) * sig
            share = (1 - c) * sig / right  # 1 without a floor
            exposure_s = rows_add(np.zeros((th.size, grid.size)), m_idx, p_idx, s, post)
            exposure_f = rows_add(np.zeros((th.size, grid.size)), m_idx, p_idx, f, post)
            gradient += (exposure_s * share * (1 - sig) - exposure_f * sig).sum(axis=1)
            exposure = exposure_s + exposure_f
            information += (exposure * share * sig * (1 - sig)).sum(axis=1)
        step = np.clip(gradient / information, -1.0, 1.0)
        shift = step.mean()  # the location is free: the abilities keep their mean
        return np.concatenate([th + step - shift, mu - shift, sigma])

    start_mu = np.full(n_groups, theta.mean())
    start_sigma = np.full(n_groups, max(theta.std(), 0.5))
    x, iterations = iterate(
        update,
        np.concatenate([theta, start_mu, start_sigma]),
        converged=lambda a, b: float(np.abs(b - a).max()) < tol,
        max_steps=max_iter,
        extrapolate=extrapolate,
        valid=lambda x: bool(np.all(x[-n_groups:] > 0)),
    )
    return x[: -2 * n_groups], iterations


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
    """Abilities by marginal MAP from model x item matrices of trials (0 where missing) and successes: the
    cells of those matrices through ``marginal_abilities_patterns``."""
    from benchwatch.irt.responses import arrays_from_dense

    cp = cell_patterns(arrays_from_dense(np.asarray(trials, float), np.asarray(successes, float)))
    return marginal_abilities_patterns(cp, theta, grid_size=grid_size, tol=tol, max_iter=max_iter, sd_theta=sd_theta)


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
    floor = 2 * (grid[1] - grid[0])

    def update(x: np.ndarray) -> np.ndarray:
        mass, _ = _pattern_mass(loglik, like, counts, np.exp(-0.5 * ((grid - x[0]) / x[1]) ** 2))
        total = mass.sum()
        mu = float(mass @ grid / total)
        return np.array([mu, max(float(np.sqrt(mass @ (grid - mu) ** 2 / total)), floor)])

    x, _ = iterate(
        update,
        np.array(start, float),
        converged=lambda a, b: bool(np.all(np.abs(b - a) < EM_TOL)),
        max_steps=EM_MAX_ITER,
        valid=lambda x: x[1] > 0,
    )
    mu, sigma = float(x[0]), float(x[1])
    return mu, sigma


def cell_loglik(
    model_idx: np.ndarray,
    item_idx: np.ndarray,
    trials: np.ndarray,
    successes: np.ndarray,
    theta: np.ndarray,
    grid: np.ndarray,
    n_items: int,
    slope: np.ndarray | None = None,
    floor: np.ndarray | None = None,
) -> np.ndarray:
    """Each item's log likelihood on the grid (items x G) from the observed cells alone (no model x item
    array): the sum over its cells of s log sigmoid(theta - g) + (w - s) log sigmoid(g - theta), each model's
    logit times its ``slope`` where given (an ability's own error, ``benchwatch.irt.scale.uncertain_abilities``). With
    ``floor`` (each item's chance floor c, indexed as ``item_idx``) an answer is right with probability
    P = c + (1 - c) sigmoid(...), and the likelihood is s log P + (w - s) log(1 - P)."""
    from benchwatch.irt.kernels import rows_add

    theta = np.asarray(theta, float)
    a = np.ones(theta.size) if slope is None else np.asarray(slope, float)
    eta = a[:, None] * (theta[:, None] - grid[None, :])
    item_idx, model_idx = np.asarray(item_idx), np.asarray(model_idx)
    if floor is not None and np.any(np.asarray(floor) > 0):
        return _floor_loglik(model_idx, item_idx, trials, successes, eta, n_items, np.asarray(floor, float))
    # s log sigmoid(eta) + (w - s) log sigmoid(-eta) = w log sigmoid(eta) - (w - s) eta: one pass over the cells
    # on the grid, and the linear term's two per-item sums (eta = a theta - a g) added in closed form
    out = rows_add(np.zeros((n_items, grid.size)), item_idx, model_idx, trials, log_expit(eta))
    fails = np.asarray(trials, float) - np.asarray(successes, float)
    level = np.bincount(item_idx, fails * (a * theta)[model_idx], minlength=n_items)
    tilt = np.bincount(item_idx, fails * a[model_idx], minlength=n_items)
    out -= level[:, None]
    out += tilt[:, None] * grid[None, :]
    return out


def _floor_loglik(
    model_idx: np.ndarray,
    item_idx: np.ndarray,
    trials: np.ndarray,
    successes: np.ndarray,
    eta: np.ndarray,
    n_items: int,
    floor: np.ndarray,
) -> np.ndarray:
    """``cell_loglik`` with chance floors: the cells grouped by their item's floor (a benchmark has a few distinct
    ones: one over each number of options), each group one pass over its cells per table of log P and log(1 - P)
    on the models x grid (no per-cell exponentials)."""
    from benchwatch.irt.kernels import rows_add_floors

    levels, level = np.unique(floor, return_inverse=True)  # the distinct floors, and each item's
    log_right, log_wrong = log_expit(eta), log_expit(-eta)
    right = np.empty((levels.size, *eta.shape))
    wrong = np.empty((levels.size, *eta.shape))
    for k, c in enumerate(levels):
        right[k] = log_right if c == 0 else np.logaddexp(np.log(c), np.log1p(-c) + log_right)
        wrong[k] = log_wrong + (np.log1p(-c) if c > 0 else 0.0)
    out = np.zeros((n_items, eta.shape[1]))
    # one pass over the cells, each reading its item's floor's tables: no per-cell arrays (38 million cells at the
    # largest public matrix: the copies by floor cost more memory than the matrix's own codes)
    return rows_add_floors(
        out,
        np.asarray(item_idx),
        np.asarray(model_idx),
        np.asarray(trials, float),
        np.asarray(successes, float),
        level.ravel().astype(np.int64),
        right,
        wrong,
    )


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


def marginal_abilities_cells(
    model_idx: np.ndarray,
    item_idx: np.ndarray,
    trials: np.ndarray,
    successes: np.ndarray,
    theta: np.ndarray,
    grid: np.ndarray,
    *,
    base: np.ndarray | None = None,
    prior: tuple[float, float] | None = None,
    anchor: float | None = None,
    tol: float = 1e-5,
    max_iter: int = 300,
    sd_theta: float = 3.0,
    floor: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """``marginal_abilities`` over a set of observed cells, never a model x item array.

    The models that have cells here are fitted (EM on the grid, items integrated out); the others keep
    their ``theta``. ``base`` (all items x G) adds the log likelihood of cells held fixed, so that new
    models are calibrated against everything already known at the cost of their own cells. With
    ``prior`` = (mu, sigma) the items' prior is held there and the location is set by the fixed models;
    without it the prior is re-estimated at each step and the fitted models keep their mean (``anchor``,
    by default that of their start), as ``marginal_abilities`` does.

    Returns (theta, the touched items, the touched items' log likelihood from these cells at the fitted
    theta (touched x G), mu, sigma). ``floor``: every item's chance floor (indexed as ``item_idx``); with one,
    the abilities' steps are Fisher scoring on the answers' expected score (``_floor_cells``).
    """
    from benchwatch.irt.kernels import rows_add

    if floor is not None and np.any(np.asarray(floor) > 0):
        return _floor_cells(
            model_idx,
            item_idx,
            trials,
            successes,
            theta,
            grid,
            np.asarray(floor, float),
            base,
            prior,
            anchor,
            tol,
            max_iter,
            sd_theta,
        )
    theta, models, m_local, items, i_local, trials, successes, fixed, th, anchor, mu, sigma = _cells_setup(
        model_idx, item_idx, trials, successes, theta, grid, base, prior, anchor
    )
    free_prior = prior is None
    observed = np.bincount(m_local, successes, minlength=models.size)
    if not free_prior:
        binary = np.all(trials == 1.0) and np.all((successes == 0.0) | (successes == 1.0))
        if binary and np.bincount(i_local).max(initial=0) <= 1:  # one 0/1 cell per item: moments, no grid pass
            th = _calibrate_binary(fixed, m_local, successes, th, grid, models.size, anchor, tol, max_iter, sd_theta)
            theta[models] = th
            return theta, items, cell_loglik(m_local, i_local, trials, successes, th, grid, items.size), mu, sigma
    if free_prior:  # the prior re-estimated at each step: EM of (abilities, mu, sigma), extrapolated
        x, _ = iterate(
            lambda x: _free_step(x, fixed, m_local, i_local, trials, successes, observed, grid, anchor, sd_theta),
            np.concatenate([th, [mu, sigma]]),
            converged=lambda a, b: float(np.abs(b - a).max()) < tol,
            max_steps=max_iter,
            valid=lambda x: x[-1] > 0,
        )
        th, mu, sigma = x[:-2], x[-2], x[-1]
        theta[models] = th
        loglik = cell_loglik(m_local, i_local, trials, successes, th, grid, items.size)
        return theta, items, loglik, float(mu), float(sigma)
    for _ in range(max_iter):  # the items' prior held: each model's exact second derivative (Newton, not EM)
        joint = fixed + cell_loglik(m_local, i_local, trials, successes, th, grid, items.size)
        post = np.exp(joint - joint.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        exposure = rows_add(np.zeros((models.size, grid.size)), m_local, i_local, trials, post)  # expected trials
        p = expit(th[:, None] - grid[None, :])
        gradient = observed - (exposure * p).sum(axis=1) - (th - anchor) / sd_theta**2
        curvature = (exposure * p * (1 - p)).sum(axis=1) + 1 / sd_theta**2
        cell_post, cell_p = post[i_local], p[m_local]
        expected = np.einsum("kg,kg->k", cell_post, cell_p)  # per cell: E[p] under the item's posterior
        cell_p *= cell_p
        second = np.einsum("kg,kg->k", cell_post, cell_p) - expected**2
        curvature -= np.bincount(m_local, trials**2 * second, minlength=models.size)
        curvature = np.maximum(curvature, 1 / sd_theta**2)
        step = np.clip(gradient / curvature, -1.0, 1.0)
        th = th + step
        if np.max(np.abs(step)) < tol:
            break
    theta[models] = th
    return theta, items, cell_loglik(m_local, i_local, trials, successes, th, grid, items.size), float(mu), float(sigma)


def _cells_setup(model_idx, item_idx, trials, successes, theta, grid, base, prior, anchor) -> tuple:
    """What ``marginal_abilities_cells`` starts from: the abilities (a copy), the touched models and items with
    the cells' local indices, the cells' trials and successes, the held likelihood of the touched items (with the
    held prior's log density where it is held), the touched models' abilities, the anchor and the prior."""
    theta = np.asarray(theta, float).copy()
    models, m_local = np.unique(model_idx, return_inverse=True)
    items, i_local = np.unique(item_idx, return_inverse=True)
    trials, successes = np.asarray(trials, float), np.asarray(successes, float)
    fixed = np.zeros((items.size, grid.size)) if base is None else base[items]
    th = theta[models]
    anchor = th.mean() if anchor is None else anchor
    mu, sigma = (th.mean(), max(th.std(), 0.5)) if prior is None else prior
    if prior is not None:
        fixed = fixed - 0.5 * ((grid - mu) / sigma) ** 2
    return theta, models, m_local, items, i_local, trials, successes, fixed, th, anchor, mu, sigma


def _expected_score(th, post, m_local, i_local, trials, successes, cell_floor, grid) -> tuple[np.ndarray, np.ndarray]:
    """Per model: the expected score of its answers and their Fisher information, each cell's item integrated out
    over ``post`` (touched items x G), with each cell's chance floor (one table per distinct floor)."""
    from benchwatch.irt.kernels import rows_add

    sig = expit(th[:, None] - grid[None, :])
    gradient, information = np.zeros(th.size), np.zeros(th.size)
    for c in np.unique(cell_floor):
        rows = np.flatnonzero(cell_floor == c)
        m, i = m_local[rows], i_local[rows]
        s, f = successes[rows], trials[rows] - successes[rows]
        share = (1 - c) * sig / (c + (1 - c) * sig) if c > 0 else np.ones_like(sig)
        exposure_s = rows_add(np.zeros((th.size, grid.size)), m, i, s, post)
        exposure_f = rows_add(np.zeros((th.size, grid.size)), m, i, f, post)
        gradient += (exposure_s * share * (1 - sig) - exposure_f * sig).sum(axis=1)
        information += ((exposure_s + exposure_f) * share * sig * (1 - sig)).sum(axis=1)
    return gradient, information


def _floor_cells(
    model_idx, item_idx, trials, successes, theta, grid, floor, base, prior, anchor, tol, max_iter, sd_theta
):
    """``marginal_abilities_cells`` with chance floors: the same EM (items' prior free) or Fisher scoring (held),
    each model's step from its answers' expected score (``_expected_score``)."""
    theta, models, m_local, items, i_local, trials, successes, fixed, th, anchor, mu, sigma = _cells_setup(
        model_idx, item_idx, trials, successes, theta, grid, base, prior, anchor
    )
    free_prior = prior is None
    local_floor = floor[items]
    cell_floor = local_floor[i_local]

    def loglik(th):
        return cell_loglik(m_local, i_local, trials, successes, th, grid, items.size, floor=local_floor)

    def step(x):
        th, mu, sigma = (x[:-2], x[-2], x[-1]) if free_prior else (x, None, None)
        joint = fixed + loglik(th)
        if free_prior:
            joint = joint - 0.5 * ((grid - mu) / sigma) ** 2
        post = np.exp(joint - joint.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        gradient, information = _expected_score(th, post, m_local, i_local, trials, successes, cell_floor, grid)
        gradient -= (th - anchor) / sd_theta**2
        th = th + np.clip(gradient / (information + 1 / sd_theta**2), -1.0, 1.0)
        if not free_prior:
            return th
        mass = post.sum(axis=0)
        mu = float(mass @ grid / mass.sum())
        sigma = max(float(np.sqrt(mass @ (grid - mu) ** 2 / mass.sum())), 2 * (grid[1] - grid[0]))
        shift = th.mean() - anchor  # the location is free: keep the fitted models' mean
        return np.concatenate([th - shift, [mu - shift, sigma]])

    start = np.concatenate([th, [mu, sigma]]) if free_prior else th
    x, _ = iterate(
        step,
        start,
        converged=lambda a, b: float(np.abs(b - a).max()) < tol,
        max_steps=max_iter,
        valid=(lambda x: x[-1] > 0) if free_prior else (lambda _x: True),
    )
    th = x[:-2] if free_prior else x
    if free_prior:
        mu, sigma = x[-2], x[-1]
    theta[models] = th
    return theta, items, loglik(th), float(mu), float(sigma)


def _free_step(x, fixed, m_local, i_local, trials, successes, observed, grid, anchor, sd_theta) -> np.ndarray:
    """One EM step of ``marginal_abilities_cells`` with the items' prior free: x = (abilities, mu, sigma)."""
    from benchwatch.irt.kernels import rows_add

    th, mu, sigma = x[:-2], x[-2], x[-1]
    joint = fixed + cell_loglik(m_local, i_local, trials, successes, th, grid, fixed.shape[0])
    joint -= 0.5 * ((grid - mu) / sigma) ** 2
    post = np.exp(joint - joint.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    mass = post.sum(axis=0)
    mu = float(mass @ grid / mass.sum())
    sigma = max(float(np.sqrt(mass @ (grid - mu) ** 2 / mass.sum())), 2 * (grid[1] - grid[0]))
    exposure = rows_add(np.zeros((th.size, grid.size)), m_local, i_local, trials, post)  # expected trials
    p = expit(th[:, None] - grid[None, :])
    gradient = observed - (exposure * p).sum(axis=1) - (th - anchor) / sd_theta**2
    curvature = (exposure * p * (1 - p)).sum(axis=1) + 1 / sd_theta**2
    step = np.clip(gradient / curvature, -1.0, 1.0)
    th = th + step
    shift = th.mean() - anchor  # the location is free: keep the fitted models' mean
    return np.concatenate([th - shift, [mu - shift, sigma]])


def _calibrate_binary(
    fixed: np.ndarray,
    m_local: np.ndarray,
    successes: np.ndarray,
    th: np.ndarray,
    grid: np.ndarray,
    n_models: int,
    anchor: float,
    tol: float,
    max_iter: int,
    sd_theta: float,
) -> np.ndarray:
    """The Newton iteration of ``marginal_abilities_cells`` with the items' prior held, when each touched
    item has one 0/1 cell: the same gradient and exact curvature, from three moments of each item's
    fixed posterior pi (items x G) against p, p^2, p^3 (a solved cell's posterior is pi p / (pi . p),
    a failed one's pi (1 - p) / (1 - pi . p)) instead of a pass over the grid per cell."""
    pi = np.exp(fixed - fixed.max(axis=1, keepdims=True))
    pi /= pi.sum(axis=1, keepdims=True)
    won = successes == 1.0
    rows = [np.flatnonzero(m_local == j) for j in range(n_models)]
    blocks = [pi[r] for r in rows]  # each model's cells' fixed posteriors
    moments = np.empty((m_local.size, 3))
    for _ in range(max_iter):
        p = expit(th[:, None] - grid[None, :])  # models x G
        for j, (r, block) in enumerate(zip(rows, blocks, strict=True)):
            moments[r] = block @ np.stack([p[j], p[j] ** 2, p[j] ** 3], axis=1)
        m1, m2, m3 = moments.T
        z = np.where(won, m1, 1.0 - m1)
        e1 = np.where(won, m2, m1 - m2) / z  # E[p] under the cell's posterior
        e2 = np.where(won, m3, m2 - m3) / z  # E[p^2]
        gradient = np.bincount(m_local, successes - e1, minlength=n_models) - (th - anchor) / sd_theta**2
        curvature = np.bincount(m_local, e1 - 2 * e2 + e1**2, minlength=n_models) + 1 / sd_theta**2
        step = np.clip(gradient / np.maximum(curvature, 1 / sd_theta**2), -1.0, 1.0)
        th = th + step
        if np.max(np.abs(step)) < tol:
            break
    return th
