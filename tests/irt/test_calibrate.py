"""Online calibration against brute-force one-dimensional maximisation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import optimize, stats
from scipy.special import expit

from benchwatch.irt import calibrate_items, calibrate_models, encode_responses, fit_map, neg_log_posterior
from tests.irt.test_rasch_map import simulate


def brute_mode(successes, trials, fixed, sign, prior_sd):
    def neg(x):
        p = expit(sign * (x - fixed))
        return -(stats.binom.logpmf(successes, trials, p).sum() + stats.norm.logpdf(x, 0, prior_sd))

    return optimize.minimize_scalar(neg, bounds=(-15, 15), method="bounded", options={"xatol": 1e-10}).x


def test_new_items_given_fixed_abilities():
    df, theta, _ = simulate(25, 6, seed=20)
    theta_by_model = pd.Series(theta, index=[f"m{j:03d}" for j in range(25)])
    out = calibrate_items(encode_responses(df), theta_by_model, sd_b=3.0)
    for k, item in enumerate(out["item_id"]):
        rows = df[df["item_id"] == item].sort_values("model")
        expected = brute_mode(rows["score"].to_numpy(), 1, theta_by_model[rows["model"]].to_numpy(), -1.0, 3.0)
        assert abs(out["b"].iloc[k] - expected) < 1e-6


def test_new_models_given_fixed_difficulties_with_trials():
    rng = np.random.default_rng(21)
    b = pd.Series(rng.normal(size=30), index=[f"i{k:02d}" for k in range(30)])
    k = rng.integers(0, 6, size=(3, 30))
    df = pd.DataFrame(
        {
            "benchmark": "x",
            "model": np.repeat(["a", "b", "c"], 30),
            "item_id": np.tile(b.index, 3),
            "score": (k / 5).ravel(),
            "trials": pd.array([5] * 90, dtype="Int64"),
        }
    )
    out = calibrate_models(encode_responses(df), b, sd_theta=3.0)
    for j in range(3):
        assert abs(out["theta"].iloc[j] - brute_mode(k[j], 5, b.to_numpy(), 1.0, 3.0)) < 1e-6
    assert np.all(out["theta_sd"] > 0)


def test_calibration_agrees_with_a_joint_refit_when_the_rest_is_large():
    df, _, _ = simulate(50, 400, seed=22)
    old = df[df["model"] != "m049"]
    fit = fit_map(encode_responses(old))
    new = df[df["model"] == "m049"]
    cal = calibrate_models(encode_responses(new), pd.Series(fit.b, index=fit.items))
    full = fit_map(encode_responses(df))
    assert abs(cal["theta"].iloc[0] - full.theta[-1]) < 0.1


def test_objective_is_the_binomial_log_posterior():
    df, _, _ = simulate(5, 7, seed=23)
    df["trials"] = pd.array(np.random.default_rng(1).integers(1, 4, len(df)), dtype="Int64")
    df["score"] = np.round(df["score"] * df["trials"].astype(float)) / df["trials"].astype(float)
    data = encode_responses(df)
    x = np.random.default_rng(2).normal(size=12)
    theta, b = x[:5], x[5:]
    k = np.round(data.y * data.weight)
    p = expit(theta[data.model_idx] - b[data.item_idx])
    exact = stats.binom.logpmf(k, data.weight, p).sum() + stats.norm.logpdf(x, 0, 3.0).sum()
    const = np.log([float(math.comb(int(n), int(s))) for n, s in zip(data.weight, k, strict=True)]).sum()
    const += 12 * stats.norm.logpdf(0, 0, 3.0)
    assert abs(-neg_log_posterior(x, data, 3.0, 3.0)[0] - (exact - const)) < 1e-9
