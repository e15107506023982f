"""Who can be told apart: tiers of statistically tied models, and each model's interval of rank.

When two models differ by less than the evaluation noise, the honest verdict is "cannot tell them apart"
(arXiv:2602.16763), not a ranking. So the models of a benchmark, best score first, are grouped into tiers
around leaders: tier 1 is the best model and every model not significantly below it (the models that cannot
be told apart from the top), tier 2 the best of the rest and every remaining model not significantly below
that one, and so on. Every model of a tier is significantly below the leader of each tier above it.

- **Per-item data**: every pair of models is compared on the items both answered. Single binary answers:
  the exact McNemar test (the discordant items split as Binomial(b + c, 1/2) when the two are equal).
  Otherwise (partial credit, samples per item): the paired t test on the item-level differences, each item
  a cluster of its samples.
- **Published scores only**: a z test on the scores' standard errors, the published ones where the source
  gives them (Epoch's ``stderr``), else the binomial error of the test-set size, sqrt(s (1 - s) / n).

The false separations are controlled over all pairs at once by Holm's step-down method (family-wise error
``ALPHA``): with probability at least 95%, no model as good as a tier's leader is put below it. Each
model's 95% interval of rank comes from a bootstrap of the items (per-item data) or of the scores from their
errors (published scores); ``bootstrap=0`` skips it (the ranks of the scores themselves).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special  # not scipy.stats: it takes seconds to import, and these three are special functions

ALPHA = 0.05
BOOTSTRAP = 1000
TIERED_MODELS = 300  # the best this many are tiered (pairs grow as the square); the rest are listed untiered


@dataclass(frozen=True)
class Tiers:
    """Tiers and rank intervals of one benchmark's models, best score first."""

    models: list[str]
    scores: np.ndarray
    score_se: np.ndarray  # each score's standard error (items as clusters, or the published one)
    tier: np.ndarray  # 1 = the top tier
    rank_lo: np.ndarray  # 95% interval of rank (1 = best)
    rank_hi: np.ndarray
    p_values: np.ndarray  # models x models, raw two-sided p of each pair (1 on the diagonal)
    adjusted: np.ndarray  # the same, Holm-adjusted over all pairs
    method: str  # how the pairs were compared, in words
    alpha: float = ALPHA
    untiered: tuple[str, ...] = ()  # models beyond TIERED_MODELS

    @property
    def top(self) -> list[str]:
        return [m for m, t in zip(self.models, self.tier, strict=True) if t == 1]

    @property
    def n_tiers(self) -> int:
        return int(self.tier.max()) if self.tier.size else 0

    def summary(self) -> dict:
        """What a benchmark's record keeps of its tiers."""
        return {
            "tier_method": self.method,
            "tier_alpha": self.alpha,
            "top_tier": self.top,
            "top_tier_size": len(self.top),
            "n_tiers": self.n_tiers,
            "untiered": list(self.untiered),
        }

    def table(self) -> list[dict]:
        """One row per model: score, tier and rank interval."""
        return [
            {
                "model": m,
                "score": float(s),
                "score_lo": float(max(0.0, s - 1.959963984540054 * e)),
                "score_hi": float(min(1.0, s + 1.959963984540054 * e)),
                "tier": int(t),
                "rank_lo": int(lo),
                "rank_hi": int(hi),
            }
            for m, s, e, t, lo, hi in zip(
                self.models, self.scores, self.score_se, self.tier, self.rank_lo, self.rank_hi, strict=True
            )
        ]


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment of a vector of p-values (family-wise error over all of them)."""
    p = np.asarray(p, float)
    order = np.argsort(p, kind="stable")
    n = p.size
    scaled = np.minimum(1.0, (n - np.arange(n)) * p[order])
    adjusted = np.empty(n)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def _holm_matrix(p: np.ndarray) -> np.ndarray:
    """A symmetric matrix of pairwise p values, Holm-adjusted over the pairs (the diagonal 1)."""
    m = p.shape[0]
    upper = np.triu_indices(m, 1)
    adjusted = np.ones((m, m))
    if upper[0].size:
        adj = holm(p[upper])
        adjusted[upper] = adj
        adjusted[(upper[1], upper[0])] = adj
    return adjusted


def mcnemar_exact(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Two-sided exact McNemar p-values from the discordant counts (b: first right, second wrong; c: the
    reverse): 2 P(X <= min(b, c)) for X ~ Binomial(b + c, 1/2), at most 1."""
    b, c = np.rint(np.asarray(b, float)).astype(np.int64), np.rint(np.asarray(c, float)).astype(np.int64)
    n = b + c  # counts: whole numbers (scipy's bdtr deprecates a non-integer n)
    p = np.minimum(1.0, 2.0 * special.bdtr(np.minimum(b, c), n, 0.5))
    return np.where(n == 0, 1.0, p)


