"""Issue 60: a figure the page withholds is withheld everywhere on the page, its history included (LiveCodeBench's
figures table said DDM and Max Gap were withheld while its History table showed them)."""

from __future__ import annotations

import pandas as pd
import pytest

from benchwatch.record import as_record
from benchwatch.site.benchmark import _by_date_rows, _history_rows
from benchwatch.site.cells import WITHHELD_CELL

HISTORY = pd.DataFrame(
    {
        "benchmark": ["b", "b"],
        "snapshot_at": ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"],
        "revision": ["a" * 40, "b" * 40],
        "ddm": [0.137, 0.141],
        "max_gap": [0.011, 0.012],
        "saturation_index": [0.2, 0.3],
        "state": ["discriminating", "discriminating"],
    }
)
BY_DATE = pd.DataFrame(
    {
        "date": ["2025-01-01"],
        "n_models": [12],
        "saturation_index": [0.4],
        "band": ["moderate"],
        "state": ["stagnant"],
        "top1": [0.6],
        "top5": [0.55],
        "ddm": [0.137],
        "max_gap": [0.011],
        "top_tier_size": [7],
    }
)


@pytest.mark.parametrize("item_model", ["withheld", "1pl"])
def test_the_history_tables_withhold_what_the_page_withholds(item_model):
    rec = as_record({"benchmark": "b", "item_model": item_model})
    history = _history_rows(rec, HISTORY)
    by_date = _by_date_rows(BY_DATE, withheld=item_model == "withheld")
    cells = [row[2:4] for row in history] + [row[6:8] for row in by_date]
    if item_model == "withheld":
        assert all(cell == WITHHELD_CELL for pair in cells for cell in pair)
        assert not any("0.137" in c or "0.011" in c for row in history + by_date for c in row)
    else:
        assert history[0][2:4] == ["0.141", "0.012"] and by_date[0][6:8] == ["0.137", "0.011"]
