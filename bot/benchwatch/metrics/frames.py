"""The figures of a validated table that need no fit: a leaderboard's saturation index and the tiers of its
models, the tiers of per-item results and why a model's tier deserves a word, and what an audit reads of its
responses' scores (each model's score, the paired comparison of the top models that decides the state, the models
table with its tiers). Light to import (numpy, pandas
and the closed-form formulas): ``benchwatch saturation`` and ``benchwatch tiers`` load no fit, no bound and no
compiled kernel; the audit uses the same functions (``benchwatch.pipeline`` re-exports them)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchwatch.irt import encode_responses
from benchwatch.metrics.saturation import (
    Saturation,
    band,
    binomial_gap_interval,
    decided_by_tiers,
    index_interval,
    paired_difference,
    paired_saturation_index,
    saturation,
)
from benchwatch.metrics.tiers import TIERED_MODELS, Tiers, score_intervals, tiers_from_items, tiers_from_scores


def _top_models(rows: pd.DataFrame, top: Sequence[tuple[str, float]], n: int) -> list[dict]:
    """The top models with each score's 95% interval from ``score_intervals`` (the tiers' own): the standard
    error the board publishes where it gives one, else Wilson's over its test set."""
    given = {}
    if "stderr" in rows.columns:
        given = dict(zip(rows["model"].astype(str), pd.to_numeric(rows["stderr"], errors="coerce"), strict=True))
    out = []
    for m, s in top:
        lo, hi = score_intervals(s, n, given.get(str(m), float("nan")))
        out.append({"model": m, "score": s, "lo": float(lo), "hi": float(hi)})
    return out


def leaderboard_figures(name: str, rows: pd.DataFrame, ceiling: float) -> dict:
    """The saturation figures of one benchmark's aggregate leaderboard (its validated rows), named ``name``."""
    n = int(rows["n_items"].iloc[0])
    sat = saturation(rows["model"].to_numpy(), rows["score"].to_numpy(), n, ceiling)
    gap = published_gap_interval(rows, sat)
    if gap is not None:  # the leaderboard's own standard errors give the top gap's interval
        sat = sat.decided_by("published_se", *gap)
    top_tier = tiers_of_board(rows).summary()["top_tier_size"]
    sat = decided_by_tiers(sat, top_tier)  # the one rule (``vocabulary.STATE_RULE``), as every state
    out = {
        "benchmark": name,
        **sat.summary(),
        "top_tier_size": top_tier,
        "top_models": _top_models(rows, sat.top_models, n),
        "ceiling": ceiling,
    }
    if sat.saturation_index is not None:  # the index's interval, from the interval of the top gap
        assert sat.top1 is not None and sat.top5 is not None  # an index is of the top-1 and top-5 scores
        gap = gap or binomial_gap_interval(sat.top1, sat.top5, n)
        lo, hi = index_interval(*gap, sat.top1, sat.top5, n)
        out |= {"saturation_index_lo": lo, "saturation_index_hi": hi}
        if sat.gap_lo is not None:  # the published standard errors' interval
            out |= {"top_gap_lo": sat.gap_lo, "top_gap_hi": sat.gap_hi}
    return out


def published_gap_interval(rows: pd.DataFrame, sat, z: float = 1.959963984540054) -> tuple[float, float] | None:
    """The 95% interval of top-1 minus top-5 from the standard errors the leaderboard publishes for both (the
    two scores independent), or None where it does not publish them."""
    if sat.top5 is None or "stderr" not in rows.columns:
        return None
    first, fifth = sat.top_models[0][0], sat.top_models[4][0]
    se = rows.assign(model=rows["model"].astype(str)).set_index("model")["stderr"]
    se = se[~se.index.duplicated()]
    pair = pd.to_numeric(se.reindex([first, fifth]), errors="coerce").to_numpy(float)
    if pair.size != 2 or not np.all(np.isfinite(pair)):
        return None
    half = z * float(np.hypot(*pair))
    return sat.top1 - sat.top5 - half, sat.top1 - sat.top5 + half


def leaderboard_saturation(table: pd.DataFrame, *, ceiling: float = 1.0) -> list[dict]:
    """The published saturation index of each aggregate leaderboard in a validated table."""
    return [leaderboard_figures(name, rows, ceiling) for name, rows in table.groupby("benchmark", sort=True)]


FEW_ITEMS = 0.5  # a model that answered under this share of the benchmark's items is tiered with a note


