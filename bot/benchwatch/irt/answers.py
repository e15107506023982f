"""The item model's answer probability and its derivatives, in one place: P = c + (1 - c) sigmoid(eta).

eta is a model's logit against an item (theta - b, or a (theta - b) for an item of discrimination a) and c the
item's chance floor (0 for an open-ended item: the Rasch model). The compiled fit (``benchwatch.irt.kernels``) has
the same terms inline."""

from __future__ import annotations

import numpy as np
from scipy.special import expit


def right(eta: np.ndarray, floor: np.ndarray | float = 0.0) -> np.ndarray:
    """P(right answer)."""
    return floor + (1 - np.asarray(floor, float)) * expit(eta)


def terms(
    eta: np.ndarray, floor: np.ndarray | float, successes: np.ndarray, trials: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per cell: the score d loglik / d eta = s (1 - c) sigma (1 - sigma) / P - (w - s) sigma, and the Fisher
    information of eta, w (1 - c) sigma^2 (1 - sigma) / P (w sigma (1 - sigma) without a floor)."""
    sig = expit(eta)
    c = np.asarray(floor, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(c > 0, (1 - c) * sig / (c + (1 - c) * sig), 1.0)  # the share of P that is not the floor
    score = successes * share * (1 - sig) - (trials - successes) * sig
    return score, trials * share * sig * (1 - sig)
