"""The model-free bounds against independent calculations: brute force over every window, items whose place is
known (the bounds then close on the truth), and the truth's own thin stretches counted by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_expit, ndtri

from benchwatch.irt import solve_mixing as solve
from benchwatch.metrics import UNIFORM, axis_bounds, axis_grid, axis_likelihood, coverage, thin_truth
from benchwatch.metrics import bound_search as B
from benchwatch.metrics import ddm_functionals as D


def _likelihood(z: np.ndarray, n_models: int, trials: int, k: int, seed: int = 0):
    """The axis likelihood on a grid of k points of items at true z, answered by a normal pool (abilities known)."""
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(0, 1, n_models))
    b = theta.mean() + theta.std() * ndtri(z)
    s = rng.binomial(trials, 1 / (1 + np.exp(-(theta[:, None] - b[None, :]))))
    grid = axis_grid(k)
    eta = theta[:, None] - (theta.mean() + theta.std() * ndtri(grid))[None, :]
    rows = s.T @ log_expit(eta) + (trials - s).T @ log_expit(-eta)
    return axis_likelihood(rows, grid)


def test_a_complete_pool_collapses_to_its_sum_scores():
    z = np.random.default_rng(1).random(300)
    lik = _likelihood(z, 24, 1, 200)
    assert lik.n_items == 300 and lik.n_patterns <= 25  # the 1PL likelihood depends on the total only
    assert np.allclose(lik.like.max(axis=1), 1.0)


def test_with_the_abilities_errors_a_complete_pool_still_collapses():
    """The abilities' own error enters as one slope for the pool, which keeps the 1PL's sufficiency: still at
    most m + 1 patterns (a slope per model would make every item a pattern of its own)."""
    from benchwatch.metrics import likelihood_from_cells

    rng = np.random.default_rng(2)
    theta, b = rng.normal(0, 1, 24), rng.normal(0, 1, 300)
    y = rng.random((24, 300)) < 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    m, i = np.nonzero(np.ones_like(y))
    sd = rng.uniform(0.2, 0.6, 24)
    lik = likelihood_from_cells(m, i, np.ones(m.size), y[m, i].astype(float), theta, 300, "ability-quantile", sd)
    assert lik.n_items == 300 and lik.n_patterns <= 25
    fixed = likelihood_from_cells(m, i, np.ones(m.size), y[m, i].astype(float), theta, 300, "ability-quantile")
    assert lik.n_patterns == fixed.n_patterns
    # flatter than with the abilities held fixed: each item's likelihood is wider
    width = lambda lk: np.mean((lk.like > 0.15).sum(axis=1))  # noqa: E731
    assert width(lik) > width(fixed)


def _brute_empty(lik, crit: float) -> dict[tuple[int, int], bool]:
    """Every window's test, each by a full restricted fit."""
    k = lik.like.shape[1]
    top = solve(lik.like, lik.counts).loglik
    out = {}
    for lo in range(k):
        for hi in range(lo + 1, k + 1):
            if hi - lo == k:
                out[(lo, hi)] = False
                continue
            free = np.ones(k, bool)
            free[lo:hi] = False
            out[(lo, hi)] = 2 * (top - solve(lik.like, lik.counts, free=free).loglik) <= crit
    return out


def test_the_searches_equal_brute_force_over_every_window():
    z = np.random.default_rng(2).random(120)
    z = z[(z < 0.35) | (z > 0.6)]
    lik = _likelihood(z, 20, 3, 30, seed=3)
    search = B.Search(lik, UNIFORM)
    for crit in (B.CRIT_EMPTY, B.CRIT_TOP5):
        brute = _brute_empty(lik, crit)
        widest = max(hi - lo for (lo, hi), ok in brute.items() if ok)
        assert B.widest_empty(search, crit)[0] == widest
        reach = B.reach(search, crit)
        for j in range(30):
            assert reach[j] == max([hi for (lo, hi), ok in brute.items() if ok and lo == j], default=j)
        # five disjoint admissible windows of the largest total length, by brute force over their ends
        best = np.zeros((6, 31), int)
        for p in range(1, 6):
            for x in range(1, 31):
                best[p][x] = max(
                    [best[p][x - 1]] + [best[p - 1][lo] + x - lo for lo in range(x) if brute.get((lo, x)) or x == lo]
                )
        assert B.top_sum(reach) == best[5][30]
    low = max([hi for (lo, hi), ok in _brute_empty(lik, B.CRIT_EMPTY).items() if ok and lo == 0], default=0)
    assert B.widest_end(search, B.CRIT_EMPTY, low=True) == low


