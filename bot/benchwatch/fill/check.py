"""Candidate items checked against a benchmark's gaps: where each lands, and the benchmark before and after them.

Each candidate is placed by its posterior on the difficulty axis: its likelihood on the z grid of the audit's
bounds (the abilities behind them held fixed, with their own errors, and the benchmark's chance floors at
their effective share), under a flat prior over the axis. Its mass inside each stretch of the fill plan
(``benchwatch.fill.plan``: shown thin, or not ruled out as empty where the verdict is "cannot tell") is the
probability that it lies there, and it is placed:

- ``inside``: with probability at least ``PLACED`` (0.95) in one stretch;
- ``may be inside``: with probability between ``OUTSIDE`` (0.05) and ``PLACED``: these models cannot tell
  whether it fills the stretch (more models, or more samples per model, would);
- ``none``: with probability below ``OUTSIDE`` in every stretch.

A wide posterior inside a wide stretch is placed as surely as a narrow one: what counts is the mass inside,
never the width of the interval. Its difficulty b on the benchmark's logit scale (with a 95% interval) comes
from its exact grid posterior given the fitted abilities, under a weak normal prior centred on the benchmark's
items with twice their spread.

"Before" is the published record: the benchmark's bounds, verdicts and model-based figures as its audit recorded
them. "After" is the audit's own computation, handed in as ``repeat`` (``benchwatch.pipeline.repeat_audit``: its
``item_bounds`` on the item model's path, with the benchmark's floors, design groups and abilities; its item
posteriors and joint draws) on the audit's responses with EVERY candidate's added, whether or not each one can be
placed on its own: ten candidates that no single one places still narrow what the pool cannot see. The same
computation without the candidates is made too (``recomputed``), and ``reproduced`` says whether it gives the
published verdicts: an "after" is read against the "before" only where it does. No bounds after where the audit
published none (withheld), nor where the reports cannot repeat its computation: a benchmark fitted in a joint pool
(its other sources' abilities are not kept); its model-based figures after are then from joint draws, as below. The
item model's nuisances (the floor, the spread of discriminations, agreeing samples) are held at the record's,
intervals and all.

Reports without the audit's snapshot or abilities: the model-based figures from joint draws instead (every
item's b from its Laplace normal, every candidate's from its grid posterior), and no bounds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd

from benchwatch.fill.benchmark import Benchmark
from benchwatch.fill.check_result import CheckResult
from benchwatch.fill.plan import plan_stretches, target_of
from benchwatch.irt import cell_loglik, difficulty_b, difficulty_z, uncertain_abilities
from benchwatch.metrics import coverage
from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.vocabulary import BOUND_FIELDS, FIGURES

CHECK_DRAWS = 400
GRID = np.linspace(-12.0, 12.0, 2401)
AXIS = (np.arange(2000) + 0.5) / 2000  # the axis for placing candidates: ten times the bounds' grid
QUANTILES = (0.025, 0.5, 0.975)
PLACED = 0.95  # a candidate is inside a stretch with at least this posterior probability
OUTSIDE = 0.05  # and in none below this in every stretch
REPEATED = "the audit's own computation on its responses with every candidate's"  # where the figures after come from
JOINT_DRAWS = "joint draws (each item's b from its audit's normal, each candidate's from its posterior)"


class _After(NamedTuple):
    """The audit's computation repeated (``_audit_after``): the figures and bounds with every candidate, where they
    come from, and the computation without them (its ``bounds`` and ``figures``)."""

    after: dict
    after_from: str
    bounds_after: dict | None
    recomputed: dict


def place(masses: list[float], gaps: list[dict]) -> tuple[str, dict | None, float]:
    """Where a candidate lands among ``gaps`` (the stretches of the fill plan), from ``masses``: its posterior
    probability of lying in each. The status, the stretch it most likely lies in (None: none), that probability."""
    if not gaps:
        return "none", None, 0.0
    best = int(np.argmax(masses))
    p = float(masses[best])
    if p >= PLACED:
        return "inside", gaps[best], p
    if p >= OUTSIDE:
        return "may be inside", gaps[best], p
    return "none", None, p


def message(status: str, gap: dict | None, p: float, planned: bool = True) -> str:
    """Where a candidate lands, in words (``planned`` off: the fill plan has no stretch)."""
    if status in ("inside", "may be inside") and gap is None:
        raise ValueError(f"a candidate {status} needs the gap it lands in")
    if status == "inside" and gap is not None:
        return f"lands inside the gap {gap['lo']:.3f}-{gap['hi']:.3f} (probability {p:.2f})"
    if status == "may be inside" and gap is not None:
        return (
            f"may lie in the stretch {gap['lo']:.3f}-{gap['hi']:.3f} (probability {p:.2f}): these models cannot tell; "
            "evaluate on more models (or more samples per model)"
        )
    if not planned:
        return "in no stretch of the fill plan: it has none"
    return f"in no stretch of the fill plan (probability {p:.2f} at most)"


def item_floors(rec: BenchmarkRecord, rows: pd.DataFrame, items: pd.Index, share: float | None) -> np.ndarray | None:
    """Each item's chance floor as the audit took it: ``share`` (the benchmark's effective share of its nominal
    floors) times the item's nominal floor (its rows' ``chance``; a candidate without one takes the benchmark's
    mean nominal floor); None for a benchmark without floors."""
    if share is None or rec.chance_nominal is None:
        return None
    given = rows["chance"] if "chance" in rows.columns else pd.Series(np.nan, index=rows.index)
    nominal = pd.Series(given.astype(float).fillna(float(rec.chance_nominal)).to_numpy(), index=rows["item_id"])
    return share * nominal.groupby(level=0).max().reindex(items).fillna(0.0).to_numpy(float)


def _cells(responses: pd.DataFrame, ids: list[str], models: pd.Index):
    item_idx = pd.Index(ids).get_indexer(responses["item_id"])
    model_idx = models.get_indexer(responses["model"])
    trials = responses["trials"].astype("Float64").fillna(1.0).to_numpy(float)
    successes = np.round(responses["score"].to_numpy(float) * trials)
    return model_idx, item_idx, trials, successes


def _posteriors(bench: Benchmark, responses: pd.DataFrame, ids: list[str]) -> np.ndarray:
    """Each candidate's posterior CDF of b on GRID given the fitted abilities (with the benchmark's chance floors
    where it has them, at their effective share)."""
    theta = bench.theta
    model_idx, item_idx, trials, successes = _cells(responses, ids, pd.Index(theta.index))
    floor = item_floors(bench.record, responses, pd.Index(ids), bench.record.floor_share)
    loglik = cell_loglik(model_idx, item_idx, trials, successes, theta.to_numpy(float), GRID, len(ids), floor=floor)
    b = bench.items["b"].to_numpy(float)
    centre, spread = float(b.mean()), 2.0 * float(max(b.std(), 0.5))
    post = loglik - 0.5 * ((GRID - centre) / spread) ** 2
    dens = np.exp(post - post.max(axis=1, keepdims=True))
    cdf = np.cumsum(dens, axis=1)
    return cdf / cdf[:, -1:]


def _axis_abilities(bench: Benchmark) -> tuple[pd.Series, np.ndarray | None]:
    """The abilities behind the bounds (``theta_axis``) with their errors; the fitted ones where the reports keep
    none."""
    models = bench.models.set_index("model")
    if "theta_axis" in models.columns and models["theta_axis"].notna().any():
        theta = models["theta_axis"].astype(float).dropna()
        sd = models["theta_sd"].astype(float).reindex(theta.index).to_numpy() if "theta_sd" in models else None
        return theta, sd
    return models["theta"].astype(float).dropna(), None


def _axis_posteriors(bench: Benchmark, responses: pd.DataFrame, ids: list[str]) -> np.ndarray:
    """Each candidate's posterior over AXIS (rows sum to 1): its likelihood on the bounds' z axis under a flat
    prior."""
    theta, sd = _axis_abilities(bench)
    abilities = uncertain_abilities(theta.to_numpy(), sd)
    scale = bench.record.scale or "ability-quantile"
    model_idx, item_idx, trials, successes = _cells(responses, ids, pd.Index(theta.index))
    keep = model_idx >= 0
    floor = item_floors(bench.record, responses, pd.Index(ids), bench.record.floor_share)
    rows = cell_loglik(
        model_idx[keep],
        item_idx[keep],
        trials[keep],
        successes[keep],
        abilities.theta,
        difficulty_b(AXIS, abilities.population, scale),
        len(ids),
        slope=abilities.slope,
        floor=floor,
    )
    dens = np.exp(rows - rows.max(axis=1, keepdims=True))
    return dens / dens.sum(axis=1, keepdims=True)


def _mass(axis: np.ndarray, gaps: list[dict]) -> np.ndarray:
    """Each candidate's posterior probability of lying in each stretch (candidates x stretches)."""
    z = AXIS
    columns = [axis[:, (g["lo"] <= z) & (z <= g["hi"])].sum(axis=1) for g in gaps]
    return np.column_stack(columns) if columns else np.zeros((axis.shape[0], 0))


