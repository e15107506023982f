"""The spread of discriminations and agreeing repeated samples as nuisances (issue 64): each piece against an
independent calculation (brute-force quadrature, the beta-binomial's closed form) or simulated truth."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit, log_expit

from benchwatch.irt import (
    ResponseArrays,
    arrays_from_dense,
    beta_binomial_logpmf,
    effective,
    estimate_rho,
    estimate_spread,
    fit_item_model,
    fit_map,
    spread_rows,
)
from benchwatch.irt.item_model import spread_kernels as sk
from benchwatch.irt.item_model import spread_pass
from benchwatch.irt.item_model.fit_check import FitCheck, Statistics
from benchwatch.irt.item_model.model import withheld_reason
from benchwatch.irt.item_model.spread import draw_log_a, mixture


def _two_pl(models: int, items: int, sd: float, seed: int, *, floor: float = 0.0, own: bool = True):
    """A complete binary benchmark: abilities N(0, 1), difficulties N(0, 1.2^2), log a from the spread's own
    distribution (``own``) or a plain normal of sd ``sd``."""
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=models), rng.normal(0.0, 1.2, items)
    log_a = draw_log_a(rng, sd, items) if own else rng.normal(0.0, sd, items)
    p = floor + (1 - floor) * expit(np.exp(log_a)[None, :] * (theta[:, None] - b[None, :]))
    y = (rng.random((models, items)) < p).astype(float)
    return arrays_from_dense(np.ones((models, items)), y), theta


def _brute_force(data, theta, grid, sd, floor=0.0, item=0, slope=None, mu=0.0):
    """One item's log likelihood at each point of ``grid``, its log discrimination integrated over the spread's
    mixture of normals (around ``mu``) by the trapezoid rule on 5,001 points (spaced under a
    tenth of the narrowest integrand's width here); each cell binomial (its trials and successes), ``slope`` each
    model's logit multiplier."""
    cells = data.item_idx == item
    j = data.model_idx[cells]
    t, n, k = theta[j], data.weight[cells], data.weight[cells] * data.y[cells]
    mult = np.ones(theta.size)[j] if slope is None else np.asarray(slope)[j]
    sds, shares = mixture(sd)
    u = mu + np.linspace(-8 * sds[1], 8 * sds[1], 5001)
    prior = sum(w * stats.norm.pdf(u, mu, s) for s, w in zip(sds, shares, strict=True))
    out = []
    for g in grid:
        eta = np.exp(u)[:, None] * mult[None, :] * (t[None, :] - g)
        if floor > 0:
            log_right = np.logaddexp(np.log(floor), np.log1p(-floor) + log_expit(eta))
            log_wrong = np.log1p(-floor) + log_expit(-eta)
        else:
            log_right, log_wrong = log_expit(eta), log_expit(-eta)
        f = (k * log_right + (n - k) * log_wrong).sum(axis=1)
        out.append(f.max() + np.log(integrate.trapezoid(np.exp(f - f.max()) * prior, u)))
    return np.array(out)


@pytest.mark.parametrize(
    ("models", "sd", "floor"), [(12, 0.6, 0.0), (200, 0.9, 0.0), (40, 0.5, 0.25), (300, 0.2, 0.1), (20, 1.6, 0.0)]
)
def test_the_integrated_likelihood_is_brute_force_quadrature(models, sd, floor):
    """Within 1e-5 log units of brute force wherever the item could be (20 log units of its best), from 12 to 300
    models and spreads 0.2 to 1.6 (the largest the interval reaches), with and without floors."""
    data, theta = _two_pl(models, 20, sd, seed=models, floor=floor)
    grid = np.linspace(-3.0, 3.0, 25)
    floors = np.full(data.n_items, floor) if floor else None
    got = spread_rows(data, theta, grid, sd, floor=floors)
    for item in range(4):
        want = _brute_force(data, theta, grid, sd, floor, item)
        near = want > want.max() - 20  # where the item could be: what the bounds read
        assert np.abs(got[item] - want)[near].max() < 1e-5, (item, np.abs(got[item] - want)[near].max())


def test_binomial_cells_slopes_a_centre_and_mixed_floors_are_brute_force_quadrature(monkeypatch):
    """Cells of several (and fractional, effective) trials, each model's own logit multiplier, log a centred off
    0, and items of different floors (some none) in one call: each item against its own brute force; each item's
    trials' sum computed once per design (six here) or item by item, the same."""
    rng = np.random.default_rng(8)
    models, items = 30, 6
    theta = rng.normal(size=models)
    trials = rng.choice([1.0, 2.5, 10.0], size=(models, items))
    p = expit(theta[:, None] - rng.normal(size=items)[None, :])
    y = rng.binomial(np.ceil(trials).astype(int), p) / np.ceil(trials)
    data = arrays_from_dense(trials, y)
    slope = rng.uniform(0.7, 1.0, models)
    floors = np.array([0.0, 0.25, 0.1, 0.25, 0.0, 0.5])
    grid = np.linspace(-3.0, 3.0, 13)
    got = spread_rows(data, theta, grid, 0.7, floor=floors, slope=slope, mean_log_a=0.2)
    for item in range(items):
        want = _brute_force(data, theta, grid, 0.7, floors[item], item, slope=slope, mu=0.2)
        near = want > want.max() - 20
        assert np.abs(got[item] - want)[near].max() < 1e-5, (item, np.abs(got[item] - want)[near].max())
    monkeypatch.setattr(spread_pass, "DESIGNS", 0)  # each item's trials' sum of its own: the same rows
    alone = spread_rows(data, theta, grid, 0.7, floor=floors, slope=slope, mean_log_a=0.2)
    np.testing.assert_allclose(alone, got, rtol=0, atol=1e-9)


def test_the_nodes_spacing_is_what_the_accuracy_rests_on(monkeypatch):
    """Nodes twice as far apart as the kernel's are off by more than 1e-3 at 12 models: the spacing, not the
    brute force, decides the test above."""
    data, theta = _two_pl(12, 20, 0.6, seed=12)
    grid = np.linspace(-3.0, 3.0, 25)
    want = np.array([_brute_force(data, theta, grid, 0.6, 0.0, item) for item in range(4)])
    monkeypatch.setattr(sk, "STEP", 2.0 * sk.STEP)
    coarse = spread_rows(data, theta, grid, 0.6)[:4]
    assert np.abs(coarse - want)[want > want.max(axis=1, keepdims=True) - 20].max() > 1e-3


def test_the_sum_over_nodes_is_numpys_logsumexp_to_the_last_digits():
    """The kernel's own exponential (a series and the exponent's bits) against scipy's logsumexp: terms from 0
    to 1,000 log units below a point's largest, points where one node holds it all, rows far from 0, and every
    exponent the series' reduction can meet (d / log 2 from -1,010 to 0)."""
    from scipy.special import logsumexp

    rng = np.random.default_rng(3)
    nodes, points = 97, 23
    loglik = np.concatenate(
        [
            rng.uniform(-1000.0, 0.0, (4, nodes * points)),  # terms of every size
            rng.normal(-5e4, 3.0, (3, nodes * points)),  # far from 0, close together
            np.linspace(-700.0, 0.0, nodes * points)[None, :],  # every exponent in turn
        ]
    )
    loglik[5, ::points] = 0.0  # point 0 of row 5: one node far above the rest
    log_weight = np.log(rng.dirichlet(np.ones(nodes)))
    got = np.empty((loglik.shape[0], points))
    sk.integrate(loglik, log_weight, got)
    want = logsumexp(loglik.reshape(-1, nodes, points) + log_weight[None, :, None], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-12)


def test_alike_items_are_computed_once_and_read_as_their_own():
    """Items with the same cells and floor share one row (``spread_rows`` computes each set once): each item's row
    equals that item's row computed alone, and items that differ in one answer or in their floor keep their own."""
    data, theta = _two_pl(12, 6, 0.6, seed=5)
    dense_w, dense_y = np.ones((12, 9)), np.zeros((12, 9))
    for cell in range(data.model_idx.size):
        dense_y[data.model_idx[cell], data.item_idx[cell]] = data.y[cell]
    dense_y[:, 6], dense_y[:, 7], dense_y[:, 8] = dense_y[:, 0], dense_y[:, 0], dense_y[:, 1]
    dense_y[0, 7] = 1 - dense_y[0, 7]  # item 7: item 0 but for one answer
    repeated = arrays_from_dense(dense_w, dense_y)
    floor = np.array([0.0] * 8 + [0.25])  # item 8: item 1's answers under a floor
    grid = np.linspace(-3.0, 3.0, 25)
    rows = spread_rows(repeated, theta, grid, 0.6, floor=floor)
    for item in range(9):
        alone = arrays_from_dense(dense_w[:, [item]], dense_y[:, [item]])
        want = spread_rows(alone, theta, grid, 0.6, floor=floor[[item]])[0]
        np.testing.assert_allclose(rows[item], want, rtol=0, atol=1e-12)
    assert np.array_equal(rows[6], rows[0])
    assert not np.allclose(rows[7], rows[0]) and not np.allclose(rows[8], rows[1])


def test_items_with_the_same_cells_are_found_as_comparing_them_whole_finds_them():
    """``same_cells`` (the one grouping of alike items and of designs) groups items exactly as comparing each
    array's bytes apart does: items of different lengths, one value apart, NaN in the same place, and the item's own
    value (``each``) apart or alike."""
    rng = np.random.default_rng(3)
    base = [rng.integers(0, 5, size=k) for k in (3, 4, 3, 0)]
    items = [base[0], base[1], base[0], base[2], base[0].copy(), base[3], base[3], base[1][:3]]
    items[4][1] += 1  # one value apart from item 0
    m = np.concatenate(items).astype(np.int32)
    w = np.concatenate([np.where(i > 2, np.nan, 1.0) for i in items])  # NaN where the value is large
    starts = np.concatenate([[0], np.cumsum([len(i) for i in items])]).astype(np.int64)
    each = np.array([0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0])  # item 2: item 0's cells, another floor

    def brute(with_each: bool) -> list[int]:
        keys: dict[bytes, int] = {}
        out = []
        for t in range(len(items)):
            key = m[starts[t] : starts[t + 1]].tobytes() + b"|" + w[starts[t] : starts[t + 1]].tobytes()
            key += each[t : t + 1].tobytes() if with_each else b""
            out.append(keys.setdefault(key, len(keys)))
        return out

    for with_each in (False, True):
        group, first = spread_pass.same_cells(starts, (m, w), each if with_each else None)
        assert group.tolist() == brute(with_each)
        assert first.tolist() == [group.tolist().index(g) for g in range(first.size)]
    assert spread_pass.same_cells(starts, (m, w))[0].tolist() == [0, 1, 0, 2, 3, 4, 4, 5]


@pytest.mark.parametrize("credit", [(0.0, 1.0), (0.0, 0.5, 1.0), (0.0, 1 / 3, 1.0)])
@pytest.mark.parametrize("trials", [1.0, 2.0])
def test_the_cells_held_narrow_give_the_numbers_held_wide(credit, trials):
    """``spread_rows`` holds its sorted cells as narrow as their values are exact in (16-bit model codes, 32-bit
    successes where each is exact there, one trial a cell as a view of a single 1): every row bit for bit what the
    same cells held at full width give; a third of a point, not exact in 32 bits, is kept wide."""
    rng = np.random.default_rng(11)
    models, items = 40, 30
    theta = rng.normal(size=models)
    seen = rng.random((models, items)) < 0.8
    y = rng.choice(credit, size=(models, items))
    data = arrays_from_dense(np.where(seen, trials, 0.0), np.where(seen, y, 0.0))
    grid = np.linspace(-3.0, 3.0, 25)
    floor = rng.choice([0.0, 0.25], items)
    order = np.argsort(data.item_idx, kind="stable")
    starts = np.searchsorted(data.item_idx[order], np.arange(items + 1)).astype(np.int64)
    m, w = data.model_idx[order].astype(np.int32), data.weight[order].astype(float)
    wide = spread_pass.Cells(starts, m, w, data.y[order] * w, floor)
    want = spread_pass.integrated_rows(wide, theta, np.ones(models), grid, mixture(0.7), 0.0)
    assert np.array_equal(spread_rows(data, theta, grid, 0.7, floor=floor), want)


@pytest.mark.parametrize("unit", [True, False])
def test_the_items_dense_rows_are_numpys_sums_of_their_cells_to_the_bit(unit):
    """A block of items' dense rows (the compiled pass over their cells) against ``np.add.at`` over the same cells:
    16-bit model codes, 32-bit successes, cells given twice (summed in their order), items with no cells, one trial
    a cell as a view of a single 1 or fractional trials; runs of items that start and end anywhere (read as one
    slice of cells) and sets of items in any order, repeated ones included (gathered item by item)."""
    rng = np.random.default_rng(5)
    models, items = 37, 23
    sizes = rng.integers(0, 12, items)
    sizes[[3, 11]] = 0
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    m = rng.integers(0, models, starts[-1]).astype(np.int16)  # some (item, model) twice: their sums
    s = rng.choice([0.0, 0.25, 1.0, 2.0], starts[-1]).astype(np.float32)
    w = np.broadcast_to(np.float64(1.0), s.shape) if unit else rng.uniform(0.5, 3.0, starts[-1])
    cells = spread_pass.Cells(starts, m, w, s, np.zeros(items))
    runs = [np.arange(lo, hi) for lo, hi in [(0, items), (0, 1), (3, 4), (5, 17), (20, 23)]]
    for chosen in [*runs, np.array([17, 2, 11, 2, 22, 0]), rng.permutation(items)]:
        succ, tri = cells.dense(chosen, models)
        want_s, want_t = np.zeros((chosen.size, models)), np.zeros((chosen.size, models))
        for row, t in enumerate(chosen):
            at = slice(starts[t], starts[t + 1])
            np.add.at(want_s, (row, m[at]), s[at])
            np.add.at(want_t, (row, m[at]), w[at])
        assert np.array_equal(succ, want_s) and np.array_equal(tri, want_t)


def test_at_no_spread_the_integrated_likelihood_is_the_1pls():
    data, theta = _two_pl(30, 40, 0.0, seed=4)
    grid = np.linspace(-3.0, 3.0, 25)
    rasch = spread_rows(data, theta, grid, 0.0)  # the 1PL's own cells' likelihood
    nearly = spread_rows(data, theta, grid, 0.025)  # the integral, at a spread just past its switch
    # near each item's best point, where the slope in log a is small (away from it even this spread moves the
    # likelihood by about half that slope squared times the spread's variance: 0.06 three log units down, a few
    # tenths twenty down; the brute-force test above shows that is the integral's own value, not an error)
    near = rasch > rasch.max(axis=1, keepdims=True) - 1
    assert np.abs(rasch - nearly)[near].max() < 0.05


def test_the_beta_binomial_cell_is_its_closed_form():
    k, n = np.arange(11), np.full(11, 10)
    for p, rho in ((0.3, 0.3), (0.8, 0.05), (0.5, 0.9)):
        t = (1 - rho) / rho
        want = stats.betabinom.logpmf(k, n, p * t, (1 - p) * t)
        got = beta_binomial_logpmf(k, n, np.full(11, p), rho)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
        prob = np.exp(got)
        assert prob.sum() == pytest.approx(1.0)
        assert (prob * k).sum() == pytest.approx(10 * p)  # the mean n P, and the variance n P (1 - P)(1 + (n - 1) rho)
        assert (prob * (k - 10 * p) ** 2).sum() == pytest.approx(10 * p * (1 - p) * (1 + 9 * rho))
    np.testing.assert_allclose(beta_binomial_logpmf(k, n, np.full(11, 0.3), 0.0), stats.binom.logpmf(k, 10, 0.3))
    np.testing.assert_allclose(  # rho -> 0 is the binomial
        beta_binomial_logpmf(k, n, np.full(11, 0.3), 1e-9), stats.binom.logpmf(k, 10, 0.3), atol=1e-5
    )


def test_a_cell_counts_as_its_effective_trials():
    data = ResponseArrays(
        np.array(["a"]), np.array(["i", "j", "k"]), np.zeros(3, np.int32), np.arange(3, dtype=np.int32),
        np.array([0.5, 1.0, 0.0]), np.array([10.0, 1.0, 4.0]),
    )  # fmt: skip
    assert effective(data, 0.0) is data
    np.testing.assert_allclose(effective(data, 0.3).weight, [10 / 3.7, 1.0, 4 / 1.9])
    np.testing.assert_allclose(effective(data, 1.0).weight, [1.0, 1.0, 1.0])  # samples that always agree: one trial
    np.testing.assert_array_equal(effective(data, 0.3).y, data.y)


def _samples(models: int, items: int, rho: float, seed: int, trials: int = 10):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=models), rng.normal(size=items)
    p = expit(theta[:, None] - b[None, :])
    if rho > 0:
        share = (1 - rho) / rho
        p = rng.beta(p * share, (1 - p) * share)
    k = rng.binomial(trials, p)
    return arrays_from_dense(np.full((models, items), float(trials)), k.astype(float)), theta, b


