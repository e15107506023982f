"""Incremental runs: calibrate only what is new when nothing already seen has changed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchwatch.irt import RaschFit, calibrate_items, calibrate_models, encode_responses

MAX_NEW_SHARE = 0.25  # beyond this many new models (items) per known one, refit everything


@dataclass(frozen=True)
class Update:
    """How a benchmark's responses changed since its last snapshot."""

    kind: str  # "refit", "new-models", "new-items"
    new_models: tuple[str, ...] = ()
    new_items: tuple[str, ...] = ()


def plan_update(old: pd.DataFrame | None, new: pd.DataFrame) -> Update:
    """new-models / new-items when only those arrived and every old cell is unchanged, else refit."""
    if old is None:
        return Update("refit")
    old_models, new_models = set(old["model"]), set(new["model"])
    old_items, new_items = set(old["item_id"]), set(new["item_id"])
    if not (old_models <= new_models and old_items <= new_items):
        return Update("refit")
    cols = ["model", "item_id", "score", "trials"]
    # the names compared as names: the two tables' categories (every name each one holds) differ by the new ones
    names = {"model": object, "item_id": object}
    seen = new[new["model"].isin(old_models) & new["item_id"].isin(old_items)][cols].astype(names)
    before = old[cols].astype(names)
    if len(seen) != len(before) or not seen.reset_index(drop=True).equals(before.reset_index(drop=True)):
        return Update("refit")
    added_models = tuple(sorted(new_models - old_models))
    added_items = tuple(sorted(new_items - old_items))
    if added_models and not added_items and len(added_models) <= MAX_NEW_SHARE * len(old_models):
        return Update("new-models", new_models=added_models)
    if added_items and not added_models and len(added_items) <= MAX_NEW_SHARE * len(old_items):
        return Update("new-items", new_items=added_items)
    return Update("refit")


def calibrated_fit(
    responses: pd.DataFrame,
    update: Update,
    items: pd.DataFrame,
    models: pd.DataFrame,
    *,
    n_draws: int = 200,
    seed: int = 0,
) -> RaschFit:
    """The previous fit extended by calibrating the new models or items (the rest held fixed)."""
    theta = models.set_index("model")
    b = items.set_index("item_id")
    if update.kind == "new-models":
        rows = responses[responses["model"].isin(update.new_models)]
        new = calibrate_models(encode_responses(rows), b["b"]).set_index("model")
        theta = pd.concat([theta[["theta", "theta_sd"]], new]).sort_index()
    elif update.kind == "new-items":
        rows = responses[responses["item_id"].isin(update.new_items)]
        new = calibrate_items(encode_responses(rows), theta["theta"]).set_index("item_id")
        b = pd.concat([b[["b", "b_sd"]], new]).sort_index()
    else:
        raise ValueError(f"nothing to calibrate for an update of kind {update.kind!r}")
    rng = np.random.default_rng(seed)
    # Draws from independent normals: the calibrated parts have no joint Laplace factor.
    theta_draws = theta["theta"].to_numpy() + rng.standard_normal((n_draws, len(theta))) * theta["theta_sd"].to_numpy()
    b_draws = b["b"].to_numpy() + rng.standard_normal((n_draws, len(b))) * b["b_sd"].to_numpy()
    return RaschFit(
        models=theta.index.to_numpy(dtype=object),
        items=b.index.to_numpy(dtype=object),
        theta=theta["theta"].to_numpy(),
        theta_sd=theta["theta_sd"].to_numpy(),
        b=b["b"].to_numpy(),
        b_sd=b["b_sd"].to_numpy(),
        method="map",
        converged=True,
        diagnostics={
            "calibrated_models": len(update.new_models),
            "calibrated_items": len(update.new_items),
        },
        theta_draws=theta_draws,
        b_draws=b_draws,
    )
