"""One benchmark's audit as the pipeline holds it (``BenchmarkAudit``) and the record it publishes."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from benchwatch.irt import ItemModel
from benchwatch.metrics import (
    Bounds,
    Coverage,
    PosteriorFigures,
    Saturation,
    Tiers,
    binomial_gap_interval,
    index_interval,
)
from benchwatch.pipeline.by_date import saturation_runs
from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.vocabulary import COVERAGE_FIGURES

N_DRAWS = 200
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
    model: ItemModel | None = None  # the item model: floors, design groups, fit check, the bounds' path
    figures_from: str | None = None  # the fit the figures, positions and abilities come from ("map")
    nuts_check: dict | None = None  # --method nuts: the NUTS fit's check (benchwatch.pipeline.nuts_check)

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
            **({"figures_from": self.figures_from} if self.figures_from is not None else {}),
            "target": cov.target,
            "target_spec": self.target_spec,
            **{k: getattr(cov, k) for k in COVERAGE_FIGURES},
            **{f"{k}_plugin": getattr(cov, k) for k in COVERAGE_FIGURES},
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
        headline = as_record(out)  # the figures so far: the model-based ones where there is a posterior
        out.update(detection_boundary=headline.max_gap, rank_flip_bound_per_lipschitz=headline.ddm)
        if self.bounds is not None:
            out.update(self.bounds.record_fields())
        if self.model is not None:
            out.update(self.model.record())
        blanks = self.model.blanks if self.model is not None else {}
        if blanks.get("warn"):  # the models whose blanks sit where their failures would, the ten clearest
            out["blanks_warning"] = {
                "z": blanks["z"],
                "tested": blanks["tested"],
                "flagged": len(blanks["models"]),
                "models": blanks["models"][:10],
            }
        out.update(self.levels)
        out["pool"] = self.pool
        if self.resolve:
            out["resolve"] = self.resolve
        out["uninformative"] = self.uninformative
        if self.tiers is not None:
            out.update(self.tiers.summary())
        out.update(self.paired)
        out.update(index_interval_fields(as_record(out)))
        if self.by_date is not None:
            out.update(saturation_runs(self.by_date))
        for key in ("max_rhat", "min_ess_bulk", "iterations", "calibrated_models", "calibrated_items"):
            if key in self.diagnostics:
                out[key] = self.diagnostics[key]
        if self.nuts_check is not None:  # its convergence where a NUTS fit's always stood, and the check in full
            out.update({k: self.nuts_check[k] for k in ("max_rhat", "min_ess_bulk") if k in self.nuts_check})
            out["nuts_check"] = self.nuts_check
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
            "state_from": sat.state_from,
        }

    def _scores_only(self) -> dict:
        """The record of per-item data whose pool is too small to place items: scores, saturation, no figure."""
        out = {
            "benchmark": self.benchmark,
            **dict.fromkeys((*COVERAGE_FIGURES, "method", "converged", "target")),
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
        out.update(index_interval_fields(as_record(out)))
        return out


def benchmark_record(audit: BenchmarkAudit) -> BenchmarkRecord:
    """The record one benchmark's audit publishes: its figures (``BenchmarkAudit.figures``, the same keys, the
    same values) as the typed record, made once; the run's later stages derive theirs from it (``model_copy``)."""
    return as_record(audit.figures())


def index_interval_fields(fig: BenchmarkRecord) -> dict:
    """The saturation index's 95% interval, from the paired interval of the top gap (or binomial)."""
    s1, s5, n = fig.top1, fig.top5, fig.n_items
    if s1 is None or s5 is None or not n:
        return {}
    lo, hi = fig.top_gap_lo, fig.top_gap_hi
    if lo is None or hi is None:
        lo, hi = binomial_gap_interval(s1, s5, n)
    low, high = index_interval(lo, hi, s1, s5, n)
    return {"saturation_index_lo": low, "saturation_index_hi": high}