def test_rho_is_recovered_within_its_interval():
    for seed in range(3):
        data, theta, b = _samples(16, 200, 0.3, seed)
        est = estimate_rho(data, theta, b)
        assert est.lo <= 0.3 <= est.hi and est.hi - est.lo < 0.15, est
        assert est.samples == 10 and est.cells == data.model_idx.size
    independent, theta, b = _samples(16, 200, 0.0, 5)
    assert estimate_rho(independent, theta, b).lo == 0.0  # independent trials: rho's interval reaches 0
    single = arrays_from_dense(np.ones((5, 8)), np.eye(5, 8))
    assert estimate_rho(single, np.zeros(5), np.zeros(8)) is None  # one sample a cell: nothing to estimate


def test_agreeing_samples_widen_the_bounds_they_used_to_narrow():
    """Ten samples a cell that agree (rho 0.6) are not ten items' worth of evidence: the item model finds rho, and
    its bounds are wider than the binomial cell's."""
    from benchwatch.metrics import UNIFORM
    from benchwatch.pipeline.audit_bounds import item_bounds

    data, _, _ = _samples(16, 150, 0.6, seed=7)
    fit, model = fit_item_model(data)
    assert model.rho is not None and model.rho.lo <= 0.6 <= model.rho.hi
    binomial = type(model)(**{**model.__dict__, "rho": None})
    wide, _ = item_bounds(data, fit, fit.theta, model, "ability-quantile", UNIFORM)
    narrow, _ = item_bounds(data, fit, fit.theta, binomial, "ability-quantile", UNIFORM)
    assert wide.detection_limit > narrow.detection_limit
    assert wide.ddm_hi - wide.ddm_lo > narrow.ddm_hi - narrow.ddm_lo


