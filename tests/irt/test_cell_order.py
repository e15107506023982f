"""The compiled counting passes that order a benchmark's cells (``benchwatch.irt.fits.cell_kernels``, issue 42: less
memory at 38 million cells) give exactly what the sorts they replace give: NumPy's stable argsort by item, and the
patterns' cells gathered by a stable sort by pattern (the construction ``cell_patterns`` had before, written here
as the reference); the bounds' likelihood from the cells' share equals the one from their successes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchwatch.irt import cell_patterns, cells_by_item, encode_responses
from benchwatch.metrics import likelihood_from_cells


@pytest.mark.parametrize("n", [0, 1, 7, 5000])
def test_cells_by_item_is_the_stable_argsort(n):
    rng = np.random.default_rng(n)
    items = rng.integers(0, 40, n)
    for codes in (items.astype(np.int32), items.astype(np.int64)):  # counted, and the argsort fallback
        order = cells_by_item(codes, 40)
        assert np.array_equal(order, np.argsort(items, kind="stable"))
    assert cells_by_item(items.astype(np.int32), 40).dtype == np.int32


def _reference(data):
    """The patterns' cells by a stable sort: one item per pattern, its cells in order, patterns in key order."""
    keys = pd.DataFrame({"i": data.item_idx, "m": data.model_idx, "w": data.weight, "s": data.weight * data.y})
    per_item = keys.sort_values(["i", "m"], kind="stable").groupby("i")[["m", "w", "s"]].agg(tuple)
    return per_item


def _rows(rng, n_models, n_items, blanks, several):
    rows = [(f"m{j:02d}", f"i{i:03d}") for j in range(n_models) for i in range(n_items) if rng.random() >= blanks]
    frame = pd.DataFrame(rows, columns=["model", "item_id"])
    k = rng.integers(1, 4, len(frame)) if several else np.ones(len(frame), int)
    frame["score"] = rng.integers(0, 4, len(frame)).clip(max=k) / k
    frame["trials"] = k
    return frame


@pytest.mark.parametrize(
    ("n_models", "n_items", "blanks", "several"), [(4, 300, 0.0, False), (30, 200, 0.3, False), (12, 150, 0.2, True)]
)
def test_cell_patterns_gather_each_patterns_cells_in_order(n_models, n_items, blanks, several):
    rng = np.random.default_rng(n_models)
    data = encode_responses(_rows(rng, n_models, n_items, blanks, several))
    per_item = _reference(data)
    cp = cell_patterns(data)
    assert cp.model_idx.dtype == cp.pattern_idx.dtype == np.int32
    assert np.all(np.diff(cp.pattern_idx) >= 0) and cp.counts.sum() == data.n_items
    for p in range(cp.n_patterns):
        members = np.flatnonzero(cp.pattern == p)
        own = cp.pattern_idx == p
        got = (tuple(cp.model_idx[own]), tuple(cp.trials[own]), tuple(cp.successes[own]))
        for item in members:  # every item of the pattern has exactly these cells, in model order
            assert got == per_item.loc[item, ["m", "w", "s"]].apply(tuple).pipe(tuple)
        assert cp.counts[p] == members.size
    if n_models == 4:  # four complete binary models: at most 2^4 patterns, so items collapse
        assert cp.n_patterns <= 16 < data.n_items


def test_the_bounds_likelihood_from_the_share_equals_the_one_from_successes():
    rng = np.random.default_rng(3)
    data = encode_responses(_rows(rng, 25, 120, 0.3, True))
    theta, sd = rng.normal(0, 1, data.n_models), np.full(data.n_models, 0.3)
    import benchwatch.metrics.axis as axis

    for block in (axis.BLOCK_CELLS, 50):  # one pass, and blocks of items
        old = axis.BLOCK_CELLS
        axis.BLOCK_CELLS = block
        try:
            for floor in (None, np.full(data.n_items, 0.25)):
                s = data.weight * data.y
                args = (data.model_idx, data.item_idx, data.weight)
                a = likelihood_from_cells(*args, s, theta, data.n_items, "ability-quantile", theta_sd=sd, floor=floor)
                b = likelihood_from_cells(
                    *args, None, theta, data.n_items, "ability-quantile", theta_sd=sd, floor=floor, share=data.y
                )
                assert np.array_equal(a.like, b.like) and np.array_equal(a.counts, b.counts)
        finally:
            axis.BLOCK_CELLS = old
    with pytest.raises(ValueError, match="successes or their share"):
        likelihood_from_cells(data.model_idx, data.item_idx, data.weight, None, theta, data.n_items, "ability-quantile")
