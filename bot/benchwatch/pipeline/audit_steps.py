"""The audit's steps under the item model, after the fit (``model_based``): the abilities, the bounds for any
difficulty distribution, the simulations of the pools that would decide, the model-based figures and the NUTS
check, with the history by date and the simulations of n target items on side threads meanwhile. The audit that
runs them is ``benchwatch.pipeline.audit``."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from benchwatch.irt import ItemModel, RaschFit, cell_patterns, encode_responses
from benchwatch.metrics import Cache, Target, figures_from_draws, pool_needed, posterior_z_draws
from benchwatch.pipeline.audit_bounds import bound_abilities, item_bounds, model_posterior, pattern_groups
from benchwatch.pipeline.audit_record import N_DRAWS
from benchwatch.pipeline.by_date import history_by_date
from benchwatch.pipeline.nuts_check import nuts_check
from benchwatch.pipeline.side_work import cached_levels, cached_reference, side_pool

if TYPE_CHECKING:
    from benchwatch.irt import ItemPosterior, ResponseArrays
    from benchwatch.metrics import AxisLikelihood, Bounds, PosteriorFigures


@dataclass(frozen=True)
class AuditTerms:
    """What every step of one audit reads alike: the scale its difficulties are placed on, the target they are
    measured against, the ceiling of its scores, the cache and the seed of its simulations, and who hears each
    stage as it begins."""

    scale: str
    target: Target
    ceiling: float
    cache: Cache
    seed: int
    progress: Callable[[str], None]


@dataclass(frozen=True)
class ModelBased:
    """What the item model gives one audit (``model_based``): the abilities the bounds and the figures read, the
    item posteriors, the bounds with the axis likelihood of their last run, what n target items show by chance,
    the model-based figures, the pool that would decide each undecided verdict, the history by date and the NUTS
    check."""

    theta: np.ndarray
    post: ItemPosterior
    bounds: Bounds | None
    lik: AxisLikelihood | None
    levels: dict
    posterior: PosteriorFigures
    resolve: dict
    by_date: pd.DataFrame | None
    check: dict | None


def model_based(
    own: pd.DataFrame,
    fitted: pd.DataFrame,
    fit: RaschFit,
    model: ItemModel,
    terms: AuditTerms,
    *,
    z: np.ndarray,
    by_date: bool,
    thresholds: dict[str, float] | None,
    resolve: bool,
) -> ModelBased:
    """The audit's steps under the item model, in order: the abilities, the bounds, what would decide, the
    model-based figures, then the NUTS check; the history by date (of ``own``) and the simulations of n target items
    run on side threads meanwhile. The cells' arrays of ``fitted`` are made here and go on return: the tiers after
    do without them."""
    floors = model.floors()
    with threadpool_limits(1):  # many small matrix products: BLAS threads only add overhead here
        # The history by date needs none of what follows: it runs on a thread of its own meanwhile (the bounds'
        # compiled solver releases the GIL, so the work shares both cores).
        dated = (
            side_pool().submit(
                history_by_date,
                own,
                scale=terms.scale,
                target=terms.target,
                ceiling=terms.ceiling,
                floor_share=None if model.floor is None else model.floor.share,
            )
            if by_date
            else None
        )
        # so do the simulations of n target items (what chance shows on a matched benchmark of this size)
        chance = side_pool().submit(cached_levels, len(fit.items), terms.target, terms.cache)
        matched = side_pool().submit(cached_reference, len(fit.items), terms.target, terms.cache)
        terms.progress("abilities")
        theta, post = _abilities(fitted, fit, model, floors)
        data = encode_responses(fitted)
        bounds, lik, levels, undecided = _bounds(data, fit, theta, model, terms, chance, thresholds)
        deciding = _what_would_decide(data, theta, fit, model, terms, floors, undecided, resolve)
        terms.progress("item posteriors and model-based figures")
        if post is None:  # each item's discrimination integrated out at the spread's estimate
            post = model_posterior(data, theta, model)
        posterior, reference = _model_figures(theta, post, terms, matched)
        needed = _needed(deciding, model)
        if by_date:
            terms.progress("history by date")
        by_date_table = dated.result() if dated is not None else None
    check = None
    if model.nuts is not None:
        terms.progress("the nuts check")
        check = nuts_check(
            model.nuts,
            data,
            floors,
            z=z,
            theta=theta,
            posterior=posterior,
            scale=terms.scale,
            target=terms.target,
            reference=reference,
        )
    return ModelBased(theta, post, bounds, lik, levels, posterior, needed, by_date_table, check)


def _abilities(
    fitted: pd.DataFrame, fit: RaschFit, model: ItemModel, floors: np.ndarray | None
) -> tuple[np.ndarray, ItemPosterior | None]:
    """The abilities the bounds and the model-based figures read, and the 1PL's item posteriors (None with a spread
    of discriminations: those read the cells, made after).

    Over the observed cells, never a models x items array. The patterns stand for the cells while the abilities and
    the item posteriors read them, and the cells' arrays are made after: held together they were the audit's peak
    (at 38 million cells, 0.9 GB of arrays that nothing read meanwhile). The patterns go on return."""
    patterns = cell_patterns(model.cells(encode_responses(fitted)), floors)
    groups = pattern_groups(model, patterns)
    theta = bound_abilities(patterns, fit.theta, groups)
    if model.spread_hat == 0:  # the 1PL's item posteriors read the patterns: read now, they go before the bounds
        return theta, model_posterior(None, theta, model, patterns=patterns)
    return theta, None


def _bounds(
    data: ResponseArrays,
    fit: RaschFit,
    theta: np.ndarray,
    model: ItemModel,
    terms: AuditTerms,
    chance: Future[dict],
    thresholds: dict[str, float] | None,
) -> tuple[Bounds | None, AxisLikelihood | None, dict, dict]:
    """The bounds for any difficulty distribution (None where the item model withholds them) with the axis
    likelihood of their last run, what n target items show by chance (``chance``, from its side thread), and the
    verdicts these leave "cannot tell" (figure -> its level)."""
    from benchwatch.rules import verdicts

    lik = None
    if model.path == "withheld":
        bounds = None
    else:
        terms.progress("bounds, for any difficulty distribution")
        bounds, lik = item_bounds(data, fit, theta, model, terms.scale, terms.target)
    levels = chance.result()
    partial = {**(bounds.record_fields() if bounds is not None else {}), **levels}
    undecided = {k: v["level"] for k, v in verdicts(partial, thresholds or {}).items() if v["verdict"] == "cannot tell"}
    return bounds, lik, levels, undecided


def _what_would_decide(
    data: ResponseArrays,
    theta: np.ndarray,
    fit: RaschFit,
    model: ItemModel,
    terms: AuditTerms,
    floors: np.ndarray | None,
    undecided: dict,
    resolve: bool,
) -> Future[dict] | None:
    """The simulations of the larger pools that would decide the undecided verdicts, started on a side thread (they
    need only the bounds' verdicts: they run beside the model-based figures); None where ``resolve`` is off or the
    bounds are withheld."""
    usual = float(np.median(data.weight)) if data.weight.size else 1.0
    if resolve and undecided:
        terms.progress("what would decide: " + ", ".join(undecided))
    mean_floor = float(np.mean(floors)) if floors is not None else 0.0
    if not resolve or model.path == "withheld":
        return None
    return side_pool().submit(
        pool_needed,
        theta,
        usual,
        len(fit.items),
        terms.target,
        terms.scale,
        undecided,
        cache=terms.cache,
        seed=terms.seed,
        floor=mean_floor,
    )


def _needed(deciding: Future[dict] | None, model: ItemModel) -> dict:
    """The pool that would decide each undecided verdict (``_what_would_decide``'s, once done)."""
    needed = deciding.result() if deciding is not None else {}
    if model.path == "2PL":
        # simulated with every item of one discrimination: a spread of them only needs more, so the pool is
        # what would decide at the least
        needed = {k: {**v, "at_least": True} for k, v in needed.items()}
    return needed


def _model_figures(
    theta: np.ndarray, post: ItemPosterior, terms: AuditTerms, matched: Future[dict]
) -> tuple[PosteriorFigures, dict]:
    """The model-based figures (posterior medians and intervals over ``N_DRAWS`` joint draws of every item's
    position), DDM's lower end extended like a matched benchmark's, and that benchmark's figures (``matched``, from
    its side thread)."""
    rng = np.random.default_rng(terms.seed)
    draws = posterior_z_draws(theta, terms.scale, N_DRAWS, rng, post)
    reference = matched.result()
    return figures_from_draws(draws, terms.target, reference=reference), reference