@pytest.mark.parametrize("models", [30, 200])
def test_the_spread_is_recovered_within_its_interval(models):
    covered = 0
    for seed in range(3):
        data, _ = _two_pl(models, 200, 0.6, seed=10 + seed)
        est = estimate_spread(data, fit_map(data).theta)
        covered += est.lo <= 0.6 <= est.hi
        assert est.lo <= est.spread <= est.hi and est.lo > 0.1  # a spread this wide is found
    assert covered == 3


def test_a_dozen_models_place_the_spread_loosely_and_rasch_items_near_zero():
    data, _ = _two_pl(12, 200, 0.6, seed=20)
    est = estimate_spread(data, fit_map(data).theta)
    assert est.lo <= 0.6 <= est.hi and est.hi - est.lo > 0.4  # wide: the bounds over it are wide too
    rasch, _ = _two_pl(60, 200, 0.0, seed=21)
    flat = estimate_spread(rasch, fit_map(rasch).theta)
    assert flat.lo == 0.0 and flat.hi < 0.3


def test_the_spread_interval_is_the_profile_s_read_on_a_fine_grid():
    """The spread's estimate and interval against its profile read at every 0.02 of s (the same marginal
    likelihood, brute force): the maximum within the search's resolution, each end outside the profile's own
    crossing by at most one resolution step (the search reads the coarse spreads in order and stops once the
    profile lies below any level its top can set: those beyond, the dearest, are never read)."""
    from benchwatch.irt.item_model.profile import npmle_loglik
    from benchwatch.irt.item_model.spread import B_POINTS, CRIT, LARGEST, TOL

    data, _ = _two_pl(40, 150, 0.4, seed=31)
    theta = fit_map(data).theta
    est = estimate_spread(data, theta)
    grid = np.linspace(theta.min() - 4.0, theta.max() + 4.0, B_POINTS)
    fine = np.round(np.arange(0.0, LARGEST + 1e-9, 0.02), 2)
    profile = np.array([npmle_loglik(spread_rows(data, theta, grid, s)) for s in fine])
    level = profile.max() - CRIT / 2
    inside = fine[profile >= level]
    assert abs(est.spread - fine[np.argmax(profile)]) <= 2 * TOL
    assert inside.min() - 0.02 - TOL <= est.lo <= inside.min() + 1e-9
    assert inside.max() - 1e-9 <= est.hi <= inside.max() + 0.02 + TOL
    assert est.hi < 1.2 and max(s for s, _ in est.profile) < LARGEST  # the far spreads were not read


