"""History by date: each date's figures are those of the models published by then."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchwatch.irt import DEFAULT_SCALE, encode_responses, fit_map, item_posterior_dense, marginal_abilities
from benchwatch.metrics import posterior_z_draws, saturation_index
from benchwatch.metrics.coverage import coverage_draws
from benchwatch.pipeline.by_date import BY_DATE_DRAWS, first_saturated, history_by_date, saturation_runs
from benchwatch.store import validate_responses
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
    out = history_by_date(dated, refit_growth=1.0)  # every ability refitted at every date
    for _, row in out.iterrows():
        pool = dated[dated["date"] <= row["date"]]
        data = encode_responses(pool)  # a cold fit of this date's pool alone, by the same estimator
        trials, successes = data.dense()
        theta, _ = marginal_abilities(trials, successes, fit_map(data).theta)
        post = item_posterior_dense(trials, successes, theta, prior_uncertainty=False)  # the dense reference
        z = posterior_z_draws(theta, DEFAULT_SCALE, BY_DATE_DRAWS, np.random.default_rng(0), post, hyper=1)
        assert row["ddm"] == pytest.approx(float(np.median(coverage_draws(z)["ddm"])), abs=1e-4)
        if row["n_models"] >= 5:
            top = np.sort(pool.groupby("model")["score"].mean().to_numpy())[::-1]
            assert row["saturation_index"] == pytest.approx(saturation_index(top[0], top[4], pool["item_id"].nunique()))


def test_held_abilities_stay_within_a_small_drift_of_refitting_every_date(dated):
    every = history_by_date(dated, refit_growth=1.0)
    one_pass = history_by_date(dated)  # refits only when the pool has doubled, and at the last date
    for fig in ("ddm", "max_gap", "top5_gap_sum"):
        np.testing.assert_allclose(one_pass[fig], every[fig], atol=2e-3)
    assert not np.allclose(one_pass["ddm"], every["ddm"], atol=1e-7, rtol=0)  # it really held some abilities
    np.testing.assert_allclose(one_pass["ddm"].iloc[-1], every["ddm"].iloc[-1], atol=1e-4)  # last date refitted


def test_time_to_saturation_is_the_first_date_the_state_was_saturated():
    """One rule per claim: the state's (the tiers), not the paper's index at 0.7 beside it."""
    table = pd.DataFrame(
        {
            "date": ["2025-01-01", "2025-02-01", "2025-03-01"],
            "saturation_index": [0.9, 0.2, 0.5],  # the index says nothing of it
            "state": ["stagnant", "saturated", "discriminating"],
        }
    )
    assert first_saturated(table) == "2025-02-01"
    assert first_saturated(table.assign(state=["stagnant", "discriminating", "unknown"])) is None


def test_each_dates_state_follows_its_tiers(dated):
    """The history's state at every date is the one rule's at that date: within noise exactly when the best's
    tier holds five models or more (the state and the top tier of each row agree)."""
    table = history_by_date(dated)
    assert len(table) >= 2
    for _, row in table.iterrows():
        if row["state"] == "unknown":
            continue
        assert (row["state"] != "discriminating") == (row["top_tier_size"] >= 5), row.to_dict()


def test_saturation_runs_read_the_history_by_date():
    table = pd.DataFrame(
        {
            "date": ["2025-01-01", "2025-02-01", "2025-03-01", "2025-04-01", "2025-05-01"],
            "saturation_index": [0.2, 0.75, 0.5, 0.8, 0.9],
            "state": ["discriminating", "saturated", "discriminating", "saturated", "saturated"],
        }
    )
    assert saturation_runs(table) == {
        "first_saturated_date": "2025-02-01",
        "fell_back_date": "2025-03-01",
        "saturated_since": "2025-04-01",
    }
    one = table.assign(state=["discriminating"] * 4 + ["saturated"])  # one date is not a run
    assert saturation_runs(one)["saturated_since"] is None
    never = table.assign(saturation_index=[0.1] * 5, state=["discriminating"] * 5)
    assert saturation_runs(never) == {"first_saturated_date": None, "fell_back_date": None, "saturated_since": None}


def test_with_chance_floors_each_date_equals_an_independent_fit_of_its_pool(dated):
    """Issue 37: with chance floors (four options, guessed at half) the history by date is the same estimator as
    a cold fit of each date's pool: the marginal abilities at the floors (the plain EM of the floored answers,
    ``marginal_abilities_patterns``), each item's exact grid posterior with its floor."""
    from benchwatch.irt import cell_patterns, item_posterior, marginal_abilities_patterns

    floored = dated.assign(chance=0.25)
    out = history_by_date(floored, refit_growth=1.0, floor_share=0.5)
    plain = history_by_date(dated, refit_growth=1.0)
    assert not np.allclose(out["ddm"], plain["ddm"], atol=1e-3)  # the floor is really in
    for _, row in out.iloc[2:].iterrows():
        pool = floored[floored["date"] <= row["date"]]
        data = encode_responses(pool)
        floor = 0.5 * data.chance
        cp = cell_patterns(data, floor)
        theta, _ = marginal_abilities_patterns(cp, fit_map(data, floor=floor).theta)
        post = item_posterior(data, theta, patterns=cp, prior_uncertainty=False)
        z = posterior_z_draws(theta, DEFAULT_SCALE, BY_DATE_DRAWS, np.random.default_rng(0), post, hyper=1)
        assert row["ddm"] == pytest.approx(float(np.median(coverage_draws(z)["ddm"])), abs=2e-3)
