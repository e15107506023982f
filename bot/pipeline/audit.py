"""Audit one benchmark: fit difficulties, then measure coverage and saturation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from bot.irt import DEFAULT_SCALE, difficulty_z, encode_responses, fit_map
from bot.metrics import UNIFORM, Coverage, Saturation, Target, coverage, saturation
from bot.store import content_revision


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
    saturation: Saturation
    solved_share: float
    items: pd.DataFrame  # item_id, b, b_sd, z
    models: pd.DataFrame  # model, theta, theta_sd, score, n_answered, date

    def figures(self) -> dict:
        """The headline figures as a flat, JSON-ready mapping."""
        cov, sat = self.coverage, self.saturation
        return {
            "benchmark": self.benchmark,
            "revision": self.revision,
            "source": self.source,
            "synthetic": self.synthetic,
            "n_models": sat.n_models,
            "n_items": cov.n_items,
            "method": self.method,
            "scale": self.scale,
            "converged": self.converged,
            "target": cov.target,
            "ddm": cov.ddm,
            "max_gap": cov.max_gap,
            "top3_gap_sum": cov.top3_gap_sum,
            "top5_gap_sum": cov.top5_gap_sum,
            "gaps": [{"lo": g.lo, "hi": g.hi, "width": g.width} for g in cov.gaps],
            "saturation_index": sat.saturation_index,
            "band": sat.band,
            "top1": sat.top1,
            "top5": sat.top5,
            "top5_mean": sat.top5_mean,
            "top_models": [{"model": m, "score": s} for m, s in sat.top_models],
            "ceiling": sat.ceiling,
            "solved_share": self.solved_share,
            "state": sat.state,
        }


def audit_benchmark(
    responses: pd.DataFrame,
    *,
    source: str,
    synthetic: bool = False,
    scale: str = DEFAULT_SCALE,
    target: Target = UNIFORM,
    ceiling: float = 1.0,
) -> BenchmarkAudit:
    """Fit the 1PL model to one benchmark's responses and compute its coverage and saturation."""
    names = responses["benchmark"].unique()
    if len(names) != 1:
        raise ValueError(f"audit_benchmark takes one benchmark, got {len(names)}")
    data = encode_responses(responses)
    fit = fit_map(data)
    z = difficulty_z(fit.b, fit.theta, scale)
    items = pd.DataFrame({"item_id": fit.items, "b": fit.b, "b_sd": fit.b_sd, "z": z})

    per_model = responses.groupby("model", sort=True).agg(
        score=("score", "mean"), n_answered=("score", "size"), date=("date", "min")
    )
    models = pd.DataFrame({"model": fit.models, "theta": fit.theta, "theta_sd": fit.theta_sd}).join(
        per_model, on="model"
    )
    sat = saturation(models["model"].to_numpy(), models["score"].to_numpy(), data.n_items, ceiling)
    solved = responses.groupby("item_id")["score"].max()
    return BenchmarkAudit(
        benchmark=str(names[0]),
        revision=content_revision(responses),
        source=source,
        synthetic=synthetic,
        method=fit.method,
        scale=scale,
        converged=fit.converged,
        coverage=coverage(z, target),
        saturation=sat,
        solved_share=float(np.mean(solved.to_numpy() > 0)),
        items=items,
        models=models,
    )
