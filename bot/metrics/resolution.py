"""Posterior coverage figures, and the resolution floor: what a target-matched benchmark would show.

The published figure is the posterior median of DDM, Max Gap or a gap sum over joint draws of every item's
difficulty (``bot.irt.item_posterior``: exact per item given the pool's abilities, empirical-Bayes prior),
and its interval the equal-tailed 95% interval of the same draws: one quantity, one interval.

The resolution floor of a figure is the distribution of that same estimator on benchmarks whose items
match the target exactly: the same number of items, z drawn from the target, answered by the same pool
(its fitted abilities, its missing cells and trials), estimated the same way. Its 95th percentile is the
level below which this pool cannot tell a real gap or mismatch from chance.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from bot.irt import (
    ItemPosterior,
    difficulty_b,
    difficulty_z,
    item_posterior_dense,
    marginal_abilities,
)
from bot.metrics.coverage import FIGURES, Target, coverage_draws

N_DRAWS = 200  # joint draws behind a published figure and its interval
NULL_REPLICATES = 200  # simulated target-matched benchmarks behind a resolution floor
NULL_DRAWS = 50  # draws behind each simulated benchmark's figure (a median: stable with fewer, prior at its estimate)
REFIT_ITEMS = 2000  # from this many items on, a model's ability is known to within a few hundredths of a logit
POOL_FACTORS = (2, 4, 8)  # larger pools tried when this one cannot resolve a gap of the threshold's width
MAX_SIMULATED_CELLS = 3_000_000  # larger pools are not simulated beyond this many cells
FLOOR_VERSION = 3


@dataclass(frozen=True)
class PosteriorFigures:
    """Each coverage figure's posterior median and 95% interval."""

    median: dict[str, float]
    interval: dict[str, tuple[float, float]]


REFERENCE_REPLICATES = 2000


def target_reference(n_items: int, target: Target, *, replicates: int = REFERENCE_REPLICATES, seed: int = 0) -> dict:
    """The 5th and 97.5th percentiles of each figure's true value on n items drawn from the target.

    A benchmark whose items match the target exactly still shows a positive DDM and gaps, from having
    finitely many items; this is their range (pure simulation of z, no responses, no fit).
    """
    rng = np.random.default_rng(seed)
    per_draw = coverage_draws(np.stack([_target_z(target, n_items, rng) for _ in range(replicates)]), target)
    return {k: (float(np.quantile(v, 0.05)), float(np.quantile(v, 0.975))) for k, v in per_draw.items()}


def figures_from_draws(
    z_draws: np.ndarray, target: Target, level: float = 0.95, reference: dict | None = None
) -> PosteriorFigures:
    """Posterior medians and equal-tailed intervals of the coverage figures over draws of z.

    DDM is a distance from the target, smallest when the items match it, so near that end every
    uncertainty (of the prior's spread above all) pushes its posterior up, and an equal-tailed interval
    misses a true DDM as small as a matched benchmark's (coverage 75-88% with 12 binary models in
    ``benchmarks/calibration.py``). Where DDM's posterior interval reaches into the range a matched
    benchmark of this size shows (``reference``, from ``target_reference``), its lower end extends to that
    range's 5th percentile. The gap figures' posterior intervals cover as they are.
    """
    per_draw = coverage_draws(z_draws, target)
    tail = (1 - level) / 2
    median = {k: float(np.median(v)) for k, v in per_draw.items()}
    interval = {}
    for k, v in per_draw.items():
        lo, hi = float(np.quantile(v, tail)), float(np.quantile(v, 1 - tail))
        if k == "ddm" and reference is not None and lo <= reference[k][1]:
            lo = min(lo, reference[k][0])
        interval[k] = (lo, hi)
    return PosteriorFigures(median, interval)


HYPER_DRAWS = 20  # draws of the prior's (mu, sigma); each gives n_draws / 20 item draws


