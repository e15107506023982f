"""The saturation index of arXiv:2602.16763 and the benchmark state it implies."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from benchwatch.vocabulary import STATE_NAMES, TOLD_APART_AT

BANDS = ((0.01, "very low"), (0.3, "low"), (0.7, "moderate"), (0.9, "high"))
SATURATION_THRESHOLD = 0.7
CEILING_MARGIN = 0.05
STATES = STATE_NAMES  # the vocabulary's (benchwatch.vocabulary)
# What decided a state: the tiers (``benchwatch.metrics.tiers``: the one rule, ``vocabulary.STATE_RULE``) wherever
# there are five models; before the tiers are known (or where they are not computed: a calibration of the bounds),
# the paired item-level comparison of the top-1 and top-5 models (per-item data), the standard errors the
# leaderboard publishes, else the paper's index (sqrt(n) effective items).
STATE_FROM = {
    "tiers": "the tiers (every pair of models tested at once, Holm's correction)",
    "paired": "the paired item-level comparison of the top-1 and top-5 models",
    "published_se": "the standard errors the leaderboard publishes",
    "paper_index": "the paper's saturation index (sqrt(n) effective items)",
}


def _se(s: float, n_eff: float) -> float:
    """Binomial standard error on n_eff effective items, 0 at the ends as in the paper."""
    if s <= 0.0 or s >= 1.0:
        return 0.0
    return math.sqrt(s * (1.0 - s) / n_eff)


def saturation_index(s1: float, s5: float, n: int) -> float:
    """S = exp(-R^2), R = (s1 - s5) / SE_delta, with n_eff = sqrt(n) (the paper's definition)."""
    for name, v in (("s1", s1), ("s5", s5)):
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"{name} must be a proportion in [0, 1], got {v}")
    if n < 1:
        raise ValueError(f"the test-set size n must be at least 1, got {n}")
    n_eff = math.sqrt(n)
    se_delta = math.hypot(_se(s1, n_eff), _se(s5, n_eff))
    r = (s1 - s5) / se_delta if se_delta > 0 else 0.0
    return math.exp(-(r**2))


def state_evidence(rec: dict) -> str:
    """What decided a record's state, in words, with the figure: "by the paired item-level comparison of the
    top-1 and top-5 models: top-1 minus top-5 5.5 points, 95% interval 3.1 to 7.9"; "" for an unknown state."""
    key = rec.get("state_from")
    if key not in STATE_FROM:
        return ""
    words = "by " + STATE_FROM[key]
    lo, hi = rec.get("top_gap_lo"), rec.get("top_gap_hi")
    gap = None
    if key != "paper_index" and lo is not None and hi is not None and rec.get("top5") is not None:
        points = 100 * (rec["top1"] - rec["top5"])
        gap = f"top-1 minus top-5 {points:.1f} points, 95% interval {100 * lo:.1f} to {100 * hi:.1f}"
    if key == "tiers":
        size = rec.get("top_tier_size")
        tier = (
            f"{size} models share the best's tier"
            if size is not None and size >= TOLD_APART_AT
            else f"the best's tier holds {size} model{'s' if size != 1 else ''}, the fifth-best is below it"
        )
        return words + f": {tier}" + (f" ({gap})" if gap else "")
    if gap is not None:
        return words + ": " + gap
    index = rec.get("saturation_index")
    return words + ("" if index is None else f": {index:.2f}, within noise from {SATURATION_THRESHOLD}")


def band(index: float) -> str:
    """The paper's verbal band for a saturation index."""
    for upper, name in BANDS:
        if index < upper:
            return name
    return "very high"


def classify_state(
    index: float | None, top5_mean: float | None, ceiling: float = 1.0, margin: float = CEILING_MARGIN
) -> str:
    """saturated (within noise near the ceiling), stagnant (within noise far below it), or discriminating."""
    if index is None or top5_mean is None:
        return "unknown"
    return within_noise_state(index >= SATURATION_THRESHOLD, top5_mean, ceiling, margin)


def within_noise_state(within: bool, top5_mean: float, ceiling: float = 1.0, margin: float = CEILING_MARGIN) -> str:
    """The state of top five found ``within`` noise of each other, or not: saturated near the ceiling, stagnant
    far from it, discriminating when they can be told apart."""
    if within:
        return "saturated" if ceiling - top5_mean <= margin + 1e-12 else "stagnant"
    return "discriminating"


