"""The counts' likelihood of items with chance floors (``benchwatch.irt.item_model.counts``) against brute force: every
answer vector enumerated, and the items' own likelihood summed over the vectors with their count."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import expit

from benchwatch.irt import count_loglik, count_rows
from benchwatch.irt.difficulty.scale import difficulty_b, uncertain_abilities
from benchwatch.metrics import axis_grid, likelihood_from_cells


def _brute(p: np.ndarray) -> np.ndarray:
    """log P(S = s) at each column of p (models x points), over all 2^models answer vectors."""
    n, k = p.shape
    out = np.zeros((n + 1, k))
    for answers in itertools.product((0, 1), repeat=n):
        a = np.array(answers)[:, None]
        out[a.sum()] += np.prod(np.where(a == 1, p, 1 - p), axis=0)
    return np.log(out)


def test_the_count_table_is_the_sum_over_every_answer_vector():
    rng = np.random.default_rng(0)
    theta, slope, grid = rng.normal(0, 1.5, 9), rng.uniform(0.6, 1.0, 9), np.linspace(-4, 4, 7)
    for floor in (0.0, 0.1, 0.25):
        got = count_loglik(theta, slope, grid, floor)
        p = floor + (1 - floor) * expit(slope[:, None] * (theta[:, None] - grid[None, :]))
        np.testing.assert_allclose(got, _brute(p), rtol=1e-11, atol=1e-11)


def test_a_count_beyond_what_a_float_holds_is_left_out_and_the_rest_is_exact():
    """3,000 models far above the item: counts whose probability relative to a grid point's likeliest count is below
    what a float holds are -inf there (never a wrong finite value): all wrong is -inf at every point, so that its
    item keeps its full likelihood (``count_rows``); every finite value is exact and each point's mass adds up to 1."""
    theta = np.full(3000, 2.0)
    grid = np.array([-6.0, 0.0, 2.0, 8.0])
    got = count_loglik(theta, np.ones(3000), grid, 0.25)
    p = 0.25 + 0.75 * expit(theta[0] - grid)
    assert np.all(np.isneginf(got[0]))  # all wrong: 3000 log(1 - p) < -870 at every point
    np.testing.assert_allclose(got[-1, :2], 3000 * np.log(p[:2]), rtol=1e-10)  # all right, where it is likely
    assert np.all(np.isneginf(got[-1, 2:]))  # ... and where it is not: 3000 log(0.625) = -1410 at b = 2
    from scipy.stats import binom

    want = binom.logpmf(np.arange(3001)[:, None], 3000, p[None, :])  # equal probabilities: the binomial
    finite = np.isfinite(got)
    assert finite.sum() > 4000  # of 12,004: the counts within 1e-280 of each point's likeliest
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.logaddexp.reduce(got, axis=0), 0.0, atol=1e-9)
    m, i = np.repeat(np.arange(3000), 3010).astype(np.int32), np.tile(np.arange(3010), 3000).astype(np.int32)
    s = (i > 0).astype(float)  # item 0 all wrong, the others all right
    items, _ = count_rows(m, i, np.ones(m.size), s, theta, np.ones(3000), grid, 3010, np.full(3010, 0.25))
    assert items.tolist() == list(range(1, 3010))


def test_the_grid_shared_among_threads_gives_the_same_table_to_the_bit(monkeypatch):
    """The grid's points are independent: shared out among the cores they give the table of one pass, bit for bit
    (including the counts that read -inf), and so does the walk over only the counts of non-zero probability (the
    table of 3,000 equal models is the binomial's above)."""
    from benchwatch.irt.item_model import counts

    rng = np.random.default_rng(3)
    theta, grid = rng.normal(0, 2.0, 700), np.linspace(-10, 10, 9)
    whole = count_loglik(theta, np.ones(700), grid, 0.1)
    monkeypatch.setattr(counts, "SHARED_WORK", 1)
    monkeypatch.setattr(counts, "THREADS", 3)
    shared = count_loglik(theta, np.ones(700), grid, 0.1)
    assert np.isneginf(whole).any() and np.array_equal(whole, shared)


