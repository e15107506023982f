"""Work done a block at a time gives the numbers of the one pass it replaced, bit for bit: the per-item sums of the
cells, the axis likelihood's cells put in item order, the target simulations, and a CSV read as codes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import benchwatch.irt.fits.cells as cells
import benchwatch.metrics.axis as axis
import benchwatch.metrics.resolution as resolution
import benchwatch.sources.local as local
from benchwatch.metrics import UNIFORM
from benchwatch.store import validate_responses


def _cells(n_models: int = 40, n_items: int = 300, seed: int = 5):
    rng = np.random.default_rng(seed)
    m, i = np.nonzero(rng.random((n_models, n_items)) < 0.7)
    trials = rng.integers(1, 4, m.size).astype(float)
    successes = np.floor(rng.random(m.size) * (trials + 1))
    return m.astype(np.int32), i.astype(np.int32), trials, successes, rng.normal(0, 1.2, n_models), n_items


def test_the_per_item_sums_in_blocks_are_the_single_pass(monkeypatch):
    m, i, trials, successes, theta, n_items = _cells()
    order = np.argsort(i, kind="stable")  # in item order, as the patterns hold their cells
    m, i, trials, successes = m[order], i[order], trials[order], successes[order]
    grid = np.linspace(-4, 4, 30)
    whole = cells.cell_loglik(m, i, trials, successes, theta, grid, n_items)
    monkeypatch.setattr(cells, "SUM_CELLS", 97)  # blocks that end mid-way through the cells of many items
    blocked = cells.cell_loglik(m, i, trials, successes, theta, grid, n_items)
    assert np.array_equal(whole, blocked)
    # and against the plain sums written out (an independent calculation, to rounding)
    fails = trials - successes
    level = np.array([np.sum(fails[i == k] * theta[m[i == k]]) for k in range(n_items)])
    assert np.allclose(cells._linear_sums(m, i, trials, successes, np.ones(theta.size), theta, n_items)[0], level)


@pytest.mark.parametrize("floors", [False, True])
def test_the_axis_likelihood_in_blocks_of_items_is_the_one_sorted_pass(monkeypatch, floors):
    """Cells model-major are put in item order a block of items at a time, with chance floors (mixed, some items
    none) as without: the same likelihood as one pass over the cells sorted by item beforehand."""
    m, i, trials, successes, theta, n_items = _cells(seed=6)  # model-major: the cells must be put in item order
    floor = np.random.default_rng(1).choice([0.0, 0.1, 0.25], n_items) if floors else None
    order = np.argsort(i, kind="stable")
    sorted_cells = (m[order], i[order], trials[order], successes[order])
    whole = axis.likelihood_from_cells(*sorted_cells, theta, n_items, "ability-quantile", floor=floor)
    monkeypatch.setattr(axis, "BLOCK_CELLS", 250)
    blocked = axis.likelihood_from_cells(m, i, trials, successes, theta, n_items, "ability-quantile", floor=floor)
    assert np.array_equal(whole.like, blocked.like) and np.array_equal(whole.counts, blocked.counts)


def test_the_target_simulations_in_blocks_are_the_same_draws(monkeypatch):
    whole = (
        resolution.target_reference(50, UNIFORM, replicates=40),
        resolution.sampling_levels(50, UNIFORM, replicates=30),
    )
    monkeypatch.setattr(resolution, "BLOCK_VALUES", 170)  # three rows a block, the last one short
    blocked = (
        resolution.target_reference(50, UNIFORM, replicates=40),
        resolution.sampling_levels(50, UNIFORM, replicates=30),
    )
    assert whole == blocked


def test_a_csv_read_as_codes_keeps_its_text_and_checks_as_the_text_did(tmp_path, monkeypatch):
    text = "benchmark,model,item_id,score\n" + "".join(
        f"b,{m},{i},{(k * 7 + j) % 2}\n"
        for k, m in enumerate(["007", "1.50", "m"])
        for j, i in enumerate(["01", "1", "x"])
    )
    path = tmp_path / "r.csv"
    path.write_text(text)
    monkeypatch.setattr(local, "CHUNK_ROWS", 2)  # five blocks, their categories united
    coded = local.read_csv_text(path, coded=True)
    assert all(isinstance(coded[c].dtype, pd.CategoricalDtype) for c in coded.columns)
    plain = local.read_csv_text(path)
    assert coded.astype(str).equals(plain.astype(str))  # "007" stays "007", "1.50" stays "1.50"
    a, b = validate_responses(coded, "r.csv"), validate_responses(plain, "r.csv")
    for frame in (a, b):
        for c in ("benchmark", "model", "item_id"):
            frame[c] = frame[c].astype(str)
    pd.testing.assert_frame_equal(a, b)
    assert sorted(set(a["model"])) == ["007", "1.50", "m"] and sorted(set(a["item_id"])) == ["01", "1", "x"]
