"""The spread's rows computed only near each item's top (``benchwatch.irt.item_model.spread_windows``), against the
whole rows the same code computes with the windows turned off (themselves held to brute-force quadrature in
``test_spread_and_samples``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from benchwatch.irt import arrays_from_dense, spread_rows
from benchwatch.irt.item_model import spread_windows as sw
from benchwatch.metrics import axis_bounds, axis_grid, axis_likelihood


def _heavy(models: int, items: int, trials: int, floor: float, seed: int):
    """A floored benchmark of binomial cells heavy enough (``trials`` each, 30% of cells missing) for narrow rows:
    abilities N(0, 1.5^2), difficulties N(0, 1.5^2), log a N(0, 0.3^2)."""
    rng = np.random.default_rng(seed)
    theta, b, a = rng.normal(0, 1.5, models), rng.normal(0, 1.5, items), np.exp(rng.normal(0, 0.3, items))
    p = floor + (1 - floor) * expit(a[None, :] * (theta[:, None] - b[None, :]))
    seen = rng.random((models, items)) >= 0.3
    k = rng.binomial(trials, p) * seen
    return arrays_from_dense(seen * float(trials), np.where(seen, k, 0).astype(float)), theta


def _both(monkeypatch, data, theta, grid, spread, floor):
    """The rows with windows, and with none (a look never worth it)."""
    windowed = spread_rows(data, theta, grid, spread, floor=floor)
    monkeypatch.setattr(sw, "LOOK_TRIALS", np.inf)
    whole = spread_rows(data, theta, grid, spread, floor=floor)
    monkeypatch.undo()
    return windowed, whole


@pytest.mark.parametrize(
    ("models", "trials", "spread", "c", "skips"),
    [(100, 30, 0.1, 0.1, True), (200, 10, 0.3, 0.0, True), (150, 20, 1.2, 0.25, True), (12, 30, 0.3, 0.0, False)],
)
def test_windowed_rows_are_the_whole_rows_near_their_top_and_never_below_them(
    monkeypatch, models, trials, spread, c, skips
):
    """Within ``WINDOW`` of each row's top the windowed rows are the whole rows (the same products), beyond it
    never below them (the bounds read from them are never narrower); and the windows did skip points where the
    rows are narrow (some row flat beyond its window where the whole row falls), at a wide spread too (its nodes
    reach small discriminations, whose terms fall below the rows' tops), none where a dozen models leave every
    row broad (the plan declines)."""
    data, theta = _heavy(models, 300, trials, c, seed=models)
    grid = np.linspace(theta.min() - 4, theta.max() + 4, 200)
    windowed, whole = _both(monkeypatch, data, theta, grid, spread, np.full(300, c))
    near = whole - whole.max(axis=1, keepdims=True) >= -sw.WINDOW
    assert np.allclose(windowed[near], whole[near], rtol=0, atol=1e-9)
    assert np.all(windowed >= whole - 1e-9)
    assert np.any(windowed > whole + 1.0) == skips
    assert skips or np.array_equal(windowed, whole)


def test_the_bounds_from_windowed_rows_are_the_bounds_from_whole_rows(monkeypatch):
    """The bounds on the axis (every one: the detection limit, its ends, the top five, thin stretches, DDM) read
    from windowed rows are those read from whole rows."""
    data, theta = _heavy(200, 250, 10, 0.1, seed=3)
    z = axis_grid()
    grid = np.quantile(theta, 0.02) + (np.quantile(theta, 0.98) - np.quantile(theta, 0.02)) * (z - 0.5) * 1.6
    windowed, whole = _both(monkeypatch, data, theta, grid, 0.15, np.full(250, 0.1))
    assert np.any(windowed > whole + 1.0)
    got, want = axis_bounds(axis_likelihood(windowed, z)).as_dict(), axis_bounds(axis_likelihood(whole, z)).as_dict()
    assert got.keys() == want.keys()
    for key, value in want.items():  # the same to the last digits (the DDM ends' searches stop at their tolerance)
        assert np.allclose(got[key], value, rtol=1e-12, atol=1e-12), key


def test_a_row_whose_window_misses_its_top_is_computed_whole(monkeypatch):
    """A plan whose windows miss where the rows are high (every item given the first eighth of the points) leaves
    edges near the top: those rows are computed whole, and come out as the whole rows."""
    data, theta = _heavy(100, 120, 30, 0.0, seed=8)
    grid = np.linspace(theta.min() - 4, theta.max() + 4, 200)
    real_plan = sw.plan

    def wrong(*args):
        blocks = real_plan(*args)
        assert blocks is not None  # the windows are worth it here
        return [sw.Block(b.items, 0, 200 // 8, b.k0, b.k1) for b in blocks]

    monkeypatch.setattr(sw, "plan", wrong)
    windowed = spread_rows(data, theta, grid, 0.2)
    monkeypatch.undo()
    monkeypatch.setattr(sw, "LOOK_TRIALS", np.inf)
    whole = spread_rows(data, theta, grid, 0.2)
    low = whole.argmax(axis=1) >= 200 // 8 + 10  # items whose top lies well past the wrong window
    assert low.sum() > 50
    assert np.array_equal(windowed[low], whole[low])


def test_windows_that_would_save_little_are_not_used():
    """Rows of a dozen light models are broad: the plan declines (whole rows), and so do rows too light to look."""
    coarse = np.zeros((30, 51))  # flat rows: every point within the window, every node read
    spans = np.zeros((30, 51), np.int64), np.full((30, 51), 40)
    assert sw.plan(coarse, spans, sw.coarse_points(201), np.arange(0, 164, 4), 201, 8, 7) is None
    assert not sw.worth_a_look(sw.LOOK_TRIALS - 1, 200)
    assert not sw.worth_a_look(1e6, 16 * sw.STRIDE - 1)
