"""History by date from the data itself: the figures as they stood at each model publication date."""

from __future__ import annotations

import pandas as pd

from bot.irt import DEFAULT_SCALE, difficulty_z, encode_responses, fit_map
from bot.metrics import SATURATION_THRESHOLD, UNIFORM, Target, coverage, saturation

BY_DATE_COLUMNS = [
    "date",
    "n_models",
    "n_items",
    "ddm",
    "max_gap",
    "top5_gap_sum",
    "saturation_index",
    "band",
    "state",
    "top1",
    "top5",
    "top5_mean",
]


def history_by_date(
    responses: pd.DataFrame, *, scale: str = DEFAULT_SCALE, target: Target = UNIFORM, ceiling: float = 1.0
) -> pd.DataFrame:
    """For every distinct publication date d, the figures over the models published on or before d."""
    dated = responses.dropna(subset=["date"])
    rows = []
    init = None
    for day in sorted(dated["date"].unique()):
        pool = dated[dated["date"] <= day]
        if pool["model"].nunique() < 2:
            continue
        data = encode_responses(pool)
        if init is not None:  # warm start from the previous date's estimates
            init = (
                init[0].reindex(data.models).fillna(0.0).to_numpy(),
                init[1].reindex(data.items).fillna(0.0).to_numpy(),
            )
        fit = fit_map(data, init=init)
        init = (pd.Series(fit.theta, index=fit.models), pd.Series(fit.b, index=fit.items))
        try:
            cov = coverage(difficulty_z(fit.b, fit.theta, scale), target)
        except ValueError:
            continue  # a pool of models of identical ability has no ability-quantile scale yet
        scores = pool.groupby("model")["score"].mean()
        sat = saturation(scores.index.to_numpy(), scores.to_numpy(), data.n_items, ceiling)
        rows.append(
            {
                "date": pd.Timestamp(day).strftime("%Y-%m-%d"),
                "ddm": cov.ddm,
                "max_gap": cov.max_gap,
                "top5_gap_sum": cov.top5_gap_sum,
                **sat.summary(),
            }
        )
    return pd.DataFrame(rows, columns=BY_DATE_COLUMNS)


def first_saturated(by_date: pd.DataFrame) -> str | None:
    """Time to saturation: the first date whose saturation index reached the threshold (0.7)."""
    hit = by_date[pd.to_numeric(by_date["saturation_index"], errors="coerce") >= SATURATION_THRESHOLD]
    return None if hit.empty else str(hit["date"].iloc[0])
