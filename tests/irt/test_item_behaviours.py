"""Items that do not answer as the Rasch model says (issues 37, 44): each piece against an independent calculation
or simulated truth. Benchmarks come from ``benchmarks/calibration.py``'s generators (the full grid is there)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from benchwatch.irt import (
    cell_loglik,
    design_groups,
    encode_responses,
    estimate_floor,
    fit_item_model,
    fit_map,
)
from benchwatch.irt.item_model.design import blanks_where_failures
from benchwatch.irt.item_model.fit_check import check_fit, refit, statistics
from benchwatch.irt.item_model.floors import FLOOR_STEP, NARROW, FloorEstimate, marginal_loglik
from tests.irt.em_oracle import em_reference
from tests.metrics.test_resolution import _calibration

CAL = _calibration()


def _benchmark(behaviour: str, models: int, shape: str = "uniform", seed: int = 1, items: int = 400):
    theta = CAL.behaviour_pool(CAL.BEHAVIOURS[behaviour].get("pool", "normal"), models, 300 + seed)
    z, frame = CAL.simulate_behaviour(theta, items, shape, CAL.BEHAVIOURS[behaviour], np.random.default_rng(seed))
    return theta, z, frame


@pytest.fixture(scope="module")
def floored():
    """200 models, 400 items of four options each, guessed at 0.4 of the nominal floor (an effective 0.1)."""
    return encode_responses(_benchmark("floor 0.4 x nominal 0.25", 200)[2])


def test_the_effective_floor_places_the_share_the_data_were_drawn_with(floored):
    est = estimate_floor(floored, floored.chance)
    assert floored.chance.tolist() == [0.25] * 400
    assert est.lo < 0.4 < est.hi and est.hi - est.lo < 0.3  # placed: neither no floor nor the nominal one
    assert est.floor == pytest.approx(0.25 * est.share) and est.nominal == 0.25
    best = max(est.profile, key=lambda p: p[1])
    assert best == (pytest.approx(est.share), 0.0)  # the profile's maximum is the estimate
    assert all(v <= 1e-9 for _, v in est.profile)


def test_no_floor_is_placed_at_zero_and_a_flat_profile_keeps_the_whole_range():
    data = encode_responses(_benchmark("floor 0 x nominal 0.10", 200, seed=2)[2])
    est = estimate_floor(data, data.chance)
    assert est.lo == 0.0 and est.hi < 0.5
    # Ten models, all far above the items: no weak model on a hard item, nothing places f
    rng = np.random.default_rng(3)
    theta, b = rng.normal(3.0, 0.3, 10), rng.normal(-1.0, 1.0, 60)
    y = (rng.random((10, 60)) < expit(theta[:, None] - b[None, :])).astype(float)
    from benchwatch.irt import arrays_from_dense

    flat = arrays_from_dense(np.ones((10, 60)), y)
    est = estimate_floor(flat, np.full(60, 0.25))
    assert (est.lo, est.hi) == (0.0, 1.0)


def test_the_marginal_likelihood_is_the_mixing_maximum_found_by_plain_em(floored):
    """The profile's likelihood (items integrated out by the certified solver) against plain EM to convergence."""
    sub = encode_responses(_benchmark("floor 0.4 x nominal 0.25", 30, seed=4, items=60)[2])
    theta = fit_map(sub, floor=0.1 * sub.chance).theta
    got = marginal_loglik(sub, theta, 0.1 * sub.chance)
    from benchwatch.irt.item_model.floors import b_grid

    rows = cell_loglik(
        sub.model_idx, sub.item_idx, sub.weight, sub.weight * sub.y, theta, b_grid(theta), 60, floor=0.1 * sub.chance
    )
    top = rows.max(axis=1)
    _, em = em_reference(np.exp(rows - top[:, None]), np.ones(60), iterations=100_000)
    assert got == pytest.approx(em + top.sum(), abs=1e-3)


