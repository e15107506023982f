"""Audit one benchmark: fit difficulties, then measure coverage and saturation."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from bot.irt import (
    DEFAULT_SCALE,
    RaschFit,
    cell_patterns,
    difficulty_z,
    encode_responses,
    fit_rasch,
    item_posterior,
    marginal_abilities_patterns,
)
from bot.metrics import (
    TIERED_MODELS,
    UNIFORM,
    Bounds,
    Cache,
    Coverage,
    PosteriorFigures,
    Saturation,
    Target,
    Tiers,
    axis_bounds,
    band,
    binomial_gap_interval,
    binomial_se,
    coverage,
    figures_from_draws,
    index_interval,
    likelihood_from_cells,
    no_cache,
    paired_difference,
    paired_saturation_index,
    pool_key,
    pool_needed,
    posterior_z_draws,
    sampling_levels,
    saturation,
    score_interval,
    target_reference,
    tiers_from_items,
    tiers_from_scores,
)
from bot.pipeline.by_date import history_by_date, saturation_runs
from bot.store import content_revision, json_memo

N_DRAWS = 200
FIGURE_KEYS = ("ddm", "max_gap", "top3_gap_sum", "top5_gap_sum")
MARGINAL_MODELS = 200  # below this many models, abilities by marginal MAP (the items integrated out)
MIN_MODELS = 5  # fewer informative models place no item: scores only (the saturation state needs five too)


@dataclass(frozen=True)
class BenchmarkAudit:
    """Everything benchwatch measured on one benchmark snapshot."""

    benchmark: str
    revision: str
    source: str
    synthetic: bool
    method: str | None
    scale: str
    converged: bool | None
    coverage: Coverage | None  # plug-in figures of the fitted positions (None when no item was placed)
    intervals: dict
    saturation: Saturation
    solved_share: float
    items: pd.DataFrame  # item_id, b, b_sd, z
    models: pd.DataFrame  # model, theta, theta_sd, score, n_answered, date
    diagnostics: dict = field(default_factory=dict)
    paired: dict = field(default_factory=dict)
    top_intervals: dict = field(default_factory=dict)
    by_date: pd.DataFrame | None = None  # the figures at each model publication date
    target_spec: dict = field(default_factory=dict)  # kind, a, b: enough to draw the target's CDF
    posterior: PosteriorFigures | None = None  # model-based estimates: posterior medians and intervals
    bounds: Bounds | None = None  # what the pool can and cannot see, for any difficulty distribution
    levels: dict = field(default_factory=dict)  # {figure}_sampling_p95: what n target items show by chance
    pool: dict = field(default_factory=dict)  # what the model pool can resolve: patterns, distinct z, ranges
    resolve: dict = field(default_factory=dict)  # figure -> the pool that would decide its verdict
    uninformative: list = field(default_factory=list)  # models answering every item alike, left out of the fit
    unplaced: str | None = None  # why no item was placed (too few informative models), or None
    tiers: Tiers | None = None  # who can be told apart: tiers and rank intervals of the models

    def figures(self) -> dict:
        """The headline figures as a flat, JSON-ready mapping."""
        if self.coverage is None:
            return self._scores_only()
        cov, sat = self.coverage, self.saturation
        out = {
            "benchmark": self.benchmark,
            "kind": "items",
            "revision": self.revision,
            "source": self.source,
            "synthetic": self.synthetic,
            "n_models": sat.n_models,
            "n_items": cov.n_items,
            "method": self.method,
            "scale": self.scale,
            "converged": self.converged,
            "target": cov.target,
            "target_spec": self.target_spec,
            **{k: getattr(cov, k) for k in FIGURE_KEYS},
            **{f"{k}_plugin": getattr(cov, k) for k in FIGURE_KEYS},
            "gaps": [{"lo": g.lo, "hi": g.hi, "width": g.width} for g in cov.gaps],
            **self._saturation(),
            "detection_boundary": None,
            "rank_flip_bound_per_lipschitz": None,
            "solved_share": self.solved_share,
        }
        if self.posterior is not None:
            out.update(self.posterior.median)
            for name, (lo, hi) in self.posterior.interval.items():
                out[f"{name}_lo"], out[f"{name}_hi"] = lo, hi
        out["detection_boundary"] = out["max_gap"]
        out["rank_flip_bound_per_lipschitz"] = out["ddm"]
        if self.bounds is not None:
            out.update(self.bounds.record_fields())
        out.update(self.levels)
        out["pool"] = self.pool
        if self.resolve:
            out["resolve"] = self.resolve
        out["uninformative"] = self.uninformative
        if self.tiers is not None:
            out.update(self.tiers.summary())
        out.update(self.paired)
        out.update(_index_interval(out))
        if self.by_date is not None:
            out.update(saturation_runs(self.by_date))
        for key in ("max_rhat", "min_ess_bulk", "iterations", "calibrated_models", "calibrated_items"):
            if key in self.diagnostics:
                out[key] = self.diagnostics[key]
        return out

    def _saturation(self) -> dict:
        sat = self.saturation
        return {
            "saturation_index": sat.saturation_index,
            "band": sat.band,
            "top1": sat.top1,
            "top5": sat.top5,
            "top5_mean": sat.top5_mean,
            "top_models": [
                {
                    "model": m,
                    "score": s,
                    **dict(zip(("lo", "hi"), self.top_intervals.get(m, (None, None)), strict=True)),
                }
                for m, s in sat.top_models
            ],
            "ceiling": sat.ceiling,
            "state": sat.state,
        }

    def _scores_only(self) -> dict:
        """The record of per-item data whose pool is too small to place items: scores, saturation, no figure."""
        out = {
            "benchmark": self.benchmark,
            **dict.fromkeys(("ddm", "max_gap", "top3_gap_sum", "top5_gap_sum", "method", "converged", "target")),
            "kind": "aggregate",
            "per_item": True,
            "unplaced": self.unplaced,
            "revision": self.revision,
            "source": self.source,
            "synthetic": self.synthetic,
            "n_models": self.saturation.n_models,
            "n_items": int(self.items.shape[0]) if len(self.items) else int(self.models["n_answered"].max()),
            "scale": self.scale,
            "gaps": [],
            **self._saturation(),
            "solved_share": self.solved_share,
            "uninformative": self.uninformative,
        }
        if self.tiers is not None:
            out.update(self.tiers.summary())
        out.update(self.paired)
        out.update(_index_interval(out))
        return out


def with_tiers(models: pd.DataFrame, tiers: Tiers) -> pd.DataFrame:
    """A models table with each model's tier and 95% interval of rank (empty beyond the tiered ones)."""
    table = (
        pd.DataFrame(tiers.table()).drop(columns="score")
        if tiers.models
        else pd.DataFrame(columns=["model", "tier", "rank_lo", "rank_hi"])
    )
    table = table.astype({"tier": "Int64", "rank_lo": "Int64", "rank_hi": "Int64"})
    out = models.assign(model=models["model"].astype(str)).merge(table, on="model", how="left")
    return out