def _quantile(cdf: np.ndarray, q: np.ndarray, grid: np.ndarray = GRID) -> np.ndarray:
    return np.interp(q, cdf, grid)


def _published(rec: BenchmarkRecord) -> dict | None:
    """The model-based figures as the audit published them ({figure: lo, value, hi}); None where it has none."""
    values = {k: getattr(rec, k) for k in FIGURES}  # the vocabulary's figures, each a field of the record
    if any(v is None for v in values.values()):
        return None
    return {k: {"lo": _end(rec, f"{k}_lo", v), "value": v, "hi": _end(rec, f"{k}_hi", v)} for k, v in values.items()}


def _end(rec: BenchmarkRecord, field: str, value: float) -> float | None:
    """An end of a figure's interval as the audit published it: the figure's own value where the record has no
    such field (a fit without a posterior)."""
    return getattr(rec, field) if field in rec.model_fields_set else value


def _published_bounds(rec: BenchmarkRecord) -> dict | None:
    """The bounds and verdicts as the audit published them; None where it published no bounds."""
    if rec.detection_limit is None:
        return None
    return {
        "n_items": rec.n_items,
        **{k: getattr(rec, k) for k in BOUND_FIELDS},
        "verdicts": {k: v["verdict"] for k, v in (rec.verdicts or {}).items()},
    }


