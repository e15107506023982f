"""The abilities and the bounds the audit reads on its item model's path (``benchwatch.pipeline.audit.measure``;
``benchwatch.pipeline.repeat`` repeats them): the 1PL's at each end of the chance floor's interval, or the 2PL's."""

from __future__ import annotations

import numpy as np

from benchwatch import threads
from benchwatch.irt import (
    CellPatterns,
    ItemModel,
    RaschFit,
    cell_patterns,
    difficulty_b,
    fit_map,
    integrated_loglik,
    marginal_abilities_patterns,
    uncertain_abilities,
)
from benchwatch.metrics import (
    AxisLikelihood,
    Bounds,
    Target,
    axis_bounds,
    axis_grid,
    axis_likelihood,
    likelihood_from_cells,
    union_bounds,
)
from benchwatch.pipeline.audit_record import MARGINAL_MODELS

CONCURRENT_CELLS = 5_000_000  # up to these many cells the bounds at the floor's two ends are computed at once


def pattern_groups(model: ItemModel, patterns: CellPatterns) -> np.ndarray | None:
    """Each response pattern's design group (the items of one pattern share their models, hence their group)."""
    if model.groups is None:
        return None
    out = np.zeros(patterns.n_patterns, np.int64)
    out[patterns.pattern] = model.groups
    return out


def bound_abilities(patterns: CellPatterns, theta: np.ndarray, groups: np.ndarray | None) -> np.ndarray:
    """The abilities the bounds and the model-based figures read: the joint MAP's from ``MARGINAL_MODELS`` models
    (its stretch of the scale falls as 1/models: 0.4% with 200, measured), the marginal MAP's below (the items
    integrated out, one prior per design group, with the floors of ``patterns``)."""
    if theta.size >= MARGINAL_MODELS:
        return theta
    return marginal_abilities_patterns(patterns, theta, groups=groups)[0]


def item_bounds(
    data, fit: RaschFit, theta: np.ndarray, model: ItemModel, scale: str, target: Target
) -> tuple[Bounds, AxisLikelihood]:
    """The bounds on the item model's path (and the axis likelihood of the last run, for the pool's figures):
    the 1PL's at each end of the chance floor's interval, their union (``benchwatch.metrics.union_bounds``: they hold
    whichever floor it is; up to ``CONCURRENT_CELLS`` cells both ends at once); the 2PL's with each item's
    discrimination integrated out."""
    if model.path == "2PL":
        two = model.twopl
        assert two is not None, "the 2PL path is taken with its fit (benchwatch.irt.item_model)"
        abilities = uncertain_abilities(two.theta, two.theta_sd)
        z = axis_grid()
        rows = integrated_loglik(
            data,
            abilities.theta,
            difficulty_b(z, abilities.population, scale),
            two.mean_log_a,
            two.spread,
            floor=model.floors(),
            slope=abilities.slope,
            log_a=two.log_a,
        )
        lik = axis_likelihood(rows, z, groups=model.groups)
        return axis_bounds(lik, target), lik

    def run(share: float | None) -> tuple[Bounds, AxisLikelihood]:
        floor = model.floors(share)
        th, sd = theta, fit.theta_sd
        # a share is one of the floor's ends (``ItemModel.shares``): there is a floor whenever share is not None
        if share is not None and model.floor is not None and share != model.floor.share:  # a warm refit there
            refit = fit_map(data, floor=floor, init=(fit.theta, fit.b), exact_sd=False)
            th, sd = refit.theta, refit.theta_sd
            if th.size < MARGINAL_MODELS:  # the patterns only where the marginal abilities read them
                at = cell_patterns(data, floor)
                th = bound_abilities(at, th, pattern_groups(model, at))
                del at
            del refit
        lik = likelihood_from_cells(
            data.model_idx,
            data.item_idx,
            data.weight,
            None,
            th,
            data.n_items,
            scale,
            theta_sd=sd,  # the abilities' own error: 40 answers place a model to about 0.38 logits
            floor=floor,
            groups=model.groups,
            share=data.y,  # the successes formed a block of cells at a time
        )
        return axis_bounds(lik, target), lik

    shares = model.shares()
    if len(shares) > 1 and data.model_idx.size <= CONCURRENT_CELLS:  # both ends at once, each on a core's share
        pool = threads.thread_pool("floor-ends", 2)
        done = [job.result() for job in [pool.submit(run, share) for share in shares]]
    else:  # one after the other: each end's cells-sized arrays are gone before the next one's
        done = [run(share) for share in shares]
    return union_bounds([bounds for bounds, _ in done]), done[-1][1]