def split_uninformative(responses: pd.DataFrame) -> tuple[pd.DataFrame, list[dict]]:
    """The responses of the models that tell items apart, and the models left out: every item right, or every
    item wrong, tells nothing about which items are harder (and its ability has no finite estimate)."""
    per_model = responses.groupby("model", sort=True)["score"].agg(["min", "max", "size"])
    alike = per_model[per_model["min"] == per_model["max"]]
    alike = alike[(alike["min"] == 1.0) | (alike["min"] == 0.0)]
    listed = [
        {
            "model": str(m),
            "items": int(row["size"]),
            "why": "answered every item right" if row["min"] == 1.0 else "answered every item wrong",
        }
        for m, row in alike.iterrows()
    ]
    if not listed:
        return responses, []
    return responses[~responses["model"].isin(alike.index)], listed


def tiers_of(responses: pd.DataFrame, seed: int = 0) -> Tiers:
    """Tiers and rank intervals of one benchmark's models from their per-item scores (``bot.metrics.tiers``):
    the best ``MAX_MODELS`` by score, compared on the items both answered."""
    scores = responses.groupby("model", sort=True, observed=True)["score"].mean().sort_values(ascending=False)
    rows = (
        responses if len(scores) <= TIERED_MODELS else responses[responses["model"].isin(scores.index[:TIERED_MODELS])]
    )
    data = encode_responses(rows)
    y = np.zeros((data.n_models, data.n_items))
    answered = np.zeros((data.n_models, data.n_items), bool)
    y[data.model_idx, data.item_idx] = data.y
    answered[data.model_idx, data.item_idx] = True
    binary = bool(np.all(data.weight == 1) and np.all((data.y == 0) | (data.y == 1)))
    tiers = tiers_from_items(data.models, y, answered, binary, seed=seed)
    rest = tuple(str(m) for m in scores.index[TIERED_MODELS:])
    return dataclasses.replace(tiers, untiered=rest) if rest else tiers


