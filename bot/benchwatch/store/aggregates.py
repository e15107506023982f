"""Validation of aggregate-only leaderboards: benchmark, model, score, n_items (and optional date)."""

from __future__ import annotations

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.store.responses import (
    canonical_names,
    check_name_length,
    fail_rows,
    iso_dates,
    merged_names,
    percent_hint,
)
from benchwatch.store.tables import require_columns

AGGREGATE_COLUMNS = ("benchmark", "model", "score", "n_items")


def validate_aggregates(raw: pd.DataFrame, source: str, *, percent: bool = False) -> pd.DataFrame:
    """Typed aggregate rows with scores as proportions; one test-set size per benchmark."""
    require_columns(raw, source, AGGREGATE_COLUMNS)
    raw = raw.reset_index(drop=True)
    for col in ("benchmark", "model"):
        check_name_length(source, col, raw[col])
    out = pd.DataFrame({"benchmark": canonical_names(raw["benchmark"]), "model": canonical_names(raw["model"])})
    fail_rows(source, out["model"].eq(""), "model", raw["model"], "empty value")
    score = pd.to_numeric(raw["score"], errors="coerce")
    fail_rows(source, score.isna(), "score", raw["score"], "score is missing or not a number")
    top = 100.0 if percent else 1.0
    hint = "" if percent else percent_hint(score, "--percent")
    fail_rows(source, (score < 0) | (score > top), "score", raw["score"], f"score must lie in [0, {top:g}]{hint}")
    if percent and len(score) and score.max() <= 1:  # proportions read as percentages would all be below 1%
        shown = ", ".join(f"{v:g}" for v in score.head(3))
        raise InputError(
            source,
            f"--percent, but every score is at most 1 ({shown}{', ...' if len(score) > 3 else ''}): they look like "
            "proportions already; run without --percent",
            field="score",
        )
    out["score"] = score / top
    n = pd.to_numeric(raw["n_items"], errors="coerce")
    fail_rows(
        source, n.isna() | (n < 1) | (n % 1 != 0), "n_items", raw["n_items"], "n_items must be a whole number >= 1"
    )
    out["n_items"] = n.astype(int)
    if "date" in raw.columns:
        text = raw["date"].astype(str).str.strip()
        date = iso_dates(text)
        fail_rows(source, date.isna() & text.ne(""), "date", raw["date"], "not an ISO date")
        out["date"] = date
    if "stderr" in raw.columns:  # optional: the source's own standard error of the score
        text = raw["stderr"].astype(str).str.strip()
        err = pd.to_numeric(text.where(text.ne("")), errors="coerce")
        fail_rows(source, (err.isna() & text.ne("")) | (err < 0), "stderr", raw["stderr"], "not a number >= 0")
        out["stderr"] = err / top
    sizes = out.groupby("benchmark")["n_items"].nunique()
    for name in sizes[sizes > 1].index:
        values = sorted(out.loc[out["benchmark"] == name, "n_items"].unique())
        raise InputError(source, f"benchmark {name!r} has more than one test-set size", field="n_items", value=values)
    merged = merged_names(raw, out, ["benchmark", "model"])
    dup = out.duplicated(["benchmark", "model"], keep="first")
    same = out.duplicated(keep="first")  # another spelling of a name, with the same figures: one row
    respelled = raw["model"].astype(str).ne(out["model"]) | raw["benchmark"].astype(str).ne(out["benchmark"])
    keep = ~(same & dup)
    conflict = dup & keep
    message = "duplicate (benchmark, model)"
    if respelled.any():
        message += " once names are normalised (Unicode NFKC, spaces), with different figures"
    fail_rows(source, conflict, "model", raw["model"], message)
    out = out[keep].reset_index(drop=True)
    out.attrs["merged"] = merged
    return out
