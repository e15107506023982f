"""Map item difficulties on the logit scale to the difficulty axis z in [0, 1]."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, ndtr, ndtri

from benchwatch.irt.choices import DEFAULT_SCALE, SCALES


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


@dataclass(frozen=True)
class UncertainAbilities:
    """The abilities as the item likelihoods of the bounds use them, each model's own error included.

    A point estimate from few answers is noisy (about 0.38 logits from 40 binary items): held fixed, it makes
    every item's likelihood too sharp and spreads the scale (the point estimates vary more than the abilities
    do). Under a normal population N(mu, tau^2) with each estimate's standard error s_j, tau^2 is the estimates'
    variance less the mean s_j^2; each ability is shrunk to its posterior mean, and its posterior variance v_j
    enters each answer's probability as sigmoid((theta_j - b) / sqrt(1 + pi v_j / 8)), the probit approximation
    of the logistic averaged over the ability. ``population`` is the estimates rescaled to the spread tau: the
    pool's scale of z."""

    theta: np.ndarray  # posterior means
    slope: np.ndarray  # 1 / sqrt(1 + pi v / 8), the same for every model
    population: np.ndarray  # the estimates rescaled to the population's spread: what the z scale is read from
    spread: float  # tau, the population's standard deviation
    noise: float  # the root mean square of the standard errors


def uncertain_abilities(theta: np.ndarray, theta_sd: np.ndarray | None) -> UncertainAbilities:
    """Abilities with their errors (see ``UncertainAbilities``); without errors, the point estimates as they are."""
    theta = np.asarray(theta, float)
    if theta_sd is None:
        return UncertainAbilities(theta, np.ones(theta.size), theta, float(theta.std()), 0.0)
    s2 = np.nan_to_num(np.asarray(theta_sd, float) ** 2, nan=0.0, posinf=0.0)
    mu, total = float(theta.mean()), float(theta.var())
    # the population's variance, never below a quarter of the estimates' (a pool of near-identical noisy models)
    tau2 = max(total - float(s2.mean()), 0.25 * total)
    keep = tau2 / (tau2 + s2)
    v = float(np.mean(keep * s2))
    rescale = np.sqrt(tau2 / total) if total > 0 else 1.0
    return UncertainAbilities(
        theta=mu + keep * (theta - mu),
        slope=np.full(theta.size, 1.0 / np.sqrt(1.0 + np.pi * v / 8.0)),
        population=mu + rescale * (theta - mu),
        spread=float(np.sqrt(tau2)),
        noise=float(np.sqrt(s2.mean())),
    )
