"""Candidate items calibrated onto a benchmark's scale with the pool's abilities held fixed.

Each candidate's difficulty b gets its exact posterior on a grid (the Rasch likelihood of its responses
given the pool's fitted abilities, under a weak normal prior centred on the benchmark's items with twice
their spread), hence a 95% interval, carried to z by the benchmark's own scale. A candidate is placed:

- ``inside``: its whole z interval lies inside a stretch of the fill plan (``bot.fill.plan``: shown thin, or
  not ruled out as empty where the verdict is "cannot tell") (accepted);
- ``too wide``: its interval is wider than the stretch nearest to it: these models cannot tell whether it
  fills the stretch (evaluate it on more models, or more samples per model);
- ``edge``: its median is in such a stretch but its interval reaches past an edge;
- ``none``: it lies in no such stretch.

Before and after adding the accepted candidates: the same bounds and verdicts as the audit's
(``bot.metrics.bounds``, from the snapshot's cells and the candidates' own, abilities held at those the
audit's bounds used), and the model-based DDM, Max Gap and top-5 gap sum from joint draws (every existing
item's b from its Laplace normal, every accepted candidate's from its grid posterior).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bot.fill.benchmark import Benchmark
from bot.fill.plan import plan_stretches, target_of
from bot.irt import cell_loglik, difficulty_z
from bot.metrics import axis_bounds, coverage, likelihood_from_cells, sampling_levels, union_bounds
from bot.rules import verdicts

CHECK_DRAWS = 400
GRID = np.linspace(-12.0, 12.0, 2401)
QUANTILES = (0.025, 0.5, 0.975)
FIGURES = ("ddm", "max_gap", "top5_gap_sum")


def place(z_lo: float, z_mid: float, z_hi: float, gaps: list[dict]) -> tuple[str, dict | None]:
    """Where a candidate with this z interval lands among ``gaps`` (the stretches of the fill plan)."""
    if not gaps:
        return "none", None
    nearest = min(
        gaps, key=lambda g: 0.0 if g["lo"] < z_mid < g["hi"] else min(abs(z_mid - g["lo"]), abs(z_mid - g["hi"]))
    )
    if z_hi - z_lo > nearest["hi"] - nearest["lo"]:
        return "too wide", nearest
    if nearest["lo"] < z_lo and z_hi < nearest["hi"]:
        return "inside", nearest
    if nearest["lo"] < z_mid < nearest["hi"]:
        return "edge", nearest
    return "none", None


MESSAGES = {
    "inside": "lands inside the gap",
    "too wide": "cannot tell where it lies with these models, its interval wider than the stretch: evaluate on "
    "more models (or more samples per model)",
    "edge": "at the edge of the stretch: its interval reaches past it",
    "none": "in no stretch of the fill plan",
}


def item_floors(rec: dict, rows: pd.DataFrame, items: pd.Index, share: float | None) -> np.ndarray | None:
    """Each item's chance floor as the audit took it: ``share`` (the benchmark's effective share of its nominal
    floors) times the item's nominal floor (its rows' ``chance``; a candidate without one takes the benchmark's
    mean nominal floor); None for a benchmark without floors."""
    if share is None or rec.get("chance_nominal") is None:
        return None
    given = rows["chance"] if "chance" in rows.columns else pd.Series(np.nan, index=rows.index)
    nominal = pd.Series(given.astype(float).fillna(float(rec["chance_nominal"])).to_numpy(), index=rows["item_id"])
    return share * nominal.groupby(level=0).max().reindex(items).fillna(0.0).to_numpy(float)


def _posteriors(bench: Benchmark, responses: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Candidate ids, each one's posterior CDF on GRID, and its number of responding models (with the
    benchmark's chance floors where it has them, at their effective share)."""
    theta = bench.theta
    ids = sorted(responses["item_id"].unique())
    item_idx = pd.Index(ids).get_indexer(responses["item_id"])
    model_idx = pd.Index(theta.index).get_indexer(responses["model"])
    trials = responses["trials"].fillna(1).to_numpy(float)
    successes = responses["score"].to_numpy(float) * trials
    floor = item_floors(bench.record, responses, pd.Index(ids), bench.record.get("floor_share"))
    loglik = cell_loglik(model_idx, item_idx, trials, successes, theta.to_numpy(float), GRID, len(ids), floor=floor)
    b = bench.items["b"].to_numpy(float)
    centre, spread = float(b.mean()), 2.0 * float(max(b.std(), 0.5))
    post = loglik - 0.5 * ((GRID - centre) / spread) ** 2
    dens = np.exp(post - post.max(axis=1, keepdims=True))
    cdf = np.cumsum(dens, axis=1)
    cdf /= cdf[:, -1:]
    answered = responses.groupby("item_id")["model"].nunique().reindex(ids).to_numpy()
    return ids, cdf, answered


