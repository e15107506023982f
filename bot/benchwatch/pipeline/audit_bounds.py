"""The abilities, the bounds and the item posteriors the audit reads under its item model
(``benchwatch.pipeline.audit.measure``; ``benchwatch.pipeline.repeat`` repeats them): the bounds at every corner of
the nuisances' intervals (the chance floor, the spread of discriminations, agreeing samples), and their union."""

from __future__ import annotations

import numpy as np

from benchwatch import threads
from benchwatch.irt import (
    GRID_SIZE,
    CellPatterns,
    Corner,
    ItemModel,
    ItemPosterior,
    RaschFit,
    cell_patterns,
    difficulty_b,
    fit_map,
    item_posterior,
    loglik_posterior,
    marginal_abilities_patterns,
    spread_rows,
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
    """The bounds over every item model the data allow (and the axis likelihood of the last run, for the pool's
    figures): one run at each corner of the nuisances' intervals (``ItemModel.corners``: the chance floor's share,
    the spread of log discrimination, the repeated samples' correlation, each at both ends), their union
    (``benchwatch.metrics.union_bounds``: they hold whichever model it is). ``data``: the cells as recorded (each
    run counts them at its own correlation's effective trials). At a spread above 0 each item's likelihood has
    its discrimination integrated out (``benchwatch.irt.spread_rows``), every item its own: a count of right answers
    is the 1PL's sufficient statistic, not the 2PL's, and the items read by their counts there lost power (the
    floor's cells of the spread grid: a hole at 200 models found in none of ten benchmarks instead of five). Up to
    ``CONCURRENT_CELLS`` cells two runs at once."""
    share_hat = None if model.floor is None else model.floor.share

    def abilities(share: float | None, rho: float) -> tuple[np.ndarray, np.ndarray]:
        """The abilities (and their SDs) the bounds read at one floor and one correlation."""
        if share == share_hat and rho == model.rho_hat:
            return theta, fit.theta_sd
        cells, floor = model.cells(data, rho), model.floors(share)
        refit = fit_map(cells, floor=floor, init=(fit.theta, fit.b), exact_sd=False)  # a warm refit there
        th, sd = refit.theta, refit.theta_sd
        if th.size < MARGINAL_MODELS:  # the patterns only where the marginal abilities read them
            at = cell_patterns(cells, floor)
            th = bound_abilities(at, th, pattern_groups(model, at))
        return th, sd

    def run(corner: Corner, th: np.ndarray, sd: np.ndarray, beside: Bounds | None) -> tuple[Bounds, AxisLikelihood]:
        cells = model.cells(data, corner.rho)
        floor = model.floors(corner.share)
        if corner.spread > 0:
            ability = uncertain_abilities(th, sd)
            z = axis_grid()
            grid = difficulty_b(z, ability.population, scale)
            rows = spread_rows(cells, ability.theta, grid, corner.spread, floor=floor, slope=ability.slope)
            lik = axis_likelihood(rows, z, groups=model.groups)
            return axis_bounds(lik, target, beside=beside), lik
        lik = likelihood_from_cells(
            cells.model_idx,
            cells.item_idx,
            cells.weight,
            None,
            th,
            cells.n_items,
            scale,
            theta_sd=sd,  # the abilities' own error: 40 answers place a model to about 0.38 logits
            floor=floor,
            groups=model.groups,
            share=cells.y,  # the successes formed a block of cells at a time
        )
        return axis_bounds(lik, target, beside=beside), lik

    def spreads(end: tuple, th: np.ndarray, sd: np.ndarray) -> dict[Corner, tuple[Bounds, AxisLikelihood]]:
        """The corners at one floor and correlation, the smallest spread first: the later ones are searched only
        as far as they can widen its bounds (``axis_bounds``' ``beside``; the union is the same)."""
        out: dict[Corner, tuple[Bounds, AxisLikelihood]] = {}
        for corner in sorted((c for c in corners if (c.share, c.rho) == end), key=lambda c: c.spread):
            out[corner] = run(corner, th, sd, next(iter(out.values()))[0] if out else None)
        return out

    corners = model.corners()
    ends = sorted({(c.share, c.rho) for c in corners}, key=str)  # the abilities once per floor and correlation
    if len(corners) > 1 and data.model_idx.size <= CONCURRENT_CELLS:  # two at once, each on a core's share
        pool = threads.thread_pool("floor-ends", 2)
        held = dict(zip(ends, [job.result() for job in [pool.submit(abilities, *end) for end in ends]], strict=True))
        jobs = [pool.submit(spreads, end, *held[end]) for end in ends]
        runs = {k: v for job in jobs for k, v in job.result().items()}
    else:  # one after the other: each run's cells-sized arrays are gone before the next one's
        runs = {k: v for end in ends for k, v in spreads(end, *abilities(*end)).items()}
    done = [runs[c] for c in corners]  # the union reads them in the corners' order
    return union_bounds([bounds for bounds, _ in done]), done[-1][1]


def model_posterior(data, theta: np.ndarray, model: ItemModel, patterns: CellPatterns | None = None) -> ItemPosterior:
    """Each item's posterior on the difficulty scale under the item model at its estimates (the model-based
    figures' draws read it): the 1PL's from the cells' patterns; with a spread, each item's likelihood with its
    discrimination integrated out at the spread's estimate, on the posterior's grid."""
    if model.spread_hat > 0:
        grid = np.linspace(theta.min() - 8.0, theta.max() + 8.0, GRID_SIZE)
        rows = spread_rows(model.cells(data), theta, grid, model.spread_hat, floor=model.floors())
        return loglik_posterior(rows, grid)
    if patterns is None:
        patterns = cell_patterns(model.cells(data), model.floors())
    return item_posterior(None, theta, patterns=patterns)