def tiers_from_significance(scores: np.ndarray, better: np.ndarray) -> np.ndarray:
    """Tiers of models sorted best first, given ``better[a, b]`` (a significantly better than b, after the
    adjustment): tier 1 is the best model and every model it is not significantly better than; tier 2 the best
    of the rest and every remaining model that one is not significantly better than; and so on."""
    m = scores.size
    tier = np.zeros(m, int)
    current = 0
    for leader in range(m):
        if tier[leader]:
            continue
        current += 1
        tier[leader] = current
        for j in range(leader + 1, m):
            if not tier[j] and not better[leader, j]:
                tier[j] = current
    return tier


def _ranks(samples: np.ndarray) -> np.ndarray:
    """Each column's rank within its row, 1 for the best score (ties share the better rank)."""
    order = np.argsort(-samples, axis=1, kind="stable")
    ranks = np.empty_like(order)
    rows = np.arange(samples.shape[0])[:, None]
    ranks[rows, order] = np.arange(1, samples.shape[1] + 1)[None, :]
    # ties: the best rank among equal scores
    sorted_scores = np.take_along_axis(samples, order, axis=1)
    first = np.concatenate(
        [np.ones((samples.shape[0], 1), bool), sorted_scores[:, 1:] != sorted_scores[:, :-1]], axis=1
    )
    best = np.maximum.accumulate(np.where(first, np.arange(1, samples.shape[1] + 1)[None, :], 0), axis=1)
    ranks[rows, order] = best
    return ranks


