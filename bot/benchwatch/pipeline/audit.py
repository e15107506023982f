"""Audit one benchmark: fit difficulties, then measure coverage and saturation (``measure``); its steps under the
item model are ``benchwatch.pipeline.audit_steps``, the record it builds ``benchwatch.pipeline.audit_record``, the
scores and tiers ``benchwatch.metrics.frames``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from benchwatch.irt import DEFAULT_SCALE, ItemModel, RaschFit, difficulty_z, encode_responses, fit_item_model
from benchwatch.metrics import (
    UNIFORM,
    Cache,
    Target,
    coverage,
    decided_by_tiers,
    model_scores,
    paired_figures,
    saturation,
    split_uninformative,
    state_from_paired,
    tiers_of,
    tiers_of_board,
    with_tiers,
)
from benchwatch.pipeline.audit_record import MARGINAL_MODELS, MIN_MODELS, N_DRAWS, BenchmarkAudit
from benchwatch.pipeline.audit_steps import AuditTerms, ModelBased, model_based
from benchwatch.pipeline.scores import scores_only, too_few, unauditable
from benchwatch.pipeline.side_work import floor_cache
from benchwatch.store import content_revision

if TYPE_CHECKING:
    from benchwatch.metrics import Saturation, Tiers

__all__ = [
    "MARGINAL_MODELS",
    "MIN_MODELS",
    "N_DRAWS",
    "BenchmarkAudit",
    "audit_benchmark",
    "measure",
    "scores_only",
    "split_uninformative",
    "tiers_of",
    "tiers_of_board",
    "too_few",
    "unauditable",
    "with_tiers",
]


@dataclass(frozen=True)
class AuditTables:
    """The audit's tables and score figures: the items' positions (b, b_sd, z), the models' abilities and scores,
    the saturation with its paired figures, the share of items some model solved, and the tiers (None untiered)."""

    items: pd.DataFrame
    models: pd.DataFrame
    saturation: Saturation
    paired: dict
    top_intervals: dict
    solved_share: float
    tiers: Tiers | None = None


def measure(
    responses: pd.DataFrame,
    fit: RaschFit,
    *,
    source: str,
    synthetic: bool = False,
    scale: str = DEFAULT_SCALE,
    target: Target = UNIFORM,
    ceiling: float = 1.0,
    by_date: bool = True,
    cache: Cache | None = None,
    thresholds: dict[str, float] | None = None,
    resolve: bool = True,
    seed: int = 0,
    revision: str | None = None,
    pool_rows: pd.DataFrame | None = None,
    progress: Callable[[str], None] = lambda _text: None,
    tiered: bool = True,
    model: ItemModel | None = None,
) -> BenchmarkAudit:
    """Coverage and saturation of one benchmark from its responses and a fit of the informative ones.

    The bounds (``benchwatch.metrics.bounds``) say what the pool can and cannot see for any difficulty
    distribution; the model-based estimates (posterior medians over joint draws of every item's difficulty
    under a normal prior, ``benchwatch.metrics.resolution``) stand beside them, named as such, with the plug-in
    figures of the fitted positions (``*_plugin``). ``thresholds`` (figure -> flag threshold) decide which
    verdicts are "cannot tell", for which the pool that would decide is simulated (unless ``resolve`` is off).
    Models answering every item alike are in ``responses`` (their scores count) but not in ``fit``.
    ``revision`` is the responses' content hash when the caller has it (computed otherwise). ``pool_rows``:
    other benchmarks' responses on these items, in ``fit`` and the figures of the items, not in the scores.
    ``progress`` hears each stage as it begins; ``tiered`` off skips the tiers (a calibration of the bounds).
    ``model``: the item model the fit was made under (``benchwatch.irt.fit_item_model``: its floors, design groups, fit
    check and path); None is the 1PL without floors, one design group, unchecked.
    """
    names = responses["benchmark"].unique()
    if len(names) != 1:
        raise ValueError(f"an audit takes one benchmark, got {len(names)}")
    own, uninformative = split_uninformative(responses)
    if np.ptp(fit.theta) <= 1e-9 * (1.0 + float(np.abs(fit.theta).max())):
        # the models' responses tell them apart from no one (the same total on the same items): no spread of
        # ability to place an item in, whatever the scale; what stands is each model's score
        reason = "every model that tells items apart has the same ability (scores only, no per-item figure or flag)"
        return scores_only(
            responses,
            reason,
            source=source,
            synthetic=synthetic,
            scale=scale,
            ceiling=ceiling,
            uninformative=uninformative,
        )
    revision = revision or content_revision(responses)  # before the arrays of the fit exist: its peak is the table's
    fitted = own if pool_rows is None else split_uninformative(pd.concat([responses, pool_rows], ignore_index=True))[0]
    z = difficulty_z(fit.b, fit.theta, scale)
    tables = _fitted_tables(responses, fit, z, ceiling)
    model = model or ItemModel()
    terms = AuditTerms(scale, target, ceiling, cache or floor_cache(), seed, progress)
    based = model_based(own, fitted, fit, model, terms, z=z, by_date=by_date, thresholds=thresholds, resolve=resolve)
    tables.models["theta_axis"] = tables.models["model"].map(dict(zip(fit.models, based.theta, strict=True)))
    if tiered:
        tables = _tiered(tables, responses, progress)
    return _audit_record(
        fit,
        model,
        z,
        tables,
        based,
        terms,
        benchmark=str(names[0]),
        revision=revision,
        source=source,
        synthetic=synthetic,
        uninformative=uninformative,
    )


def _fitted_tables(responses: pd.DataFrame, fit: RaschFit, z: np.ndarray, ceiling: float) -> AuditTables:
    """The fit's tables beside the scores: the items at their positions, the models at their abilities with their
    scores, the saturation of the scores with its state from the paired comparison of the top models."""
    items = pd.DataFrame({"item_id": fit.items, "b": fit.b, "b_sd": fit.b_sd, "z": z})
    per_model = model_scores(responses)
    models = per_model.join(
        pd.DataFrame({"model": fit.models, "theta": fit.theta, "theta_sd": fit.theta_sd}).set_index("model")
    ).reset_index()[["model", "theta", "theta_sd", "score", "n_answered", "date"]]
    sat = saturation(models["model"].to_numpy(), models["score"].to_numpy(), len(fit.items), ceiling)
    solved = responses.groupby("item_id", observed=True)["score"].max()
    paired, top_intervals = paired_figures(responses, sat)
    sat = state_from_paired(sat, paired)
    return AuditTables(items, models, sat, paired, top_intervals, solved_share=float(np.mean(solved.to_numpy() > 0)))


def _tiered(tables: AuditTables, responses: pd.DataFrame, progress: Callable[[str], None]) -> AuditTables:
    """The tables with the tiers (who can be told apart) and the saturation state they decide."""
    progress("tiers")
    tiers = tiers_of(responses)
    return replace(
        tables,
        models=with_tiers(tables.models, tiers),
        saturation=decided_by_tiers(tables.saturation, len(tiers.top)),  # the one rule (``vocabulary.STATE_RULE``)
        tiers=tiers,
    )


def _audit_record(
    fit: RaschFit,
    model: ItemModel,
    z: np.ndarray,
    tables: AuditTables,
    based: ModelBased,
    terms: AuditTerms,
    *,
    benchmark: str,
    revision: str,
    source: str,
    synthetic: bool,
    uninformative: list,
) -> BenchmarkAudit:
    """The audit's record, with what the model pool can resolve (``pool``: its response patterns, distinct
    positions, the ranges of abilities and difficulties, the item posteriors' prior)."""
    post, theta = based.post, based.theta
    pool = {
        "response_patterns": int(post.n_patterns),
        "likelihood_patterns": based.lik.n_patterns if based.lik is not None else None,
        "distinct_z": int(np.unique(np.round(z, 9)).size),
        "ability_range": [float(theta.min()), float(theta.max())],
        "difficulty_range": [float(fit.b.min()), float(fit.b.max())],
        "prior_mean": post.prior_mean,
        "prior_sd": post.prior_sd,
        "fitted_models": len(fit.models),
    }
    return BenchmarkAudit(
        benchmark=benchmark,
        revision=revision,
        source=source,
        synthetic=synthetic,
        method="nuts" if model.nuts is not None else fit.method,
        figures_from=fit.method,
        nuts_check=based.check,
        scale=terms.scale,
        converged=fit.converged,
        coverage=coverage(z, terms.target),
        intervals=dict(based.posterior.interval),
        saturation=tables.saturation,
        solved_share=tables.solved_share,
        items=tables.items,
        models=tables.models,
        diagnostics=dict(fit.diagnostics),
        paired=tables.paired,
        top_intervals=tables.top_intervals,
        by_date=based.by_date,
        target_spec={"kind": terms.target.kind, "a": terms.target.a, "b": terms.target.b},
        posterior=based.posterior,
        bounds=based.bounds,
        levels=based.levels,
        pool=pool,
        resolve=based.resolve,
        uninformative=uninformative,
        tiers=tables.tiers,
        model=model,
    )


