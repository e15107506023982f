"""An item's likelihood from its count of right answers alone, where items have chance floors.

Under the 1PL an item's count of right answers, over the models that answered it, is sufficient: its responses'
likelihood on the difficulty axis is its count's, and the items answered by the same models collapse into at most
one likelihood per count (the bounds' patterns, ``benchwatch.metrics.axis``). A chance floor breaks that: which models
answered right then says a little more, every item keeps a likelihood of its own, and the bounds' every test runs
over all of them (5,000 items of a 300-model benchmark: 5,000 rows instead of 264, each test 17 times as long).

The count's own likelihood is P(S = s | b), S the sum of independent answers, each right with probability
P_m = c + (1 - c) sigmoid(a_m (theta_m - b)) (the Poisson-binomial distribution). It is the likelihood of a statistic of
the data, chosen by who answered (never by the answers): a likelihood-ratio test built on it tests the same
hypothesis about the items' distribution and is valid as the full one is, on a little less information (the
bounds of a 300 x 5,000 benchmark with a floor of 0.1 moved by at most 0.02, measured). So the items answered by
the same models, one answer each, with the same floor, read their counts wherever they outnumber the counts they
could have (more items than models + 1: only there do the counts collapse them); the others keep their full
likelihood. A count so extreme that its probability underflows at every grid point keeps its item's full
likelihood too (a statistic that reads the count, or the responses where the count is extreme, is still a
statistic of the data).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import expit

from benchwatch import threads
from benchwatch.kernel_cache import njit

RESCALE = 1e-150  # a grid point's probabilities are rescaled when their largest falls below this
FLUSH = 1e-280  # a probability below this is dropped (see ``count_table``)
EXACT = 1e12  # a count reads -inf where it is not this many times what was dropped (relative error under 1e-12)
THREADS = max(1, min(4, threads.CORES))
SHARED_WORK = 20_000_000  # grid points x models^2 from which the grid is shared out among threads


@njit(cache=True, nogil=True)
def count_table(right, wrong):  # pragma: no cover (compiled)
    """log P(S = s) at each grid point (grid x (models + 1)) for S the number of right answers among independent
    answers, model m's right with probability right[k, m] at grid point k (wrong[k, m] = 1 - right[k, m], computed
    apart where it is tiny). The convolution one model at a time, each point's probabilities rescaled as they
    shrink (their logarithm kept). A probability below ``FLUSH`` is dropped (a subnormal float would lose its
    digits), and what was dropped is added up: it bounds the error of every other count, and a count within
    ``EXACT`` of it reads -inf at that point, never an inexact number."""
    n_grid, n = right.shape
    out = np.empty((n_grid, n + 1))
    dist = np.empty(n + 1)
    for k in range(n_grid):
        dist[:] = 0.0
        dist[0] = 1.0
        scale, lost = 0.0, 0.0
        lo, hi = 0, 0  # the counts of non-zero probability: outside them every step gives 0 and drops nothing
        for m in range(n):
            r, w = right[k, m], wrong[k, m]
            top = 0.0
            for s in range(hi + 1, lo - 1, -1):
                v = dist[s] * w + (dist[s - 1] * r if s > 0 else 0.0)
                if v < FLUSH:
                    lost += v
                    v = 0.0
                dist[s] = v
                if v > top:
                    top = v
            hi += 1
            while dist[hi] == 0.0 and hi > lo:
                hi -= 1
            while dist[lo] == 0.0 and lo < hi:
                lo += 1
            if top < RESCALE:
                for s in range(lo, hi + 1):
                    dist[s] /= top
                lost /= top
                scale += np.log(top)
        for s in range(n + 1):
            out[k, s] = np.log(dist[s]) + scale if dist[s] > lost * EXACT and dist[s] > 0.0 else -np.inf
    return out


def count_loglik(theta: np.ndarray, slope: np.ndarray, grid: np.ndarray, floor: float) -> np.ndarray:
    """log P(S = s | b) for every count s = 0..models and every grid point b (counts x grid), the models' answers
    right with probability floor + (1 - floor) sigmoid(slope (theta - b))."""
    eta = np.asarray(slope, float)[None, :] * (np.asarray(theta, float)[None, :] - np.asarray(grid, float)[:, None])
    right = np.ascontiguousarray(floor + (1.0 - floor) * expit(eta))
    wrong = np.ascontiguousarray((1.0 - floor) * expit(-eta))
    parts = max(1, min(THREADS, right.shape[0], int(right.size * right.shape[1] // SHARED_WORK)))
    if parts == 1:
        return np.ascontiguousarray(count_table(right, wrong).T)
    # the grid points are independent: a share of them on each core (the kernel releases the GIL)
    cut = np.linspace(0, right.shape[0], parts + 1).astype(np.int64)
    pool = threads.thread_pool("counts", THREADS)
    jobs = [pool.submit(count_table, right[a:b], wrong[a:b]) for a, b in itertools.pairwise(cut)]
    return np.ascontiguousarray(np.vstack([job.result() for job in jobs]).T)


def count_rows(
    model_idx: np.ndarray,
    item_idx: np.ndarray,
    trials: np.ndarray,
    right: np.ndarray,
    theta: np.ndarray,
    slope: np.ndarray,
    grid: np.ndarray,
    n_items: int,
    floor: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(items, rows): the items that read their counts (see the module) and their counts' log likelihood on the
    grid (one row each). ``right``: each cell's successes (one trial each for the items that qualify); ``floor``:
    each item's chance floor."""
    from benchwatch.irt.item_model.design import model_set_keys

    model_idx = np.asarray(model_idx)
    item_idx = np.asarray(item_idx)
    trials, right, floor = np.asarray(trials, float), np.asarray(right, float), np.asarray(floor, float)
    none = (np.empty(0, np.int64), np.empty((0, grid.size)))
    # one binary answer in every cell of the item
    odd = (trials != 1.0) | ((right != 0.0) & (right != 1.0))
    binary = np.bincount(item_idx[odd], minlength=n_items) == 0 if odd.any() else np.ones(n_items, bool)
    del odd
    answered = np.bincount(item_idx, minlength=n_items)
    successes = np.rint(np.bincount(item_idx, weights=right, minlength=n_items)).astype(np.int64)
    models = model_set_keys(item_idx, model_idx, int(theta.size), n_items)  # each item's set of answering models
    levels, level = np.unique(floor, return_inverse=True)
    keys = np.column_stack([models.view(np.int64), level.ravel(), answered])[binary]
    candidates = np.flatnonzero(binary)
    if candidates.size == 0:
        return none
    _, group, sizes = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    group = group.ravel()
    large = sizes[group] > answered[candidates] + 1  # more items than counts they could have
    items, group = candidates[large], group[large]
    if items.size == 0:
        return none
    # each large group's models: those of its first item (every item of the group has the same set)
    first = {int(g): int(i) for g, i in zip(group[::-1], items[::-1], strict=True)}
    is_first = np.zeros(n_items, bool)
    is_first[list(first.values())] = True
    cells = np.flatnonzero(is_first[item_idx])
    models_of: dict[int, np.ndarray] = {}
    for i in first.values():
        models_of[i] = np.sort(model_idx[cells[item_idx[cells] == i]])
    rows = np.empty((items.size, grid.size))
    for g, i in first.items():
        members = group == g
        table = count_loglik(theta[models_of[i]], slope[models_of[i]], grid, float(levels[level.ravel()[i]]))
        rows[members] = table[successes[items[members]]]
    keep = np.isfinite(rows).any(axis=1)  # a count whose probability underflowed everywhere: the full likelihood
    return items[keep], rows[keep]