def _check(discrimination: float, expected: float, floor: float, p_disc: float, p_floor: float) -> FitCheck:
    observed = Statistics(discrimination, floor, 0.5, 0.3, 0.2)
    return FitCheck(
        "misfit", max(discrimination, abs(floor)), 0.025, 39, observed, p_disc, p_floor, 100,
        expected_discrimination=expected, spread=0.5,
    )  # fmt: skip


def test_the_checks_words_follow_the_sign_of_its_statistic():
    more = withheld_reason(_check(30.0, 12.0, 0.3, 0.025, 0.9), None)
    assert "differ more than" in more and "30.0 against 12.0" in more
    alike = withheld_reason(_check(-4.0, 2.0, -5.0, 0.025, 0.025), None)
    assert "are more alike than" in alike and "less often" in alike and "differ more" not in alike
    above = withheld_reason(_check(0.5, 1.0, 4.0, 0.5, 0.025), None)
    assert "more often than the floors allow" in above and "discriminations" not in above
    # neither alone below the level: the larger names it, in its own direction
    assert _check(-1.0, 0.0, -3.0, 0.5, 0.5).misfits == ("floor below",)
    assert _check(3.5, 0.0, 1.0, 0.5, 0.5).misfits == ("discrimination",)


def test_the_widened_check_fits_its_own_model_and_names_what_it_cannot_hold():
    data, _ = _two_pl(60, 300, 0.6, seed=30)
    _, model = fit_item_model(data)
    assert model.check.verdict == "fits" and model.path == "2PL", model.reason
    assert model.check.spread == pytest.approx(model.spread.hi)  # calibrated at the widest spread of the interval
    # a tenth of the items answered backwards (miskeyed: the strong models fail them): no spread explains that
    rng = np.random.default_rng(31)
    theta, b = rng.normal(size=60), rng.normal(0.0, 1.2, 300)
    a = np.where(np.arange(300) < 30, -1.0, 1.0)
    y = (rng.random((60, 300)) < expit(a[None, :] * (theta[:, None] - b[None, :]))).astype(float)
    _, broken = fit_item_model(arrays_from_dense(np.ones((60, 300)), y))
    assert broken.path == "withheld" and "discrimination" in broken.check.misfits
    assert "differ more than" in broken.reason
