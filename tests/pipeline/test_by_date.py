"""History by date: each date's figures are those of the models published by then."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bot.irt import difficulty_z, encode_responses, fit_map
from bot.metrics import coverage, saturation_index
from bot.pipeline.by_date import first_saturated, history_by_date
from bot.store import validate_responses
from tests.irt.test_rasch_map import simulate


@pytest.fixture(scope="module")
def dated():
    df, _, _ = simulate(12, 80, seed=81)
    days = {f"m{j:03d}": f"2025-0{1 + j // 2}-01" for j in range(12)}  # two models per month
    df["date"] = df["model"].map(days)
    return validate_responses(df, "sim")


def test_one_row_per_date_with_the_pool_of_that_date(dated):
    out = history_by_date(dated)
    assert out["date"].tolist() == [f"2025-0{k}-01" for k in range(1, 7)]
    assert out["n_models"].tolist() == [2, 4, 6, 8, 10, 12]
    assert out["saturation_index"].isna().tolist() == [True, True, False, False, False, False]


def test_each_date_equals_an_independent_fit_of_its_pool(dated):
    out = history_by_date(dated)
    for _, row in out.iterrows():
        pool = dated[dated["date"] <= row["date"]]
        fit = fit_map(encode_responses(pool))
        assert row["ddm"] == pytest.approx(coverage(difficulty_z(fit.b, fit.theta)).ddm, abs=1e-6)
        if row["n_models"] >= 5:
            top = np.sort(pool.groupby("model")["score"].mean().to_numpy())[::-1]
            assert row["saturation_index"] == pytest.approx(saturation_index(top[0], top[4], pool["item_id"].nunique()))


def test_time_to_saturation_is_the_first_date_at_07():
    table = pd.DataFrame({"date": ["2025-01-01", "2025-02-01", "2025-03-01"], "saturation_index": [0.2, 0.71, 0.5]})
    assert first_saturated(table) == "2025-02-01"
    assert first_saturated(table.assign(saturation_index=[0.1, None, 0.69])) is None
