"""Turn the long table of one benchmark into the index arrays the fitters use."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class ResponseArrays:
    """One benchmark's observed cells as flat arrays (missing cells are simply absent)."""

    models: np.ndarray  # model names, sorted
    items: np.ndarray  # item ids, sorted
    model_idx: np.ndarray  # int32, per observed cell
    item_idx: np.ndarray  # int32, per observed cell
    y: np.ndarray  # observed success fraction per cell
    weight: np.ndarray  # Binomial trials per cell (1 for a Bernoulli or quasi-Bernoulli cell)

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_items(self) -> int:
        return len(self.items)


def encode_responses(df: pd.DataFrame) -> ResponseArrays:
    """Encode one benchmark's rows: Binomial(k, p) with round(score*k) successes where trials k is known."""
    model_idx, models = pd.factorize(df["model"], sort=True)
    item_idx, items = pd.factorize(df["item_id"], sort=True)
    score = df["score"].to_numpy(dtype=float)
    if "trials" in df.columns:
        trials = df["trials"].astype("Float64").fillna(1.0).to_numpy(dtype=float)
    else:
        trials = np.ones_like(score)
    has_trials = trials > 1
    y = np.where(has_trials, np.round(score * trials) / trials, score)
    return ResponseArrays(
        models=np.asarray(models, dtype=object),
        items=np.asarray(items, dtype=object),
        model_idx=model_idx.astype(np.int32),
        item_idx=item_idx.astype(np.int32),
        y=y,
        weight=trials,
    )