def posterior_z_draws(
    trials: np.ndarray,
    successes: np.ndarray,
    theta: np.ndarray,
    scale: str,
    n_draws: int,
    rng: np.random.Generator,
    post: ItemPosterior | None = None,
    hyper: int = HYPER_DRAWS,
) -> np.ndarray:
    """Joint draws of every item's z (n_draws x items), the uncertainty of the prior included.

    Each of ``hyper`` rounds (``HYPER_DRAWS``; 1 holds the prior at its estimate, enough for medians) takes
    one draw of the prior's (mu, log sigma) from the curvature of its marginal likelihood, then draws every
    item's b from its exact posterior given it. The abilities are held at their fitted values: drawing them
    too changed no coverage in ``benchmarks/calibration.py``.
    """
    post = post or item_posterior_dense(trials, successes, theta, prior_uncertainty=hyper > 1)
    if hyper <= 1:  # the prior at its estimate: one posterior serves every draw
        b = post.draws(n_draws, rng)
        return difficulty_z(b.ravel(), theta, scale).reshape(b.shape)
    hyper = min(hyper, n_draws)
    sizes = np.diff(np.linspace(0, n_draws, hyper + 1).astype(int))
    cov = post.prior_cov if post.prior_cov is not None else np.zeros((2, 2))
    out = []
    for size in sizes:
        mu, log_sigma = rng.multivariate_normal([post.prior_mean, np.log(post.prior_sd)], cov)
        post_k = item_posterior_dense(trials, successes, theta, prior=(mu, float(np.exp(log_sigma))))
        b = post_k.draws(int(size), rng)
        out.append(difficulty_z(b.ravel(), theta, scale).reshape(b.shape))
    return np.concatenate(out)


def _target_z(target: Target, n: int, rng: np.random.Generator) -> np.ndarray:
    if target.kind == "beta":
        return rng.beta(target.a, target.b, n)
    if target.kind == "empirical":
        return rng.choice(np.asarray(target.values), n)
    return rng.random(n)


