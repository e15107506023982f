"""Scores, tiers and the models that say nothing: what an audit computes from the responses alone."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchwatch.irt import DEFAULT_SCALE
from benchwatch.metrics import (
    Saturation,
    Tiers,
    band,
    paired_difference,
    paired_saturation_index,
    saturation,
    score_intervals,
    tiers_of,
)
from benchwatch.metrics import model_notes as model_notes  # re-homed (issue 42): light for the small commands
from benchwatch.metrics import split_uninformative as split_uninformative
from benchwatch.metrics import tiers_of_board as tiers_of_board
from benchwatch.pipeline.audit_record import MIN_MODELS, BenchmarkAudit
from benchwatch.store import content_revision


def with_tiers(models: pd.DataFrame, tiers: Tiers) -> pd.DataFrame:
    """A models table with each model's score interval, tier, 95% interval of rank and note (empty beyond the
    tiered ones)."""
    table = (
        pd.DataFrame(tiers.table()).drop(columns="score")
        if tiers.models
        else pd.DataFrame(columns=["model", "score_lo", "score_hi", "tier", "rank_lo", "rank_hi", "note"])
    )
    table = table.astype({"tier": "Int64", "rank_lo": "Int64", "rank_hi": "Int64"})
    out = models.assign(model=models["model"].astype(str)).merge(table, on="model", how="left")
    return out


def too_few(responses: pd.DataFrame) -> str | None:
    """Why the informative models of these responses cannot place items, or None."""
    n = responses["model"].nunique()
    if n < MIN_MODELS:
        return (
            f"too few models to place items: {n} model(s) that tell items apart, at least {MIN_MODELS} are "
            "needed (scores only, no per-item figure or flag)"
        )
    return None


def model_scores(responses: pd.DataFrame) -> pd.DataFrame:
    out = responses.groupby("model", sort=True, observed=True).agg(
        score=("score", "mean"), n_answered=("score", "size"), date=("date", "min")
    )
    out.index = out.index.astype(str)  # the models table's names as text (the responses may hold them as categories)
    return out


def scores_only(
    responses: pd.DataFrame,
    reason: str,
    *,
    source: str,
    synthetic: bool = False,
    scale: str = DEFAULT_SCALE,
    ceiling: float = 1.0,
    uninformative: list | None = None,
) -> BenchmarkAudit:
    """A benchmark whose per-item data cannot place items: its models' scores and saturation only."""
    names = responses["benchmark"].unique()
    models = model_scores(responses).reset_index()
    n_items = responses["item_id"].nunique()
    sat = saturation(models["model"].to_numpy(), models["score"].to_numpy(), n_items, ceiling)
    paired, top_intervals = paired_figures(responses, sat)
    sat = state_from_paired(sat, paired)
    solved = responses.groupby("item_id", observed=True)["score"].max()
    tiers = tiers_of(responses)
    models = with_tiers(models, tiers)
    return BenchmarkAudit(
        benchmark=str(names[0]),
        revision=content_revision(responses),
        source=source,
        synthetic=synthetic,
        method=None,
        scale=scale,
        converged=None,
        coverage=None,
        intervals={},
        saturation=sat,
        solved_share=float(np.mean(solved.to_numpy() > 0)),
        items=pd.DataFrame({"item_id": sorted(responses["item_id"].unique())}),
        models=models,
        paired=paired,
        top_intervals=top_intervals,
        uninformative=list(uninformative or []),
        unplaced=reason,
        tiers=tiers,
    )


def _score_interval(y: np.ndarray) -> tuple[float, float]:
    """A model's 95% score interval from its item scores: ``score_intervals``, the tiers' own."""
    lo, hi = score_intervals(float(np.mean(y)), y.size)
    return float(lo), float(hi)


def paired_figures(responses: pd.DataFrame, sat: Saturation) -> tuple[dict, dict]:
    """The index with the paired item-level SE of top-1 minus top-5, and each top model's 95% interval."""
    names = [m for m, _ in sat.top_models]
    if not names:
        return {}, {}
    wide = responses[responses["model"].isin(names)].pivot(index="item_id", columns="model", values="score")
    intervals = {m: _score_interval(wide[m].dropna().to_numpy()) for m in names}
    if len(names) < 5:
        return {}, intervals
    both = wide[[names[0], names[4]]].dropna()
    if len(both) < 2:
        return {}, intervals
    diff = paired_difference(both[names[0]].to_numpy(), both[names[4]].to_numpy())
    index = paired_saturation_index(diff["difference"], diff["se"])
    return {
        "saturation_index_paired": index,
        "band_paired": band(index),
        "top_gap_se_paired": diff["se"],
        "top_gap_lo": diff["lo"],
        "top_gap_hi": diff["hi"],
        "shared_items_top1_top5": diff["n"],
    }, intervals


def state_from_paired(sat: Saturation, paired: dict) -> Saturation:
    """The saturation with its state decided by the paired item-level comparison of top-1 and top-5 where the
    items allow one (``paired_figures``), the better measure of the noise than the paper's sqrt(n) index."""
    if "top_gap_lo" not in paired:
        return sat
    return sat.decided_by("paired", paired["top_gap_lo"], paired["top_gap_hi"], paired["saturation_index_paired"])


def unauditable(responses: pd.DataFrame) -> str | None:
    """Why one benchmark's responses cannot be audited (one model, one item, no variance), or None."""
    models = responses["model"].unique()
    if len(models) < 2:
        return f"only one model ({models[0]}): difficulties need at least two models to compare"
    if responses["item_id"].nunique() < 2:
        return "only one item: there is no difficulty axis to cover"
    scores = responses["score"].unique()
    if len(scores) == 1:
        return f"no variance: every response scores {scores[0]:g}, so no item is harder than another"
    return None