def test_a_floor_in_the_grid_likelihood_is_the_brute_force_sum_over_answers():
    rng = np.random.default_rng(5)
    theta, grid = rng.normal(0, 1, 7), np.linspace(-3, 3, 11)
    m, i = np.repeat(np.arange(7), 3), np.tile(np.arange(3), 7)
    w = rng.integers(1, 4, m.size).astype(float)
    s = np.floor(rng.random(m.size) * (w + 1))
    floor = np.array([0.0, 0.25, 0.1])
    got = cell_loglik(m, i, w, s, theta, grid, 3, floor=floor)
    p = floor[i][:, None] + (1 - floor[i][:, None]) * expit(theta[m][:, None] - grid[None, :])
    cell = s[:, None] * np.log(p) + (w - s)[:, None] * np.log(1 - p)
    want = np.stack([cell[i == k].sum(axis=0) for k in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_the_discrimination_score_is_the_derivative_of_the_likelihood_in_log_a():
    """Each item's score for log a at a = 1 (the fit check's statistic) against a numerical derivative of the 2PL
    log likelihood, with the item's own b projected out as the efficient score does."""
    _, _, frame = _benchmark("Rasch", 40, seed=6, items=30)
    data = encode_responses(frame)
    fit = fit_map(data)
    stats = statistics(data, fit.theta, fit.b, None)
    rows = []
    for item in range(data.n_items):
        cells = data.item_idx == item
        t, y = fit.theta[data.model_idx[cells]], data.y[cells]

        def ll(log_a, b, t=t, y=y):
            p = expit(np.exp(log_a) * (t - b))
            return float(np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)))

        h = 1e-5
        b0 = fit.b[item]
        d_a = (ll(h, b0) - ll(-h, b0)) / (2 * h)
        d_b = (ll(0, b0 + h) - ll(0, b0 - h)) / (2 * h)
        info = expit(t - b0) * (1 - expit(t - b0))
        x = t - b0
        k = (info * x).sum() / info.sum()  # the efficient score: the b direction projected out
        u = d_a + k * d_b
        v = (info * (x - k) ** 2).sum()
        rows.append(u * u / v)
    n = data.n_items
    assert stats.discrimination == pytest.approx((sum(rows) - n) / np.sqrt(2 * n), rel=1e-5)


def test_a_replicates_refit_reaches_the_map_fit():
    _, _, frame = _benchmark("Rasch", 60, seed=7)
    data = encode_responses(frame)
    fit = fit_map(data)
    y = np.random.default_rng(8).binomial(1, expit(fit.theta[data.model_idx] - fit.b[data.item_idx])).astype(float)
    from benchwatch.irt import ResponseArrays

    sim = ResponseArrays(data.models, data.items, data.model_idx, data.item_idx, y, data.weight)
    th, b = refit(sim, fit.theta, fit.b, np.zeros(data.n_items))
    full = fit_map(sim)
    assert np.abs(th - full.theta).max() < 0.02 and np.abs(b - full.b).max() < 0.02


def _numpy_check(data, theta, b, c):
    """The fit check's statistics and one refit's sweeps in plain numpy, from ``benchwatch.irt.answers``' formulas
    (array passes and ``np.bincount``, as the check computed them before its compiled passes)."""
    from benchwatch.irt.answers import right, terms

    m, i, w = data.model_idx, data.item_idx, data.weight
    s = w * data.y
    x = theta[m] - b[i]
    score, info = terms(x, c[i], s, w)
    centre = np.bincount(i, info * x, minlength=b.size) / np.bincount(i, info, minlength=b.size)
    d = x - centre[i]
    u, v = np.bincount(i, score * d, minlength=b.size), np.bincount(i, info * d * d, minlength=b.size)
    per_item = u**2 / v
    discrimination = (per_item.sum() - b.size) / np.sqrt(2 * b.size)
    cells = (theta <= np.quantile(theta, 0.2))[m] & (b >= np.quantile(b, 0.8))[i]
    big = right(x, c[i])
    floor = (s[cells].sum() - (w * big)[cells].sum()) / np.sqrt((w * big * (1 - big))[cells].sum())
    th, bb = theta.copy(), b.copy()
    for _ in range(3):
        sc, inf = terms(th[m] - bb[i], c[i], s, w)
        bb += np.clip(
            (-np.bincount(i, sc, minlength=b.size) - bb / 9) / (np.bincount(i, inf, minlength=b.size) + 1 / 9), -1, 1
        )
        sc, inf = terms(th[m] - bb[i], c[i], s, w)
        th += np.clip(
            (np.bincount(m, sc, minlength=th.size) - th / 9) / (np.bincount(m, inf, minlength=th.size) + 1 / 9), -1, 1
        )
    return discrimination, floor, th - bb.mean(), bb - bb.mean()


@pytest.mark.parametrize("trials", [1, 3])
def test_the_checks_compiled_passes_are_the_answers_formulas(trials):
    """The fit check's statistics and a replicate's refit (compiled, the cells' terms summed where computed) against
    the same sums in numpy: items with and without floors, cells of one and of three trials, blanks."""
    from benchwatch.irt import ResponseArrays

    rng = np.random.default_rng(trials)
    m, i = (a.ravel() for a in np.meshgrid(np.arange(50), np.arange(80), indexing="ij"))
    keep = rng.random(m.size) < 0.8
    m, i = m[keep].astype(np.int32), i[keep].astype(np.int32)
    theta, b = rng.normal(0, 1.5, 50), rng.normal(0, 1.5, 80)
    c = np.where(rng.random(80) < 0.6, 0.3 * rng.random(80), 0.0)
    y = rng.binomial(trials, c[i] + (1 - c[i]) * expit(theta[m] - b[i])) / trials
    data = ResponseArrays(
        np.arange(50).astype(str), np.arange(80).astype(str), m, i, y, np.full(m.size, float(trials)), c
    )
    discrimination, floor, th, bb = _numpy_check(data, theta, b, c)
    stats = statistics(data, theta, b, c)
    assert stats.discrimination == pytest.approx(discrimination, rel=1e-12)
    assert stats.floor == pytest.approx(floor, rel=1e-12)
    new_th, new_b = refit(data, theta, b, c)
    assert np.abs(new_th - th).max() < 1e-12 and np.abs(new_b - bb).max() < 1e-12


