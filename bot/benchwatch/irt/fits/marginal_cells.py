"""Abilities by marginal MAP over a set of observed cells (``marginal_abilities_cells``): the models with cells
here fitted against everything held fixed, the items' prior held or re-estimated, with or without chance
floors. The EM's shared pieces are ``benchwatch.irt.fits.em_steps``."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from benchwatch.irt.fits.accelerate import iterate
from benchwatch.irt.fits.cells import cell_loglik
from benchwatch.irt.fits.em_steps import expected_score, floor_parts, normalised, prior_moments, rasch_score


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
    th = _held_prior_newton(
        fixed, m_local, i_local, trials, successes, observed, th, grid, anchor, tol, max_iter, sd_theta
    )
    theta[models] = th
    return theta, items, cell_loglik(m_local, i_local, trials, successes, th, grid, items.size), float(mu), float(sigma)


def _held_prior_newton(
    fixed, m_local, i_local, trials, successes, observed, th, grid, anchor, tol, max_iter, sd_theta
) -> np.ndarray:
    """The fitted models' abilities with the items' prior held: Newton steps on each model's exact second
    derivative (not EM), each step at most one logit, until every step is under ``tol``."""
    n_items, n_models = fixed.shape[0], th.size
    for _ in range(max_iter):
        post = normalised(fixed + cell_loglik(m_local, i_local, trials, successes, th, grid, n_items))
        gradient, curvature, p = rasch_score(th, post, m_local, i_local, trials, observed, grid, anchor, sd_theta)
        cell_post, cell_p = post[i_local], p[m_local]
        expected = np.einsum("kg,kg->k", cell_post, cell_p)  # per cell: E[p] under the item's posterior
        cell_p *= cell_p
        second = np.einsum("kg,kg->k", cell_post, cell_p) - expected**2
        curvature -= np.bincount(m_local, trials**2 * second, minlength=n_models)
        curvature = np.maximum(curvature, 1 / sd_theta**2)
        step = np.clip(gradient / curvature, -1.0, 1.0)
        th = th + step
        if np.max(np.abs(step)) < tol:
            break
    return th


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


def _floor_cells(
    model_idx, item_idx, trials, successes, theta, grid, floor, base, prior, anchor, tol, max_iter, sd_theta
):
    """``marginal_abilities_cells`` with chance floors: the same EM (items' prior free) or Fisher scoring (held),
    each model's step from its answers' expected score (``benchwatch.irt.fits.em_steps.expected_score``)."""
    theta, models, m_local, items, i_local, trials, successes, fixed, th, anchor, mu, sigma = _cells_setup(
        model_idx, item_idx, trials, successes, theta, grid, base, prior, anchor
    )
    free_prior = prior is None
    local_floor = floor[items]
    parts = floor_parts(local_floor[i_local], m_local, i_local, trials, successes)

    def loglik(th):
        return cell_loglik(m_local, i_local, trials, successes, th, grid, items.size, floor=local_floor)

    def step(x):
        th, mu, sigma = (x[:-2], x[-2], x[-1]) if free_prior else (x, None, None)
        joint = fixed + loglik(th)
        if free_prior:
            joint = joint - 0.5 * ((grid - mu) / sigma) ** 2
        post = normalised(joint)
        gradient, information = expected_score(th, post, parts, grid, np.zeros(th.size), np.zeros(th.size))
        gradient -= (th - anchor) / sd_theta**2
        th = th + np.clip(gradient / (information + 1 / sd_theta**2), -1.0, 1.0)
        if not free_prior:
            return th
        mu, sigma = prior_moments(post.sum(axis=0), grid)
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
    th, mu, sigma = x[:-2], x[-2], x[-1]
    joint = fixed + cell_loglik(m_local, i_local, trials, successes, th, grid, fixed.shape[0])
    joint -= 0.5 * ((grid - mu) / sigma) ** 2
    post = normalised(joint)
    mu, sigma = prior_moments(post.sum(axis=0), grid)
    gradient, curvature, _ = rasch_score(th, post, m_local, i_local, trials, observed, grid, anchor, sd_theta)
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
