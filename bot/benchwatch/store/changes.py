"""What changed between two snapshots of a benchmark: models and items added, removed or rescored."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchwatch.store.snapshots import SNAPSHOT_DIGITS

LISTED = 50  # names listed per change kind; the counts are always complete


def _changed_keys(old: pd.DataFrame, new: pd.DataFrame, keys: list[str], values: list[str], by: str) -> set[str]:
    if old.empty or new.empty:
        return set()
    both = old.merge(new, on=keys, suffixes=("_old", "_new"))
    changed = np.zeros(len(both), bool)
    for col in values:
        a, b = both[f"{col}_old"], both[f"{col}_new"]
        differ = ~((a == b).fillna(False).to_numpy(bool) | (a.isna() & b.isna()).to_numpy(bool))
        if differ.any():  # only the pairs that differ exactly are compared at the snapshot's precision
            pa, pb = _published(a[differ]), _published(b[differ])
            differ[differ] = ~((pa == pb).fillna(False).to_numpy(bool) | (pa.isna() & pb.isna()).to_numpy(bool))
        changed |= differ
    return set(both.loc[changed, by].astype(str))


def _published(values: pd.Series) -> pd.Series:
    """Scores at the precision a snapshot keeps (0.7559999999999999 and 0.756 are one score)."""
    if pd.api.types.is_float_dtype(values):
        return values.map(lambda v: v if pd.isna(v) else f"{v:.{SNAPSHOT_DIGITS}g}")
    return values


def _entry(names: set[str]) -> dict:
    ordered = sorted(names)
    return {"count": len(ordered), "names": ordered[:LISTED]}


def diff_snapshots(old: pd.DataFrame | None, new: pd.DataFrame) -> dict:
    """Models (and, for per-item tables, items) added, removed or rescored since ``old``."""
    per_item = "item_id" in new.columns
    old = new.iloc[0:0] if old is None else old
    names = lambda frame, col: set(frame[col].unique().tolist())  # noqa: E731
    out = {
        "models_added": _entry(names(new, "model") - names(old, "model")),
        "models_removed": _entry(names(old, "model") - names(new, "model")),
    }
    if per_item:
        values = ["score", "trials"]
        keys = ["model", "item_id"]
        out["items_added"] = _entry(names(new, "item_id") - names(old, "item_id"))
        out["items_removed"] = _entry(names(old, "item_id") - names(new, "item_id"))
        out["models_rescored"] = _entry(_changed_keys(old, new, keys, values, "model"))
        out["items_rescored"] = _entry(_changed_keys(old, new, keys, values, "item_id"))
    else:
        out["models_rescored"] = _entry(_changed_keys(old, new, ["model"], ["score", "n_items"], "model"))
    return out