def _cells(y: np.ndarray, seen: np.ndarray):
    m, i = np.nonzero(seen)
    return m.astype(np.int32), i.astype(np.int32), np.ones(m.size), y[m, i].astype(float)


def test_items_answered_by_the_same_models_read_their_counts_where_they_outnumber_them():
    rng = np.random.default_rng(1)
    n_models, n_items = 6, 50
    theta = rng.normal(0, 1, n_models)
    y = (rng.random((n_models, n_items)) < 0.5).astype(float)
    seen = np.ones((n_models, n_items), bool)
    seen[0, 30:] = False  # items 30-44: five models, 15 items (more than their 6 counts): counted
    seen[1, 45:] = False  # items 45-49: four models, five items (as many as their counts): not
    m, i, w, s = _cells(y, seen)
    w[(i == 5) & (m == 2)] = 2.0  # an item with two trials in a cell: never counted
    grid = np.linspace(-3, 3, 5)
    items, rows = count_rows(m, i, w, s, theta, np.ones(n_models), grid, n_items, np.full(n_items, 0.2))
    assert sorted(items.tolist()) == [k for k in range(45) if k != 5]
    for item, row in zip(items, rows, strict=True):
        models = np.flatnonzero(seen[:, item])
        table = count_loglik(theta[models], np.ones(models.size), grid, 0.2)
        np.testing.assert_array_equal(row, table[int(y[models, item].sum())])
    # a floor of their own for each of items 30-44: groups of one, their full likelihood
    floor = np.where(np.arange(n_items) < 30, 0.2, 0.1 + 0.01 * np.arange(n_items))
    items, _ = count_rows(m, i, w, s, theta, np.ones(n_models), grid, n_items, floor)
    assert sorted(items.tolist()) == [k for k in range(30) if k != 5]


def test_the_axis_likelihood_of_a_floored_benchmark_is_the_count_likelihood_summed_by_brute_force():
    """A complete benchmark of 8 models and 60 items with a floor: at most 9 patterns (one per count), each the sum
    over every answer vector with its count of the item's full likelihood, on the axis's grid."""
    rng = np.random.default_rng(2)
    theta = rng.normal(0, 1, 8)
    y = (rng.random((8, 60)) < 0.25 + 0.75 * expit(theta[:, None] - rng.normal(0, 1, 60)[None, :])).astype(float)
    m, i, w, s = _cells(y, np.ones((8, 60), bool))
    lik = likelihood_from_cells(m, i, w, s, theta, 60, "ability-quantile", floor=np.full(60, 0.25))
    assert lik.n_patterns == len(set(y.sum(axis=0).tolist())) and lik.n_items == 60
    ab = uncertain_abilities(theta, None)
    b = difficulty_b(axis_grid(), ab.population, "ability-quantile")
    p = 0.25 + 0.75 * expit(theta[:, None] - b[None, :])
    brute = _brute(p)
    want = {int(c): np.exp(brute[int(c)] - brute[int(c)].max()) for c in set(y.sum(axis=0).tolist())}
    counts = {int(c): int((y.sum(axis=0) == c).sum()) for c in want}
    for row, count in zip(lik.like, lik.counts, strict=True):
        match = [c for c in want if np.allclose(row, want[c], rtol=1e-9, atol=1e-300)]
        assert len(match) == 1 and counts[match[0]] == count


@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_items_with_a_set_of_models_of_their_own_keep_their_full_likelihood(missing):
    """Complete: 50 items of 12 models read their counts; 30% of cells missing at random: every item has its own
    set of models, and keeps its full likelihood."""
    rng = np.random.default_rng(3)
    theta = rng.normal(0, 1, 12)
    y = (rng.random((12, 50)) < 0.5).astype(float)
    seen = rng.random((12, 50)) >= missing
    m, i, w, s = _cells(y, seen)
    items, _ = count_rows(m, i, w, s, theta, np.ones(12), np.linspace(-2, 2, 5), 50, np.full(50, 0.25))
    assert items.size == (50 if missing == 0.0 else 0)
