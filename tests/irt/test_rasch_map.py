"""The MAP Rasch fit: exact gradients, exact Laplace SDs, recovery of known truth, partial credit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import linalg, optimize
from scipy.special import expit

from benchwatch.irt import ResponseArrays, encode_responses, fit_map, neg_log_posterior


def simulate(n_models: int, n_items: int, seed: int, sd: float = 1.5, missing: float = 0.0):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(0, sd, n_models), rng.normal(0, sd, n_items)
    y = rng.random((n_models, n_items)) < expit(theta[:, None] - b[None, :])
    m, i = np.nonzero(rng.random((n_models, n_items)) >= missing)
    df = pd.DataFrame(
        {
            "benchmark": "sim",
            "model": [f"m{j:03d}" for j in m],
            "item_id": [f"i{k:04d}" for k in i],
            "score": y[m, i].astype(float),
        }
    )
    return df, theta, b


def test_gradient_matches_finite_differences():
    df, _, _ = simulate(7, 11, seed=1)
    df.loc[::3, "score"] = 0.3  # fractional (quasi-Bernoulli) cells too
    data = encode_responses(df)
    x = np.random.default_rng(2).normal(size=data.n_models + data.n_items)
    err = optimize.check_grad(
        lambda v: neg_log_posterior(v, data, 3.0, 3.0)[0], lambda v: neg_log_posterior(v, data, 3.0, 3.0)[1], x
    )
    assert err < 1e-5


def test_laplace_sds_equal_the_inverse_of_a_numerical_hessian_on_the_constraint():
    df, _, _ = simulate(8, 15, seed=3, missing=0.2)
    data = encode_responses(df)
    fit = fit_map(data)
    x = np.concatenate([fit.theta, fit.b])
    step = 1e-5
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = step
        cols.append(
            (neg_log_posterior(x + e, data, 3.0, 3.0)[1] - neg_log_posterior(x - e, data, 3.0, 3.0)[1]) / (2 * step)
        )
    hessian = np.array(cols)
    # Difficulties sum to zero: the Laplace covariance lives on the null space of that constraint.
    a = np.concatenate([np.zeros(data.n_models), np.ones(data.n_items)])
    q = linalg.null_space(a[None, :])
    sds = np.sqrt(np.diag(q @ np.linalg.inv(q.T @ hessian @ q) @ q.T))
    assert abs(fit.b.sum()) < 1e-9
    np.testing.assert_allclose(fit.theta_sd, sds[: data.n_models], rtol=1e-4)
    np.testing.assert_allclose(fit.b_sd, sds[data.n_models :], rtol=1e-4)


def test_map_is_a_stationary_point_and_converges():
    df, _, _ = simulate(30, 120, seed=4)
    fit = fit_map(encode_responses(df))
    assert fit.converged
    assert fit.diagnostics["max_abs_gradient"] < 1e-3


def test_recovers_known_difficulties():
    df, theta, b = simulate(60, 500, seed=5)
    fit = fit_map(encode_responses(df))
    assert np.corrcoef(fit.b, b)[0, 1] > 0.95
    assert np.corrcoef(fit.theta, theta)[0, 1] > 0.97


def test_warm_start_reaches_the_same_optimum_in_fewer_iterations():
    df, _, _ = simulate(40, 200, seed=6)
    data = encode_responses(df)
    cold = fit_map(data)
    warm = fit_map(data, init=(cold.theta + 0.01, cold.b - 0.01))
    np.testing.assert_allclose(warm.b, cold.b, atol=1e-4)
    assert warm.diagnostics["iterations"] < cold.diagnostics["iterations"]


def _arrays(model_idx, item_idx, y, weight, n_models, n_items) -> ResponseArrays:
    return ResponseArrays(
        models=np.array([f"m{j}" for j in range(n_models)], dtype=object),
        items=np.array([f"i{k}" for k in range(n_items)], dtype=object),
        model_idx=np.asarray(model_idx, np.int32),
        item_idx=np.asarray(item_idx, np.int32),
        y=np.asarray(y, float),
        weight=np.asarray(weight, float),
    )


def test_binomial_cell_equals_its_bernoulli_trials():
    # 3 successes in 5 trials is, for the likelihood, five Bernoulli cells with 3 ones.
    rng = np.random.default_rng(7)
    n_m, n_i = 6, 9
    k = rng.integers(0, 6, size=(n_m, n_i))
    m, i = np.meshgrid(np.arange(n_m), np.arange(n_i), indexing="ij")
    binom = _arrays(m.ravel(), i.ravel(), k.ravel() / 5, np.full(k.size, 5.0), n_m, n_i)
    reps = np.repeat(np.arange(k.size), 5)
    ones = (np.tile(np.arange(5), k.size) < np.repeat(k.ravel(), 5)).astype(float)
    bern = _arrays(m.ravel()[reps], i.ravel()[reps], ones, np.ones(reps.size), n_m, n_i)
    a, c = fit_map(binom), fit_map(bern)
    np.testing.assert_allclose(a.b, c.b, atol=1e-5)
    np.testing.assert_allclose(a.b_sd, c.b_sd, rtol=1e-5)


def test_trials_round_the_score_and_sharpen_the_estimate():
    base = pd.DataFrame(
        {
            "benchmark": "b",
            "model": ["m1", "m1", "m2", "m2", "m3", "m3"],
            "item_id": ["i1", "i2"] * 3,
            "score": [0.62, 0.2, 0.4, 0.0, 1.0, 0.6],
        }
    )
    with_trials = base.assign(trials=pd.array([5] * 6, dtype="Int64"))
    data = encode_responses(with_trials)
    assert data.y[0] == pytest.approx(0.6)  # round(0.62 * 5) / 5
    assert np.all(data.weight == 5)
    many, one = fit_map(data), fit_map(encode_responses(base))
    assert np.all(many.b_sd < one.b_sd)


def test_missing_cells_are_absent_not_zero():
    df, _, _ = simulate(20, 40, seed=8)
    dropped = df.drop(index=df.index[(df["item_id"] == "i0000") & (df["model"] < "m010")])
    as_zero = df.copy()
    as_zero.loc[(df["item_id"] == "i0000") & (df["model"] < "m010"), "score"] = 0.0
    a, z = fit_map(encode_responses(dropped)), fit_map(encode_responses(as_zero))
    assert encode_responses(dropped).model_idx.size == len(df) - 10
    # Fewer observations on item 0: a wider interval; imputing zeros would instead make it look harder.
    full = fit_map(encode_responses(df))
    assert a.b_sd[0] > full.b_sd[0]
    assert z.b[0] > a.b[0] or np.isclose(z.b[0], a.b[0])


def test_laplace_draws_have_the_laplace_sds_and_keep_difficulties_summing_to_zero():
    df, _, _ = simulate(15, 40, seed=9)
    fit = fit_map(encode_responses(df), n_draws=4000, seed=1)
    np.testing.assert_allclose(fit.b_draws.std(axis=0), fit.b_sd, rtol=0.08)
    np.testing.assert_allclose(fit.theta_draws.std(axis=0), fit.theta_sd, rtol=0.08)
    np.testing.assert_allclose(fit.b_draws.mean(axis=0), fit.b, atol=0.1)
    assert np.max(np.abs(fit.b_draws.sum(axis=1))) < 1e-8


def _dense_kkt_newton(data: ResponseArrays, sd: float = 3.0) -> tuple[np.ndarray, np.ndarray]:
    """An independent reference: Newton on the full dense Hessian with the constraint sum(b) = 0 as a
    Lagrange row, from zeros, until the step is below 1e-13."""
    n_m, n_i = data.n_models, data.n_items
    w = np.zeros((n_m, n_i))
    s = np.zeros((n_m, n_i))
    np.add.at(w, (data.model_idx, data.item_idx), data.weight)
    np.add.at(s, (data.model_idx, data.item_idx), data.weight * data.y)
    x = np.zeros(n_m + n_i)
    for _ in range(100):
        theta, b = x[:n_m], x[n_m:]
        p = expit(theta[:, None] - b[None, :])
        r = s - w * p
        g = np.concatenate([-r.sum(axis=1), r.sum(axis=0)]) + x / sd**2
        c = w * p * (1 - p)
        h = np.zeros((n_m + n_i + 1, n_m + n_i + 1))
        h[:n_m, :n_m] = np.diag(c.sum(axis=1))
        h[n_m:-1, n_m:-1] = np.diag(c.sum(axis=0))
        h[:n_m, n_m:-1] = -c
        h[n_m:-1, :n_m] = -c.T
        h[: n_m + n_i, : n_m + n_i] += np.eye(n_m + n_i) / sd**2
        h[-1, n_m:-1] = h[n_m:-1, -1] = 1.0
        step = np.linalg.solve(h, -np.concatenate([g, [b.sum()]]))[:-1]
        x += step
        if np.max(np.abs(step)) < 1e-13:
            break
    return x[:n_m], x[n_m:]


@pytest.mark.parametrize(("n_models", "n_items", "missing"), [(6, 9, 0.2), (40, 300, 0.3), (250, 30, 0.1)])
def test_sparse_newton_reaches_the_dense_newton_optimum(n_models, n_items, missing):
    df, _, _ = simulate(n_models, n_items, seed=n_models, missing=missing)
    df["trials"] = np.where(np.arange(len(df)) % 3 == 0, 4, 1)  # some Binomial cells
    df["score"] = np.where(df["trials"] > 1, (np.arange(len(df)) % 5) / 4, df["score"])
    data = encode_responses(df)
    theta, b = _dense_kkt_newton(data)
    fit = fit_map(data)
    assert fit.converged
    np.testing.assert_allclose(fit.b, b, atol=1e-6)
    np.testing.assert_allclose(fit.theta, theta, atol=1e-6)


@pytest.mark.parametrize("floor", [None, 0.2])
def test_the_dense_schur_steps_of_a_large_pool_reach_the_same_optimum(monkeypatch, floor):
    """From ``DENSE_CELLS`` cells (1,000,000; here every fit) the Newton steps form S by BLAS and solve it by
    Cholesky instead of running CG over the cells: the same mode, and no CG iteration."""
    from benchwatch.irt.fits import rasch_curvature

    df, _, _ = simulate(60, 400, seed=8, missing=0.3)
    data = encode_responses(df)
    floors = None if floor is None else np.full(data.n_items, floor)
    by_cg = fit_map(data, floor=floors)
    monkeypatch.setattr(rasch_curvature, "DENSE_CELLS", 0)
    dense = fit_map(data, floor=floors)
    assert by_cg.diagnostics["cg_iterations"] > 0 and dense.diagnostics["cg_iterations"] == 0
    assert dense.converged  # both stop at the same test, on a flat optimum: the same mode to about 1e-5 logits
    np.testing.assert_allclose(dense.b, by_cg.b, atol=2e-5)
    np.testing.assert_allclose(dense.theta, by_cg.theta, atol=2e-5)
    np.testing.assert_allclose(dense.b_sd, by_cg.b_sd, rtol=1e-5)
    # cells out of order, one of them twice (two Bernoulli trials of one binomial cell): summed, not assigned
    order = np.random.default_rng(1).permutation(data.model_idx.size)
    twice = np.concatenate([order, order[:1]])
    y = np.concatenate([data.y[order], [1.0 - data.y[order[0]]]])
    shuffled = _arrays(data.model_idx[twice], data.item_idx[twice], y, np.ones(twice.size), data.n_models, data.n_items)
    monkeypatch.setattr(rasch_curvature, "DENSE_CELLS", 10**12)
    by_cg_twice = fit_map(shuffled, floor=floors)
    monkeypatch.setattr(rasch_curvature, "DENSE_CELLS", 0)
    np.testing.assert_allclose(fit_map(shuffled, floor=floors).b, by_cg_twice.b, atol=2e-5)
    monkeypatch.setattr(rasch_curvature, "DENSE_ENTRIES", data.n_models * data.n_items - 1)  # C too large to hold: CG
    assert fit_map(data, floor=floors).diagnostics["cg_iterations"] > 0


def test_the_fit_never_forms_a_dense_matrix(monkeypatch):
    df, _, _ = simulate(30, 200, seed=4, missing=0.4)
    data = encode_responses(df)

    def refuse(self):
        raise AssertionError("dense model x item matrix formed")

    monkeypatch.setattr(ResponseArrays, "dense", refuse)
    fit = fit_map(data, n_draws=10)
    assert fit.converged and fit.b_draws.shape == (10, data.n_items)


def test_approximate_sds_track_the_exact_ones_where_both_run():
    df, _, _ = simulate(80, 1500, seed=12, missing=0.3)
    data = encode_responses(df)
    exact, approx = fit_map(data, exact_sd=True), fit_map(data, exact_sd=False)
    assert exact.diagnostics["sd"] == "exact" and approx.diagnostics["sd"] == "diagonal approximation"
    np.testing.assert_array_equal(exact.b, approx.b)
    np.testing.assert_allclose(approx.b_sd, exact.b_sd, rtol=0.01)
    np.testing.assert_allclose(approx.theta_sd, exact.theta_sd, rtol=0.02)


def test_the_passes_split_across_threads_give_the_same_fit(monkeypatch):
    from benchwatch.irt import kernels

    df, _, _ = simulate(50, 400, seed=5, missing=0.2)
    data = encode_responses(df)
    one = fit_map(data)
    monkeypatch.setattr(kernels, "MIN_CELLS_PER_THREAD", 1000)
    monkeypatch.setattr(kernels, "THREADS", 3)
    calls = []
    real = kernels.split
    monkeypatch.setattr(kernels, "split", lambda *a: calls.append(len(out := real(*a))) or out)
    parts = fit_map(data)
    assert max(calls) == 3  # the passes really were shared out
    np.testing.assert_allclose(parts.b, one.b, atol=1e-10)
    np.testing.assert_allclose(parts.b_sd, one.b_sd, rtol=1e-10)


def test_a_start_that_is_already_the_optimum_converges_at_once():
    # two models and two items in a perfectly balanced pattern: the margins are the optimum
    data = ResponseArrays(
        models=np.array(["a", "b"], dtype=object),
        items=np.array(["x", "y"], dtype=object),
        model_idx=np.array([0, 0, 1, 1], np.int32),
        item_idx=np.array([0, 1, 0, 1], np.int32),
        y=np.array([1.0, 0.0, 0.0, 1.0]),
        weight=np.ones(4),
    )
    fit = fit_map(data)
    assert fit.converged and fit.diagnostics["iterations"] == 1
    np.testing.assert_allclose(fit.theta, 0.0, atol=1e-12)
    np.testing.assert_allclose(fit.b, 0.0, atol=1e-12)


def test_a_fit_whose_value_cannot_show_the_last_gain_stops_at_the_mode(monkeypatch):
    """The log posterior is a sum over the cells that rounds at eps |value| (4e-9 at 4,500 x 12,000, where the
    last Newton decrements were 1e-8): there every line search failed, 27 passes each, up to 100 iterations. Here
    the value is rounded to 1e-4 to make that happen on a small pool: the fit stops, converged, at the mode."""
    from benchwatch.irt.fits import rasch_map

    df, _, _ = simulate(30, 200, seed=6, missing=0.2)
    data = encode_responses(df)
    exact = fit_map(data)
    real = rasch_map.evaluate

    def coarse(*args, **kwargs):
        out = real(*args, **kwargs)
        out.value = round(out.value, 4)
        return out

    monkeypatch.setattr(rasch_map, "evaluate", coarse)
    stalled = fit_map(data, max_iter=15)
    assert not stalled.converged and stalled.diagnostics["iterations"] == 15  # every later line search fails
    monkeypatch.setattr(
        rasch_map,
        "ROUNDING",
        1e-4 / (np.finfo(float).eps * abs(real(exact.theta, exact.b, rasch_map.cells_of(data), 3.0, 3.0).value)),
    )
    stopped = fit_map(data, max_iter=15)
    assert stopped.converged and stopped.diagnostics["iterations"] < 15
    np.testing.assert_allclose(stopped.b, exact.b, atol=1e-3)
    # the curvature let go before each line search is made again at the last point: the SDs are the mode's
    np.testing.assert_allclose(stopped.b_sd, exact.b_sd, rtol=1e-3)
    np.testing.assert_allclose(stalled.theta_sd, exact.theta_sd, rtol=1e-3)


def test_the_dense_schur_complement_split_over_threads_is_the_one_product_to_rounding(monkeypatch):
    """``C C'`` as two products over halves of C's columns on two threads: the one product to rounding, the same
    bits whatever the threads, and a fit on it reaches the same mode."""
    from benchwatch.irt import kernels
    from benchwatch.irt.fits import rasch_curvature

    cross = np.random.default_rng(3).random((80, 3001))
    whole = cross @ cross.T
    monkeypatch.setattr(rasch_curvature, "GRAM_SPLIT", 0)
    split = rasch_curvature._gram(cross)
    np.testing.assert_allclose(split, whole, rtol=1e-13)
    assert not np.array_equal(split, whole)  # (the parts were summed: rounded otherwise)
    monkeypatch.setattr(kernels, "THREADS", 1)
    monkeypatch.setattr(kernels, "thread_pool", lambda: kernels.threads.thread_pool("irt-one", 1))
    assert np.array_equal(rasch_curvature._gram(cross), split)
    df, _, _ = simulate(60, 400, seed=8, missing=0.3)
    data = encode_responses(df)
    monkeypatch.setattr(rasch_curvature, "DENSE_CELLS", 0)
    monkeypatch.setattr(rasch_curvature, "GRAM_SPLIT", 10**18)
    one = fit_map(data)
    monkeypatch.setattr(rasch_curvature, "GRAM_SPLIT", 0)
    two = fit_map(data)
    assert one.converged and two.converged and one.diagnostics["cg_iterations"] == 0
    np.testing.assert_allclose(two.b, one.b, atol=1e-9)
    np.testing.assert_allclose(two.b_sd, one.b_sd, rtol=1e-9)


def test_floored_newton_steps_on_the_observed_information_reach_fisher_scorings_mode(monkeypatch):
    """With floors, where the steps are solved densely, every step after the first is Newton's on the observed
    information (checked positive definite by its Cholesky factor): the mode and the SDs (the Fisher information's)
    of Fisher scoring, in fewer steps; the observed information of a cell against a numerical second derivative."""
    from benchwatch.irt.fits import rasch_curvature, rasch_map

    df, _, _ = simulate(60, 400, seed=9, missing=0.2)
    data = encode_responses(df)
    floors = np.random.default_rng(2).choice([0.0, 0.1, 0.25], data.n_items)
    newton = fit_map(data, floor=floors, dense_from=0)
    monkeypatch.setattr(rasch_map, "dense_possible", lambda *_args: False)  # every step Fisher scoring
    fisher = fit_map(data, floor=floors, dense_from=0)
    assert newton.converged and fisher.converged
    assert newton.diagnostics["iterations"] < fisher.diagnostics["iterations"]
    np.testing.assert_allclose(newton.theta, fisher.theta, atol=1e-5)
    np.testing.assert_allclose(newton.b, fisher.b, atol=1e-5)
    np.testing.assert_allclose(newton.theta_sd, fisher.theta_sd, rtol=1e-5)
    np.testing.assert_allclose(newton.b_sd, fisher.b_sd, rtol=1e-5)
    # each cell's observed information is minus the second derivative of its log likelihood in eta
    cells = rasch_curvature.cells_of(data, floors)
    theta, b = newton.theta, newton.b
    info = rasch_curvature.evaluate(theta, b, cells, 3.0, 3.0, observed=True).info

    def loglik(shift: float) -> np.ndarray:
        c = floors[cells.i]
        p = c + (1 - c) * expit(theta[cells.m] - b[cells.i] + shift)
        return cells.w * cells.y * np.log(p) + cells.w * (1 - cells.y) * np.log1p(-p)

    h = 1e-4
    numeric = -(loglik(h) - 2 * loglik(0.0) + loglik(-h)) / h**2
    np.testing.assert_allclose(info, numeric, atol=1e-5)
    assert np.any(info < 0)  # a right answer on a floored item can bend the log likelihood upwards
    # a Hessian the observed information leaves indefinite is refused, not solved
    bad = rasch_curvature.evaluate(theta, b, cells, 3.0, 3.0, observed=True)
    bad.d_b[0] = -1.0
    with pytest.raises(rasch_curvature.NotPositiveDefinite):
        rasch_curvature.Curvature(cells, bad, dense_from=0)
