"""Model-based coverage estimates, what a finite benchmark shows by chance, and what pool would decide.

- **Model-based estimates**: the posterior median of DDM, Max Gap or a gap sum over joint draws of every
  item's difficulty (``benchwatch.irt.difficulty.item_posterior``: exact per item given the pool's abilities, under a
  normal prior on b fitted to the items: a smooth difficulty distribution is assumed), and the equal-tailed 95%
  interval of the same draws. Where the items leave a stretch of the axis empty, the prior fills it: these
  intervals cover the truth only where the assumption holds (their coverage per shape is measured by
  ``benchmarks/calibration.py``). The bounds that assume nothing are ``benchwatch.metrics.bounds``.
- **Sampling levels**: what n items drawn from the target show by chance.
- **What would decide**: the bounds on simulated larger pools.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from benchwatch.irt import ItemPosterior, count_loglik, difficulty_b, difficulty_z
from benchwatch.metrics.axis import GRID, AxisLikelihood, axis_grid, axis_likelihood
from benchwatch.metrics.bounds import axis_bounds, thin_truth_rows
from benchwatch.metrics.coverage import Target, coverage_draws

N_DRAWS = 200  # joint draws behind a model-based estimate and its interval


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
    blocks = [coverage_draws(z, target) for z in _target_blocks(target, n_items, rng, replicates)]
    per_draw = {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]}
    return {k: (float(np.quantile(v, 0.05)), float(np.quantile(v, 0.975))) for k, v in per_draw.items()}


BLOCK_VALUES = 1_000_000  # simulated positions held at a time (8 MB): the replicates' rows a block at a time


def _target_blocks(target: Target, n_items: int, rng: np.random.Generator, replicates: int):
    """The replicates' draws of n target items (rows), a block of rows at a time, in the order one array of all
    of them would hold (the same draws, the same figures: each row's figures are its own)."""
    per_block = max(1, BLOCK_VALUES // max(n_items, 1))
    for lo in range(0, replicates, per_block):
        yield np.stack([_target_z(target, n_items, rng) for _ in range(min(per_block, replicates - lo))])


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
    theta: np.ndarray,
    scale: str,
    n_draws: int,
    rng: np.random.Generator,
    post: ItemPosterior,
    hyper: int = HYPER_DRAWS,
) -> np.ndarray:
    """Joint draws of every item's z (n_draws x items), the uncertainty of the prior included.

    Each of ``hyper`` rounds (``HYPER_DRAWS``; 1 holds the prior at its estimate, enough for medians) takes
    one draw of the prior's (mu, log sigma) from the curvature of its marginal likelihood, then draws every
    item's b from its exact posterior given it (``post``, from ``benchwatch.irt.difficulty.item_posterior``, which keeps
    each pattern's likelihood for the other priors). The abilities are held at their fitted values.
    """
    if hyper <= 1:  # the prior at its estimate: one posterior serves every draw
        b = post.draws(n_draws, rng)
        return difficulty_z(b.ravel(), theta, scale).reshape(b.shape)
    hyper = min(hyper, n_draws)
    sizes = np.diff(np.linspace(0, n_draws, hyper + 1).astype(int))
    cov = post.prior_cov if post.prior_cov is not None else np.zeros((2, 2))
    out = []
    for size in sizes:
        mu, log_sigma = rng.multivariate_normal([post.prior_mean, np.log(post.prior_sd)], cov)
        post_k = post.with_prior(mu, float(np.exp(log_sigma)))
        b = post_k.draws(int(size), rng)
        out.append(difficulty_z(b.ravel(), theta, scale).reshape(b.shape))
    return np.concatenate(out)


def _target_z(target: Target, n: int, rng: np.random.Generator) -> np.ndarray:
    if target.kind == "beta":
        return rng.beta(target.a, target.b, n)
    if target.kind == "empirical":
        return rng.choice(np.asarray(target.values), n)
    return rng.random(n)


SAMPLING_REPLICATES = 500
SAMPLED = ("max_gap", "top5_gap_sum", "ddm")


@functools.lru_cache(maxsize=256)
def sampling_levels(n_items: int, target: Target, *, replicates: int = SAMPLING_REPLICATES, seed: int = 0) -> dict:
    """What n items drawn from the target show by chance: the 95th percentile of each figure's true value,
    and of the widest stretch (and the five widest) holding less than THIN of the target's mass there.

    A benchmark of 40 items that matches its target exactly still has a Max Gap near 0.1; the flags read
    their thresholds raised to these levels, so that a small benchmark is not flagged for being small.
    Pure simulation of z (no responses, no fit).
    """
    rng = np.random.default_rng(seed)
    parts = [
        (coverage_draws(z, target), thin_truth_rows(z, target))
        for z in _target_blocks(target, n_items, rng, replicates)
    ]
    figures = {k: np.concatenate([f[k] for f, _ in parts]) for k in parts[0][0]}
    thin = np.concatenate([t for _, t in parts])
    out = {f"{k}_sampling_p95": float(np.quantile(figures[k], 0.95)) for k in SAMPLED}
    out["thin_width_sampling_p95"] = float(np.quantile(thin[:, 0], 0.95))
    out["thin_top5_sampling_p95"] = float(np.quantile(thin[:, 1], 0.95))
    return out


Cache = Callable[[str, Callable[[], dict]], dict]


def no_cache(_key: str, compute: Callable[[], dict]) -> dict:
    """A cache that keeps nothing."""
    return compute()


def pool_key(*parts: object, arrays: tuple[np.ndarray, ...] = ()) -> str:
    """A short fingerprint of a pool (its abilities, rounded, and cells) and of what was asked of it."""
    digest = hashlib.sha256()
    for a in arrays:
        digest.update(np.ascontiguousarray(a).tobytes())
    digest.update(json.dumps([RESOLVE_VERSION, *parts], default=str, sort_keys=True).encode())
    return digest.hexdigest()[:24]


RESOLVE_VERSION = 8  # 8: each pool tried only for the figures whose search asked for it
ABILITY_STEP = 0.05  # logits: the simulated pools' abilities, to this step (models of one ability pooled); an
# ability placed by 1,000 answers is still uncertain by about 0.07 logits, so the step is below any pool's own error
POOL_FACTORS = (2, 4, 8, 16, 32, 64, 128)  # larger pools tried, as multiples of this one (until one decides)
RESOLVE_REPLICATES = 1  # simulated matched benchmarks per pool tried
MAX_POOL = 50_000  # models
MAX_SIMULATED_CELLS = 200_000_000  # models x items of one simulated pool (drawn in blocks of 20 million)
SAMPLES = 10  # samples per item tried for a pool of single answers
RESOLVE_GRID = 50  # z points of the simulations (the audit's: GRID): the same pools named, an eighth of the work
_BOUND_OF = {"max_gap": "detection_limit", "top5_gap_sum": "top5_upper", "ddm": "ddm_hi"}
_PART_OF = {"max_gap": "empty", "top5_gap_sum": "top5", "ddm": "ddm"}


def matched_likelihood(
    theta: np.ndarray,
    trials: float,
    n_items: int,
    target: Target,
    scale: str,
    rng: np.random.Generator,
    grid: int = GRID,
    floor: float = 0.0,
) -> AxisLikelihood:
    """The axis likelihood of a benchmark whose n items are drawn from the target, answered by every model of
    the pool ``theta`` (abilities known) with ``trials`` samples each: collapsed by total successes, which
    is all a complete 1PL pool's likelihood depends on; on a grid of ``grid`` points of z. With a chance
    ``floor`` (every item's) an answer is right with probability c + (1 - c) sigmoid, and the items read the
    likelihood of their counts where the audit's would (one answer each, more items than counts:
    ``benchwatch.irt.item_model.counts``), else each its own from its successes at each ability.

    The pool's abilities are taken to ``ABILITY_STEP`` logits (far inside any ability's own error), so that
    models of one ability answer as one binomial of all their trials: exact for that pool, and a pool of
    38,000 models costs what one of a few hundred distinct abilities does."""
    z_grid = axis_grid(grid)
    b_grid = difficulty_b(z_grid, theta, scale)
    b = difficulty_b(_target_z(target, n_items, rng), theta, scale)
    levels, counts = np.unique(np.round(np.asarray(theta, float) / ABILITY_STEP) * ABILITY_STEP, return_counts=True)
    answers = (counts * int(trials))[:, None]
    totals = np.zeros(n_items)
    step = max(1, 20_000_000 // max(1, levels.size))
    if floor > 0:
        eta = levels[:, None] - b_grid[None, :]
        log_right = np.logaddexp(np.log(floor), np.log1p(-floor) - np.logaddexp(0.0, -eta))  # levels x grid
        log_wrong = np.log1p(-floor) - np.logaddexp(0.0, eta)
        # as the audit reads them (``benchwatch.irt.item_model.counts``): one answer each and more items than counts,
        # the items read their counts' likelihood; else each its own from its successes at each ability
        counted = trials == 1 and n_items > int(counts.sum()) + 1
        table = count_loglik(np.repeat(levels, counts), np.ones(int(counts.sum())), b_grid, floor) if counted else None
        rows = np.empty((n_items, z_grid.size))
        for lo in range(0, n_items, step):
            p = floor + (1 - floor) * expit(levels[:, None] - b[None, lo : lo + step])
            k = rng.binomial(answers, p).T.astype(float)  # items x levels
            block = None
            if table is not None:
                block = table[k.sum(axis=1).astype(np.int64)]
                known = np.isfinite(block).any(axis=1)  # (a count that no float holds: its full likelihood)
                if not known.all():  # the full likelihoods formed only where some count needs its own
                    full = k @ log_right + (answers[:, 0][None, :] - k) @ log_wrong
                    block[~known] = full[~known]
            if block is None:
                block = k @ log_right + (answers[:, 0][None, :] - k) @ log_wrong
            rows[lo : lo + step] = block
        return axis_likelihood(rows, z_grid)
    for lo in range(0, n_items, step):  # in blocks of items: never more than 20 million cells at once
        p = expit(levels[:, None] - b[None, lo : lo + step])
        totals[lo : lo + step] = rng.binomial(answers, p).sum(axis=0)
    softplus = (counts[:, None] * np.logaddexp(0.0, levels[:, None] - b_grid[None, :])).sum(axis=0)
    rows = -totals[:, None] * b_grid[None, :] - trials * softplus[None, :]
    return axis_likelihood(rows, z_grid)


def pool_needed(
    theta: np.ndarray,
    trials: float,
    n_items: int,
    target: Target,
    scale: str,
    levels: dict[str, float],
    *,
    cache: Cache = no_cache,
    seed: int = 0,
    floor: float = 0.0,
) -> dict[str, dict]:
    """What would let this pool decide: for each figure of ``levels`` (its flag level), the smallest pool tried
    whose bound on a benchmark of the same size that matches the target lies below the level (the median of
    ``RESOLVE_REPLICATES`` simulated benchmarks), so that a benchmark without the flaw would be told "clear".
    The ladder of ``POOL_FACTORS`` is bisected for each figure (the bounds fall as the pool grows): a few pools,
    not all; each pool's benchmarks are drawn once, and searched only for the figures whose bisection asks for
    that pool (a figure's answer is its own bisection's).

    Larger pools keep these models and add abilities drawn from a normal fitted to them, every item answered
    with the pool's usual ``trials``; a pool of single answers is also tried with ``SAMPLES`` samples per
    item, each item's answers with the chance ``floor`` (the benchmark's effective floor, its items' mean).
    Abilities are known in the simulation (not refitted). Returns ``{figure: {"models": m or None,
    "largest_tried": m, "samples": SAMPLES or None, "how": ...}}``.
    """
    theta = np.sort(np.asarray(theta, float))
    wanted = {k: float(v) for k, v in levels.items() if k in _BOUND_OF}
    if not wanted:
        return {}

    def compute() -> dict:
        return _ladder(theta, trials, n_items, target, scale, wanted, seed, floor)

    key = pool_key(
        "pool_needed",
        float(trials),
        n_items,
        target.kind,
        target.a,
        target.b,
        len(target.values),
        scale,
        sorted(wanted.items()),
        seed,
        # a floor's simulations are their own (none: as before), read as the audit reads them (their counts)
        *([round(floor, 4), "counts"] if floor > 0 else []),
        arrays=(np.round(theta, 2),),
    )
    found = cache(key, compute)
    out = {}
    for fig, level in wanted.items():
        models = min((m for m, bound in found["tried"][fig] if bound < level), default=None)
        samples = found["samples"]
        out[fig] = {
            "models": models,
            "largest_tried": found.get("largest"),
            "samples": SAMPLES if samples is not None and samples[fig] < level else None,
            "how": (
                f"median of {RESOLVE_REPLICATES} simulated benchmarks of {n_items} items matching the target, "
                f"every item answered, abilities known, on {RESOLVE_GRID} points of z"
            ),
        }
    return out


def _ladder(
    theta: np.ndarray,
    trials: float,
    n_items: int,
    target: Target,
    scale: str,
    wanted: dict[str, float],
    seed: int,
    floor: float,
) -> dict:
    """``pool_needed``'s search: each figure's bisection of the ladder (``{"tried": {figure: [[models, bound],
    ...]}, "samples": {figure: bound} or None, "largest": models or None}``)."""

    def median_bounds(liks: list[AxisLikelihood], figures: list[str]) -> dict[str, float]:
        """The median over the replicates of the bounds of ``figures``, only their parts computed."""
        parts = tuple(sorted({_PART_OF[k] for k in figures}))
        runs = [axis_bounds(lik, target, parts) for lik in liks]
        return {k: float(np.median([getattr(r, _BOUND_OF[k]) for r in runs])) for k in figures}

    def replicates(pool: np.ndarray, t: float, rng: np.random.Generator) -> list[AxisLikelihood]:
        return [
            matched_likelihood(pool, t, n_items, target, scale, rng, RESOLVE_GRID, floor=floor)
            for _ in range(RESOLVE_REPLICATES)
        ]

    factors = [
        f for f in POOL_FACTORS if theta.size * f <= MAX_POOL and theta.size * f * n_items <= MAX_SIMULATED_CELLS
    ]
    drawn: dict[int, list[AxisLikelihood]] = {}
    done: dict[str, dict[int, float]] = {fig: {} for fig in wanted}

    def at(factor: int, fig: str) -> float:  # each pool drawn from its own seed: the same, whatever the order
        if factor not in drawn:
            rng = np.random.default_rng([seed + 1, factor])
            m = theta.size * factor
            pool = np.concatenate([theta, rng.normal(theta.mean(), theta.std(), m - theta.size)])
            drawn[factor] = replicates(pool, trials, rng)
        if factor not in done[fig]:  # the figures of this one's part, at this pool: one search for them all
            alike = [k for k in wanted if _PART_OF[k] == _PART_OF[fig]]
            for k, value in median_bounds(drawn[factor], alike).items():
                done[k][factor] = value
        return done[fig][factor]

    for fig, level in wanted.items():  # the bounds fall as the pool grows: bisect the ladder
        lo, hi = 0, len(factors) - 1
        if not factors or at(factors[hi], fig) >= level:
            continue
        while lo < hi:
            mid = (lo + hi) // 2
            if at(factors[mid], fig) < level:
                hi = mid
            else:
                lo = mid + 1
    tried = {fig: [[theta.size * f, done[fig][f]] for f in sorted(done[fig])] for fig in wanted}
    at_samples = replicates(theta, SAMPLES, np.random.default_rng([seed + 1, 0])) if trials == 1 else None
    samples = median_bounds(at_samples, list(wanted)) if at_samples is not None else None
    return {"tried": tried, "samples": samples, "largest": theta.size * factors[-1] if factors else None}
