"""Who can be told apart: tiers of statistically tied models, and each model's interval of rank, from one
procedure.

When two models differ by less than the evaluation noise, the honest verdict is "cannot tell them apart"
(arXiv:2602.16763), not a ranking. Every pair of models is tested once, and the false separations are
controlled over all pairs at once by Holm's step-down method (family-wise error ``ALPHA``): with probability
at least 95%, no pair is told apart in the wrong direction or where the two are equal. Everything published
reads off that one set of separations:

- **Tiers**, in score order: the models sorted best score first are cut into runs, a new tier beginning at the
  first model that some model of the current tier is significantly better than. Within a tier no model is
  told apart from another; each tier below the first begins at a model that some model of the tier above is
  significantly better than (or at the first of the models tied with it in score).
  Tier numbers never decrease as scores fall (models of equal score share a tier), so tier 1 holds exactly the
  best models up to the first that someone is significantly better than.
- **Rank intervals**: a model's rank is at least 1 + the number of models significantly better than it and at
  most n - the number significantly worse (n counts the untiered models too). They hold simultaneously with
  the tests, and a tier-1 model's interval always includes 1.

A model's score is its mean over the items it answered; two models are compared on the items both answered
(so a model that answered few items is placed by its score but is hard to tell apart from anyone).

- **Per-item data**: single binary answers, the exact McNemar test (the discordant items split as
  Binomial(b + c, 1/2) when the two are equal); otherwise (partial credit, samples per item) the paired t test
  on the item-level differences, each item a cluster of its samples.
- **Published scores only**: a z test on the scores' standard errors, the published ones where the source
  gives them (Epoch's ``stderr``), else the binomial error of the test-set size, sqrt(s (1 - s) / n).

Each score's 95% interval comes from one function, ``score_intervals``, wherever one is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ALPHA = 0.05
TIERED_MODELS = 300  # the best this many are tiered (pairs grow as the square); the rest are listed untiered
Z95 = 1.959963984540054


def score_intervals(
    scores: np.ndarray | float, n: np.ndarray | float, se: np.ndarray | float | None = None, z: float = Z95
) -> tuple[np.ndarray, np.ndarray]:
    """The 95% interval of each model's score: the one function behind every score interval benchwatch shows
    (the audit's top models, the tiers, the pages). Wilson's interval of a proportion over the ``n`` items the
    score stands on (items the independent units; correct near 0 and 1, where the normal one collapses; for
    partial credit in [0, 1] the item-level variance is at most s (1 - s), so it is never too narrow), or,
    where a standard error is given (finite: a source's published one), the normal interval s +- z se within
    [0, 1]."""
    s = np.clip(np.asarray(scores, float), 0.0, 1.0)
    n = np.maximum(np.asarray(n, float), 1.0)
    k = z * z / n
    centre = (s + k / 2) / (1 + k)
    half = z / (1 + k) * np.sqrt(s * (1 - s) / n + k / (4 * n))
    lo, hi = centre - half, centre + half
    if se is not None:
        e = np.asarray(se, float)
        given = np.isfinite(e)
        lo = np.where(given, np.maximum(0.0, s - z * np.where(given, e, 0.0)), lo)
        hi = np.where(given, np.minimum(1.0, s + z * np.where(given, e, 0.0)), hi)
    return lo, hi


@dataclass(frozen=True)
class Tiers:
    """Tiers and rank intervals of one benchmark's models, best score first, from one set of Holm-adjusted
    pairwise tests."""

    models: list[str]
    scores: np.ndarray
    score_se: np.ndarray  # each score's standard error (items as clusters, or the one the tests used)
    n_answered: np.ndarray  # the items each score stands on (a board's test-set size)
    score_lo: np.ndarray  # each score's 95% interval (``score_intervals``)
    score_hi: np.ndarray
    tier: np.ndarray  # 1 = the top tier
    p_values: np.ndarray  # models x models, raw two-sided p of each pair (1 on the diagonal)
    adjusted: np.ndarray  # the same, Holm-adjusted over all pairs
    method: str  # how the pairs were compared, in words
    alpha: float = ALPHA
    untiered: tuple[str, ...] = ()  # models beyond TIERED_MODELS
    notes: dict[str, str] = field(default_factory=dict)  # model -> why its place deserves a word (few items, ...)

    @property
    def better(self) -> np.ndarray:
        """``better[a, b]``: a significantly better than b (Holm-adjusted p below alpha, a's score higher)."""
        return significantly_better(self.scores, self.adjusted, self.alpha)

    @property
    def rank_lo(self) -> np.ndarray:
        """The best rank each model can hold (1 = best): 1 + the models significantly better than it."""
        return 1 + self.better.sum(axis=0)

    @property
    def rank_hi(self) -> np.ndarray:
        """The worst rank: every model (the untiered ones too) but those significantly worse than it."""
        return len(self.models) + len(self.untiered) - self.better.sum(axis=1)

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
            "tier_notes": [{"model": m, "why": self.notes[m]} for m in self.models if m in self.notes],
        }

    def table(self) -> list[dict]:
        """One row per model: score and its interval, tier, rank interval and note."""
        return [
            {
                "model": m,
                "score": float(s),
                "score_lo": float(slo),
                "score_hi": float(shi),
                "tier": int(t),
                "rank_lo": int(lo),
                "rank_hi": int(hi),
                "note": self.notes.get(m, ""),
            }
            for m, s, slo, shi, t, lo, hi in zip(
                self.models,
                self.scores,
                self.score_lo,
                self.score_hi,
                self.tier,
                self.rank_lo,
                self.rank_hi,
                strict=True,
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
    from scipy import special  # not scipy.stats (seconds); here: `saturation`'s score_intervals never loads it

    p = np.minimum(1.0, 2.0 * special.bdtr(np.minimum(b, c), n, 0.5))
    return np.where(n == 0, 1.0, p)


def significantly_better(scores: np.ndarray, adjusted: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """``better[a, b]``: a's score above b's and their Holm-adjusted p below alpha."""
    s = np.asarray(scores, float)
    return (np.asarray(adjusted) < alpha) & (s[:, None] > s[None, :])


def tiers_from_significance(scores: np.ndarray, better: np.ndarray) -> np.ndarray:
    """Tiers of models sorted best score first, given ``better[a, b]`` (a significantly better than b, after
    the adjustment): a new tier begins at the first model that some model of the current tier is significantly
    better than (moved back to the first of its equal scores: equal scores share a tier). Contiguous in score
    order, so tier numbers never decrease as scores fall; within a tier no model is better than another."""
    s = np.asarray(scores, float)
    m = s.size
    tier = np.zeros(m, int)
    if not m:
        return tier
    start, current = 0, 1
    for j in range(m):
        if better[start:j, j].any():
            first = j
            while first > start + 1 and s[first - 1] == s[j]:
                first -= 1  # a tie with the model above: the tie moves down together
            tier[first:j] = current + 1
            start, current = first, current + 1
        tier[j] = current
    return tier


def _result(models, keep, rest, mean, se, n, lo, hi, p, method, alpha) -> Tiers:
    np.fill_diagonal(p, 1.0)
    adjusted = _holm_matrix(p)
    tier = tiers_from_significance(mean, significantly_better(mean, adjusted, alpha))
    return Tiers(
        [str(v) for v in models[keep]],
        mean,
        se,
        n,
        lo,
        hi,
        tier,
        p,
        adjusted,
        method,
        alpha,
        tuple(str(v) for v in models[rest]),
    )


def tiers_from_items(
    models: np.ndarray,
    scores: np.ndarray,
    answered: np.ndarray,
    binary: bool,
    *,
    alpha: float = ALPHA,
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
    n_each = np.maximum(mask.sum(axis=1), 1)
    spread = np.maximum((y * y * mask).sum(axis=1) / n_each - mean**2, 0.0)
    score_se = np.sqrt(spread / np.maximum(n_each - 1, 1))  # items as clusters (the binomial one for 0/1)
    lo, hi = score_intervals(mean, n_each)
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
        from scipy import special  # imported here, as in mcnemar_exact

        p = 2 * special.stdtr(np.maximum(n - 1, 1), -np.abs(t))
        p = np.where(both < 2, 1.0, p)
        method = "paired t test on the item-level differences over the items both models answered"
    return _result(models, keep, rest, mean, score_se, n_each.astype(int), lo, hi, p, method, alpha)


def tiers_from_scores(
    models: np.ndarray,
    scores: np.ndarray,
    se: np.ndarray,
    how: str,
    *,
    n_items: int | np.ndarray | None = None,
    alpha: float = ALPHA,
) -> Tiers:
    """Tiers from published scores and their standard errors (``how`` says where the errors come from).
    ``se`` NaN where the source publishes none: there the binomial error of ``n_items`` (the test-set size)
    serves the tests and Wilson's interval the score (``score_intervals``)."""
    models = np.asarray(models)
    scores, se = np.asarray(scores, float), np.asarray(se, float)
    n = np.broadcast_to(np.asarray(np.nan if n_items is None else n_items, float), scores.shape)
    if np.isnan(se).any() and np.isnan(n).any():
        raise ValueError("a score without a standard error needs the test-set size")
    order = np.argsort(-scores, kind="stable")
    keep, rest = order[:TIERED_MODELS], order[TIERED_MODELS:]
    s, given, n = scores[keep], se[keep], n[keep]
    e = np.where(np.isfinite(given), given, binomial_se(s, np.where(np.isnan(n), 1, n)))
    lo, hi = score_intervals(s, np.where(np.isnan(n), 1, n), given)
    pooled = np.sqrt(e[:, None] ** 2 + e[None, :] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(pooled > 0, (s[:, None] - s[None, :]) / pooled, np.where(s[:, None] == s[None, :], 0.0, np.inf))
    from scipy import special  # imported here, as in mcnemar_exact

    p = 2 * special.ndtr(-np.abs(z))
    return _result(models, keep, rest, s, e, n, lo, hi, p, f"z test on {how}", alpha)


def binomial_se(scores: np.ndarray, n_items: int | np.ndarray) -> np.ndarray:
    """The binomial standard error of a proportion over a test set of n items."""
    s = np.clip(np.asarray(scores, float), 0.0, 1.0)
    return np.sqrt(s * (1 - s) / np.maximum(n_items, 1))
