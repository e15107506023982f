"""One benchmark's audit, calibrating only what changed since its last one (``audit_with_history``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

import pandas as pd

from benchwatch.history import Reports, load_snapshot, load_table
from benchwatch.metrics import UNIFORM, Target
from benchwatch.sources import SourceTable
from benchwatch.store import content_revision

if TYPE_CHECKING:
    from benchwatch.irt import ItemModel, RaschFit, ResponseArrays
    from benchwatch.pipeline.audit import BenchmarkAudit
    from benchwatch.pipeline.incremental import Update


def _warm_start(fit_items: pd.DataFrame | None, fit_models: pd.DataFrame | None, rows: pd.DataFrame):
    """Previous estimates for the models and items still present (zeros for new ones), or None."""
    if fit_items is None or fit_models is None:
        return None
    data_models = sorted(rows["model"].unique())
    data_items = sorted(rows["item_id"].unique())
    theta = fit_models.set_index("model")["theta"].reindex(data_models).fillna(0.0).to_numpy()
    b = fit_items.set_index("item_id")["b"].reindex(data_items).fillna(0.0).to_numpy()
    return theta, b


def audit_with_history(
    rows: pd.DataFrame,
    table: SourceTable,
    *,
    method: str,
    scale: str,
    reports: Reports,
    sampler: str = "auto",
    cache_dir: Path,
    target: Target = UNIFORM,
    ceiling: float = 1.0,
    thresholds: dict[str, float] | None = None,
    pool_rows: pd.DataFrame | None = None,
    progress: Callable[[str], None] = lambda _text: None,
    chance_from: str | None = None,
) -> tuple[BenchmarkAudit, str]:
    """Audit one benchmark, calibrating only the new models or items when that is all that changed (the models
    answering every item alike are left out of the fit; too few informative models give scores only).
    ``pool_rows``: other benchmarks' responses on its items (``benchwatch.pipeline.joint``), fitted with its own; such a
    benchmark is refitted whole, and so is one whose items have chance floors (its effective floor is estimated
    with the fit). ``chance_from``: where the rows' chance floors came from, in words."""
    from benchwatch.irt import encode_responses
    from benchwatch.pipeline.audit import (
        measure,
        scores_only,
        split_uninformative,
        too_few,
    )
    from benchwatch.pipeline.incremental import plan_update
    from benchwatch.pipeline.side_work import FLOOR_CACHE_ENV, floor_cache

    name = str(rows["benchmark"].iloc[0])
    both = rows if pool_rows is None else pd.concat([rows, pool_rows], ignore_index=True)
    fitted, uninformative = split_uninformative(both)
    uninformative = [u for u in uninformative if u["model"] in set(rows["model"])]
    reason = too_few(fitted)
    if reason is not None:
        audit = scores_only(
            rows,
            reason,
            source=public_location(table.location),
            synthetic=table.synthetic,
            scale=scale,
            ceiling=ceiling,
            uninformative=uninformative,
        )
        return audit, "scores only"
    items, models = load_table(reports.items(name)), load_table(reports.models(name))
    models = models.dropna(subset=["theta"]) if models is not None and "theta" in models.columns else None
    update = plan_update(load_snapshot(reports, name), rows)
    data = encode_responses(fitted)
    fit, model, how = _fit(
        fitted,
        data,
        update,
        items,
        models,
        method=method,
        sampler=sampler,
        pool_rows=pool_rows,
        chance_from=chance_from,
        progress=progress,
    )
    audit = measure(
        rows,
        fit,
        source=public_location(table.location),
        synthetic=table.synthetic,
        scale=scale,
        target=target,
        ceiling=ceiling,
        cache=floor_cache(os.environ.get(FLOOR_CACHE_ENV) or cache_dir / "floors"),
        thresholds=thresholds,
        pool_rows=pool_rows,
        revision=None if pool_rows is None else content_revision(both),
        progress=progress,
        model=model,
    )
    return audit, how


def _fit(
    fitted: pd.DataFrame,
    data: ResponseArrays,
    update: Update,
    items: pd.DataFrame | None,
    models: pd.DataFrame | None,
    *,
    method: str,
    sampler: str,
    pool_rows: pd.DataFrame | None,
    chance_from: str | None,
    progress: Callable[[str], None],
) -> tuple[RaschFit, ItemModel, str]:
    """The fit of one benchmark's informative responses (``fitted``, their cells ``data``), its item model and how
    it was made, in words: the new models or items calibrated against the last fit's ``items`` and ``models`` when
    that is all that changed (a MAP fit of the benchmark alone, without chance floors), else a fit of the whole,
    warm started from the last one where it can be."""
    from benchwatch.irt import ItemModel, design_groups, fit_item_model, judge
    from benchwatch.pipeline.incremental import calibrated_fit

    joint = pool_rows is not None
    floored = data.chance is not None and bool(data.chance.any())
    calibrate = method == "map" and not joint and not floored and update.kind != "refit"
    if calibrate and items is not None and models is not None:
        fit = calibrated_fit(fitted, update, items, models)
        groups = design_groups(data)
        fit, model = judge(data, fit, ItemModel(groups=groups), progress=progress)
        how = f"calibrated {len(update.new_models) or len(update.new_items)} new {update.kind.split('-')[1]}"
    else:
        init = _warm_start(items, models, fitted) if method == "map" and not joint else None
        fit, model = fit_item_model(
            data, method, init=init, sampler=sampler, nominal_from=chance_from, progress=progress
        )
        how = f"{method} fit" + (" (warm start)" if init is not None else "")
        if pool_rows is not None:  # joint
            how += f" with {pool_rows['model'].nunique()} models of its page's other sources"
    return fit, model, how


def public_location(location: str) -> str:
    """A source's location as records and pages show it: a URL as it is, a local file by its name only (a page
    never shows the paths of the machine that built it)."""
    if "://" in location and not location.startswith("file://"):
        return location
    return PurePath(location.removeprefix("file://")).name or location
