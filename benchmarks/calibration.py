"""Do the bounds hold and the verdicts tell the truth, on shapes that are NOT the target? By simulation.

For each difficulty shape (gap-free: uniform on z, a normal b wider than the abilities, Beta(2, 2); with
flaws: right-skewed with an empty low end, left-skewed with an empty top [0.8, 1], one empty middle stretch
of 0.2 and of 0.25, two empty stretches, a two-bump mixture), each model pool (12, 24, 60 binary models; 12
models x 10 samples; 24 binary with 30% of cells missing; 1,000 binary) and each size (40 and 400 items for
every pool, 4,000 for 24 and 1,000 binary), benchmarks are simulated from a 1PL model (abilities N(0, 1)) and
audited exactly as a real one is: the MAP fit, the abilities (marginal MAP below 200 models), the bounds,
the verdicts and flags of ``benchwatch.rules`` at the default thresholds. The truth is each benchmark's own items,
on the pool's true z scale. Reported per cell:

- how often the detection limit lies above the true Max Gap, the top-5 bound above the true top-5 gap sum,
  and the DDM bounds around the true DDM (all must hold in at least 95% / 95% / 90% of benchmarks);
- how often ``fill`` fires ("found" for Max Gap or the top-5 gap sum) and ``revise`` (DDM found), whether
  each stretch shown thin truly holds less than a quarter of the target's items, and the shares of "cannot
  tell" and "clear" (a "clear" where the true figure reaches its level is an error, counted);
- the median detection limit (sharpness), and the coverage of the model-based 95% intervals (the normal
  prior's), which is what the bounds replace.

Run: ``python benchmarks/calibration.py [--reps 40] [--jobs 2] [--out calibration.json]``; ``--quick`` runs
a handful of cells with few benchmarks. It prints the methodology page's tables (Markdown) and the seconds it
took; with ``--out`` every finished cell is kept in that JSON file, and a rerun skips the cells it holds.
``--dask ADDRESS`` runs the cells on a Dask distributed scheduler instead of local processes (``local:N`` starts a
local cluster of N single-threaded workers; ``pip install ".[dask]"``): the same cells, bit for bit, each seeded by
its own parameters, taken in the same order, and ``--out`` keeps and resumes them as it does with ``--jobs``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit, ndtr

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bot"))

POOLS = {  # name: (models, samples per item, share of missing cells)
    "12 binary": (12, 1, 0.0),
    "24 binary": (24, 1, 0.0),
    "60 binary": (60, 1, 0.0),
    "12 x 10 samples": (12, 10, 0.0),
    "24 binary, 30% missing": (24, 1, 0.3),
    "1,000 binary": (1000, 1, 0.0),
}
SIZES = {name: (40, 400) for name in POOLS} | {"24 binary": (40, 400, 4000), "1,000 binary": (40, 400, 4000)}
GAP_FREE = ("uniform", "normal b", "Beta(2, 2)")
SHAPES = (
    *GAP_FREE,
    "right-skewed, empty [0, 0.2]",
    "left-skewed, empty [0.8, 1]",
    "empty [0.4, 0.6]",
    "empty [0.40, 0.65]",
    "two empty stretches",
    "two bumps",
)


def _without(z: np.ndarray, holes: list[tuple[float, float]]) -> np.ndarray:
    """Uniform z mapped onto [0, 1] minus the holes (each hole's width squeezed out)."""
    kept = 1.0 - sum(hi - lo for lo, hi in holes)
    u = z * kept
    out = u.copy()
    for lo, hi in sorted(holes):
        out = np.where(out >= lo, out + (hi - lo), out)
    return out


def draw_z(shape: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """n item difficulties on the pool's z scale, from a named shape."""
    if shape == "uniform":
        return rng.random(n)
    if shape == "normal b":  # b ~ N(0, 1.5^2) against abilities N(0, 1): heavier ends than the target
        return ndtr(rng.normal(0.0, 1.5, n))
    if shape == "Beta(2, 2)":
        return rng.beta(2, 2, n)
    if shape == "right-skewed, empty [0, 0.2]":  # no very easy item, most just above that
        return 0.2 + 0.8 * rng.beta(1, 2, n)
    if shape == "left-skewed, empty [0.8, 1]":  # no very hard item, most just below that
        return 0.8 * rng.beta(2, 1, n)
    if shape == "empty [0.4, 0.6]":
        return _without(rng.random(n), [(0.4, 0.6)])
    if shape == "empty [0.40, 0.65]":
        return _without(rng.random(n), [(0.40, 0.65)])
    if shape == "two empty stretches":
        return _without(rng.random(n), [(0.15, 0.30), (0.60, 0.75)])
    if shape == "two bumps":
        first = rng.random(n) < 0.5
        return np.where(first, rng.beta(12, 30, n), rng.beta(30, 12, n))
    raise ValueError(f"unknown shape {shape!r}")


@dataclass
class Pool:
    theta: np.ndarray
    trials: int
    missing: float = 0.0
    seed: int = 0

    def cells(self, n_items: int, rng: np.random.Generator) -> np.ndarray:
        """Which (model, item) cells are observed: each benchmark its own missing cells."""
        observed = rng.random((self.theta.size, n_items)) >= self.missing
        observed[:, 0] = True  # every model answers something
        return observed


def make_pool(n_models: int, trials: int, seed: int, missing: float = 0.0) -> Pool:
    """Abilities spread as on a real leaderboard: a normal, sorted for readability."""
    return Pool(np.sort(np.random.default_rng(seed).normal(0.0, 1.0, n_models)), trials, missing, seed)


def simulate(pool: Pool, n_items: int, shape: str, rng: np.random.Generator) -> tuple[np.ndarray, pd.DataFrame]:
    """(true z on the pool's scale, long table) of one benchmark answered by the pool."""
    from benchwatch.irt import difficulty_b

    z = draw_z(shape, n_items, rng)
    b = difficulty_b(z, pool.theta)
    successes = rng.binomial(pool.trials, expit(pool.theta[:, None] - b[None, :]))
    models, items = np.nonzero(pool.cells(n_items, rng))
    # names as categoricals: millions of cells are built and factorised in a blink, and read as strings
    model_names = [f"m{j:04d}" for j in range(pool.theta.size)]
    item_names = [f"i{i:05d}" for i in range(n_items)]
    frame = pd.DataFrame(
        {
            "benchmark": "sim",
            "model": pd.Categorical.from_codes(models, model_names),
            "item_id": pd.Categorical.from_codes(items, item_names),
            "score": successes[models, items] / pool.trials,
            "date": pd.NaT,
            "trials": pd.arrays.IntegerArray(
                np.full(models.size, pool.trials, dtype=np.int64), np.full(models.size, pool.trials == 1)
            ),
        }
    )
    return z, frame


def _memo() -> callable:
    store: dict = {}

    def cache(key, compute):
        if key not in store:
            store[key] = compute()
        return store[key]

    return cache


def audit_one(pool: Pool, frame: pd.DataFrame, seed: int, cache) -> dict | None:
    """benchwatch's record, verdicts and flags for one simulated benchmark (None: too few informative models)."""
    return _audit(frame, seed, cache, item_model=False)


def _audit(frame: pd.DataFrame, seed: int, cache, *, item_model: bool) -> dict | None:
    """One simulated benchmark through ``measure`` as the pipeline runs it: the 1PL's MAP fit, or the item model
    fitted and checked (``item_model``); None where too few models are informative."""
    from benchwatch.irt import encode_responses, fit_item_model, fit_rasch
    from benchwatch.pipeline.audit import measure, split_uninformative, too_few
    from benchwatch.rules import DEFAULT_THRESHOLDS, evaluate_flags, recorded_verdicts, threshold_map

    fitted, _ = split_uninformative(frame)
    if too_few(fitted) is not None:
        return None
    data = encode_responses(fitted)
    fit, model = fit_item_model(data, "map", seed=seed) if item_model else (fit_rasch(data, "map"), None)
    audit = measure(
        frame,
        fit,
        source="sim",
        by_date=False,
        cache=cache,
        thresholds=threshold_map(),
        resolve=False,
        seed=seed,
        revision="simulated",
        tiered=False,
        model=model,
    )
    fig = audit.figures()
    fig["verdicts"] = recorded_verdicts(fig, DEFAULT_THRESHOLDS)
    fig["flags"] = evaluate_flags(fig)
    return fig


def truth(z: np.ndarray) -> dict:
    from benchwatch.metrics import UNIFORM, coverage, thin_truth

    cov = coverage(np.clip(z, 0.0, 1.0), UNIFORM)
    width, top5 = thin_truth(z)
    return {"max_gap": cov.max_gap, "top5_gap_sum": cov.top5_gap_sum, "ddm": cov.ddm, "thin": width, "thin5": top5}


def _truly_thin(z: np.ndarray, lo: float, hi: float) -> bool:
    from benchwatch.metrics.bound_search import THIN

    return np.mean((z >= lo) & (z < hi)) < THIN * (hi - lo)


def run_cell(args: tuple) -> dict:
    """One cell: ``reps`` benchmarks of one pool, size and shape."""
    pool_name, n_items, shape, reps, seed = args
    m, trials, missing = POOLS[pool_name]
    pool = make_pool(m, trials, seed=100 + list(POOLS).index(pool_name), missing=missing)
    rng = np.random.default_rng([seed, n_items, SHAPES.index(shape)])
    cache = _memo()
    rows = []
    start = time.perf_counter()
    for r in range(reps):
        z, frame = simulate(pool, n_items, shape, rng)
        fig = audit_one(pool, frame, seed + r, cache)
        if fig is None:
            rows.append({"placed": False})
            continue
        t = truth(z)
        v = {k: x["verdict"] for k, x in fig["verdicts"].items()}
        thin = fig.get("thin_stretches") or []
        levels = {k: x["level"] for k, x in fig["verdicts"].items()}
        rows.append(
            {
                "placed": True,
                "max_gap_covered": fig["detection_limit"] >= t["max_gap"],
                "top5_covered": (fig["top5_gap_sum_bound_hi"] or 1.0) >= t["top5_gap_sum"],  # null: the whole axis
                "ddm_covered": fig["ddm_bound_lo"] <= t["ddm"] <= fig["ddm_bound_hi"],
                "model_based": {
                    k: fig[f"{k}_lo"] <= t[k] <= fig[f"{k}_hi"] for k in ("max_gap", "top5_gap_sum", "ddm")
                },
                "detection_limit": fig["detection_limit"],
                "fill": "fill" in fig["flags"],
                "revise": "revise" in fig["flags"],
                "verdicts": v,
                "thin_true": [bool(_truly_thin(z, lo, hi)) for lo, hi in thin],
                "clear_wrong": {
                    "max_gap": v.get("max_gap") == "clear" and t["max_gap"] >= levels["max_gap"],
                    "top5_gap_sum": v.get("top5_gap_sum") == "clear" and t["top5_gap_sum"] >= levels["top5_gap_sum"],
                    "ddm": v.get("ddm") == "clear" and t["ddm"] >= levels["ddm"],
                },
                "truth_over_level": {k: t[k] >= levels[k] for k in ("max_gap", "top5_gap_sum", "ddm")},
            }
        )
    return _cell({"pool": pool_name, "items": n_items, "shape": shape}, reps, start, rows)


def _cell(names: dict, reps: int, start: float, rows: list[dict]) -> dict:
    """One cell's record: what names it, its benchmarks' rows, and the seconds it took."""
    return names | {"reps": reps, "seconds": time.perf_counter() - start, "rows": rows}


def summary(cell: dict) -> dict:
    """Rates over a cell's placed benchmarks."""
    rows = [r for r in cell["rows"] if r["placed"]]
    n = len(rows)

    def rate(values) -> float:
        values = list(values)
        return float(np.mean(values)) if values else float("nan")

    thin = [x for r in rows for x in r["thin_true"]]
    return {
        "placed": n,
        "max_gap_covered": rate(r["max_gap_covered"] for r in rows),
        "top5_covered": rate(r["top5_covered"] for r in rows),
        "ddm_covered": rate(r["ddm_covered"] for r in rows),
        "fill": rate(r["fill"] for r in rows),
        "revise": rate(r["revise"] for r in rows),
        "gap_cannot_tell": rate(r["verdicts"].get("max_gap") == "cannot tell" for r in rows),
        "gap_clear": rate(r["verdicts"].get("max_gap") == "clear" for r in rows),
        "ddm_cannot_tell": rate(r["verdicts"].get("ddm") == "cannot tell" for r in rows),
        "ddm_clear": rate(r["verdicts"].get("ddm") == "clear" for r in rows),
        "clear_wrong": rate(any(r["clear_wrong"].values()) for r in rows),
        "thin_truly_thin": rate(thin),
        "thin_reported": len(thin),
        "median_detection_limit": float(np.median([r["detection_limit"] for r in rows])) if rows else float("nan"),
        "model_based": {k: rate(r["model_based"][k] for r in rows) for k in ("max_gap", "top5_gap_sum", "ddm")},
    }


def cells(reps: int, quick: bool, pools: list[str] | None, shapes: list[str] | None) -> list[tuple]:
    out = []
    for pool in pools or list(POOLS):
        for n in SIZES[pool]:
            for shape in shapes or SHAPES:
                out.append((pool, n, shape, reps, 7))
    if quick:
        keep = {("24 binary", 400), ("60 binary", 400)}
        out = [c for c in out if (c[0], c[1]) in keep and c[2] in ("uniform", "left-skewed, empty [0.8, 1]")]
    return out


def _pct(x: float) -> str:
    return "–" if x != x else f"{100 * x:.0f}%"


def tables(results: list[dict]) -> str:
    """The methodology page's tables, in Markdown."""
    order = {(p, n, s): k for k, (p, n, s, _, _) in enumerate(cells(1, False, None, None))}
    results = sorted(results, key=lambda c: order.get((c["pool"], c["items"], c["shape"]), 10**6))
    lines = [
        "Model-free bounds: how often each holds, and the median detection limit (every cell):",
        "",
        "| Pool | Items | Shape | Benchmarks | Max Gap below its bound | Top-5 below its bound | DDM inside its bounds "
        "| Median detection limit |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for c in results:
        s = summary(c)
        lines.append(
            f"| {c['pool']} | {c['items']:,} | {c['shape']} | {s['placed']} | {_pct(s['max_gap_covered'])} "
            f"| {_pct(s['top5_covered'])} | {_pct(s['ddm_covered'])} | {s['median_detection_limit']:.3f} |"
        )
    lines += [
        "",
        "Verdicts: how often `fill` (found) and `revise` fire, the share of Coverage hole verdicts that cannot tell or "
        "are clear, a clear verdict where the truth reaches the level (an error), and the stretches shown thin that "
        "truly are (gap-free shapes first: there, every `fill` is a false alarm):",
        "",
        "| Pool | Items | Shape | `fill` | `revise` | Coverage hole: cannot tell | Coverage hole: clear | Wrong clear "
        "| Thin stretches truly thin |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in results:
        s = summary(c)
        thin = f"{_pct(s['thin_truly_thin'])} of {s['thin_reported']}" if s["thin_reported"] else "none shown"
        lines.append(
            f"| {c['pool']} | {c['items']:,} | {c['shape']} | {_pct(s['fill'])} | {_pct(s['revise'])} "
            f"| {_pct(s['gap_cannot_tell'])} | {_pct(s['gap_clear'])} | {_pct(s['clear_wrong'])} | {thin} |"
        )
    lines += [
        "",
        "Model-based 95% intervals (normal prior on b: a smooth distribution of difficulties assumed), how often "
        "they contain the truth:",
        "",
        "| Pool | Items | Shape | Max Gap | Top-5 gap sum | DDM |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for c in results:
        mb = summary(c)["model_based"]
        lines.append(
            f"| {c['pool']} | {c['items']:,} | {c['shape']} | {_pct(mb['max_gap'])} | {_pct(mb['top5_gap_sum'])} "
            f"| {_pct(mb['ddm'])} |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------
# The item-behaviours grid (issues 37 and 44): items that do not answer as the Rasch model says, and who answered
# what, audited as a real benchmark is (fit_item_model: the effective floor, the fit check, the bounds' path).

BEHAVIOURS = {  # name: how its benchmarks are simulated (and the nominal floor they declare, if any)
    "Rasch": {},
    "floor 0.25, declared": {"floor": 0.25, "nominal": 0.25},
    "floor 0.25, undeclared": {"floor": 0.25},
    "floor 0.10, declared": {"floor": 0.10, "nominal": 0.10},
    "floor 0.10, undeclared": {"floor": 0.10},
    "floor 0.4 x nominal 0.25": {"floor": 0.10, "nominal": 0.25},
    "floor 0 x nominal 0.25": {"floor": 0.0, "nominal": 0.25},
    "floor 0 x nominal 0.10": {"floor": 0.0, "nominal": 0.10},
    "log a ~ N(0, 0.5^2)": {"slope_sd": 0.5},
    "log a ~ N(0, 0.8^2)": {"slope_sd": 0.8},
    "weaker models on the easier items": {"design": "easy subset"},
    "failures recorded as blanks": {"design": "blanks"},
    "locally dependent items (control)": {"testlet": 0.5},
    "frontier pool (control)": {"pool": "frontier"},
    "two-cluster pool (control)": {"pool": "two clusters"},
    # issue 64's grid: spreads of log discrimination at every pool size, and two more behaviours at s = 0.6
    "s = 0.3": {"slope_sd": 0.3},
    "s = 0.6": {"slope_sd": 0.6},
    "s = 0.9": {"slope_sd": 0.9},
    "s = 0.6, floor 0.6 x nominal 0.25": {"slope_sd": 0.6, "floor": 0.15, "nominal": 0.25},
    "s = 0.6, 10 samples, rho 0.3": {"slope_sd": 0.6, "trials": 10, "rho": 0.3},
    # a small floor an open-ended benchmark does not declare (real ones: 0.01 [0, 0.02] on GSM8K, MATH-500, CRUXEval),
    # taken as a nuisance when its interval ends at or below 0.05
    "floor 0.02, undeclared": {"floor": 0.02},
    "floor 0.02, undeclared, s = 0.4": {"slope_sd": 0.4, "floor": 0.02},
}
ITEM_POOLS = {"60 binary": 60, "200 binary": 200, "1,000 binary": 1000, "12 binary": 12, "30 binary": 30}
GRID_POOLS = ("60 binary", "200 binary", "1,000 binary")  # the item grid's pools (issues 37 and 44)
SPREAD_BEHAVIOURS = (
    "s = 0.3",
    "s = 0.6",
    "s = 0.9",
    "s = 0.6, floor 0.6 x nominal 0.25",
    "s = 0.6, 10 samples, rho 0.3",
)
SMALL_FLOORS = ("floor 0.02, undeclared", "floor 0.02, undeclared, s = 0.4")  # run as --grid spreads --behaviours
SPREAD_POOLS = ("12 binary", "30 binary", "60 binary", "200 binary")  # issue 64's spread grid
ITEM_SHAPES = ("uniform", "empty [0.375, 0.625]", "empty [0.8, 1]")
ITEM_COUNT = 400
ITEM_REPS = {"60 binary": 20, "200 binary": 40, "1,000 binary": 10, "12 binary": 20, "30 binary": 20}
# benchmarks a cell of the spread grid: issue 64's 20, but 10 with 200 models (two cores: 200 models cost 8 s an audit;
# ``--reps`` sets them all)
SPREAD_REPS = {"12 binary": 20, "30 binary": 20, "60 binary": 20, "200 binary": 10}


def behaviour_pool(kind: str, n_models: int, seed: int) -> np.ndarray:
    """Abilities: normal, as on a real leaderboard; a tight frontier cluster with a long weak tail; two clusters."""
    rng = np.random.default_rng(seed)
    if kind == "frontier":
        k = n_models // 3
        theta = np.concatenate([rng.normal(1.5, 0.2, k), 1.5 - rng.exponential(1.2, n_models - k)])
    elif kind == "two clusters":
        theta = np.where(rng.random(n_models) < 0.5, rng.normal(-1.0, 0.35, n_models), rng.normal(1.0, 0.35, n_models))
    else:
        theta = rng.normal(0.0, 1.0, n_models)
    return np.sort(theta)


def draw_item_z(shape: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if shape == "uniform":
        return rng.random(n)
    if shape == "empty [0.375, 0.625]":  # a 0.25 hole in the middle
        return _without(rng.random(n), [(0.375, 0.625)])
    if shape == "empty [0.8, 1]":  # an empty top
        return 0.8 * rng.random(n)
    raise ValueError(f"unknown shape {shape!r}")


def simulate_behaviour(
    theta: np.ndarray, n_items: int, shape: str, behaviour: dict, rng: np.random.Generator
) -> tuple[np.ndarray, pd.DataFrame]:
    """(true z, long table) of one benchmark whose items answer as ``behaviour`` says: P = c + (1 - c) sigmoid(a
    (theta - b) + u) with a chance floor c, log discriminations N(0, s^2), a shared effect u ~ N(0, 0.5^2) per
    model and cluster of five items (local dependence); then who answered what: the weakest 60% of the models
    answered only the easiest 40% of the items, or half of each model's wrong answers were recorded as blanks.
    The truth is each item's z from its location b on the true pool."""
    from benchwatch.irt import difficulty_b

    m = theta.size
    z = draw_item_z(shape, n_items, rng)
    b = difficulty_b(z, theta)
    a = np.exp(rng.normal(0.0, behaviour["slope_sd"], n_items)) if behaviour.get("slope_sd") else np.ones(n_items)
    eta = a[None, :] * (theta[:, None] - b[None, :])
    if behaviour.get("testlet"):
        u = rng.normal(0.0, behaviour["testlet"], (m, (n_items + 4) // 5))
        eta = eta + u[:, np.arange(n_items) // 5]
    c = behaviour.get("floor", 0.0)
    p = c + (1 - c) * expit(eta)
    trials = int(behaviour.get("trials", 1))
    if behaviour.get("rho"):  # each cell's samples agree: a Beta-distributed probability per cell
        share = (1 - behaviour["rho"]) / behaviour["rho"]
        q = np.clip(p, 1e-9, 1 - 1e-9)
        p = rng.beta(q * share, (1 - q) * share)
    y = rng.binomial(trials, p) / trials if trials > 1 else (rng.random((m, n_items)) < p).astype(float)
    seen = np.ones((m, n_items), bool)
    if behaviour.get("design") == "easy subset":
        seen[np.ix_(theta < np.quantile(theta, 0.6), b > np.quantile(b, 0.4))] = False
    elif behaviour.get("design") == "blanks":
        seen &= ~((y == 0) & (rng.random((m, n_items)) < 0.5))
    seen[:, 0] = True  # every model answers something
    models, items = np.nonzero(seen)
    frame = pd.DataFrame(
        {
            "benchmark": "sim",
            "model": pd.Categorical.from_codes(models, [f"m{j:04d}" for j in range(m)]),
            "item_id": pd.Categorical.from_codes(items, [f"i{i:05d}" for i in range(n_items)]),
            "score": y[models, items],
            "date": pd.NaT,
            "trials": pd.arrays.IntegerArray(np.full(models.size, trials, np.int64), np.full(models.size, trials == 1)),
        }
    )
    if "nominal" in behaviour:
        frame["chance"] = behaviour["nominal"]
    return z, frame


def audit_item_model(frame: pd.DataFrame, seed: int, cache) -> dict | None:
    """benchwatch's record, verdicts and flags of one simulated benchmark, its item model fitted and checked as a
    real benchmark's is (``benchwatch.irt.fit_item_model``)."""
    return _audit(frame, seed, cache, item_model=True)


def run_item_cell(args: tuple) -> dict:
    """One cell of the item-behaviours grid: ``reps`` benchmarks of one behaviour, pool and shape."""
    behaviour_name, pool_name, shape, reps, seed, *rest = args
    first = rest[0] if rest else 0  # benchmarks a kept cell holds: drawn again (the same stream), not audited
    behaviour = BEHAVIOURS[behaviour_name]
    seed_of_pool = 300 + list(ITEM_POOLS).index(pool_name)
    theta = behaviour_pool(behaviour.get("pool", "normal"), ITEM_POOLS[pool_name], seed_of_pool)
    rng = np.random.default_rng([seed, list(BEHAVIOURS).index(behaviour_name), ITEM_SHAPES.index(shape)])
    cache = _memo()
    rows = []
    start = time.perf_counter()
    for r in range(reps):
        z, frame = simulate_behaviour(theta, ITEM_COUNT, shape, behaviour, rng)
        if r < first:
            continue
        fig = audit_item_model(frame, seed + r, cache)
        if fig is None:
            rows.append({"placed": False})
            continue
        t = truth(z)
        published = fig.get("item_model") != "withheld"
        row = {
            "placed": True,
            "path": fig.get("item_model"),
            "misfit": fig.get("fit_verdict") == "misfit",
            "misfits": (fig.get("fit_check") or {}).get("misfits", []),
            "fill": "fill" in fig["flags"],
            "revise": "revise" in fig["flags"],
            "blanks_warned": bool(fig.get("blanks_warning")),
            "detection_limit": fig.get("detection_limit"),
        }
        if published:
            row |= {
                "max_gap_covered": fig["detection_limit"] >= t["max_gap"],
                "top5_covered": (fig["top5_gap_sum_bound_hi"] or 1.0) >= t["top5_gap_sum"],  # null: the whole axis
                "ddm_covered": fig["ddm_bound_lo"] <= t["ddm"] <= fig["ddm_bound_hi"],
            }
        if "nominal" in behaviour:
            share = behaviour.get("floor", 0.0) / behaviour["nominal"]
            row["floor_covered"] = fig["floor_share_lo"] - 1e-9 <= share <= fig["floor_share_hi"] + 1e-9
            row["floor_share"] = [fig["floor_share"], fig["floor_share_lo"], fig["floor_share_hi"]]
        elif behaviour.get("floor") and fig.get("floor_undeclared") is not None:
            c = behaviour["floor"]
            row["undeclared_covered"] = fig["floor_undeclared_lo"] - 1e-9 <= c <= fig["floor_undeclared_hi"] + 1e-9
        if fig.get("discrimination_spread") is not None and behaviour.get("slope_sd"):
            row["spread_covered"] = (
                fig["discrimination_spread_lo"] - 1e-9
                <= behaviour["slope_sd"]
                <= fig["discrimination_spread_hi"] + 1e-9
            )
            row["spread"] = [
                fig["discrimination_spread"],
                fig["discrimination_spread_lo"],
                fig["discrimination_spread_hi"],
            ]
        if fig.get("sample_correlation") is not None and behaviour.get("rho"):
            row["rho_covered"] = (
                fig["sample_correlation_lo"] - 1e-9 <= behaviour["rho"] <= fig["sample_correlation_hi"] + 1e-9
            )
        row["max_gap_found"] = (fig.get("verdicts") or {}).get("max_gap", {}).get("verdict") == "found"
        rows.append(row)
    return _cell({"behaviour": behaviour_name, "pool": pool_name, "shape": shape}, reps, start, rows)


def item_summary(cell: dict) -> dict:
    """Rates over a cell of the item-behaviours grid; the bounds' coverage over the benchmarks that publish them."""
    rows = [r for r in cell["rows"] if r["placed"]]
    shown = [r for r in rows if r["path"] != "withheld"]

    def rate(values) -> float:
        values = list(values)
        return float(np.mean(values)) if values else float("nan")

    floors = [r for r in rows if "floor_covered" in r]
    limits = [r["detection_limit"] for r in shown if r.get("detection_limit") is not None]
    return {
        "placed": len(rows),
        "published": len(shown),
        "misfit": rate(r["misfit"] for r in rows),
        "withheld": rate(r["path"] == "withheld" for r in rows),
        "two_pl": rate(r["path"] == "2PL" for r in rows),
        "max_gap_covered": rate(r["max_gap_covered"] for r in shown),
        "top5_covered": rate(r["top5_covered"] for r in shown),
        "ddm_covered": rate(r["ddm_covered"] for r in shown),
        "fill": rate(r["fill"] for r in rows),
        "revise": rate(r["revise"] for r in rows),
        "blanks_warned": rate(r["blanks_warned"] for r in rows),
        "floor_covered": rate(r["floor_covered"] for r in floors),
        "floor_median": float(np.median([r["floor_share"][0] for r in floors])) if floors else float("nan"),
        "median_detection_limit": float(np.median(limits)) if limits else float("nan"),
        "spread_covered": rate(r["spread_covered"] for r in rows if "spread_covered" in r),
        "rho_covered": rate(r["rho_covered"] for r in rows if "rho_covered" in r),
        "max_gap_found": rate(r.get("max_gap_found", False) for r in rows),
    }


def item_cells(reps: int | None, behaviours: list[str] | None, pools: list[str] | None) -> list[tuple]:
    return [
        (b, p, s, reps or ITEM_REPS[p], 11)
        for b in behaviours or [b for b in BEHAVIOURS if b not in SPREAD_BEHAVIOURS + SMALL_FLOORS]
        for p in pools or list(GRID_POOLS)
        for s in ITEM_SHAPES
    ]


def spread_cells(reps: int | None, behaviours: list[str] | None, pools: list[str] | None) -> list[tuple]:
    """Issue 64's grid: each spread and behaviour x pool x shape, ``SPREAD_REPS`` benchmarks a cell."""
    return [
        (b, p, s, reps or SPREAD_REPS[p], 11)
        for b in behaviours or list(SPREAD_BEHAVIOURS)
        for p in pools or list(SPREAD_POOLS)
        for s in ITEM_SHAPES
    ]


def spread_tables(results: list[dict]) -> str:
    """The methodology page's table of the spread grid (issue 64), in Markdown."""
    order = {(b, p, s): k for k, (b, p, s, _, _) in enumerate(spread_cells(1, None, None))}
    results = sorted(results, key=lambda c: order.get((c["behaviour"], c["pool"], c["shape"]), 10**6))
    lines = [
        "| Behaviour | Pool | Shape | Benchmarks | Withheld | Max Gap below its bound | Top-5 below its bound "
        "| DDM inside its bounds | `fill` | `revise` | Coverage hole found | Median detection limit "
        "| s's interval holds the truth | rho's interval holds the truth |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in results:
        s = item_summary(c)
        limit = s["median_detection_limit"]
        limit = "–" if limit != limit else f"{limit:.3f}"
        lines.append(
            f"| {c['behaviour']} | {c['pool']} | {c['shape']} | {s['placed']} | {_pct(s['withheld'])} "
            f"| {_pct(s['max_gap_covered'])} | {_pct(s['top5_covered'])} | {_pct(s['ddm_covered'])} "
            f"| {_pct(s['fill'])} | {_pct(s['revise'])} | {_pct(s['max_gap_found'])} | {limit} "
            f"| {_pct(s['spread_covered'])} | {_pct(s['rho_covered'])} |"
        )
    return "\n".join(lines)


def item_tables(results: list[dict]) -> str:
    """The methodology page's tables of the item-behaviours grid, in Markdown."""
    order = {(b, p, s): k for k, (b, p, s, _, _) in enumerate(item_cells(1, None, None))}
    results = sorted(results, key=lambda c: order.get((c["behaviour"], c["pool"], c["shape"]), 10**6))
    lines = [
        "Items that do not answer as the Rasch model says: the fit check's verdict, the bounds' path (**withheld**: "
        "no bound, `fill` or `revise` published; **2PL**: each item's likelihood integrated over its "
        "discrimination), how often each published bound holds, and the flags (on the uniform shape every `fill` "
        "and `revise` is a false alarm):",
        "",
        "| Behaviour | Pool | Shape | Benchmarks | Misfit | Withheld | 2PL | Max Gap below its bound "
        "| Top-5 below its bound | DDM inside its bounds | `fill` | `revise` | Median detection limit |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in results:
        s = item_summary(c)
        limit = s["median_detection_limit"]
        limit = "–" if limit != limit else f"{limit:.3f}"
        lines.append(
            f"| {c['behaviour']} | {c['pool']} | {c['shape']} | {s['placed']} | {_pct(s['misfit'])} "
            f"| {_pct(s['withheld'])} | {_pct(s['two_pl'])} | {_pct(s['max_gap_covered'])} | {_pct(s['top5_covered'])} "
            f"| {_pct(s['ddm_covered'])} | {_pct(s['fill'])} | {_pct(s['revise'])} "
            f"| {limit} |"
        )
    lines += [
        "",
        "The effective floor (declared floors): how often its 95% interval contains the true share of the nominal "
        "floor, and its median estimate; blanks that stand for failures: how often the page warns:",
        "",
        "| Behaviour | Pool | Shape | Benchmarks | Floor's interval holds the truth | Median share "
        "| Warned of blanks |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for c in results:
        s = item_summary(c)
        if s["floor_covered"] != s["floor_covered"] and c["behaviour"] != "failures recorded as blanks":
            continue
        median = "–" if s["floor_median"] != s["floor_median"] else f"{s['floor_median']:.2f}"
        lines.append(
            f"| {c['behaviour']} | {c['pool']} | {c['shape']} | {s['placed']} | {_pct(s['floor_covered'])} "
            f"| {median} | {_pct(s['blanks_warned'])} |"
        )
    return "\n".join(lines)


def _native(value: object) -> object:
    """numpy scalars as JSON values."""
    return value.item() if hasattr(value, "item") else str(value)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=40, help="benchmarks per cell (default 40)")
    parser.add_argument("--quick", action="store_true", help="four cells, for a first look")
    parser.add_argument("--pools", default=None, help="semicolon-separated pool names (default: all)")
    parser.add_argument("--shapes", default=None, help="semicolon-separated shape names (default: all)")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), help="processes (default: cores)")
    parser.add_argument("--out", default=None, help="keep every finished cell in this JSON file (and resume from it)")
    parser.add_argument(
        "--dask",
        default=None,
        metavar="ADDRESS",
        help='run the cells on this Dask scheduler (local:N: a local cluster of N workers; pip install ".[dask]")',
    )
    parser.add_argument(
        "--grid",
        choices=("shapes", "items", "spreads"),
        default="shapes",
        help="the Rasch grid of shapes, item behaviours, or issue 64's spreads of discrimination",
    )
    parser.add_argument("--behaviours", default=None, help="items grid: semicolon-separated behaviours (default: all)")
    args = parser.parse_args(argv)
    if args.grid in ("items", "spreads"):
        main_items(args)
        return
    todo = cells(
        args.reps,
        args.quick,
        args.pools.split(";") if args.pools else None,
        args.shapes.split(";") if args.shapes else None,
    )
    done: list[dict] = []
    if args.out and Path(args.out).exists():
        done = json.loads(Path(args.out).read_text())
        have = {(c["pool"], c["items"], c["shape"]) for c in done if c["reps"] >= args.reps}
        todo = [c for c in todo if (c[0], c[1], c[2]) not in have]
    start = time.perf_counter()
    todo.sort(key=lambda c: -POOLS[c[0]][0] * c[1])  # the largest first: the pool's processes stay busy
    with executor(args) as cells_on:
        for k, result in enumerate(cells_on.map(run_cell, todo), 1):
            done.append(result)
            s = summary(result)
            print(
                f"  [{k}/{len(todo)}] {result['pool']}, {result['items']} items, {result['shape']}: "
                f"bounds {_pct(s['max_gap_covered'])}/{_pct(s['top5_covered'])}/{_pct(s['ddm_covered'])}, "
                f"fill {_pct(s['fill'])}, limit {s['median_detection_limit']:.3f} "
                f"({result['seconds']:.0f} s; {time.perf_counter() - start:.0f} s in all)",
                file=sys.stderr,
                flush=True,
            )
            if args.out:
                Path(args.out).write_text(json.dumps(done, default=_native))
    print(tables(done))
    print(f"\n({time.perf_counter() - start:.0f} s on this machine, {_runs_on(args)})")


@contextlib.contextmanager
def executor(args: argparse.Namespace):
    """Where the cells run: ``--jobs`` local processes, or the Dask scheduler at ``--dask`` (``local:N``: a local
    cluster of N worker processes, one thread each, started here and closed at the end). Either maps the cells in
    order (``Executor.map``), so what is printed and kept is the same whichever runs them."""
    if args.dask is None:
        with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            yield pool
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SystemExit('--dask needs Dask distributed: pip install ".[dask]"') from None
    if args.dask.startswith("local:"):
        workers = int(args.dask.removeprefix("local:"))
        with (
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
            Client(cluster) as client,
        ):
            yield client.get_executor(pure=False)
        return
    with Client(args.dask) as client:
        yield client.get_executor(pure=False)


def _runs_on(args: argparse.Namespace) -> str:
    return f"{max(1, args.jobs)} processes" if args.dask is None else f"Dask at {args.dask}"


def _cell_of(result: dict) -> tuple[str, str, str]:
    return result["behaviour"], result["pool"], result["shape"]


def main_items(args: argparse.Namespace) -> None:
    """The item-behaviours grid (``--grid items``): every cell, or those named; ``--reps`` overrides the per-pool
    default (20 benchmarks with 60 models, 40 with 200, 10 with 1,000); ``--out`` keeps and resumes."""
    reps = None if "--reps" not in sys.argv else args.reps
    make = spread_cells if args.grid == "spreads" else item_cells
    todo = make(
        reps, args.behaviours.split(";") if args.behaviours else None, args.pools.split(";") if args.pools else None
    )
    done: list[dict] = []
    if args.out and Path(args.out).exists():  # a kept cell with fewer benchmarks than asked runs the rest only
        done = json.loads(Path(args.out).read_text())
        have = {(c["behaviour"], c["pool"], c["shape"]): c["reps"] for c in done}
        todo = [(*c, have.get(c[:3], 0)) for c in todo if have.get(c[:3], 0) < c[3]]
    start = time.perf_counter()
    todo.sort(key=lambda c: -ITEM_POOLS[c[1]] * (c[3] - c[-1]))  # the largest first: the processes stay busy
    with executor(args) as cells_on:
        for k, result in enumerate(cells_on.map(run_item_cell, todo), 1):
            kept = next((c for c in done if _cell_of(c) == _cell_of(result)), None)
            if kept is not None:  # the cell's first benchmarks, then these
                more = {"rows": kept["rows"] + result["rows"], "seconds": kept["seconds"] + result["seconds"]}
                result = result | more
                done.remove(kept)
            done.append(result)
            s = item_summary(result)
            print(
                f"  [{k}/{len(todo)}] {result['behaviour']}, {result['pool']}, {result['shape']}: misfit "
                f"{_pct(s['misfit'])}, withheld {_pct(s['withheld'])}, bounds {_pct(s['max_gap_covered'])}/"
                f"{_pct(s['top5_covered'])}/{_pct(s['ddm_covered'])}, fill {_pct(s['fill'])}, revise "
                f"{_pct(s['revise'])}, floor {_pct(s['floor_covered'])} ({result['seconds']:.0f} s; "
                f"{time.perf_counter() - start:.0f} s in all)",
                file=sys.stderr,
                flush=True,
            )
            if args.out:
                Path(args.out).write_text(json.dumps(done, default=_native))
    print(spread_tables(done) if args.grid == "spreads" else item_tables(done))
    print(f"\n({time.perf_counter() - start:.0f} s on this machine, {_runs_on(args)})")


if __name__ == "__main__":
    main()
