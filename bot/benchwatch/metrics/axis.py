"""The difficulty axis z of the bounds (``benchwatch.metrics.bounds``): its grid, each item's likelihood on it (items
with the same likelihood collapsed into patterns), and the target's mass on a stretch of it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchwatch.metrics.coverage import Target

GRID = 200  # grid points of the axis: midpoints of 200 cells of width 0.005
BLOCK_CELLS = 1_000_000  # cells copied at a time when they must be put in item order


def axis_grid(n: int = GRID) -> np.ndarray:
    """The z grid: midpoints of n equal cells of [0, 1]."""
    return (np.arange(n) + 0.5) / n


@dataclass(frozen=True)
class AxisLikelihood:
    """Each distinct pattern's likelihood at the z grid (rows scaled to a maximum of 1) and how many items have it."""

    z: np.ndarray
    like: np.ndarray
    counts: np.ndarray
    # each pattern's design group (``benchwatch.irt.item_model.design``); None: one group
    group: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    @property
    def n_groups(self) -> int:
        return 1 if self.group is None else int(self.group.max()) + 1

    def expanded(self) -> np.ndarray:
        """The likelihood over one copy of the grid per design group (patterns x groups * grid): a pattern's row in
        its own group's copy, zero elsewhere, so that a distribution over the copies is one distribution of
        difficulty per group, mixed in the groups' own proportions."""
        if self.group is None:
            return self.like
        k = self.like.shape[1]
        out = np.zeros((self.like.shape[0], self.n_groups * k))
        for g in range(self.n_groups):
            rows = self.group == g
            out[rows, g * k : (g + 1) * k] = self.like[rows]
        return out

    @property
    def n_patterns(self) -> int:
        return int(self.counts.size)


def likelihood_from_cells(
    model_idx: np.ndarray,
    item_idx: np.ndarray,
    trials: np.ndarray,
    successes: np.ndarray | None,
    theta: np.ndarray,
    n_items: int,
    scale: str,
    theta_sd: np.ndarray | None = None,
    floor: np.ndarray | None = None,
    groups: np.ndarray | None = None,
    share: np.ndarray | None = None,
) -> AxisLikelihood:
    """Every item's likelihood on the z grid from its observed cells alone (z on the pool's ``scale``), never
    a models x items array. With ``theta_sd`` (each ability's standard error) the abilities' own error enters
    (``benchwatch.irt.difficulty.scale.uncertain_abilities``): each answer's probability averaged over its model's
    ability, and the scale read from the population's spread, not from the noisier spread of the estimates. Without it
    the abilities are held fixed at ``theta``. ``floor``: each item's chance floor (``benchwatch.irt.cell_loglik``);
    ``groups``: each item's design group (``benchwatch.irt.item_model.design``), one distribution of difficulty per
    group. ``successes`` None and ``share`` (each cell's share of its trials answered right, as response arrays hold
    it): the successes trials x share are formed a block of cells at a time, never for all the cells at once. With
    floors, the items answered by the same models read their counts' likelihood where they outnumber the counts
    (``benchwatch.irt.count_rows``): they collapse into patterns as items without a floor do."""
    from benchwatch.irt import cell_loglik, cells_by_item, count_rows, difficulty_b, uncertain_abilities

    z = axis_grid()
    abilities = uncertain_abilities(np.asarray(theta, float), theta_sd)
    model_idx, item_idx = np.asarray(model_idx), np.asarray(item_idx)
    trials = np.asarray(trials, float)
    if successes is None and share is None:
        raise ValueError("likelihood_from_cells needs the cells' successes or their share of the trials")
    right = np.asarray(successes if successes is not None else share, float)
    grid = difficulty_b(z, abilities.population, scale)
    floors = floor is not None and bool(np.any(np.asarray(floor) > 0))

    def rows_of(cells: np.ndarray | None, first: int, last: int) -> np.ndarray:
        """The rows of items first..last-1 from their cells (all cells: None)."""
        take = (lambda a: a) if cells is None else (lambda a: a[cells])
        w = take(trials)
        return cell_loglik(
            take(model_idx),
            take(item_idx) - first if first else take(item_idx),
            w,
            take(right) if successes is not None else w * take(right),
            abilities.theta,
            grid,
            last - first,
            slope=abilities.slope,
            floor=None if floor is None else np.asarray(floor)[first:last],
            floored=floors,  # a block of open items read as the whole benchmark's pass reads them
        )

    counted = np.empty(0, np.int64)
    if floors:  # the items that read their counts of right answers (``benchwatch.irt.item_model.counts``)
        counted, by_count = count_rows(
            model_idx, item_idx, trials, right, abilities.theta, abilities.slope, grid, n_items, np.asarray(floor)
        )
    if counted.size == n_items:  # every item reads its count (a complete benchmark): no item's own likelihood
        rows = np.empty((n_items, z.size))
    elif item_idx.size <= 1 or not np.any(np.diff(item_idx) < 0):
        rows = rows_of(None, 0, n_items)
    else:  # by item, a block of items at a time: only a block's cells are ever copied (with floors or without)
        order = cells_by_item(item_idx, n_items)  # each item's cells keep their order: the same sums
        starts = np.concatenate([[0], np.cumsum(np.bincount(item_idx, minlength=n_items))])
        rows = np.empty((n_items, z.size))
        first = 0
        while first < n_items:
            last = int(np.searchsorted(starts, starts[first] + BLOCK_CELLS, side="right")) - 1
            last = min(n_items, max(last, first + 1))
            rows[first:last] = rows_of(order[starts[first] : starts[last]], first, last)
            first = last
    if counted.size:
        rows[counted] = by_count
    return axis_likelihood(rows, z, groups=groups)


def axis_likelihood(
    loglik_rows: np.ndarray, z: np.ndarray | None = None, decimals: int = 7, groups: np.ndarray | None = None
) -> AxisLikelihood:
    """Collapse items (rows: log likelihood at each grid point) whose likelihoods agree up to a constant (and, with
    ``groups``, whose design groups agree)."""
    rows = np.asarray(loglik_rows, float)
    z = axis_grid(rows.shape[1]) if z is None else np.asarray(z, float)
    rows = rows - rows.max(axis=1, keepdims=True)
    keys = np.round(np.maximum(rows, -745.0), decimals)
    if groups is not None:
        keys = np.column_stack([np.asarray(groups, float), keys])
    unique, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    del unique
    group = None if groups is None else np.asarray(groups, np.int64)[first]
    return AxisLikelihood(z, np.exp(rows[first]), counts.astype(float), group)


def target_mass(target: Target, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """mu([lo, hi]) for the target."""
    return target.cdf(np.asarray(hi, float)) - target.cdf(np.asarray(lo, float))
