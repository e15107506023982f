"""The detection boundary, by simulation: an improvement inside the largest gap changes nothing."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, ndtri

from benchwatch.metrics import largest_gaps, max_gap


def expected_score(z: np.ndarray, theta: float, boost: tuple[float, float] | None, delta: float = 0.3) -> float:
    """A model's expected benchmark score; ``boost`` raises its success odds on one z-interval."""
    logit = theta - ndtri(np.clip(z, 1e-9, 1 - 1e-9))
    if boost is not None:
        lo, hi = boost
        logit = logit + delta * ((z > lo) & (z < hi))
    return float(expit(logit).mean())


def test_improvement_inside_the_largest_gap_is_invisible_and_a_wider_one_never_is():
    rng = np.random.default_rng(71)
    z = np.sort(np.concatenate([rng.uniform(0.05, 0.35, 20), rng.uniform(0.62, 0.95, 20)]))
    gap = largest_gaps(z, 1)[0]
    base = expected_score(z, 0.5, None)
    # Anywhere inside the gap, however wide up to the gap itself: the score does not move.
    for width in (0.01, 0.1, 0.9 * gap.width):
        for lo in np.linspace(gap.lo, gap.hi - width, 25):
            assert expected_score(z, 0.5, (lo, lo + width)) == base
    # Wider than the Max Gap, wherever it is placed on [0, 1]: it touches an item, so the score moves.
    width = max_gap(z) * 1.01
    for lo in np.linspace(0.0, 1.0 - width, 400):
        assert expected_score(z, 0.5, (lo, lo + width)) > base