def tiers_of_board(rows: pd.DataFrame, seed: int = 0, bootstrap: int = 1000) -> Tiers:
    """Tiers of a board of published scores, from their standard errors: the source's own (``stderr``) where
    it gives them, the binomial error of the test-set size otherwise."""
    n = int(rows["n_items"].iloc[0])
    scores = rows["score"].to_numpy(float)
    se = binomial_se(scores, n)
    given = rows["stderr"].to_numpy(float) if "stderr" in rows.columns else np.full(len(rows), np.nan)
    has = ~np.isnan(given)
    if has.all():
        how = "the standard errors the source publishes"
    elif has.any():
        how = f"the standard errors the source publishes, or the binomial error of {n:,} items where it gives none"
    else:
        how = f"the binomial error of the test-set size ({n:,} items): the source publishes no standard errors"
    se = np.where(has, given, se)
    return tiers_from_scores(rows["model"].astype(str).to_numpy(), scores, se, how, seed=seed, bootstrap=bootstrap)


def too_few(responses: pd.DataFrame) -> str | None:
    """Why the informative models of these responses cannot place items, or None."""
    n = responses["model"].nunique()
    if n < MIN_MODELS:
        return (
            f"too few models to place items: {n} model(s) that tell items apart, at least {MIN_MODELS} are "
            "needed (scores only, no per-item figure or flag)"
        )
    return None