def check_candidates(
    bench: Benchmark,
    responses: pd.DataFrame,
    *,
    repeat: Callable[..., dict] | None = None,
    draws: int = CHECK_DRAWS,
    seed: int = 0,
) -> CheckResult:
    """Place candidates (validated long rows: model, item_id, score[, trials][, chance] from the pool's models)
    on the benchmark's axis, and give its figures as published and after adding every candidate (see the
    module). ``repeat``: the audit's own computation (``benchwatch.pipeline.repeat_audit``, handed in by the caller:
    a stage imports nothing of the job); without it the figures after are from joint draws, with no bounds after."""
    rec = bench.record
    if "trials" not in responses.columns:
        responses = responses.assign(trials=pd.array([pd.NA] * len(responses), dtype="Int64"))
    known = responses["model"].isin(bench.theta.index)
    left_out = responses.loc[~known, "model"].unique().tolist()
    responses = responses[known]
    if responses.empty:
        raise ValueError("no candidate was answered by a model of the benchmark's pool")
    gaps = plan_stretches(rec)
    ids = sorted(responses["item_id"].unique())
    cdf = _posteriors(bench, responses, ids)
    axis = _axis_posteriors(bench, responses, ids)
    axis_cdf = np.cumsum(axis, axis=1)
    answered = responses.groupby("item_id", observed=True)["model"].nunique().reindex(ids).to_numpy()
    mass = _mass(axis, gaps)
    rows = []
    for k, item in enumerate(ids):
        b_lo, b_mid, b_hi = _quantile(cdf[k], np.array(QUANTILES))
        z_lo, z_mid, z_hi = _quantile(axis_cdf[k], np.array(QUANTILES), AXIS)
        status, gap, p = place(mass[k].tolist(), gaps)
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
                "p_inside": p,
                "status": status,
                "gap": None if gap is None else {"lo": gap["lo"], "hi": gap["hi"]},
                "message": message(status, gap, p, planned=bool(gaps)),
            }
        )
    audit = None if repeat is None else _audit_after(repeat, bench, responses, ids, cdf, seed=seed)
    bounds_before = _published_bounds(rec)
    recomputed = None if audit is None else audit.recomputed
    before = _published(rec) or (recomputed or {}).get("figures")
    after, after_from = (None, JOINT_DRAWS) if audit is None else (audit.after, audit.after_from)
    if after is None or before is None:  # joint draws of the published items and every candidate
        drawn_before, drawn_after = _draws(bench, cdf, draws=draws, seed=seed)
        before, after, after_from = before or drawn_before, after or drawn_after, JOINT_DRAWS
    return CheckResult(
        benchmark=rec.benchmark,
        pool=int(bench.theta.size),
        stretches=gaps,
        candidates=rows,
        accepted=[r["item_id"] for r in rows if r["status"] == "inside"],
        expected_inside=mass.sum(axis=0).tolist() if gaps else [],
        left_out_models=left_out,
        published={k: getattr(rec, k) for k in FIGURES},
        withheld=rec.withheld if rec.item_model == "withheld" else None,
        bounds_before=bounds_before,
        after=after,
        after_from=after_from,
        bounds_after=None if audit is None else audit.bounds_after,
        recomputed=recomputed,
        reproduced=_same_verdicts(bounds_before, (recomputed or {}).get("bounds")),
        before=before,
    )


