"""The steps that the grid EMs of the abilities share (``benchwatch.irt.fits.marginal``,
``benchwatch.irt.fits.marginal_cells``) and the items' prior's own EM (``benchwatch.irt.difficulty.item_posterior``):
given each item's (or pattern's) posterior on the grid, the normal prior that matches its mass, and each model's score
and information for a Fisher scoring step of its ability.

The abilities' step has two forms that are one update in exact arithmetic but not in floating point: without
chance floors the gradient is the observed successes less the expected ones (``rasch_score``); with floors it is
the sum of each answer's expected score, one table per distinct floor (``expected_score``). At a floor of 0 the two
agree to rounding, not to the bit, so each fit keeps the form it has always had and the figures stay the same."""

from __future__ import annotations

import numpy as np
from scipy.special import expit


def normalised(joint: np.ndarray) -> np.ndarray:
    """Each row's posterior on the grid from its log density (rows x G), summing to 1."""
    post = np.exp(joint - joint.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    return post


def prior_moments(mass: np.ndarray, grid: np.ndarray) -> tuple[float, float]:
    """The normal prior (mu, sigma) with the mean and spread of ``mass`` on the grid (the expected number of
    items at each point); sigma no smaller than two grid steps."""
    total = mass.sum()
    mu = float(mass @ grid / total)
    return mu, max(float(np.sqrt(mass @ (grid - mu) ** 2 / total)), 2 * (grid[1] - grid[0]))


def rasch_score(th, post, model_idx, item_idx, trials, observed, grid, anchor, sd_theta):
    """Per model (abilities ``th``): the gradient of the log posterior of its ability, the items integrated out
    over ``post`` (items x G; a cell's ``item_idx`` is its row), and its curvature (the expected information
    plus the prior's), under the Rasch model; also the models x grid probabilities. ``observed``: each model's
    successes; ``trials``: each cell's trials (times the items it stands for)."""
    from benchwatch.irt.kernels import rows_add

    exposure = rows_add(np.zeros((th.size, grid.size)), model_idx, item_idx, trials, post)  # expected trials
    p = expit(th[:, None] - grid[None, :])
    gradient = observed - (exposure * p).sum(axis=1) - (th - anchor) / sd_theta**2
    curvature = (exposure * p * (1 - p)).sum(axis=1) + 1 / sd_theta**2
    return gradient, curvature, p


def floor_parts(cell_floor, model_idx, item_idx, trials, successes, many=None) -> list[tuple]:
    """The cells grouped by their chance floor: per distinct floor (floor, models, items, successes, failures),
    the counts times ``many`` (the items each cell stands for) where given."""
    parts = []
    for c in np.unique(cell_floor):
        rows = np.flatnonzero(cell_floor == c)
        if many is None:
            s, f = successes[rows], trials[rows] - successes[rows]
        else:
            s, w = successes[rows] * many[rows], trials[rows] * many[rows]
            f = w - s
        parts.append((float(c), model_idx[rows], item_idx[rows], s, f))
    return parts


def expected_score(th, post, parts, grid, gradient, information) -> tuple[np.ndarray, np.ndarray]:
    """Per model: the expected score of its answers and their information added to ``gradient`` and
    ``information`` (in place, and returned), each cell's item integrated out over ``post`` (items x G), with
    each cell's chance floor (``parts``, from ``floor_parts``: one table per distinct floor).

    The information is the larger of the answers' Fisher information and their observed curvature (the negative
    second derivative of the expected log likelihood): under a floor the likelihood of a model far below it is
    nearly flat and not concave, its score changes faster than its Fisher information says, and a Fisher step
    overshoots to a two-point cycle (a model right on 4% of four-option items: 300 steps to the step limit); the
    curvature's step does not. Where the Fisher information is the larger (near the fixed point, as a rule) the
    step is Fisher scoring's, and the fixed point is the same either way."""
    from benchwatch.irt.kernels import rows_add

    sig = expit(th[:, None] - grid[None, :])
    fisher, observed = information.copy(), information.copy()
    for c, m, i, s, f in parts:
        share = (1 - c) * sig / (c + (1 - c) * sig) if c > 0 else np.ones_like(sig)
        exposure_s = rows_add(np.zeros((th.size, grid.size)), m, i, s, post)
        exposure_f = rows_add(np.zeros((th.size, grid.size)), m, i, f, post)
        gradient += (exposure_s * share * (1 - sig) - exposure_f * sig).sum(axis=1)
        fisher += ((exposure_s + exposure_f) * share * sig * (1 - sig)).sum(axis=1)
        if c > 0:
            lean = share * (1 - sig)
            observed += (exposure_s * (lean**2 - lean * (1 - 2 * sig)) + exposure_f * sig * (1 - sig)).sum(axis=1)
        else:
            observed += ((exposure_s + exposure_f) * sig * (1 - sig)).sum(axis=1)
    information[:] = np.maximum(fisher, observed)
    return gradient, information