def _model_scores(responses: pd.DataFrame) -> pd.DataFrame:
    return responses.groupby("model", sort=True).agg(
        score=("score", "mean"), n_answered=("score", "size"), date=("date", "min")
    )


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
    models = _model_scores(responses).reset_index()
    n_items = responses["item_id"].nunique()
    sat = saturation(models["model"].to_numpy(), models["score"].to_numpy(), n_items, ceiling)
    paired, top_intervals = _paired_figures(responses, sat)
    solved = responses.groupby("item_id")["score"].max()
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
) -> BenchmarkAudit:
    """Coverage and saturation of one benchmark from its responses and a fit of the informative ones.

    The bounds (``bot.metrics.bounds``) say what the pool can and cannot see for any difficulty
    distribution; the model-based estimates (posterior medians over joint draws of every item's difficulty
    under a normal prior, ``bot.metrics.resolution``) stand beside them, named as such, with the plug-in
    figures of the fitted positions (``*_plugin``). ``thresholds`` (figure -> flag threshold) decide which
    verdicts are "cannot tell", for which the pool that would decide is simulated (unless ``resolve`` is off).
    Models answering every item alike are in ``responses`` (their scores count) but not in ``fit``.
    ``revision`` is the responses' content hash when the caller has it (computed otherwise). ``pool_rows``:
    other benchmarks' responses on these items, in ``fit`` and the figures of the items, not in the scores.
    ``progress`` hears each stage as it begins; ``tiered`` off skips the tiers (a calibration of the bounds).
    """
    from bot.rules import verdicts

    names = responses["benchmark"].unique()
    if len(names) != 1:
        raise ValueError(f"an audit takes one benchmark, got {len(names)}")
    own, uninformative = split_uninformative(responses)
    fitted = own if pool_rows is None else split_uninformative(pd.concat([responses, pool_rows], ignore_index=True))[0]
    z = difficulty_z(fit.b, fit.theta, scale)
    items = pd.DataFrame({"item_id": fit.items, "b": fit.b, "b_sd": fit.b_sd, "z": z})
    per_model = _model_scores(responses)
    models = per_model.join(
        pd.DataFrame({"model": fit.models, "theta": fit.theta, "theta_sd": fit.theta_sd}).set_index("model")
    ).reset_index()[["model", "theta", "theta_sd", "score", "n_answered", "date"]]
    sat = saturation(models["model"].to_numpy(), models["score"].to_numpy(), len(fit.items), ceiling)
    solved = responses.groupby("item_id")["score"].max()
    paired, top_intervals = _paired_figures(responses, sat)
    data = encode_responses(fitted)
    cache = cache or floor_cache()
    with threadpool_limits(1):  # many small matrix products: BLAS threads only add overhead here
        # The history by date needs none of what follows: it runs on a thread of its own meanwhile (the bounds'
        # compiled solver releases the GIL, so the work shares both cores).
        dated = (
            _side_pool().submit(history_by_date, own, scale=scale, target=target, ceiling=ceiling) if by_date else None
        )
        progress("abilities")
        patterns = cell_patterns(data)  # over the observed cells: never a models x items array
        theta = fit.theta  # the joint MAP's stretch of the scale falls as 1/models: 0.4% with 200 (measured)
        if len(fit.models) < MARGINAL_MODELS:
            theta, _ = marginal_abilities_patterns(patterns, fit.theta)
        progress("bounds, for any difficulty distribution")
        lik = likelihood_from_cells(
            data.model_idx,
            data.item_idx,
            data.weight,
            data.weight * data.y,
            theta,
            data.n_items,
            scale,
            theta_sd=fit.theta_sd,  # the abilities' own error: 40 answers place a model to about 0.38 logits
        )
        bounds = axis_bounds(lik, target)
        levels = _cached_levels(len(fit.items), target, cache)
        partial = {**bounds.record_fields(), **levels}
        undecided = {
            k: v["level"] for k, v in verdicts(partial, thresholds or {}).items() if v["verdict"] == "cannot tell"
        }
        usual = float(np.median(data.weight)) if data.weight.size else 1.0
        if resolve and undecided:
            progress("what would decide: " + ", ".join(undecided))
        # the simulated larger pools need only the bounds' verdicts: they run beside the model-based figures
        deciding = (
            _side_pool().submit(
                pool_needed, theta, usual, len(fit.items), target, scale, undecided, cache=cache, seed=seed
            )
            if resolve
            else None
        )
        progress("item posteriors and model-based figures")
        post = item_posterior(data, theta, patterns=patterns)
        rng = np.random.default_rng(seed)
        draws = posterior_z_draws(theta, scale, N_DRAWS, rng, post)
        reference = _cached_reference(len(fit.items), target, cache)
        posterior = figures_from_draws(draws, target, reference=reference)
        needed = deciding.result() if deciding is not None else {}
        if by_date:
            progress("history by date")
        by_date_table = dated.result() if dated is not None else None
    models["theta_axis"] = models["model"].map(dict(zip(fit.models, theta, strict=True)))
    tiers = None
    if tiered:
        progress("tiers")
        tiers = tiers_of(responses, seed=seed)
        models = with_tiers(models, tiers)
    pool = {
        "response_patterns": int(post.n_patterns),
        "likelihood_patterns": lik.n_patterns,
        "distinct_z": int(np.unique(np.round(z, 9)).size),
        "ability_range": [float(theta.min()), float(theta.max())],
        "difficulty_range": [float(fit.b.min()), float(fit.b.max())],
        "prior_mean": post.prior_mean,
        "prior_sd": post.prior_sd,
        "fitted_models": len(fit.models),
    }
    return BenchmarkAudit(
        benchmark=str(names[0]),
        revision=revision or content_revision(responses),
        source=source,
        synthetic=synthetic,
        method=fit.method,
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
    )


