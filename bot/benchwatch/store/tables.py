"""Validation of the small side tables: item difficulties on z, and known parameters for calibration."""

from __future__ import annotations

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.sources import missing_columns
from benchwatch.store.responses import fail_rows


def is_difficulty_file(columns: list[str]) -> bool:
    """A file with a ``z`` column and no ``score`` column holds difficulties, not responses."""
    return "z" in columns and "score" not in columns


def as_text(raw: pd.DataFrame) -> pd.DataFrame:
    """The table with any column read as categories (``benchwatch.sources.fetch_csv_file``) as plain text."""
    coded = {c: str for c in raw.columns if isinstance(raw[c].dtype, pd.CategoricalDtype)}
    return raw.astype(coded) if coded else raw


def require_columns(raw: pd.DataFrame, source: str, columns: tuple[str, ...]) -> None:
    missing = [c for c in columns if c not in raw.columns]
    if missing:
        raise InputError(source, missing_columns(missing, [str(c) for c in raw.columns]))
    if raw.empty:
        raise InputError(source, "no data rows")


def _numbers(raw: pd.DataFrame, source: str, column: str) -> pd.Series:
    values = pd.to_numeric(raw[column], errors="coerce")
    fail_rows(source, values.isna() | ~values.abs().lt(float("inf")), column, raw[column], "not a finite number")
    return values.astype(float)


def validate_difficulties(raw: pd.DataFrame, source: str) -> pd.DataFrame:
    """A difficulty file: item_id, z in [0, 1], optional benchmark."""
    require_columns(raw, source, ("benchmark", "item_id", "z"))
    raw = as_text(raw).reset_index(drop=True)
    z = _numbers(raw, source, "z")
    fail_rows(source, (z < 0) | (z > 1), "z", raw["z"], "z must lie in [0, 1]")
    out = pd.DataFrame({"benchmark": raw["benchmark"].astype(str), "item_id": raw["item_id"].astype(str), "z": z})
    dup = out.duplicated(["benchmark", "item_id"], keep="first")
    fail_rows(source, dup, "item_id", raw["item_id"], "duplicate item_id")
    return out


def validate_parameters(raw: pd.DataFrame, source: str, key: str, value: str) -> pd.Series:
    """Known parameters for calibration (model,theta or item_id,b) as a Series indexed by ``key``."""
    require_columns(raw, source, (key, value))
    raw = raw.reset_index(drop=True)
    values = _numbers(raw, source, value)
    keys = raw[key].astype(str)
    fail_rows(source, keys.duplicated(keep="first"), key, raw[key], f"duplicate {key}")
    return pd.Series(values.to_numpy(), index=keys.to_numpy(), name=value)