@dataclass(frozen=True)
class Saturation:
    """Saturation figures of one leaderboard."""

    n_models: int
    n_items: int
    top1: float | None
    top5: float | None
    top5_mean: float | None
    top_models: tuple[tuple[str, float], ...]
    saturation_index: float | None
    band: str | None
    state: str
    ceiling: float
    state_from: str | None = "paper_index"  # the evidence that decided the state (``STATE_FROM``); None: unknown
    gap_lo: float | None = None  # the 95% interval of top-1 minus top-5 that decided it (None: the paper's index)
    gap_hi: float | None = None

    def summary(self) -> dict:
        """The headline figures as a flat mapping."""
        keys = ("n_models", "n_items", "saturation_index", "band", "state", "state_from", "top1", "top5", "top5_mean")
        return {k: getattr(self, k) for k in keys}

    def decided_by(self, basis: str, gap_lo: float, gap_hi: float, paired_index: float | None = None) -> Saturation:
        """The state from better evidence than the paper's index (``basis``: "paired" or "published_se"): the top
        five are within noise only when the 95% interval of top-1 minus top-5 reaches 0 (or, paired, when the
        paired index reaches the level); near the ceiling that is saturated, far from it stagnant."""
        if basis not in STATE_FROM or basis == "paper_index":
            raise ValueError(f"unknown evidence for a state {basis!r}; choose paired or published_se")
        if self.top5_mean is None:
            return self
        within = gap_lo <= 0.0 or (paired_index is not None and paired_index >= SATURATION_THRESHOLD)
        state = within_noise_state(within, self.top5_mean, self.ceiling)
        return replace(self, state=state, state_from=basis, gap_lo=float(gap_lo), gap_hi=float(gap_hi))


def decided_by_tiers(sat: Saturation, top_tier_size: int) -> Saturation:
    """The state by the one rule (``benchwatch.vocabulary.STATE_RULE``): the top five are within noise exactly when
    the best's tier (``benchwatch.metrics.tiers``) holds five models or more, so that the fifth-best is in it. The
    interval of the top gap that an earlier decision read is kept as a figure of its own."""
    if sat.top5_mean is None:
        return sat
    state = within_noise_state(top_tier_size >= TOLD_APART_AT, sat.top5_mean, sat.ceiling)
    return replace(sat, state=state, state_from="tiers")


def saturation(models: np.ndarray, scores: np.ndarray, n_items: int, ceiling: float = 1.0) -> Saturation:
    """Saturation of a leaderboard given each model's score (proportion) and the test-set size."""
    scores = np.asarray(scores, float)
    order = np.lexsort((np.asarray(models, dtype=str), -scores))
    top = [(str(models[i]), float(scores[i])) for i in order[:5]]
    if len(top) < 5:
        return Saturation(
            len(scores),
            n_items,
            top[0][1] if top else None,
            None,
            None,
            tuple(top),
            None,
            None,
            "unknown",
            ceiling,
            None,
        )
    s1, s5 = top[0][1], top[4][1]
    index = saturation_index(s1, s5, n_items)
    top5_mean = float(np.mean([s for _, s in top]))
    return Saturation(
        n_models=len(scores),
        n_items=n_items,
        top1=s1,
        top5=s5,
        top5_mean=top5_mean,
        top_models=tuple(top),
        saturation_index=index,
        band=band(index),
        state=classify_state(index, top5_mean, ceiling),
        ceiling=ceiling,
    )


def paired_difference(y1: np.ndarray, y5: np.ndarray, z: float = 1.959963984540054) -> dict:
    """Mean per-item difference of two models on shared items, its item-clustered SE and 95% interval."""
    d = np.asarray(y1, float) - np.asarray(y5, float)
    n = d.size
    if n < 2:
        raise ValueError("a paired standard error needs at least two shared items")
    se = float(d.std(ddof=1) / math.sqrt(n))
    mean = float(d.mean())
    return {"difference": mean, "se": se, "lo": mean - z * se, "hi": mean + z * se, "n": n}


def paired_saturation_index(difference: float, se: float) -> float:
    """The index exp(-R^2) with R = difference / SE from the paired, item-clustered standard error."""
    r = difference / se if se > 0 else 0.0
    return math.exp(-(r**2))


def score_interval(y: np.ndarray, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson interval of a model's mean score over n items (items as the independent units)."""
    y = np.asarray(y, float)
    n = y.size
    if n == 0:
        raise ValueError("a score interval needs at least one item")
    p = float(y.mean())
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def index_interval(gap_lo: float, gap_hi: float, s1: float, s5: float, n: int) -> tuple[float, float]:
    """The published index's 95% interval: the index over every top-1 minus top-5 gap in [gap_lo, gap_hi].

    The index is exp(-(gap / SE)^2) with the paper's SE (n_eff = sqrt(n)) held at the observed s1 and s5,
    so it is largest at the gap nearest zero and smallest at the farthest.
    """
    n_eff = math.sqrt(n)
    se = math.hypot(_se(s1, n_eff), _se(s5, n_eff))
    if se == 0:
        value = saturation_index(s1, s5, n)
        return value, value
    near = 0.0 if gap_lo <= 0.0 <= gap_hi else min(abs(gap_lo), abs(gap_hi))
    far = max(abs(gap_lo), abs(gap_hi))
    return math.exp(-((far / se) ** 2)), math.exp(-((near / se) ** 2))


def binomial_gap_interval(s1: float, s5: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% interval of the top-1 minus top-5 gap of an aggregate board (two binomial proportions on n items)."""
    se = math.sqrt(s1 * (1 - s1) / n + s5 * (1 - s5) / n)
    return s1 - s5 - z * se, s1 - s5 + z * se
