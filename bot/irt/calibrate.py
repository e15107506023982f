"""Online calibration: new items with abilities held fixed, or new models with difficulties held fixed."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

from bot.irt.rasch_map import PRIOR_SD_B, PRIOR_SD_THETA
from bot.irt.responses import ResponseArrays


def _newton_1d(trials: np.ndarray, successes: np.ndarray, fixed: np.ndarray, sign: float, prior_sd: float):
    """Per-row MAP of x_k with eta_kl = sign * (x_k - fixed_l); every row is its own 1-D problem."""
    x = np.zeros(trials.shape[0])
    for _ in range(100):
        p = expit(sign * (x[:, None] - fixed[None, :]))
        grad = sign * (successes - trials * p).sum(axis=1) - x / prior_sd**2
        curv = (trials * p * (1 - p)).sum(axis=1) + 1 / prior_sd**2
        step = grad / curv
        # Newton on a 1-D log-concave target can overshoot from far away; cap the step.
        x += np.clip(step, -2.0, 2.0)
        if np.max(np.abs(step)) < 1e-10:
            break
    p = expit(sign * (x[:, None] - fixed[None, :]))
    return x, 1 / np.sqrt((trials * p * (1 - p)).sum(axis=1) + 1 / prior_sd**2)


def calibrate_items(data: ResponseArrays, theta: pd.Series, sd_b: float = PRIOR_SD_B) -> pd.DataFrame:
    """Difficulties (item_id, b, b_sd, n_responses: the responses of models of known ability) of the items
    in ``data`` given known abilities by model name; an item with none keeps the prior's b = 0."""
    known = np.array([m in theta.index for m in data.models])
    if not known.any():
        raise ValueError("none of the responding models has a known ability")
    trials, successes = data.dense()
    fixed = theta.reindex(data.models[known]).to_numpy(float)
    b, b_sd = _newton_1d(trials[known].T, successes[known].T, fixed, -1.0, sd_b)
    used = (trials[known] > 0).sum(axis=0)
    return pd.DataFrame({"item_id": data.items, "b": b, "b_sd": b_sd, "n_responses": used})


def calibrate_models(data: ResponseArrays, b: pd.Series, sd_theta: float = PRIOR_SD_THETA) -> pd.DataFrame:
    """Abilities (model, theta, theta_sd, n_responses: the responses to items of known difficulty) of the
    models in ``data`` given known difficulties by item id; a model with none keeps the prior's theta = 0."""
    known = np.array([i in b.index for i in data.items])
    if not known.any():
        raise ValueError("none of the answered items has a known difficulty")
    trials, successes = data.dense()
    fixed = b.reindex(data.items[known]).to_numpy(float)
    theta, theta_sd = _newton_1d(trials[:, known], successes[:, known], fixed, 1.0, sd_theta)
    used = (trials[:, known] > 0).sum(axis=1)
    return pd.DataFrame({"model": data.models, "theta": theta, "theta_sd": theta_sd, "n_responses": used})