def simulate_matched(
    theta: np.ndarray, trials: np.ndarray, target: Target, scale: str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A benchmark whose items match the target: (true z, trials, successes) for the pool ``theta``.

    Item i keeps the observed cells and trials of column i of ``trials`` (models x items).
    """
    z = _target_z(target, trials.shape[1], rng)
    b = difficulty_b(z, theta, scale)
    p = expit(theta[:, None] - b[None, :])
    successes = rng.binomial(trials.astype(np.int64), p).astype(float)
    return z, trials, successes


def null_distribution(
    theta: np.ndarray,
    trials: np.ndarray,
    target: Target,
    scale: str,
    *,
    replicates: int = NULL_REPLICATES,
    n_draws: int = NULL_DRAWS,
    seed: int = 0,
    refit: bool | None = None,
) -> dict[str, np.ndarray]:
    """The estimator's figures on ``replicates`` simulated target-matched benchmarks (one value each).

    With ``refit`` each simulated benchmark's abilities are fitted again by marginal MAP, as the real
    benchmark's were; without it they are the pool's, a cheaper approximation. By default abilities are
    refitted below ``REFIT_ITEMS`` items, where their estimation error still moves the z scale.
    """
    refit = trials.shape[1] < REFIT_ITEMS if refit is None else refit
    rng = np.random.default_rng(seed)
    out: dict[str, list[float]] = {k: [] for k in FIGURES}
    for _ in range(replicates):
        _, w, s = simulate_matched(theta, trials, target, scale, rng)
        fitted = theta
        if refit:  # started from the pool's abilities rather than from a joint MAP: the same optimum
            fitted, _ = marginal_abilities(w, s, theta)
        z = posterior_z_draws(w, s, fitted, scale, n_draws, rng, hyper=1)
        for k, v in coverage_draws(z, target).items():
            out[k].append(float(np.median(v)))
    return {k: np.asarray(v) for k, v in out.items()}


FLAGGED = ("ddm", "max_gap", "top5_gap_sum")  # the figures the revise and fill flags read
FALSE_FLAG_RATE = 0.05


def flag_levels(values: dict[str, np.ndarray], rate: float = FALSE_FLAG_RATE) -> dict[str, float]:
    """One level per flagged figure, the same quantile of each, such that at most ``rate`` of the
    target-matched benchmarks exceed any of them: three figures read at their own 95th percentiles
    would raise a false flag up to three times as often."""
    table = np.stack([np.asarray(values[k], float) for k in FLAGGED])
    levels = np.quantile(table, 1 - rate, axis=1)
    for q in np.linspace(1 - rate, 1.0, 201):
        levels = np.quantile(table, q, axis=1)
        if (table > levels[:, None]).any(axis=0).mean() <= rate:
            break
    return {f"{k}_null_flag": float(v) for k, v in zip(FLAGGED, levels, strict=True)}


def _summary(values: dict[str, np.ndarray]) -> dict[str, float]:
    return {
        **{f"{k}_null_median": float(np.median(v)) for k, v in values.items()},
        **{f"{k}_null_p95": float(np.quantile(v, 0.95)) for k, v in values.items()},
        **flag_levels(values),
    }


def _key(theta: np.ndarray, trials: np.ndarray, target: Target, scale: str, extra: object = None) -> str:
    digest = hashlib.sha256()
    digest.update(np.round(np.sort(theta), 3).tobytes())
    digest.update(np.ascontiguousarray(trials[np.argsort(theta, kind="stable")], dtype=np.float32).tobytes())
    spec = [target.kind, target.a, target.b, len(target.values), scale, FLOOR_VERSION, NULL_REPLICATES, extra]
    digest.update(json.dumps(spec, default=str).encode())
    if target.values:
        digest.update(np.asarray(target.values).tobytes())
    return digest.hexdigest()[:24]


Cache = Callable[[str, Callable[[], dict]], dict]


def no_cache(_key: str, compute: Callable[[], dict]) -> dict:
    """A cache that keeps nothing."""
    return compute()


def resolution_floor(
    theta: np.ndarray, trials: np.ndarray, target: Target, scale: str, *, cache: Cache = no_cache, seed: int = 0
) -> dict[str, float]:
    """Median and 95th percentile of each figure on target-matched benchmarks for this pool (cached)."""

    def compute() -> dict:
        return _summary(null_distribution(theta, trials, target, scale, seed=seed))

    return cache(_key(theta, trials, target, scale), compute)


def larger_pools(
    theta: np.ndarray,
    trials: np.ndarray,
    target: Target,
    scale: str,
    thresholds: dict[str, float],
    *,
    cache: Cache = no_cache,
    seed: int = 0,
) -> dict[str, dict]:
    """For each figure whose floor is above its threshold: the smallest pool tried that would resolve it.

    Larger pools draw new abilities from a normal fitted to this pool's; every cell observed, with the
    pool's usual trials. Also tried: this pool with ten samples per item (when its cells are single trials).
    Returns ``{figure: {"models": m or None, "trials": p95 with 10 trials or None}}``.
    """
    n_models, n_items = trials.shape
    usual = float(np.median(trials[trials > 0])) if (trials > 0).any() else 1.0

    def compute() -> dict:
        rng = np.random.default_rng(seed + 1)
        tried: list[tuple[int, dict[str, float]]] = []
        for factor in POOL_FACTORS:
            m = n_models * factor
            if m * n_items > MAX_SIMULATED_CELLS:
                break
            pool = np.concatenate([theta, rng.normal(theta.mean(), theta.std(), m - n_models)])
            cells = np.full((m, n_items), usual)
            null = null_distribution(pool, cells, target, scale, replicates=40, seed=seed, refit=False)
            tried.append((m, {k: float(np.quantile(v, 0.95)) for k, v in null.items()}))
        with_trials = None
        if usual == 1 and n_models * n_items * 10 <= MAX_SIMULATED_CELLS * 10:
            cells = np.where(trials > 0, 10.0, 0.0)
            null = null_distribution(theta, cells, target, scale, replicates=40, seed=seed, refit=False)
            with_trials = {k: float(np.quantile(v, 0.95)) for k, v in null.items()}
        return {"tried": tried, "with_trials": with_trials}

    found = cache(_key(theta, trials, target, scale, ("larger", POOL_FACTORS)), compute)
    out = {}
    for fig, threshold in thresholds.items():
        models = next((m for m, p95 in found["tried"] if p95[fig] < threshold), None)
        trials_p95 = found["with_trials"][fig] if found["with_trials"] else None
        out[fig] = {
            "models": models,
            "largest_tried": max((m for m, _ in found["tried"]), default=None),
            "p95_with_10_trials": trials_p95,
        }
    return out