def test_the_joint_pass_finds_both_levels_reach_and_the_empty_figures_of_brute_force():
    """``reaches`` places each window against the top five's level and the limit's by one fit: its two reaches,
    and the widest window and both ends read from the looser one, are brute force's at each level."""
    z = np.random.default_rng(2).random(120)
    z = z[(z < 0.35) | (z > 0.6)]
    lik = _likelihood(z, 20, 3, 30, seed=3)
    search = B.Search(lik, UNIFORM)
    strict, loose = B.reaches(search, (B.CRIT_TOP5, B.CRIT_EMPTY))
    for crit, found in ((B.CRIT_TOP5, strict), (B.CRIT_EMPTY, loose)):
        brute = _brute_empty(lik, crit)
        for j in range(30):
            assert found[j] == max([hi for (lo, hi), ok in brute.items() if ok and lo == j], default=j)
    brute = _brute_empty(lik, B.CRIT_EMPTY)
    ok = [(lo, hi) for (lo, hi), good in brute.items() if good]
    widest = max(hi - lo for lo, hi in ok)
    first = min(lo for lo, hi in ok if hi - lo == widest)
    low = max([hi for lo, hi in ok if lo == 0], default=0)
    high = max([30 - lo for lo, hi in ok if hi == 30], default=0)
    assert B.empty_from_reach(loose) == (widest, (first, first + widest), low, high)
    assert (strict <= loose).all() and (strict < loose).any()  # the two levels differ here: the test can fail


def _beside_pools() -> list:
    rng = np.random.default_rng(4)
    z = rng.random(300)
    hole = z[(z < 0.4) | (z > 0.6)]
    loose = z[(z < 0.3) | (z > 0.55)][:120]
    return [
        _likelihood(loose, 12, 1, 60, seed=5),  # nothing thin, no top-5 bound, DDM lower bound 0
        _likelihood(loose, 30, 1, 60, seed=6),
        _likelihood(hole, 100, 10, 60, seed=7),  # thin stretches, a top-5 bound, a DDM lower bound
        _likelihood(hole, 60, 20, 60, seed=8),
        _likelihood(hole, 100, 5, 60, seed=9),
    ]


@pytest.mark.parametrize("pair", [(0, 1), (1, 0), (2, 3), (3, 2), (4, 2), (2, 4), (0, 2)])
def test_bounds_beside_another_models_leave_the_union_as_it_was(pair):
    """The union of two runs is the same when the second is searched only as far as it can widen the first's
    (``beside``), whichever widens which: pools that place the items loosely and sharply, with a hole."""
    from benchwatch.metrics import union_bounds

    liks = _beside_pools()
    first, second = (axis_bounds(liks[i]) for i in pair)
    plain = union_bounds([first, second]).as_dict()
    beside = union_bounds([first, axis_bounds(liks[pair[1]], beside=first)]).as_dict()
    beside.pop("fits"), plain.pop("fits")
    assert beside == plain


