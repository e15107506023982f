"""Map item difficulties on the logit scale to the difficulty axis z in [0, 1]."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, ndtr, ndtri

from bot.irt.choices import DEFAULT_SCALE, SCALES


def ability_quantile(b: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """z_i = Phi((b_i - mean(theta)) / sd(theta)): where each item sits in the models' ability distribution."""
    theta = np.asarray(theta, float)
    sd = theta.std()
    if sd == 0:
        raise ValueError("the ability-quantile scale needs at least two models of different ability")
    return ndtr((np.asarray(b, float) - theta.mean()) / sd)


def expected_failure(b: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """z_i = 1 - mean_j sigmoid(theta_j - b_i): the share of the model pool expected to fail the item."""
    b = np.asarray(b, float)
    return 1.0 - expit(np.asarray(theta, float)[None, :] - b[:, None]).mean(axis=1)


def difficulty_z(b: np.ndarray, theta: np.ndarray, scale: str = DEFAULT_SCALE) -> np.ndarray:
    """Difficulty on [0, 1] on the named scale."""
    if scale == "ability-quantile":
        return ability_quantile(b, theta)
    if scale == "expected-failure":
        return expected_failure(b, theta)
    raise ValueError(f"unknown difficulty scale {scale!r}; choose one of {', '.join(SCALES)}")


def difficulty_b(z: np.ndarray, theta: np.ndarray, scale: str = DEFAULT_SCALE) -> np.ndarray:
    """The logit difficulty b whose z on the named scale is ``z`` (the inverse of ``difficulty_z``)."""
    z = np.clip(np.asarray(z, float), 1e-9, 1 - 1e-9)
    theta = np.asarray(theta, float)
    if scale == "ability-quantile":
        return theta.mean() + theta.std() * ndtri(z)
    if scale == "expected-failure":  # 1 - mean sigmoid(theta - b) rises with b: bisection, all items at once
        lo = np.full(z.shape, theta.min() - 40.0)
        hi = np.full(z.shape, theta.max() + 40.0)
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            low = expected_failure(mid, theta) < z
            lo, hi = np.where(low, mid, lo), np.where(low, hi, mid)
        return 0.5 * (lo + hi)
    raise ValueError(f"unknown difficulty scale {scale!r}; choose one of {', '.join(SCALES)}")
