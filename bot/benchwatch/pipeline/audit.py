"""Audit one benchmark: fit difficulties, then measure coverage and saturation (``measure``); the record it
builds is ``benchwatch.pipeline.audit_record``, the scores and tiers ``benchwatch.pipeline.scores``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from benchwatch.irt import (
    DEFAULT_SCALE,
    ItemModel,
    RaschFit,
    cell_patterns,
    difficulty_z,
    encode_responses,
    fit_item_model,
)
from benchwatch.metrics import (
    UNIFORM,
    Cache,
    Target,
    coverage,
    decided_by_tiers,
    figures_from_draws,
    pool_needed,
    posterior_z_draws,
    saturation,
)
from benchwatch.pipeline.audit_bounds import bound_abilities, item_bounds, model_posterior, pattern_groups
from benchwatch.pipeline.audit_record import FIGURE_KEYS, MARGINAL_MODELS, MIN_MODELS, N_DRAWS, BenchmarkAudit
from benchwatch.pipeline.by_date import history_by_date
from benchwatch.pipeline.nuts_check import nuts_check
from benchwatch.pipeline.scores import (
    model_scores,
    paired_figures,
    scores_only,
    split_uninformative,
    state_from_paired,
    tiers_of,
    tiers_of_board,
    too_few,
    unauditable,
    with_tiers,
)
from benchwatch.pipeline.side_work import cached_levels, cached_reference, floor_cache, side_pool
from benchwatch.store import content_revision

__all__ = [
    "FIGURE_KEYS",
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
    from benchwatch.rules import verdicts

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
    items = pd.DataFrame({"item_id": fit.items, "b": fit.b, "b_sd": fit.b_sd, "z": z})
    per_model = model_scores(responses)
    models = per_model.join(
        pd.DataFrame({"model": fit.models, "theta": fit.theta, "theta_sd": fit.theta_sd}).set_index("model")
    ).reset_index()[["model", "theta", "theta_sd", "score", "n_answered", "date"]]
    sat = saturation(models["model"].to_numpy(), models["score"].to_numpy(), len(fit.items), ceiling)
    solved = responses.groupby("item_id", observed=True)["score"].max()
    paired, top_intervals = paired_figures(responses, sat)
    sat = state_from_paired(sat, paired)
    model = model or ItemModel()
    floors = model.floors()
    cache = cache or floor_cache()
    with threadpool_limits(1):  # many small matrix products: BLAS threads only add overhead here
        # The history by date needs none of what follows: it runs on a thread of its own meanwhile (the bounds'
        # compiled solver releases the GIL, so the work shares both cores).
        dated = (
            side_pool().submit(
                history_by_date,
                own,
                scale=scale,
                target=target,
                ceiling=ceiling,
                floor_share=None if model is None or model.floor is None else model.floor.share,
            )
            if by_date
            else None
        )
        # so do the simulations of n target items (what chance shows on a matched benchmark of this size)
        chance = side_pool().submit(cached_levels, len(fit.items), target, cache)
        matched = side_pool().submit(cached_reference, len(fit.items), target, cache)
        progress("abilities")
        # Over the observed cells, never a models x items array. The patterns stand for the cells while the
        # abilities and the item posteriors read them, and the cells' arrays are made after: held together they
        # were the audit's peak (at 38 million cells, 0.9 GB of arrays that nothing read meanwhile).
        patterns = cell_patterns(model.cells(encode_responses(fitted)), floors)
        groups = pattern_groups(model, patterns)
        theta = bound_abilities(patterns, fit.theta, groups)
        if model.spread_hat == 0:  # the 1PL's item posteriors read the patterns: read now, they go before the bounds
            post = model_posterior(None, theta, model, patterns=patterns)
        del patterns, groups
        data = encode_responses(fitted)
        lik = None
        if model.path == "withheld":
            bounds = None
        else:
            progress("bounds, for any difficulty distribution")
            bounds, lik = item_bounds(data, fit, theta, model, scale, target)
        levels = chance.result()
        partial = {**(bounds.record_fields() if bounds is not None else {}), **levels}
        undecided = {
            k: v["level"] for k, v in verdicts(partial, thresholds or {}).items() if v["verdict"] == "cannot tell"
        }
        usual = float(np.median(data.weight)) if data.weight.size else 1.0
        if resolve and undecided:
            progress("what would decide: " + ", ".join(undecided))
        # the simulated larger pools need only the bounds' verdicts: they run beside the model-based figures
        mean_floor = float(np.mean(floors)) if floors is not None else 0.0
        deciding = (
            side_pool().submit(
                pool_needed,
                theta,
                usual,
                len(fit.items),
                target,
                scale,
                undecided,
                cache=cache,
                seed=seed,
                floor=mean_floor,
            )
            if resolve and model.path != "withheld"
            else None
        )
        progress("item posteriors and model-based figures")
        if model.spread_hat > 0:  # each item's discrimination integrated out at the spread's estimate
            post = model_posterior(data, theta, model)
        rng = np.random.default_rng(seed)
        draws = posterior_z_draws(theta, scale, N_DRAWS, rng, post)
        reference = matched.result()
        posterior = figures_from_draws(draws, target, reference=reference)
        needed = deciding.result() if deciding is not None else {}
        if model.path == "2PL":
            # simulated with every item of one discrimination: a spread of them only needs more, so the pool is
            # what would decide at the least
            needed = {k: {**v, "at_least": True} for k, v in needed.items()}
        if by_date:
            progress("history by date")
        by_date_table = dated.result() if dated is not None else None
    models["theta_axis"] = models["model"].map(dict(zip(fit.models, theta, strict=True)))
    check = None
    if model.nuts is not None:
        progress("the nuts check")
        check = nuts_check(
            model.nuts,
            data,
            floors,
            z=z,
            theta=theta,
            posterior=posterior,
            scale=scale,
            target=target,
            reference=reference,
        )
    del data  # the cells' arrays are read no further: the tiers' own pass over the rows does without them
    tiers = None
    if tiered:
        progress("tiers")
        tiers = tiers_of(responses)
        models = with_tiers(models, tiers)
        sat = decided_by_tiers(sat, len(tiers.top))  # the one rule (``vocabulary.STATE_RULE``)
    pool = {
        "response_patterns": int(post.n_patterns),
        "likelihood_patterns": lik.n_patterns if lik is not None else None,
        "distinct_z": int(np.unique(np.round(z, 9)).size),
        "ability_range": [float(theta.min()), float(theta.max())],
        "difficulty_range": [float(fit.b.min()), float(fit.b.max())],
        "prior_mean": post.prior_mean,
        "prior_sd": post.prior_sd,
        "fitted_models": len(fit.models),
    }
    return BenchmarkAudit(
        benchmark=str(names[0]),
        revision=revision,
        source=source,
        synthetic=synthetic,
        method="nuts" if model.nuts is not None else fit.method,
        figures_from=fit.method,
        nuts_check=check,
        scale=scale,
        converged=fit.converged,
        coverage=coverage(z, target),
        intervals=dict(posterior.interval),
        saturation=sat,
        solved_share=float(np.mean(solved.to_numpy() > 0)),
        items=items,
        models=models,
        diagnostics=dict(fit.diagnostics),
        paired=paired,
        top_intervals=top_intervals,
        by_date=by_date_table,
        target_spec={"kind": target.kind, "a": target.a, "b": target.b},
        posterior=posterior,
        bounds=bounds,
        levels=levels,
        pool=pool,
        resolve=needed,
        uninformative=uninformative,
        tiers=tiers,
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
