"""The saturation index of arXiv:2602.16763 and the benchmark state it implies."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

BANDS = ((0.01, "very low"), (0.3, "low"), (0.7, "moderate"), (0.9, "high"))
SATURATION_THRESHOLD = 0.7
CEILING_MARGIN = 0.05
STATES = ("saturated", "stagnant", "discriminating", "unknown")


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
    if index >= SATURATION_THRESHOLD:
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

    def summary(self) -> dict:
        """The headline figures as a flat mapping."""
        keys = ("n_models", "n_items", "saturation_index", "band", "state", "top1", "top5", "top5_mean")
        return {k: getattr(self, k) for k in keys}


def saturation(models: np.ndarray, scores: np.ndarray, n_items: int, ceiling: float = 1.0) -> Saturation:
    """Saturation of a leaderboard given each model's score (proportion) and the test-set size."""
    scores = np.asarray(scores, float)
    order = np.lexsort((np.asarray(models, dtype=str), -scores))
    top = [(str(models[i]), float(scores[i])) for i in order[:5]]
    if len(top) < 5:
        return Saturation(
            len(scores), n_items, top[0][1] if top else None, None, None, tuple(top), None, None, "unknown", ceiling
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
