"""The audits that stop before the fit: why one benchmark's responses cannot be audited or cannot place items, and
the record of one that is scores only (its scores, saturation and tiers: ``benchwatch.metrics.frames``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchwatch.irt import DEFAULT_SCALE
from benchwatch.metrics import model_scores, paired_figures, saturation, state_from_paired, tiers_of, with_tiers
from benchwatch.pipeline.audit_record import MIN_MODELS, BenchmarkAudit
from benchwatch.store import content_revision


def too_few(responses: pd.DataFrame) -> str | None:
    """Why the informative models of these responses cannot place items, or None."""
    n = responses["model"].nunique()
    if n < MIN_MODELS:
        return (
            f"too few models to place items: {n} model(s) that tell items apart, at least {MIN_MODELS} are "
            "needed (scores only, no per-item figure or flag)"
        )
    return None


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