def _rank_interval(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ranks = _ranks(samples)
    return np.floor(np.quantile(ranks, 0.025, axis=0)).astype(int), np.ceil(np.quantile(ranks, 0.975, axis=0)).astype(
        int
    )


def tiers_from_items(
    models: np.ndarray,
    scores: np.ndarray,
    answered: np.ndarray,
    binary: bool,
    *,
    alpha: float = ALPHA,
    bootstrap: int = BOOTSTRAP,
    seed: int = 0,
) -> Tiers:
    """Tiers from per-item scores: ``scores`` and ``answered`` are models x items (a model's score on an item,
    the mean over its samples; ``answered`` False where it did not answer). ``binary``: every cell a single 0/1
    answer (the exact McNemar test), else the paired t test."""
    models = np.asarray(models)
    y = np.where(answered, scores, 0.0).astype(float)
    mask = answered.astype(float)
    mean = y.sum(axis=1) / np.maximum(mask.sum(axis=1), 1)
    order = np.argsort(-mean, kind="stable")
    keep, rest = order[:TIERED_MODELS], order[TIERED_MODELS:]
    y, mask, mean = y[keep], mask[keep], mean[keep]
    m = keep.size
    n_each = np.maximum(mask.sum(axis=1), 1)
    spread = np.maximum((y * y * mask).sum(axis=1) / n_each - mean**2, 0.0)
    score_se = np.sqrt(spread / np.maximum(n_each - 1, 1))  # items as clusters (the binomial one for 0/1)
    both = mask @ mask.T  # items both answered
    if binary:
        wins = (y * mask) @ ((1.0 - y) * mask).T  # b[a, b]: a right, b wrong, both answered
        p = mcnemar_exact(wins, wins.T)
        method = "exact McNemar test on the items both models answered"
    else:
        s1 = (y * mask) @ mask.T  # sum of a's scores over the shared items
        sq = (y * y * mask) @ mask.T
        cross = y @ y.T
        diff_sum = s1 - s1.T
        diff_sq = sq + sq.T - 2 * cross  # sum of (y_a - y_b)^2 over the shared items
        n = np.maximum(both, 1)
        d_mean = diff_sum / n
        var = np.maximum(diff_sq - n * d_mean**2, 0.0) / np.maximum(n - 1, 1)
        se = np.sqrt(var / n)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, d_mean / se, np.where(d_mean == 0, 0.0, np.inf))
        p = 2 * special.stdtr(np.maximum(n - 1, 1), -np.abs(t))
        p = np.where(both < 2, 1.0, p)
        method = "paired t test on the item-level differences over the items both models answered"
    np.fill_diagonal(p, 1.0)
    adjusted = _holm_matrix(p)
    better = (adjusted < alpha) & (mean[:, None] > mean[None, :])
    tier = tiers_from_significance(mean, better)
    rng = np.random.default_rng(seed)
    n_items = y.shape[1]
    samples = np.empty((bootstrap, m))
    chunk = max(1, min(bootstrap, 4_000_000 // max(n_items, 1)))  # replicates resampled at once: one matrix product
    for lo in range(0, bootstrap, chunk):
        size = min(chunk, bootstrap - lo)
        draws = rng.integers(0, n_items, (size, n_items))  # the same stream as one replicate at a time
        counts = np.bincount((draws + n_items * np.arange(size)[:, None]).ravel(), minlength=size * n_items)
        counts = counts.reshape(size, n_items).astype(float).T
        samples[lo : lo + size] = ((y @ counts) / np.maximum(mask @ counts, 1e-12)).T
    lo, hi = _rank_interval(samples) if bootstrap else (np.arange(1, m + 1), np.arange(1, m + 1))
    return Tiers(
        [str(v) for v in models[keep]],
        mean,
        score_se,
        tier,
        lo,
        hi,
        p,
        adjusted,
        method,
        alpha,
        tuple(str(v) for v in models[rest]),
    )


def tiers_from_scores(
    models: np.ndarray,
    scores: np.ndarray,
    se: np.ndarray,
    how: str,
    *,
    alpha: float = ALPHA,
    bootstrap: int = BOOTSTRAP,
    seed: int = 0,
) -> Tiers:
    """Tiers from published scores and their standard errors (``how`` says where the errors come from)."""
    models = np.asarray(models)
    scores, se = np.asarray(scores, float), np.asarray(se, float)
    order = np.argsort(-scores, kind="stable")
    keep, rest = order[:TIERED_MODELS], order[TIERED_MODELS:]
    s, e = scores[keep], se[keep]
    m = keep.size
    pooled = np.sqrt(e[:, None] ** 2 + e[None, :] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(pooled > 0, (s[:, None] - s[None, :]) / pooled, np.where(s[:, None] == s[None, :], 0.0, np.inf))
    p = 2 * special.ndtr(-np.abs(z))
    np.fill_diagonal(p, 1.0)
    adjusted = _holm_matrix(p)
    better = (adjusted < alpha) & (s[:, None] > s[None, :])
    tier = tiers_from_significance(s, better)
    rng = np.random.default_rng(seed)
    samples = s[None, :] + e[None, :] * rng.standard_normal((bootstrap, m))
    lo, hi = _rank_interval(samples) if bootstrap else (np.arange(1, m + 1), np.arange(1, m + 1))
    return Tiers(
        [str(v) for v in models[keep]],
        s,
        e,
        tier,
        lo,
        hi,
        p,
        adjusted,
        f"z test on {how}",
        alpha,
        tuple(str(v) for v in models[rest]),
    )


def binomial_se(scores: np.ndarray, n_items: int) -> np.ndarray:
    """The binomial standard error of a proportion over a test set of n items."""
    s = np.clip(np.asarray(scores, float), 0.0, 1.0)
    return np.sqrt(s * (1 - s) / max(n_items, 1))