def _per_model(responses: pd.DataFrame) -> pd.DataFrame:
    """Per model: the lowest and highest score of its answers, and how many items it answered (one row each)."""
    return responses.groupby("model", sort=True, observed=True)["score"].agg(["min", "max", "size"])


def _alike(per_model: pd.DataFrame) -> pd.DataFrame:
    """The models that answered every item right or every one wrong."""
    alike = per_model[per_model["min"] == per_model["max"]]
    return alike[(alike["min"] == 1.0) | (alike["min"] == 0.0)]


def _why_alike(row: pd.Series) -> str:
    return "answered every item right" if row["min"] == 1.0 else "answered every item wrong"


def split_uninformative(responses: pd.DataFrame) -> tuple[pd.DataFrame, list[dict]]:
    """The responses of the models that tell items apart, and the models left out: every item right, or every
    item wrong, tells nothing about which items are harder (and its ability has no finite estimate). They are
    left out of the item fit only: their scores count and they are tiered (``model_notes`` says why)."""
    alike = _alike(_per_model(responses))
    listed = [{"model": str(m), "items": int(row["size"]), "why": _why_alike(row)} for m, row in alike.iterrows()]
    if not listed:
        return responses, []
    return responses[~responses["model"].isin(alike.index)], listed


def model_notes(responses: pd.DataFrame) -> dict[str, str]:
    """Why a model's tier deserves a word, by model: it answered every item right or every one wrong (left out
    of the item fit, tiered by its score), or under ``FEW_ITEMS`` of the benchmark's items (compared with each
    model on the items both answered: hard to tell apart from anyone). The one source of these reasons for
    ``benchwatch audit``, ``benchwatch tiers`` and the pages."""
    per_model = _per_model(responses)
    notes: dict[str, list[str]] = {}
    for m, row in _alike(per_model).iterrows():
        notes.setdefault(str(m), []).append(_why_alike(row))  # split_uninformative's reason, word for word
    n_items = responses["item_id"].nunique()
    answered = per_model["size"]
    for m, k in answered[answered < FEW_ITEMS * n_items].items():
        notes.setdefault(str(m), []).append(f"answered only {k} of {n_items} items")
    return {m: "; ".join(why) for m, why in notes.items()}


def tiers_of(responses: pd.DataFrame) -> Tiers:
    """Tiers and rank intervals of one benchmark's models from their per-item scores (``benchwatch.metrics.tiers``):
    the best ``TIERED_MODELS`` by score, compared on the items both answered, with ``model_notes``."""
    scores = responses.groupby("model", sort=True, observed=True)["score"].mean().sort_values(ascending=False)
    rows = (
        responses if len(scores) <= TIERED_MODELS else responses[responses["model"].isin(scores.index[:TIERED_MODELS])]
    )
    data = encode_responses(rows)
    y = np.zeros((data.n_models, data.n_items))
    answered = np.zeros((data.n_models, data.n_items), bool)
    y[data.model_idx, data.item_idx] = rows["score"].to_numpy(float)  # the scores as given: the audit's means
    answered[data.model_idx, data.item_idx] = True
    binary = bool(np.all(data.weight == 1) and np.all((data.y == 0) | (data.y == 1)))
    tiers = tiers_from_items(data.models, y, answered, binary)
    rest = tuple(str(m) for m in scores.index[TIERED_MODELS:])
    return dataclasses.replace(tiers, untiered=rest or tiers.untiered, notes=model_notes(responses))


def tiers_of_board(rows: pd.DataFrame) -> Tiers:
    """Tiers of a board of published scores, from their standard errors: the source's own (``stderr``) where
    it gives them, the binomial error of the test-set size otherwise."""
    n = int(rows["n_items"].iloc[0])
    scores = rows["score"].to_numpy(float)
    given = rows["stderr"].to_numpy(float) if "stderr" in rows.columns else np.full(len(rows), np.nan)
    has = ~np.isnan(given)
    if has.all():
        how = "the standard errors the source publishes"
    elif has.any():
        how = f"the standard errors the source publishes, or the binomial error of {n:,} items where it gives none"
    else:
        how = f"the binomial error of the test-set size ({n:,} items): the source publishes no standard errors"
    return tiers_from_scores(rows["model"].astype(str).to_numpy(), scores, given, how, n_items=n)


def model_scores(responses: pd.DataFrame) -> pd.DataFrame:
    out = responses.groupby("model", sort=True, observed=True).agg(
        score=("score", "mean"), n_answered=("score", "size"), date=("date", "min")
    )
    out.index = out.index.astype(str)  # the models table's names as text (the responses may hold them as categories)
    return out


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
