"""Turn the long table of one benchmark into the arrays the fitters use."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class ResponseArrays:
    """One benchmark's observed cells (missing cells are simply absent, never imputed)."""

    models: np.ndarray  # model names, sorted
    items: np.ndarray  # item ids, sorted
    model_idx: np.ndarray  # int32, per observed cell
    item_idx: np.ndarray  # int32, per observed cell
    y: np.ndarray  # observed success fraction per cell
    weight: np.ndarray  # Binomial trials per cell (1 for a Bernoulli or quasi-Bernoulli cell)
    chance: np.ndarray | None = None  # per item: its nominal chance floor (1 / options; 0 open-ended), if any given

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def fill(self) -> float:
        """Share of the model x item matrix that is observed."""
        return self.model_idx.size / max(1, self.n_models * self.n_items)

    def dense(self) -> tuple[np.ndarray, np.ndarray]:
        """(W, S): trials and successes as model x item matrices; a missing cell has W = S = 0."""
        flat = self.model_idx.astype(np.int64) * self.n_items + self.item_idx
        size = self.n_models * self.n_items
        shape = (self.n_models, self.n_items)
        trials = np.bincount(flat, self.weight, minlength=size).reshape(shape)
        successes = np.bincount(flat, self.weight * self.y, minlength=size).reshape(shape)
        return trials, successes


CHANCE_BLOCK = 1_000_000  # rows read at a time for the items' floors


def encode_responses(df: pd.DataFrame) -> ResponseArrays:
    """Encode one benchmark's rows: Binomial(k, p) with round(score*k) successes where trials k is known."""
    # Each column made in turn, with as few arrays of the cells' size beside it as may be (at 38 million cells each
    # is 0.15-0.3 GB): the codes narrowed as they come, the trials read with a missing count as 1 in one pass, the
    # rounding only where some cell has more than one trial.
    model_idx, models = pd.factorize(df["model"], sort=True)
    model_idx = model_idx.astype(np.int32)
    item_idx, items = pd.factorize(df["item_id"], sort=True)
    item_idx = item_idx.astype(np.int32)
    score = df["score"].to_numpy(dtype=float)
    trials = df["trials"].to_numpy(dtype=float, na_value=1.0) if "trials" in df.columns else np.ones_like(score)
    several = trials > 1
    y = np.where(several, np.round(score * trials) / trials, score) if several.any() else score.copy()
    del several
    chance = None
    if "chance" in df.columns and df["chance"].notna().any():  # one value per item (validated so), 0 where none
        chance = np.zeros(len(items))
        given = df["chance"].to_numpy(dtype=float)
        for lo in range(0, given.size, CHANCE_BLOCK):  # the rows that give one, a block at a time (at 38 million
            # cells, all at once held 0.5 GB beside the table)
            part = given[lo : lo + CHANCE_BLOCK]
            has = ~np.isnan(part)
            np.maximum.at(chance, item_idx[lo : lo + CHANCE_BLOCK][has], part[has])  # two sources' rows: the larger
    return ResponseArrays(
        models=np.asarray(models, dtype=object),
        items=np.asarray(items, dtype=object),
        model_idx=model_idx,
        item_idx=item_idx,
        y=y,
        weight=trials,
        chance=chance,
    )


def arrays_from_dense(trials: np.ndarray, successes: np.ndarray) -> ResponseArrays:
    """Response arrays from model x item matrices of trials (0 where missing) and successes."""
    n_models, n_items = trials.shape
    model_idx, item_idx = np.nonzero(trials > 0)
    w = trials[model_idx, item_idx]
    return ResponseArrays(
        models=np.array([f"m{j:06d}" for j in range(n_models)], dtype=object),
        items=np.array([f"i{i:07d}" for i in range(n_items)], dtype=object),
        model_idx=model_idx.astype(np.int32),
        item_idx=item_idx.astype(np.int32),
        y=successes[model_idx, item_idx] / w,
        weight=w,
    )
