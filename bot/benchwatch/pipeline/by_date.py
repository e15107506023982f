"""History by date from the data itself: the figures as they stood at each model publication date."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchwatch.irt import (
    DEFAULT_SCALE,
    GRID_SIZE,
    ResponseArrays,
    cell_loglik,
    difficulty_z,
    encode_responses,
    fit_map,
    grid_posterior,
    marginal_abilities_cells,
)
from benchwatch.metrics import (
    TIERED_MODELS,
    UNIFORM,
    Target,
    binomial_gap_interval,
    coverage_draws,
    decided_by_tiers,
    index_interval,
    paired_difference,
    paired_saturation_index,
    saturation,
    tiers_from_items,
)

BY_DATE_DRAWS = 50  # joint draws behind each date's coverage figures (posterior medians)
REFIT_GROWTH = 2.0  # every ability is refitted when the pool has doubled since the last refit
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
    "top_tier_size",
]


def _index_bounds(m: np.ndarray, i: np.ndarray, score: np.ndarray, models: np.ndarray, sat) -> tuple:
    """The saturation at one date with its state from the paired comparison of the top-1 and top-5 models (on
    the items both answered; the paper's index where they share fewer than two), and the index's 95% interval
    from the same paired interval of their gap (else the binomial one)."""
    if sat.saturation_index is None:
        return sat, {}
    index = {str(name): k for k, name in enumerate(models)}
    first, fifth = index[sat.top_models[0][0]], index[sat.top_models[4][0]]
    _, a, c = np.intersect1d(i[m == first], i[m == fifth], assume_unique=True, return_indices=True)
    if len(a) >= 2:
        diff = paired_difference(score[m == first][a], score[m == fifth][c])
        lo, hi = diff["lo"], diff["hi"]
        sat = sat.decided_by("paired", lo, hi, paired_saturation_index(diff["difference"], diff["se"]))
    else:
        lo, hi = binomial_gap_interval(sat.top1, sat.top5, sat.n_items)
    low, high = index_interval(lo, hi, sat.top1, sat.top5, sat.n_items)
    return sat, {"saturation_index_lo": low, "saturation_index_hi": high}


@dataclass(frozen=True)
class _Cells:
    """The dated cells in date order, under one index of models and items for all dates (``data``): each cell's
    model, item, weight, weighted successes and score, where each date's cells end, and the items' floors."""

    data: ResponseArrays
    m: np.ndarray
    i: np.ndarray
    w: np.ndarray
    s: np.ndarray
    score: np.ndarray
    ends: np.ndarray
    floor: np.ndarray | None


@dataclass
class _Running:
    """What the pass over the dates carries from one date to the next: the abilities, the models seen and the items
    answered so far, every item's log likelihood on the grid, each model's score total and count of cells, the items'
    prior (the last date's estimate: a warm start) and the size of the pool at the last refit."""

    theta: np.ndarray
    seen: np.ndarray
    loglik: np.ndarray
    answered: np.ndarray
    score_sum: np.ndarray
    score_n: np.ndarray
    prior: tuple[float, float] = (0.0, 1.5)
    refitted_at: int = 0


def history_by_date(
    responses: pd.DataFrame,
    *,
    scale: str = DEFAULT_SCALE,
    target: Target = UNIFORM,
    ceiling: float = 1.0,
    refit_growth: float = REFIT_GROWTH,
    floor_share: float | None = None,
) -> pd.DataFrame:
    """For every distinct publication date d, the figures over the responses dated on or before d.

    One pass over the dates. Each date adds its cells to a running table of every item's log likelihood
    on the grid; the models it brings are calibrated against what is already known (their abilities by
    marginal likelihood, the items integrated out, the earlier models held), so a date costs about what
    it adds. Every earlier ability is refitted whenever the pool has grown by ``refit_growth`` since the
    last refit, and at the last date, so the drift of held abilities stays small and the last row is
    the same estimator on the whole pool; refits at geometrically spaced sizes keep the total cost
    linear in the number of dates. ``refit_growth=1`` refits at every date (the reference). ``floor_share``:
    the benchmark's effective floor, as a share of its items' nominal ones (the rows' ``chance``), held at
    every date.
    """
    dated = responses.dropna(subset=["date"])
    days = np.sort(dated["date"].unique())
    if len(days) == 0:
        return pd.DataFrame(columns=BY_DATE_COLUMNS)
    cells = _dated_cells(dated, days, floor_share)
    data = cells.data
    # The grid spans the abilities of the whole pool (a joint fit: wider than the marginal abilities).
    joint = fit_map(data, floor=cells.floor).theta
    grid = np.linspace(joint.min() - 8.0, joint.max() + 8.0, GRID_SIZE)
    run = _Running(
        theta=np.zeros(data.n_models),
        seen=np.zeros(data.n_models, bool),
        loglik=np.zeros((data.n_items, grid.size)),
        answered=np.zeros(data.n_items, bool),
        score_sum=np.zeros(data.n_models),
        score_n=np.zeros(data.n_models),
    )
    rows = []
    for d, day in enumerate(days):
        lo, hi = (cells.ends[d - 1] if d else 0), cells.ends[d]
        newcomers = _add_date(run, cells, lo, hi)
        n_seen = int(run.seen.sum())
        if n_seen < 2:
            continue
        last = d == len(days) - 1
        if last or run.refitted_at < 2 or n_seen >= refit_growth * run.refitted_at:
            _refit(run, cells, grid, hi, n_seen)
        else:
            _calibrate(run, cells, grid, lo, hi, newcomers)
        figs = _coverage_at(run, grid, scale, target)
        if figs is None:
            continue  # a pool of models of identical ability has no ability-quantile scale yet
        rows.append({"date": pd.Timestamp(day).strftime("%Y-%m-%d"), **figs, **_saturation_at(run, cells, hi, ceiling)})
    return pd.DataFrame(rows, columns=BY_DATE_COLUMNS)


def _dated_cells(dated: pd.DataFrame, days: np.ndarray, floor_share: float | None) -> _Cells:
    """The dated rows as cells in date order (stable within a date), with where each of ``days`` ends."""
    data = encode_responses(dated)  # one index of models and items for all dates
    floor = None if floor_share is None or data.chance is None else floor_share * data.chance
    day_of = np.searchsorted(days, dated["date"].to_numpy())
    order = np.argsort(day_of, kind="stable")
    ends = np.searchsorted(day_of[order], np.arange(len(days)), side="right")
    w = data.weight[order]
    s = w * data.y[order]
    score = dated["score"].to_numpy(dtype=float)[order]
    return _Cells(data, data.model_idx[order], data.item_idx[order], w, s, score, ends, floor)


def _add_date(run: _Running, cells: _Cells, lo: int, hi: int) -> np.ndarray:
    """One date's cells (``lo:hi``) added to the running scores and the items answered; returns the models they
    bring for the first time (seen from now on)."""
    m, new = cells.m, slice(lo, hi)
    np.add.at(run.score_sum, m[new], cells.score[new])
    np.add.at(run.score_n, m[new], 1.0)
    run.answered[cells.i[new]] = True
    newcomers = np.unique(m[new][~run.seen[m[new]]])
    run.seen[m[new]] = True
    return newcomers


def _refit(run: _Running, cells: _Cells, grid: np.ndarray, hi: int, n_seen: int) -> None:
    """Every ability refitted over the cells up to ``hi`` (marginal likelihood, the items integrated out), the
    items' log likelihoods rebuilt at them."""
    start = np.where(run.seen, run.theta, 0.0)
    m, i, w, s = cells.m[:hi], cells.i[:hi], cells.w[:hi], cells.s[:hi]
    run.theta, items, cells_ll, *_ = marginal_abilities_cells(m, i, w, s, start, grid, floor=cells.floor)
    run.loglik[:] = 0.0
    run.loglik[items] = cells_ll
    run.refitted_at = n_seen


def _calibrate(run: _Running, cells: _Cells, grid: np.ndarray, lo: int, hi: int, newcomers: np.ndarray) -> None:
    """One date's cells (``lo:hi``) with the earlier models held: those of models already calibrated add their log
    likelihood at the held abilities; the models new at this date are calibrated against everything known (their
    abilities by marginal likelihood, anchored at the mean of the others)."""
    m, i, w, s = cells.m, cells.i, cells.w, cells.s
    held = np.isin(m[lo:hi], newcomers, invert=True)  # new cells of models already calibrated
    if held.any():
        k = np.arange(lo, hi)[held]
        run.loglik += cell_loglik(m[k], i[k], w[k], s[k], run.theta, grid, cells.data.n_items, floor=cells.floor)
    if newcomers.size:
        k = np.arange(lo, hi)[~held]
        centre = float(run.theta[run.seen & ~np.isin(np.arange(cells.data.n_models), newcomers)].mean())
        start = run.theta.copy()
        start[newcomers] = centre
        run.theta, items, cells_ll, *_ = marginal_abilities_cells(
            m[k], i[k], w[k], s[k], start, grid, base=run.loglik, prior=run.prior, anchor=centre, floor=cells.floor
        )
        run.loglik[items] += cells_ll


def _coverage_at(run: _Running, grid: np.ndarray, scale: str, target: Target) -> dict | None:
    """The coverage figures at one date (posterior medians over joint draws of the answered items' positions; the
    items' prior carried to the next date), or None while the models seen share one ability."""
    pool_theta = run.theta[run.seen]
    if np.ptp(pool_theta) == 0:
        return None
    post = grid_posterior(run.loglik[run.answered], grid, start=run.prior)
    run.prior = (post.prior_mean, post.prior_sd)
    rng = np.random.default_rng(0)  # the same draws at every date: a date's figures do not depend on the others
    b = post.draws(BY_DATE_DRAWS, rng)
    draws = difficulty_z(b.ravel(), pool_theta, scale).reshape(b.shape)
    figs = {k: float(np.median(v)) for k, v in coverage_draws(draws, target).items()}  # medians only
    return {"ddm": figs["ddm"], "max_gap": figs["max_gap"], "top5_gap_sum": figs["top5_gap_sum"]}


def _saturation_at(run: _Running, cells: _Cells, hi: int, ceiling: float) -> dict:
    """The saturation at one date over the cells up to ``hi``: the scores, the index's interval, the top tier's
    size and the state these decide."""
    n_items = int(run.answered.sum())
    names = cells.data.models[run.seen]
    sat = saturation(names, run.score_sum[run.seen] / run.score_n[run.seen], n_items, ceiling)
    m, i, score = cells.m[:hi], cells.i[:hi], cells.score[:hi]
    sat, index_bounds = _index_bounds(m, i, score, cells.data.models, sat)
    top_tier = _top_tier_size(m, i, score, cells.w[:hi], cells.data.n_items)
    sat = decided_by_tiers(sat, top_tier)  # the state by the one rule, as the audit's own
    return {**sat.summary(), **index_bounds, "top_tier_size": top_tier}


def _top_tier_size(m: np.ndarray, i: np.ndarray, score: np.ndarray, w: np.ndarray, n_items: int) -> int:
    """The top tier's size over the cells published so far (``benchwatch.metrics.tiers``)."""
    models, local = np.unique(m, return_inverse=True)
    means = np.bincount(local, score) / np.bincount(local)
    keep = np.argsort(-means, kind="stable")[:TIERED_MODELS]
    slot = np.full(models.size, -1)
    slot[keep] = np.arange(keep.size)
    cells = slot[local] >= 0
    y = np.zeros((keep.size, n_items))
    answered = np.zeros((keep.size, n_items), bool)
    y[slot[local[cells]], i[cells]] = score[cells]
    answered[slot[local[cells]], i[cells]] = True
    binary = bool(np.all(w == 1) and np.all((score == 0) | (score == 1)))
    return len(tiers_from_items(models[keep], y, answered, binary).top)


def first_saturated(by_date: pd.DataFrame) -> str | None:
    """Time to saturation: the first date whose state was saturated (the one rule, ``vocabulary.STATE_RULE``)."""
    hit = by_date[by_date["state"] == "saturated"]
    return None if hit.empty else str(hit["date"].iloc[0])


def saturation_runs(by_date: pd.DataFrame) -> dict:
    """What the history by date says about saturation.

    ``first_saturated_date``: the first date the state was saturated; ``fell_back_date``: the first later date
    it was not (None if it never fell back); ``saturated_since``: the start of the run of dates,
    ending at the latest one, on which the state was ``saturated`` (None unless that run holds two dates or
    more, so that one model's publication is never a trend). One rule for all three: the state's.
    """
    first = first_saturated(by_date)
    fell = None
    if first is not None:
        later = by_date[(by_date["date"] > first) & (by_date["state"] != "saturated")]
        fell = None if later.empty else str(later["date"].iloc[0])
    states = by_date["state"].tolist()
    run = 0
    while run < len(states) and states[len(states) - 1 - run] == "saturated":
        run += 1
    since = str(by_date["date"].iloc[len(states) - run]) if run >= 2 else None
    return {"first_saturated_date": first, "fell_back_date": fell, "saturated_since": since}
