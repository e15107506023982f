"""The audit's own computation repeated on a benchmark's responses, with items added (``benchwatch fill check``).

The item model and the abilities are held as the audit published them (the record's path and chance floor,
the models table's abilities behind the bounds), and what ``measure`` computes from them is computed again:
the bounds on the item model's path (``benchwatch.pipeline.audit_bounds.item_bounds``, with the floors over their
interval and the design groups of the responses given) and their verdicts, and the model-based figures from the items'
exact posteriors and joint draws. On the audit's own responses it gives the published figures back; with
candidate items' responses added, the figures the benchmark would have with them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchwatch.irt import (
    FloorEstimate,
    ItemModel,
    RaschFit,
    RhoEstimate,
    SpreadEstimate,
    design_groups,
    encode_responses,
)
from benchwatch.metrics import Target, figures_from_draws, posterior_z_draws, split_uninformative
from benchwatch.pipeline.audit_bounds import item_bounds, model_posterior
from benchwatch.pipeline.audit_record import N_DRAWS
from benchwatch.pipeline.side_work import cached_levels, cached_reference, floor_cache
from benchwatch.record import BenchmarkRecord
from benchwatch.vocabulary import BOUND_FIELDS, FIGURES


def repeat_audit(
    responses: pd.DataFrame,
    record: BenchmarkRecord,
    models: pd.DataFrame,
    items: pd.DataFrame,
    target: Target,
    *,
    extra: pd.DataFrame | None = None,
    extra_b: pd.Series | None = None,
    seed: int = 0,
) -> dict:
    """The audit's bounds, verdicts and model-based figures of a benchmark's ``responses`` (its snapshot), with
    ``extra`` rows of other items added (answered by its models; their ids must differ from its items'), the
    abilities held at the models table's (``theta_axis``, ``theta_sd``) and the item model at the ``record``'s.

    ``extra_b``: the extra items' difficulties, where the floor's other ends refit the abilities (a warm start).
    Returns ``bounds`` (the bound fields and ``verdicts``; None where the record's bounds are withheld),
    ``figures`` ({figure: lo, value, hi}) and ``n_items``. The item model's nuisances are held at the record's
    (the floor's share, the spread of discriminations and the samples' correlation, each with its interval). The
    verdicts are those the next audit would record: the record's thresholds, with the hysteresis of the flags it
    raised."""
    path = record.item_model or "1PL"
    fitted = models.dropna(subset=["theta", "theta_axis"]).set_index("model")
    own, _ = split_uninformative(responses)
    rows = own[own["model"].isin(fitted.index)]
    if extra is not None and len(extra):
        rows = pd.concat([rows, extra[extra["model"].isin(rows["model"].unique())]], ignore_index=True)
    scale = record.scale or "ability-quantile"
    data = encode_responses(rows)
    at = fitted.reindex(data.models)
    theta = at["theta_axis"].to_numpy(float)
    b = items.set_index("item_id")["b"].astype(float)
    if extra_b is not None:
        b = pd.concat([b, extra_b.astype(float)])
    fit = RaschFit(
        models=data.models,
        items=data.items,
        theta=at["theta"].to_numpy(float),
        theta_sd=at["theta_sd"].to_numpy(float),
        b=b.reindex(data.items).fillna(0.0).to_numpy(float),
        b_sd=np.full(data.n_items, np.nan),
        method=record.method or "map",
        converged=True,
    )
    model = item_model_of(record, data, path)
    cache = floor_cache()
    bounds = None
    if path != "withheld":
        found, _ = item_bounds(data, fit, theta, model, scale, target)
        fields = {k: v for k, v in found.record_fields().items() if k in BOUND_FIELDS}
        levels = cached_levels(data.n_items, target, cache)
        bounds = {"n_items": int(data.n_items), **fields, "verdicts": _verdicts({**fields, **levels}, record)}
    post = model_posterior(data, theta, model)
    draws = posterior_z_draws(theta, scale, N_DRAWS, np.random.default_rng(seed), post)
    post_figures = figures_from_draws(draws, target, reference=cached_reference(data.n_items, target, cache))
    figures = {
        k: {"lo": post_figures.interval[k][0], "value": post_figures.median[k], "hi": post_figures.interval[k][1]}
        for k in FIGURES
    }
    return {"bounds": bounds, "figures": figures, "n_items": int(data.n_items)}


def item_model_of(record: BenchmarkRecord, data, path: str) -> ItemModel:
    """The item model a record was audited under: its path, and each nuisance's estimate with its interval (the
    floor's share, the spread of discriminations, the samples' correlation) as the record holds them."""
    nominal = data.chance if data.chance is not None and np.any(data.chance > 0) else None
    share = _interval(record.floor_share, record.floor_share_lo, record.floor_share_hi)
    spread = _interval(record.discrimination_spread, record.discrimination_spread_lo, record.discrimination_spread_hi)
    rho = _interval(record.sample_correlation, record.sample_correlation_lo, record.sample_correlation_hi)
    floor = None
    if nominal is not None and share is not None:
        assert record.chance_nominal is not None  # a floor's share is published with the mean nominal floor
        floor = FloorEstimate(*share, nominal=float(record.chance_nominal), items=int(record.floor_items or 0))
    return ItemModel(
        nominal=nominal,
        floor=floor,
        groups=design_groups(data),
        path=path,
        spread=None if spread is None else SpreadEstimate(*spread, items=int(record.spread_items or 0)),
        rho=None if rho is None else RhoEstimate(*rho, cells=int(record.sample_cells or 0), samples=float("nan")),
    )


def _interval(value: float | None, lo: float | None, hi: float | None) -> tuple[float, float, float] | None:
    """A nuisance's estimate with its 95% interval as the record holds them; None where the record has none."""
    if value is None:
        return None
    assert lo is not None and hi is not None  # an estimate is published with its interval
    return float(value), float(lo), float(hi)


def _verdicts(figures: dict, record: BenchmarkRecord) -> dict:
    from benchwatch.rules import DEFAULT_THRESHOLDS, held_figures, verdicts

    thresholds = {k: v["threshold"] for k, v in (record.verdicts or {}).items()}
    held = held_figures(set(record.flags or []))
    found = verdicts(figures, thresholds, held, DEFAULT_THRESHOLDS.hysteresis)
    return {k: v["verdict"] for k, v in found.items()}