def audit_benchmark(
    responses: pd.DataFrame,
    *,
    source: str,
    method: str = "map",
    synthetic: bool = False,
    scale: str = DEFAULT_SCALE,
    target: Target = UNIFORM,
    ceiling: float = 1.0,
    init: tuple[np.ndarray, np.ndarray] | None = None,
    sampler: str = "auto",
    thresholds: dict[str, float] | None = None,
    progress: Callable[[str], None] = lambda _text: None,
    chance_from: str | None = None,
) -> BenchmarkAudit:
    """Fit the item model to one benchmark's informative responses (``benchwatch.irt.fit_item_model``: chance floors
    where the rows carry a ``chance`` column, ``chance_from`` saying where they came from; the fit check; the
    path of the bounds) and compute its coverage and saturation (scores only when fewer than ``MIN_MODELS``
    models tell items apart)."""
    fitted, uninformative = split_uninformative(responses)
    reason = too_few(fitted)
    if reason is not None:
        return scores_only(
            responses,
            reason,
            source=source,
            synthetic=synthetic,
            scale=scale,
            ceiling=ceiling,
            uninformative=uninformative,
        )
    fit, model = fit_item_model(
        encode_responses(fitted), method, init=init, sampler=sampler, nominal_from=chance_from, progress=progress
    )
    return measure(
        responses,
        fit,
        source=source,
        synthetic=synthetic,
        scale=scale,
        target=target,
        ceiling=ceiling,
        thresholds=thresholds,
        progress=progress,
        model=model,
    )
