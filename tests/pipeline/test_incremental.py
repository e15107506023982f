"""Incremental runs calibrate only what is new, and only when nothing seen before changed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchwatch.irt import calibrate_models, encode_responses, fit_map
from benchwatch.pipeline.incremental import calibrated_fit, plan_update
from benchwatch.store import validate_responses
from tests.irt.test_rasch_map import simulate


@pytest.fixture(scope="module")
def full():
    df, _, _ = simulate(30, 120, seed=31)
    return validate_responses(df, "sim")


def test_plans(full):
    old = full[full["model"].astype(str) < "m027"]
    assert plan_update(None, full).kind == "refit"
    plan = plan_update(old, full)
    assert plan.kind == "new-models" and plan.new_models == ("m027", "m028", "m029")
    assert plan_update(full[full["item_id"].astype(str) < "i0110"], full).kind == "new-items"
    changed = full.copy()
    changed.loc[0, "score"] = 1 - changed.loc[0, "score"]
    assert plan_update(full, changed).kind == "refit"
    assert plan_update(full, old).kind == "refit"  # a model vanished
    assert plan_update(full[full["model"].astype(str) < "m010"], full).kind == "refit"  # too many new ones
    both = full[(full["model"].astype(str) < "m029") & (full["item_id"].astype(str) < "i0119")]
    assert plan_update(both, full).kind == "refit"


def test_calibrated_fit_keeps_the_old_estimates_and_adds_the_new(full):
    old = full[full["model"].astype(str) < "m027"]
    fit = fit_map(encode_responses(old))
    items = pd.DataFrame({"item_id": fit.items, "b": fit.b, "b_sd": fit.b_sd})
    models = pd.DataFrame({"model": fit.models, "theta": fit.theta, "theta_sd": fit.theta_sd})
    plan = plan_update(old, full)
    out = calibrated_fit(full, plan, items, models, n_draws=10)
    assert list(out.models) == sorted(full["model"].unique())
    np.testing.assert_array_equal(out.b, fit.b)
    np.testing.assert_array_equal(out.theta[:27], fit.theta)
    direct = calibrate_models(
        encode_responses(full[full["model"].astype(str) >= "m027"]), pd.Series(fit.b, index=fit.items)
    )
    np.testing.assert_allclose(out.theta[27:], direct["theta"].to_numpy())
    refit = fit_map(encode_responses(full))
    assert np.max(np.abs(out.theta - refit.theta)) < 0.15
    assert out.b_draws.shape == (10, 120)
