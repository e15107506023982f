"""Encoding a benchmark's rows (``benchwatch.irt.encode_responses``): each item's nominal floor read a block of rows
at a time is what the rows say, whatever the blocks' edges cut."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchwatch.irt import encode_responses
from benchwatch.irt import responses as encoding


def test_the_floors_read_a_block_at_a_time_are_the_rows_floors(monkeypatch):
    """Rows in any order, some with no floor (NaN), one item given two floors by two sources (the larger is its
    floor), items with none: the floor of each item, by a pass over every row, with blocks of 1, 7 and all rows."""
    rng = np.random.default_rng(5)
    n = 400
    items = rng.integers(0, 30, n)
    floors = np.where(items % 3 == 0, np.nan, 1.0 / (2 + items % 4))  # a third of the items open-ended
    floors[rng.random(n) < 0.2] = np.nan  # rows that give none
    floors[items == 4] = np.where(rng.random(int(np.sum(items == 4))) < 0.5, 0.2, 0.25)  # two sources disagree
    frame = pd.DataFrame(
        {
            "model": [f"m{k}" for k in rng.integers(0, 12, n)],
            "item_id": [f"i{k:02d}" for k in items],
            "score": rng.integers(0, 2, n).astype(float),
            "chance": floors,
        }
    )
    truth = {}
    for item, floor in zip(frame["item_id"], floors, strict=True):
        truth[item] = max(truth.get(item, 0.0), 0.0 if np.isnan(floor) else floor)
    for block in (1, 7, n):
        monkeypatch.setattr(encoding, "CHANCE_BLOCK", block)
        data = encode_responses(frame)
        assert data.chance is not None
        assert dict(zip(data.items, data.chance.tolist(), strict=True)) == truth, block
    assert truth["i04"] == 0.25
