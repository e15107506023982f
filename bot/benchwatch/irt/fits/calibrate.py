"""Online calibration: new items with abilities held fixed, or new models with difficulties held fixed."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchwatch.irt.fits.rasch_map import PRIOR_SD_B, PRIOR_SD_THETA
from benchwatch.irt.responses import ResponseArrays


def _newton_1d(
    row: np.ndarray,
    col: np.ndarray,
    trials: np.ndarray,
    successes: np.ndarray,
    fixed: np.ndarray,
    sign: float,
    prior_sd: float,
    n_rows: int,
    floor: np.ndarray | None = None,
):
    """Per-row MAP of x_k with eta = sign * (x_row - fixed_col) over the cells (row, col); every row is its own
    1-D problem. Over the observed cells only, never a models x items array. ``floor``: each cell's chance floor
    (Fisher scoring then; without one, Newton on the Rasch model's exact curvature, which is the same)."""
    from benchwatch.irt.answers import terms

    c = np.zeros(row.size) if floor is None else np.asarray(floor, float)
    x = np.zeros(n_rows)
    for _ in range(100):
        score, info = terms(sign * (x[row] - fixed[col]), c, successes, trials)
        grad = sign * np.bincount(row, score, minlength=n_rows) - x / prior_sd**2
        curv = np.bincount(row, info, minlength=n_rows) + 1 / prior_sd**2
        step = grad / curv
        # Newton on a 1-D log-concave target can overshoot from far away; cap the step.
        x += np.clip(step, -2.0, 2.0)
        if np.max(np.abs(step)) < 1e-10:
            break
    _, info = terms(sign * (x[row] - fixed[col]), c, successes, trials)
    return x, 1 / np.sqrt(np.bincount(row, info, minlength=n_rows) + 1 / prior_sd**2)


def calibrate_items(data: ResponseArrays, theta: pd.Series, sd_b: float = PRIOR_SD_B) -> pd.DataFrame:
    """Difficulties (item_id, b, b_sd, n_responses: the responses of models of known ability) of the items
    in ``data`` given known abilities by model name; an item with none keeps the prior's b = 0. Items with a
    ``chance`` floor in ``data`` are fitted with it."""
    known = np.array([m in theta.index for m in data.models])
    if not known.any():
        raise ValueError("none of the responding models has a known ability")
    fixed = theta.reindex(data.models).to_numpy(float)
    cells = known[data.model_idx]
    item, model = data.item_idx[cells], data.model_idx[cells]
    trials = data.weight[cells]
    floor = None if data.chance is None else data.chance[item]
    b, b_sd = _newton_1d(item, model, trials, trials * data.y[cells], fixed, -1.0, sd_b, data.n_items, floor)
    used = np.bincount(item, minlength=data.n_items)
    return pd.DataFrame({"item_id": data.items, "b": b, "b_sd": b_sd, "n_responses": used})


def calibrate_models(data: ResponseArrays, b: pd.Series, sd_theta: float = PRIOR_SD_THETA) -> pd.DataFrame:
    """Abilities (model, theta, theta_sd, n_responses: the responses to items of known difficulty) of the
    models in ``data`` given known difficulties by item id; a model with none keeps the prior's theta = 0. Items
    with a ``chance`` floor in ``data`` answer with it."""
    known = np.array([i in b.index for i in data.items])
    if not known.any():
        raise ValueError("none of the answered items has a known difficulty")
    fixed = b.reindex(data.items).to_numpy(float)
    cells = known[data.item_idx]
    model, item = data.model_idx[cells], data.item_idx[cells]
    trials = data.weight[cells]
    floor = None if data.chance is None else data.chance[item]
    theta, theta_sd = _newton_1d(
        model, item, trials, trials * data.y[cells], fixed, 1.0, sd_theta, data.n_models, floor
    )
    used = np.bincount(model, minlength=data.n_models)
    return pd.DataFrame({"model": data.models, "theta": theta, "theta_sd": theta_sd, "n_responses": used})