def _quantile(cdf: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.interp(q, cdf, GRID)


def _figures(z_draws: list[np.ndarray], bench: Benchmark) -> dict:
    target = target_of(bench.record)
    values = {k: [] for k in FIGURES}
    for z in z_draws:
        cov = coverage(np.clip(z, 0.0, 1.0), target)
        for k in FIGURES:
            values[k].append(getattr(cov, k))
    return {
        k: dict(zip(("lo", "value", "hi"), np.quantile(v, QUANTILES).tolist(), strict=True)) for k, v in values.items()
    }


def check_candidates(bench: Benchmark, responses: pd.DataFrame, *, draws: int = CHECK_DRAWS, seed: int = 0) -> dict:
    """Calibrate candidates (validated long rows: model, item_id, score[, trials]) onto the benchmark's scale,
    place each, and give the benchmark's figures before and after adding those that land inside a gap."""
    rec, theta = bench.record, bench.theta
    scale = rec.get("scale") or "ability-quantile"
    if "trials" not in responses.columns:
        responses = responses.assign(trials=pd.array([pd.NA] * len(responses), dtype="Int64"))
    known = responses["model"].isin(theta.index)
    left_out = responses.loc[~known, "model"].unique().tolist()
    responses = responses[known]
    if responses.empty:
        raise ValueError("no candidate was answered by a model of the benchmark's pool")
    gaps = plan_stretches(rec)
    ids, cdf, answered = _posteriors(bench, responses)
    rows = []
    th = theta.to_numpy(float)
    for k, item in enumerate(ids):
        b_lo, b_mid, b_hi = _quantile(cdf[k], np.array(QUANTILES))
        z_lo, z_mid, z_hi = difficulty_z(np.array([b_lo, b_mid, b_hi]), th, scale)
        status, gap = place(float(z_lo), float(z_mid), float(z_hi), gaps)
        rows.append(
            {
                "item_id": item,
                "models": int(answered[k]),
                "b": float(b_mid),
                "b_lo": float(b_lo),
                "b_hi": float(b_hi),
                "z": float(z_mid),
                "z_lo": float(z_lo),
                "z_hi": float(z_hi),
                "status": status,
                "gap": None if gap is None else {"lo": gap["lo"], "hi": gap["hi"]},
                "message": MESSAGES[status],
            }
        )
    accepted = [k for k, r in enumerate(rows) if r["status"] == "inside"]
    rng = np.random.default_rng(seed)
    b_items = bench.items["b"].to_numpy(float)
    b_sd = bench.items["b_sd"].to_numpy(float)
    before, after = [], []
    for _ in range(draws):
        drawn = rng.normal(b_items, b_sd)
        z_items = difficulty_z(drawn, th, scale)
        extra = np.array([_quantile(cdf[k], rng.uniform(size=1))[0] for k in accepted])
        before.append(z_items)
        after.append(np.concatenate([z_items, difficulty_z(extra, th, scale)]) if accepted else z_items)
    return {
        "benchmark": rec["benchmark"],
        "pool": int(theta.size),
        "stretches": gaps,
        "candidates": rows,
        "accepted": [rows[k]["item_id"] for k in accepted],
        "left_out_models": left_out,
        "published": {k: rec.get(k) for k in FIGURES},
        "before": _figures(before, bench),
        "after": _figures(after, bench),
        "bounds_before": _bounds(bench, None),
        "bounds_after": _bounds(bench, responses[responses["item_id"].isin([rows[k]["item_id"] for k in accepted])]),
    }


BOUND_KEYS = ("detection_limit", "top5_gap_sum_bound_hi", "thin_width", "thin_top5", "ddm_bound_lo", "ddm_bound_hi")


def _bounds(bench: Benchmark, extra: pd.DataFrame | None) -> dict | None:
    """The audit's bounds and verdicts on the benchmark's items, and on them plus ``extra`` candidates' rows
    (None where the reports keep no snapshot or no abilities of the bounds, where the audit withheld its bounds,
    or where they were a 2PL's: this check holds each item's discrimination at 1). With chance floors, the bounds
    at both ends of the effective floor's interval, their union, as the audit's."""
    rec = bench.record
    if (
        bench.responses is None
        or "theta_axis" not in bench.models.columns
        or rec.get("item_model") in ("withheld", "2PL")
    ):
        return None
    theta = bench.models.set_index("model")["theta_axis"].astype(float).dropna()
    theta_sd = (
        bench.models.set_index("model")["theta_sd"].astype(float).reindex(theta.index).to_numpy()
        if "theta_sd" in bench.models.columns
        else None
    )
    rows = bench.responses[bench.responses["model"].isin(theta.index)]
    if extra is not None and len(extra):
        rows = pd.concat([rows, extra.assign(item_id="candidate " + extra["item_id"].astype(str))], ignore_index=True)
    items = pd.Index(sorted(rows["item_id"].unique()))
    trials = rows["trials"].astype("Float64").fillna(1.0).to_numpy(float) if "trials" in rows else np.ones(len(rows))
    score = rows["score"].to_numpy(float)
    successes = np.where(trials > 1, np.round(score * trials), score)
    target = target_of(rec)
    shares = [None] if rec.get("floor_share") is None else sorted({rec["floor_share_lo"], rec["floor_share_hi"]})
    runs = []
    for share in shares:
        lik = likelihood_from_cells(
            theta.index.get_indexer(rows["model"]),
            items.get_indexer(rows["item_id"]),
            trials,
            successes,
            theta.to_numpy(),
            items.size,
            rec.get("scale") or "ability-quantile",
            theta_sd=theta_sd,
            floor=item_floors(rec, rows, items, share),
        )
        runs.append(axis_bounds(lik, target))
    figures = {k: v for k, v in union_bounds(runs).record_fields().items() if k in BOUND_KEYS}
    thresholds = {k: v["threshold"] for k, v in (rec.get("verdicts") or {}).items()}
    found = verdicts({**figures, **sampling_levels(int(items.size), target)}, thresholds)
    return {"n_items": int(items.size), **figures, "verdicts": {k: v["verdict"] for k, v in found.items()}}
