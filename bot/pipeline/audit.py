"""Audit one benchmark: fit difficulties, then measure coverage and saturation."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from bot.irt import (
    DEFAULT_SCALE,
    RaschFit,
    difficulty_z,
    encode_responses,
    fit_rasch,
    item_posterior_dense,
    marginal_abilities,
)
from bot.metrics import (
    UNIFORM,
    Cache,
    Coverage,
    PosteriorFigures,
    Saturation,
    Target,
    band,
    binomial_gap_interval,
    coverage,
    figures_from_draws,
    index_interval,
    larger_pools,
    no_cache,
    paired_difference,
    paired_saturation_index,
    posterior_z_draws,
    resolution_floor,
    saturation,
    score_interval,
    target_reference,
)
from bot.pipeline.by_date import history_by_date, saturation_runs
from bot.store import content_revision, json_memo

N_DRAWS = 200
FIGURE_KEYS = ("ddm", "max_gap", "top3_gap_sum", "top5_gap_sum")


@dataclass(frozen=True)
class BenchmarkAudit:
    """Everything benchwatch measured on one benchmark snapshot."""

    benchmark: str
    revision: str
    source: str
    synthetic: bool
    method: str
    scale: str
    converged: bool
    coverage: Coverage
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
    posterior: PosteriorFigures | None = None  # the published figures: posterior medians and intervals
    floor: dict = field(default_factory=dict)  # {figure}_null_median, {figure}_null_p95
    pool: dict = field(default_factory=dict)  # what the model pool can resolve: patterns, distinct z, ranges
    larger: dict = field(default_factory=dict)  # figure -> the pool that would resolve its threshold

    def figures(self) -> dict:
        """The headline figures as a flat, JSON-ready mapping."""
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
            "detection_boundary": None,
            "rank_flip_bound_per_lipschitz": None,
            "ceiling": sat.ceiling,
            "solved_share": self.solved_share,
            "state": sat.state,
        }
        if self.posterior is not None:
            out.update(self.posterior.median)
            for name, (lo, hi) in self.posterior.interval.items():
                out[f"{name}_lo"], out[f"{name}_hi"] = lo, hi
        out["detection_boundary"] = out["max_gap"]
        out["rank_flip_bound_per_lipschitz"] = out["ddm"]
        out.update(self.floor)
        out["pool"] = self.pool
        if self.larger:
            out["resolve"] = self.larger
        out.update(self.paired)
        out.update(_index_interval(out))
        if self.by_date is not None:
            out.update(saturation_runs(self.by_date))
        for key in ("max_rhat", "min_ess_bulk", "iterations", "calibrated_models", "calibrated_items"):
            if key in self.diagnostics:
                out[key] = self.diagnostics[key]
        return out


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
    resolve_widths: dict[str, float] | None = None,
    seed: int = 0,
) -> BenchmarkAudit:
    """Coverage and saturation of one benchmark from its responses and a fit of them.

    The published coverage figures are posterior medians over joint draws of every item's difficulty
    (``bot.metrics.resolution``), each with its 95% interval and its resolution floor; the plug-in
    figures of the fitted positions are kept beside them (``*_plugin``).
    """
    names = responses["benchmark"].unique()
    if len(names) != 1:
        raise ValueError(f"an audit takes one benchmark, got {len(names)}")
    z = difficulty_z(fit.b, fit.theta, scale)
    items = pd.DataFrame({"item_id": fit.items, "b": fit.b, "b_sd": fit.b_sd, "z": z})
    per_model = responses.groupby("model", sort=True).agg(
        score=("score", "mean"), n_answered=("score", "size"), date=("date", "min")
    )
    models = pd.DataFrame({"model": fit.models, "theta": fit.theta, "theta_sd": fit.theta_sd}).join(
        per_model, on="model"
    )
    sat = saturation(models["model"].to_numpy(), models["score"].to_numpy(), len(fit.items), ceiling)
    solved = responses.groupby("item_id")["score"].max()
    paired, top_intervals = _paired_figures(responses, sat)
    trials, successes = encode_responses(responses).dense()
    cache = cache or floor_cache()
    with threadpool_limits(1):  # many small matrix products: BLAS threads only add overhead here
        theta, _ = marginal_abilities(trials, successes, fit.theta)
        post = item_posterior_dense(trials, successes, theta)
        rng = np.random.default_rng(seed)
        draws = posterior_z_draws(trials, successes, theta, scale, N_DRAWS, rng, post=post)
        reference = target_reference(len(fit.items), target)
        posterior = figures_from_draws(draws, target, reference=reference)
        floor = resolution_floor(theta, trials, target, scale, cache=cache, seed=seed)
        floor = {**floor, **{f"{k}_sampling_hi": hi for k, (_lo, hi) in reference.items()}}
        unresolved = {k: w for k, w in (resolve_widths or {}).items() if floor[f"{k}_null_p95"] >= w}
        larger = larger_pools(theta, trials, target, scale, unresolved, cache=cache, seed=seed) if unresolved else {}
        by_date_table = history_by_date(responses, scale=scale, target=target, ceiling=ceiling) if by_date else None
    pool = {
        "response_patterns": int(post.n_patterns),
        "distinct_z": int(np.unique(np.round(z, 9)).size),
        "ability_range": [float(theta.min()), float(theta.max())],
        "difficulty_range": [float(fit.b.min()), float(fit.b.max())],
        "prior_mean": post.prior_mean,
        "prior_sd": post.prior_sd,
    }
    return BenchmarkAudit(
        benchmark=str(names[0]),
        revision=content_revision(responses),
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
        floor=floor,
        pool=pool,
        larger=larger,
    )


FLOOR_CACHE_ENV = "BENCHWATCH_FLOOR_CACHE"


def floor_cache(folder: str | Path | None = None) -> Cache:
    """Where resolution floors are kept: ``folder``, else the folder named by $BENCHWATCH_FLOOR_CACHE, else none.

    A floor depends only on the pool, the size, the target and the scale, so one folder can serve every
    reports folder of a machine (the sample, the live run, tests).
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
) -> BenchmarkAudit:
    """Fit the 1PL model to one benchmark's responses and compute its coverage and saturation."""
    fit = fit_rasch(encode_responses(responses), method, init=init, sampler=sampler)
    return measure(responses, fit, source=source, synthetic=synthetic, scale=scale, target=target, ceiling=ceiling)


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