@pytest.mark.parametrize(
    ("behaviour", "models", "verdict", "misfits"),
    [
        ("Rasch", 60, "fits", ()),
        ("floor 0.25, undeclared", 60, "misfit", ("floor above",)),
        ("log a ~ N(0, 0.5^2)", 60, "misfit", ("discrimination",)),
        ("weaker models on the easier items", 60, "fits", ()),
    ],
)
def test_the_fit_check_tells_rasch_items_from_floors_and_unequal_discriminations(behaviour, models, verdict, misfits):
    data = encode_responses(_benchmark(behaviour, models, seed=9)[2])
    fit = fit_map(data)
    check = check_fit(data, fit.theta, fit.b)
    assert check.verdict == verdict, check.record()
    assert set(misfits) <= set(check.misfits)
    assert check.replicates == 39 and 1 / 40 <= check.p <= 1


def test_design_groups_are_who_answered_what_not_blanks_at_random():
    for behaviour in ("Rasch", "failures recorded as blanks"):
        assert design_groups(encode_responses(_benchmark(behaviour, 60, seed=10)[2])) is None
    _, _, frame = _benchmark("weaker models on the easier items", 60, seed=10)
    data = encode_responses(frame)
    assert np.bincount(design_groups(data)).tolist() == [239, 161]  # the strong 40% alone; everyone (and item 0)
    # a few blanks scattered over a quarter of a complete benchmark's items: the same models answered every item
    # for the most part, one design
    _, _, frame = _benchmark("Rasch", 60, seed=10)
    data = encode_responses(frame)
    drop = (data.item_idx < 100) & (np.random.default_rng(11).random(data.model_idx.size) < 0.05)
    from benchwatch.irt import ResponseArrays

    keep = ~drop
    blanks = ResponseArrays(
        data.models, data.items, data.model_idx[keep], data.item_idx[keep], data.y[keep], data.weight[keep]
    )
    assert design_groups(blanks) is None


@pytest.mark.parametrize(
    ("behaviour", "warned"),
    [("failures recorded as blanks", True), ("weaker models on the easier items", False), ("Rasch", False)],
)
def test_blanks_where_failures_would_be_are_told_from_a_design(behaviour, warned):
    data = encode_responses(_benchmark(behaviour, 60, seed=12)[2])
    fit = fit_map(data)
    found = blanks_where_failures(data, fit.theta, fit.b, groups=design_groups(data))
    assert found["warn"] is warned
    if warned:
        assert found["models"] and all(m["fail_blank"] > m["fail_answered"] for m in found["models"])


@pytest.mark.parametrize(
    ("behaviour", "models", "path"),
    [
        ("Rasch", 60, "2PL"),  # a spread of at most a tenth or so: the bounds hold over it all the same
        ("floor 0.25, declared", 60, "2PL"),
        ("floor 0.25, undeclared", 60, "withheld"),  # named, with the advice to declare the options
        ("floor 0.02, undeclared", 200, "2PL"),  # small: named, and a nuisance over its interval
        ("log a ~ N(0, 0.5^2)", 60, "2PL"),  # issue 64: at any pool size, not from 200 models on
        ("log a ~ N(0, 0.5^2)", 200, "2PL"),
        ("failures recorded as blanks", 60, "withheld"),
    ],
)
def test_the_item_models_path_follows_the_data(behaviour, models, path):
    data = encode_responses(_benchmark(behaviour, models, seed=9 if "undeclared" in behaviour else 14)[2])
    _, model = fit_item_model(data)
    assert model.path == path, model.reason
    assert (model.floor is not None) == (behaviour.endswith(", declared") or behaviour == "floor 0.02, undeclared")
    if path == "withheld":
        assert model.reason
    if behaviour == "floor 0.25, undeclared":  # the floor it names covers the one the data were drawn with
        assert model.undeclared.lo <= 0.25 <= model.undeclared.hi and "declare each item's number" in model.reason
    if behaviour == "floor 0.02, undeclared":  # the floor the bounds are computed over covers the one drawn
        assert model.floor is model.undeclared and model.undeclared.lo <= 0.02 <= model.undeclared.hi <= 0.05
        assert model.nominal_from.startswith("not declared") and np.all(model.nominal == 1.0)
        assert model.check.verdict == "fits" and len(model.shares()) >= 2
    if behaviour.startswith("log a"):
        assert model.spread.lo <= 0.5 <= model.spread.hi
    if behaviour == "Rasch":
        assert model.spread.lo == 0.0 and model.spread.hi < 0.3


