"""History by date from the data itself: the figures as they stood at each model publication date."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bot.irt import DEFAULT_SCALE, encode_responses, fit_map, marginal_abilities
from bot.metrics import (
    SATURATION_THRESHOLD,
    UNIFORM,
    Target,
    binomial_gap_interval,
    figures_from_draws,
    index_interval,
    paired_difference,
    posterior_z_draws,
    saturation,
    target_reference,
)

BY_DATE_DRAWS = 50  # joint draws behind each date's coverage figures (posterior medians)
BY_DATE_COLUMNS = [
    "date",
    "n_models",
    "n_items",
    "ddm",
    "max_gap",
    "top5_gap_sum",
    "saturation_index",
    "saturation_index_lo",
    "saturation_index_hi",
    "band",
    "state",
    "top1",
    "top5",
    "top5_mean",
]


def _index_bounds(pool: pd.DataFrame, sat) -> dict:
    """The index's 95% interval at one date: the paired interval of the top-1 minus top-5 gap."""
    if sat.saturation_index is None:
        return {}
    first, fifth = sat.top_models[0][0], sat.top_models[4][0]
    wide = pool[pool["model"].isin([first, fifth])].pivot(index="item_id", columns="model", values="score")
    both = wide.dropna()
    if len(both) >= 2:
        diff = paired_difference(both[first].to_numpy(), both[fifth].to_numpy())
        lo, hi = diff["lo"], diff["hi"]
    else:
        lo, hi = binomial_gap_interval(sat.top1, sat.top5, sat.n_items)
    low, high = index_interval(lo, hi, sat.top1, sat.top5, sat.n_items)
    return {"saturation_index_lo": low, "saturation_index_hi": high}


def history_by_date(
    responses: pd.DataFrame, *, scale: str = DEFAULT_SCALE, target: Target = UNIFORM, ceiling: float = 1.0
) -> pd.DataFrame:
    """For every distinct publication date d, the figures over the models published on or before d."""
    dated = responses.dropna(subset=["date"])
    rows = []
    init = None
    marginal = pd.Series(dtype=float)  # the previous date's abilities by marginal likelihood: a warm start
    references: dict[int, dict] = {}
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
        if np.ptp(fit.theta) == 0:
            continue  # a pool of models of identical ability has no ability-quantile scale yet
        trials, successes = data.dense()
        start = marginal.reindex(data.models).fillna(pd.Series(fit.theta, index=data.models)).to_numpy()
        theta, _ = marginal_abilities(trials, successes, start)
        marginal = pd.Series(theta, index=data.models)
        rng = np.random.default_rng(0)  # the same draws at every date: a date's figures do not depend on the others
        draws = posterior_z_draws(trials, successes, theta, scale, BY_DATE_DRAWS, rng, hyper=1)
        if data.n_items not in references:
            references[data.n_items] = target_reference(data.n_items, target, replicates=400)
        reference = references[data.n_items]
        figs = figures_from_draws(draws, target, reference=reference).median
        scores = pool.groupby("model")["score"].mean()
        sat = saturation(scores.index.to_numpy(), scores.to_numpy(), data.n_items, ceiling)
        rows.append(
            {
                "date": pd.Timestamp(day).strftime("%Y-%m-%d"),
                "ddm": figs["ddm"],
                "max_gap": figs["max_gap"],
                "top5_gap_sum": figs["top5_gap_sum"],
                **sat.summary(),
                **_index_bounds(pool, sat),
            }
        )
    return pd.DataFrame(rows, columns=BY_DATE_COLUMNS)


def first_saturated(by_date: pd.DataFrame) -> str | None:
    """Time to saturation: the first date whose saturation index reached the threshold (0.7)."""
    hit = by_date[pd.to_numeric(by_date["saturation_index"], errors="coerce") >= SATURATION_THRESHOLD]
    return None if hit.empty else str(hit["date"].iloc[0])


def saturation_runs(by_date: pd.DataFrame) -> dict:
    """What the history by date says about saturation.

    ``first_saturated_date``: the first date the index reached 0.7; ``fell_back_date``: the first later date
    it was below 0.7 again (None if it never fell back); ``saturated_since``: the start of the run of dates,
    ending at the latest one, on which the state was ``saturated`` (None unless that run holds two dates or
    more, so that one model's publication is never a trend).
    """
    index = pd.to_numeric(by_date["saturation_index"], errors="coerce")
    first = first_saturated(by_date)
    fell = None
    if first is not None:
        later = by_date[(by_date["date"] > first) & (index < SATURATION_THRESHOLD)]
        fell = None if later.empty else str(later["date"].iloc[0])
    states = by_date["state"].tolist()
    run = 0
    while run < len(states) and states[len(states) - 1 - run] == "saturated":
        run += 1
    since = str(by_date["date"].iloc[len(states) - run]) if run >= 2 else None
    return {"first_saturated_date": first, "fell_back_date": fell, "saturated_since": since}