_side: ThreadPoolExecutor | None = None


def _forget_side() -> None:  # a forked child has none of its parent's threads: it starts its own pool
    global _side
    _side = None


os.register_at_fork(after_in_child=_forget_side)


def _side_pool() -> ThreadPoolExecutor:
    global _side
    if _side is None:
        _side = ThreadPoolExecutor(max_workers=2, thread_name_prefix="benchwatch-audit")
    return _side


def _cached_reference(n_items: int, target: Target, cache: Cache) -> dict:
    """``target_reference`` (pure simulation of n target items), kept by size and target."""
    if target.kind == "empirical":
        return target_reference(n_items, target)
    key = pool_key("target_reference", n_items, target.kind, target.a, target.b)
    return {k: tuple(v) for k, v in cache(key, lambda: target_reference(n_items, target)).items()}


def _cached_levels(n_items: int, target: Target, cache: Cache) -> dict:
    if target.kind == "empirical":
        return sampling_levels(n_items, target)
    key = pool_key("sampling_levels", n_items, target.kind, target.a, target.b)
    return cache(key, lambda: sampling_levels(n_items, target))


FLOOR_CACHE_ENV = "BENCHWATCH_FLOOR_CACHE"


def floor_cache(folder: str | Path | None = None) -> Cache:
    """Where simulations are kept (what n target items show by chance; what pool would decide a verdict):
    ``folder``, else the folder named by $BENCHWATCH_FLOOR_CACHE, else none.

    Each depends only on the pool, the size, the target, the scale and the level asked, so one folder can
    serve every reports folder of a machine (the sample, the live run, tests).
    """
    folder = folder or os.environ.get(FLOOR_CACHE_ENV)
    return json_memo(folder) if folder else no_cache


def _index_interval(fig: dict) -> dict:
    """The saturation index's 95% interval, from the paired interval of the top gap (or binomial)."""
    s1, s5, n = fig.get("top1"), fig.get("top5"), fig.get("n_items")
    if s1 is None or s5 is None or not n:
        return {}
    lo, hi = fig.get("top_gap_lo"), fig.get("top_gap_hi")
    if lo is None or hi is None:
        lo, hi = binomial_gap_interval(s1, s5, n)
    low, high = index_interval(lo, hi, s1, s5, n)
    return {"saturation_index_lo": low, "saturation_index_hi": high}


def _paired_figures(responses: pd.DataFrame, sat: Saturation) -> tuple[dict, dict]:
    """The index with the paired item-level SE of top-1 minus top-5, and each top model's 95% interval."""
    names = [m for m, _ in sat.top_models]
    if not names:
        return {}, {}
    wide = responses[responses["model"].isin(names)].pivot(index="item_id", columns="model", values="score")
    intervals = {m: score_interval(wide[m].dropna().to_numpy()) for m in names}
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
) -> BenchmarkAudit:
    """Fit the 1PL model to one benchmark's informative responses and compute its coverage and saturation
    (scores only when fewer than ``MIN_MODELS`` models tell items apart)."""
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
    progress(f"{method} fit")
    fit = fit_rasch(encode_responses(fitted), method, init=init, sampler=sampler)
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