def test_with_items_known_exactly_the_bounds_close_on_the_truth():
    """Items answered 20,000 times by 40 models: each one's place is known to about a thousandth, so the
    widest stretch that may be empty is the true Max Gap (to the grid's cell), the stretches shown thin are
    truly thin and cover the empty ones, and the DDM bounds hold the true DDM. (A thin stretch is a
    claim about the distribution the items are drawn from, so a stretch whose few items are only a little
    short of a quarter of the target's is not shown: the widest shown is narrower than the truth's widest.)"""
    rng = np.random.default_rng(5)
    z = np.concatenate([rng.uniform(0.0, 0.3, 40), rng.uniform(0.55, 0.85, 40)])  # empty 0.3-0.55 and 0.85-1
    lik = _likelihood(z, 40, 20_000, 200, seed=6)
    bounds = axis_bounds(lik)
    cov = coverage(z)
    cell = 1 / 200
    assert cov.max_gap <= bounds.detection_limit <= cov.max_gap + 3 * cell
    assert bounds.high_end >= 1 - z.max() - cell
    width, _ = thin_truth(z)
    assert 0.25 - cell <= bounds.thin_width <= width
    for lo, hi in bounds.thin:
        assert np.mean((z >= lo) & (z < hi)) < B.THIN * (hi - lo)
    # the DDM bounds are those of the distribution 80 items are drawn from, so even exact positions leave
    # the sampling of 80 items in them (about +-0.05)
    assert bounds.ddm_lo <= cov.ddm <= bounds.ddm_hi and bounds.ddm_hi - bounds.ddm_lo < 0.12


def test_a_pool_that_places_nothing_rules_nothing_out():
    """Two models far from every item (all right, all wrong): no stretch can be ruled out as empty."""
    z = np.random.default_rng(7).random(50)
    grid = axis_grid(100)
    rows = np.zeros((50, 100))  # a flat likelihood: the responses say nothing about where an item lies
    bounds = axis_bounds(axis_likelihood(rows, grid))
    assert bounds.detection_limit == 1.0 and bounds.thin_width == 0.0
    assert bounds.ddm_lo == 0.0 and bounds.ddm_hi >= coverage(z).ddm


def test_thin_truth_equals_counting_by_hand():
    rng = np.random.default_rng(8)
    for _ in range(20):
        z = rng.beta(0.7, 0.7, 30)
        k = 40
        widest = 0
        for lo in range(k + 1):
            for hi in range(lo + 1, k + 1):
                share = np.mean((z >= lo / k) & (z < hi / k)) if hi < k else np.mean(z >= lo / k)
                if share < B.THIN * (hi - lo) / k:
                    widest = max(widest, hi - lo)
        assert thin_truth(z, UNIFORM, k)[0] == pytest.approx(widest / k)


def test_the_ddm_functional_is_the_integral_it_stands_for():
    """h . w - const equals the integral of s (G - F_mu) computed on a fine grid, for a random distribution."""
    rng = np.random.default_rng(9)
    z = axis_grid(50)
    w = rng.dirichlet(np.ones(50))
    t = (np.arange(D.FINE) + 0.5) / D.FINE
    s = D.signs(0.37, 1.0, t)
    h, const = D.functional(s, t, z, t)
    g = np.array([w[z <= x].sum() for x in t])
    assert h @ w - const == pytest.approx(np.mean(s * (g - t)), abs=2e-3)


class _Forgetful(list):
    """A search's store of distributions within the level that keeps nothing: the plain search."""

    def append(self, _w) -> None:
        pass


@pytest.mark.parametrize(
    "shape",
    ["hole", "empty-high-end", "skew", "bump"],
)
def test_the_thin_search_reusing_its_distributions_finds_what_the_plain_search_does(shape):
    """The thin search answers a probe from a distribution an earlier probe found within the level when it
    already holds the mass asked; the stretches shown thin must be exactly the plain search's, with fewer fits."""
    rng = np.random.default_rng(11)
    z = {
        "hole": np.concatenate([rng.uniform(0, 0.35, 60), rng.uniform(0.65, 1, 60)]),
        "empty-high-end": rng.uniform(0, 0.7, 120),
        "skew": rng.beta(1, 4, 120),
        "bump": np.concatenate([rng.uniform(0, 1, 60), rng.normal(0.5, 0.03, 60).clip(0, 1)]),
    }[shape]
    lik = _likelihood(z, 60, 4, 100, seed=12)
    plain = B.Search(lik, UNIFORM)
    plain.within = _Forgetful()
    reusing = B.Search(lik, UNIFORM)
    assert B.thin_stretches(reusing) == B.thin_stretches(plain)
    assert reusing.fits <= plain.fits
    if plain.fits >= 5:  # the probes overlap: some are answered without a fit
        assert reusing.fits < plain.fits