def test_models_tied_at_the_weakest_fifth_are_all_in_it_whatever_the_rounding():
    """Models that answered alike share an ability up to rounding, in an order any change of the code reorders: the
    fit check's weakest fifth (and hardest fifth) takes all of a tie at its quantile or none, so the statistic does
    not move with the last bits of the abilities (Epoch's FrontierMath: p moved from 0.075 to 0.05 with them)."""
    from benchwatch.irt import ResponseArrays
    from benchwatch.irt.item_model.fit_check import at_or_below

    rng = np.random.default_rng(4)
    theta = np.array([-2.8, -2.8, -2.8, -2.0, -1.0, 0.0, 1.0, 2.0])  # the 20% quantile falls among the three ties
    b = np.repeat([-1.0, 0.0, 1.5, 1.5, 1.5], 2)  # so does the items' 80% quantile
    m, i = (a.ravel().astype(np.int32) for a in np.meshgrid(np.arange(8), np.arange(10), indexing="ij"))
    y = rng.binomial(1, expit(theta[m] - b[i])).astype(float)
    data = ResponseArrays(np.arange(8).astype(str), np.arange(10).astype(str), m, i, y, np.ones(m.size), None)
    assert at_or_below(theta, 0.2).sum() == 3 and at_or_below(-b, 0.2).sum() == 6
    reference = statistics(data, theta, b, None).floor
    for _ in range(20):  # the ties broken by rounding-sized noise, every which way
        noisy_theta = theta + rng.choice([-1, 0, 1], theta.size) * 4e-16
        noisy_b = b + rng.choice([-1, 0, 1], b.size) * 4e-16
        assert at_or_below(noisy_theta, 0.2).sum() == 3 and at_or_below(-noisy_b, 0.2).sum() == 6
        assert statistics(data, noisy_theta, noisy_b, None).floor == pytest.approx(reference, abs=1e-12)


def test_the_bounds_at_the_floors_two_ends_are_the_same_computed_at_once_or_in_turn(monkeypatch, floored):
    """Below ``CONCURRENT_CELLS`` the bounds at the two ends of the floor's interval are computed on two threads at
    once: the same union of bounds, figure for figure, as one end after the other."""
    from benchwatch.metrics import UNIFORM
    from benchwatch.pipeline import audit_bounds

    fit, model = fit_item_model(floored)
    assert model.path == "2PL" and len(model.shares()) >= 2 and len(model.corners()) == 2 * len(model.shares())
    assert model.shares()[0] == model.floor.lo and model.shares()[-1] == model.floor.hi
    assert model.floor.share in model.shares()
    theta = fit.theta  # the bounds' abilities: any will do to compare the two schedules
    together, _ = audit_bounds.item_bounds(floored, fit, theta, model, "ability-quantile", UNIFORM)
    monkeypatch.setattr(audit_bounds, "CONCURRENT_CELLS", 0)
    in_turn, _ = audit_bounds.item_bounds(floored, fit, theta, model, "ability-quantile", UNIFORM)
    assert together.record_fields() == in_turn.record_fields()


@pytest.mark.parametrize(
    ("share", "lo", "hi"), [(0.5, 0.0, 1.0), (0.81, 0.7, 1.0), (0.1, 0.0, 0.95), (0.4, 0.4, 0.4), (0.41, 0.39, 0.43)]
)
def test_the_bounds_read_the_floors_interval_at_its_ends_its_estimate_and_points_between(share, lo, hi):
    """The floors the bounds are computed at: both ends, the estimate, and no two more than FLOOR_STEP apart (the
    two ends alone missed the true DDM at 12 models); one share where the interval is a point, both ends alone
    where it is narrower than NARROW in probability (0.04 of a 0.25 floor: 0.01)."""
    ends = FloorEstimate(share=share, lo=lo, hi=hi, nominal=0.25, items=100).ends()
    assert ends[0] == lo and ends[-1] == hi and list(ends) == sorted(ends)
    if hi - lo < 0.01:
        assert ends == (lo,)
        return
    if (hi - lo) * 0.25 < NARROW:
        assert ends == (lo, hi)
        return
    assert share in ends and np.all(np.diff(ends) <= FLOOR_STEP + 1e-12) and np.all(np.diff(ends) > 0)