def _draws(bench: Benchmark, cdf: np.ndarray, *, draws: int, seed: int) -> tuple[dict, dict]:
    """The model-based figures from joint draws, without and with every candidate: each item's b from its audit's
    Laplace normal (at its fitted value where it has no error), each candidate's from its grid posterior."""
    rec = bench.record
    scale = rec.scale or "ability-quantile"
    rng = np.random.default_rng(seed)
    th = bench.theta.to_numpy(float)
    b_items = bench.items["b"].to_numpy(float)
    b_sd = np.nan_to_num(bench.items["b_sd"].to_numpy(float), nan=0.0)
    before, after = [], []
    for _ in range(draws):
        z_items = difficulty_z(rng.normal(b_items, b_sd), th, scale)
        extra = np.array([_quantile(row, rng.uniform(size=1))[0] for row in cdf])
        before.append(z_items)
        after.append(np.concatenate([z_items, difficulty_z(extra, th, scale)]))
    return _figures(before, rec), _figures(after, rec)


def _same_verdicts(published: dict | None, recomputed: dict | None) -> bool | None:
    """Whether the bounds recomputed give the published verdicts (None where either has no bounds)."""
    if published is None or recomputed is None:
        return None
    return as_record(published).verdicts == as_record(recomputed).verdicts


def _figures(z_draws: list[np.ndarray], rec: BenchmarkRecord) -> dict:
    target = target_of(rec)
    values: dict[str, list[float]] = {k: [] for k in FIGURES}
    for z in z_draws:
        cov = coverage(np.clip(z, 0.0, 1.0), target)
        for k in FIGURES:
            values[k].append(getattr(cov, k))
    return {
        k: dict(zip(("lo", "value", "hi"), np.quantile(v, QUANTILES).tolist(), strict=True)) for k, v in values.items()
    }


def _audit_after(
    repeat_audit: Callable[..., dict],
    bench: Benchmark,
    responses: pd.DataFrame,
    ids: list[str],
    cdf: np.ndarray,
    *,
    seed: int,
) -> _After | None:
    """The audit's bounds, verdicts and model-based figures (``repeat_audit``) on its own responses
    (``recomputed``) and on them with every candidate's added (``bounds_after``, ``after``); None where the
    reports keep no snapshot or no abilities of the bounds, or the benchmark was fitted in a joint pool (its
    other sources' abilities are not kept)."""
    rec = bench.record
    if bench.responses is None or "theta_axis" not in bench.models.columns or rec.joint_pool:
        return None
    extra = responses.assign(item_id="candidate " + responses["item_id"].astype(str))
    if rec.chance_nominal is not None:  # a candidate without a floor of its own: the benchmark's mean one
        given = extra["chance"] if "chance" in extra.columns else pd.Series(np.nan, index=extra.index)
        extra = extra.assign(chance=given.astype(float).fillna(float(rec.chance_nominal)))
    extra_b = pd.Series([_quantile(row, np.array([0.5]))[0] for row in cdf], index=["candidate " + str(i) for i in ids])
    target = target_of(rec)
    before = repeat_audit(bench.responses, rec, bench.models, bench.items, target, seed=seed)
    after = repeat_audit(
        bench.responses, rec, bench.models, bench.items, target, extra=extra, extra_b=extra_b, seed=seed
    )
    return _After(after["figures"], REPEATED, after["bounds"], before)
