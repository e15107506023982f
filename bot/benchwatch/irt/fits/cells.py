"""The observed cells of one benchmark collapsed into response patterns, and each item's log likelihood on a grid of
difficulty from its cells alone (never a models x items array): what ``benchwatch.irt.difficulty.item_posterior`` and
the marginal ability fits (``benchwatch.irt.fits.marginal``, ``benchwatch.irt.fits.marginal_cells``) read."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_expit

from benchwatch.irt.responses import ResponseArrays


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
    ``floor`` (each item's chance floor) items of different floors are different patterns. The patterns' columns
    are made one at a time, each source column let go once read: a caller that passes response arrays it holds
    nowhere else (``cell_patterns(encode_responses(...))``) never holds both whole (at 38 million cells, 32 bytes
    a cell at most instead of 48)."""
    from benchwatch.irt.fits.cell_kernels import by_pattern, hash_items, pattern_starts

    rng = np.random.default_rng(20261201)
    r1 = rng.integers(1, 2**63, size=data.n_models, dtype=np.uint64) | np.uint64(1)
    r2 = rng.integers(1, 2**63, size=data.n_models, dtype=np.uint64) | np.uint64(1)
    n_models, n_items = data.n_models, data.n_items
    models, items, w, y = data.model_idx, data.item_idx, data.weight, data.y
    del data
    keys = hash_items(items, models, w, y, r1, r2, n_items, False)
    has_floor = floor is not None and np.any(np.asarray(floor) > 0)
    if has_floor:  # the floor's bits mixed in with one more odd multiplier
        bits = np.round(np.asarray(floor, float) * 2**40).astype(np.uint64)
        keys = keys + bits * np.uint64(0x9E3779B97F4A7C15)
    _, first, pattern, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    pattern = pattern.ravel()
    keep = np.zeros(n_items, bool)
    keep[first] = True
    del keys, first
    starts = pattern_starts(items, pattern, keep, counts.size)
    size, none = int(starts[-1]), np.empty(0)
    model_idx = by_pattern(items, pattern, keep, starts, models, np.empty(0, np.int32), np.empty(size, np.int32))
    del models
    successes = by_pattern(items, pattern, keep, starts, w, y, np.empty(size))
    del y
    trials = by_pattern(items, pattern, keep, starts, w, none, np.empty(size))
    del w, items, keep
    return CellPatterns(
        model_idx=model_idx,
        pattern_idx=np.repeat(np.arange(counts.size, dtype=np.int32), np.diff(starts)),
        trials=trials,
        successes=successes,
        counts=counts.astype(float),
        pattern=pattern.astype(np.int64),
        n_models=n_models,
        floor=_pattern_floor(floor, pattern, counts.size) if has_floor and floor is not None else None,
    )


def cells_by_item(item_idx: np.ndarray, n_items: int) -> np.ndarray:
    """The cells' positions ordered by item and, within one, as they come: ``np.argsort(item_idx, kind="stable")``,
    by counting into 4 bytes a cell (compiled) for the response arrays' int32 codes (at 38 million cells the sort
    took 0.3 GB of positions and as much again of its buffer)."""
    from benchwatch.irt.fits.cell_kernels import by_item

    item_idx = np.asarray(item_idx)
    if item_idx.dtype != np.int32 or item_idx.size >= 2**31:
        return np.argsort(item_idx, kind="stable")
    return by_item(item_idx, n_items, np.empty(item_idx.size, np.int32))


def _pattern_floor(floor: np.ndarray, pattern: np.ndarray, n_patterns: int) -> np.ndarray:
    """Each pattern's chance floor (its items share one: the floor is part of the pattern's key)."""
    out = np.zeros(n_patterns)
    out[pattern] = np.asarray(floor, float)
    return out


def pattern_loglik(cp: CellPatterns, theta: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Each pattern's log likelihood on the grid (patterns x G), from its cells."""
    return cell_loglik(
        cp.model_idx, cp.pattern_idx, cp.trials, cp.successes, theta, grid, cp.n_patterns, floor=cp.floor
    )


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
    floored: bool = False,
) -> np.ndarray:
    """Each item's log likelihood on the grid (items x G) from the observed cells alone (no model x item
    array): the sum over its cells of s log sigmoid(theta - g) + (w - s) log sigmoid(g - theta), each model's
    logit times its ``slope`` where given (an ability's own error,
    ``benchwatch.irt.difficulty.scale.uncertain_abilities``). With ``floor`` (each item's chance floor c, indexed as
    ``item_idx``) an answer is right with probability P = c + (1 - c) sigmoid(...), and the likelihood is s log P + (w -
    s) log(1 - P); where every floor is 0 the formula without floors is used (the same values to rounding), unless
    ``floored`` (a block of a floored benchmark's items: the numbers of the benchmark's one pass, to the bit)."""
    from benchwatch.irt.kernels import rows_add

    theta = np.asarray(theta, float)
    a = np.ones(theta.size) if slope is None else np.asarray(slope, float)
    eta = a[:, None] * (theta[:, None] - grid[None, :])
    item_idx, model_idx = np.asarray(item_idx), np.asarray(model_idx)
    if floor is not None and (floored or np.any(np.asarray(floor) > 0)):
        return _floor_loglik(model_idx, item_idx, trials, successes, eta, n_items, np.asarray(floor, float))
    # s log sigmoid(eta) + (w - s) log sigmoid(-eta) = w log sigmoid(eta) - (w - s) eta: one pass over the cells
    # on the grid, and the linear term's two per-item sums (eta = a theta - a g) added in closed form
    out = rows_add(np.zeros((n_items, grid.size)), item_idx, model_idx, trials, log_expit(eta))
    level, tilt = _linear_sums(
        model_idx, item_idx, np.asarray(trials, float), np.asarray(successes, float), a, theta, n_items
    )
    out -= level[:, None]
    out += tilt[:, None] * grid[None, :]
    return out


SUM_CELLS = 1_000_000  # cells per block of the per-item sums (cells in item order: blocks end where an item does)


def _linear_sums(model_idx, item_idx, trials, successes, a, theta, n_items) -> tuple[np.ndarray, np.ndarray]:
    """Per item: the sums over its cells of (w - s) a theta and of (w - s) a. Cells in item order are summed a block
    at a time, each block ending where an item's cells do, so that every item's sum is the one pass over its own
    cells that a single ``bincount`` makes (the same numbers) while the per-cell products exist a block at a time."""
    n = item_idx.size
    ordered = n > SUM_CELLS and bool(np.all(item_idx[1:] >= item_idx[:-1]))
    ends = [n]
    if ordered:  # the first cell of a new item at or after each multiple of SUM_CELLS
        marks = np.arange(SUM_CELLS, n, SUM_CELLS)
        ends = sorted(set(np.searchsorted(item_idx, item_idx[marks], side="left").tolist()) - {0} | {n})
    level, tilt = np.zeros(n_items), np.zeros(n_items)
    a_theta = a * theta
    lo = 0
    for hi in ends:
        fails = trials[lo:hi] - successes[lo:hi]
        per_cell = a_theta[model_idx[lo:hi]]
        per_cell *= fails
        level += np.bincount(item_idx[lo:hi], per_cell, minlength=n_items)  # adds 0.0 to the items of other blocks
        np.take(a, model_idx[lo:hi], out=per_cell, mode="clip")  # (mode "raise" buffers a copy; codes are in range)
        per_cell *= fails
        tilt += np.bincount(item_idx[lo:hi], per_cell, minlength=n_items)
        lo = hi
    return level, tilt


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
