"""Repeated samples of one item by one model that agree: a beta-binomial cell, its correlation rho a nuisance.

A model that samples one problem ten times tends to solve it every time or never: its ten samples agree far more
than ten independent trials would, and a binomial cell takes them for ten items' worth of evidence. The cell here
is beta-binomial: k right of n samples, k ~ BetaBinomial(n, P (1 - rho) / rho, (1 - P) (1 - rho) / rho), with the
item model's P and the intra-cell correlation rho (one per benchmark; rho = 0 is the binomial, rho = 1 one trial
repeated n times). Its mean is n P and its variance n P (1 - P) (1 + (n - 1) rho).

rho is estimated from the cells with several samples by its profile likelihood at the fitted P of each cell (the
1PL at the effective floor), with its 95% interval at chi2_2's level as the floor's (the P are fitted). A P that
misfits (an item of unusual discrimination) also spreads the cells' counts, so rho is if anything too large:
its bounds then are wider, never narrower, than the truth's.

Where a cell's samples agree, the fit, the bounds and the fit check count each cell as its effective number of
trials, n / (1 + (n - 1) rho) (the design effect), its successes scaled alike (``effective``): the binomial
likelihood of the scaled counts has the beta-binomial's mean and, to second order, its variance, so ten
agreeing samples weigh as 1 / (1 + 9 rho) of ten trials, one trial at rho = 1. The bounds are computed at each
end of rho's interval and hold over it (``benchwatch.metrics.union_bounds``). The paired comparison of the top
models and the tiers' tests already take each item as one unit (its samples' mean), whatever rho is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.special import betaln, gammaln

from benchwatch.irt.responses import ResponseArrays

GRID = np.concatenate([[0.0], np.geomspace(1e-3, 0.98, 64)])  # the values of rho the profile is computed at
CRIT = 5.991  # chi2_2's 5% point, as the floor's
MAX_CELLS = 200_000  # cells with several samples the profile reads at most (a fixed random subset beyond)


@dataclass(frozen=True)
class RhoEstimate:
    """The intra-cell correlation of repeated samples, with its 95% profile interval."""

    rho: float
    lo: float
    hi: float
    cells: int  # cells of several samples the profile read
    samples: float  # their median number of samples

    def ends(self) -> tuple[float, ...]:
        """The correlations the bounds are computed at: the interval's ends (one value when they meet)."""
        return (self.lo,) if self.hi - self.lo < 1e-3 else (self.lo, self.hi)

    def record(self) -> dict:
        return {"rho": self.rho, "rho_lo": self.lo, "rho_hi": self.hi, "cells": self.cells, "samples": self.samples}


def beta_binomial_logpmf(k: np.ndarray, n: np.ndarray, p: np.ndarray, rho: float) -> np.ndarray:
    """log P(k right of n samples) in a beta-binomial cell of mean probability p and intra-cell correlation rho
    (the binomial at rho = 0)."""
    k, n = np.asarray(k, float), np.asarray(n, float)
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + _kernel(k, n, np.asarray(p, float), rho)


def _kernel(k: np.ndarray, n: np.ndarray, p: np.ndarray, rho: float) -> np.ndarray:
    """``beta_binomial_logpmf`` without its binomial coefficient (the part that depends on p and rho)."""
    p = np.clip(p, 1e-12, 1 - 1e-12)
    if rho <= 0.0:
        return k * np.log(p) + (n - k) * np.log1p(-p)
    t = (1.0 - rho) / rho
    alpha, beta = p * t, (1.0 - p) * t
    return betaln(k + alpha, n - k + beta) - betaln(alpha, beta)


def several(data: ResponseArrays) -> bool:
    """Whether some cell holds several samples (a rho to estimate)."""
    return bool(data.weight.size) and bool(np.any(data.weight > 1.5))


def estimate_rho(
    data: ResponseArrays, theta: np.ndarray, b: np.ndarray, floor: np.ndarray | None = None, seed: int = 0
) -> RhoEstimate | None:
    """rho's estimate and 95% interval (see the module) from the cells of several samples at the fitted abilities,
    difficulties and floors; None where no cell has several samples."""
    from benchwatch.irt.answers import right

    cells = np.flatnonzero(data.weight > 1.5)
    if cells.size == 0:
        return None
    if cells.size > MAX_CELLS:
        cells = np.sort(np.random.default_rng(seed).choice(cells, MAX_CELLS, replace=False))
    n = np.rint(data.weight[cells])
    k = np.rint(n * data.y[cells])
    c = 0.0 if floor is None else np.asarray(floor, float)[data.item_idx[cells]]
    p = right(np.asarray(theta)[data.model_idx[cells]] - np.asarray(b)[data.item_idx[cells]], c)
    # the binomial coefficients' sum once: it is the same at every rho
    choose = float((gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)).sum())
    ell = np.array([choose + float(_kernel(k, n, p, float(r)).sum()) for r in GRID])
    best = int(np.argmax(ell))
    inside = np.flatnonzero(ell >= ell[best] - CRIT / 2)
    lo_at, hi_at = int(inside.min()), int(inside.max())
    # the ends one grid point outside the level (a conservative interval: never shorter than the profile's)
    lo = float(GRID[max(lo_at - 1, 0)]) if lo_at > 0 else 0.0
    hi = float(GRID[min(hi_at + 1, GRID.size - 1)])
    return RhoEstimate(float(GRID[best]), lo, hi, int(cells.size), float(np.median(n)))


def effective(data: ResponseArrays, rho: float) -> ResponseArrays:
    """The cells counted as their effective numbers of trials at ``rho``, n / (1 + (n - 1) rho), the share right
    unchanged (see the module); ``data`` itself at rho = 0."""
    if rho <= 0.0 or not several(data):
        return data
    w = data.weight / (1.0 + (data.weight - 1.0) * rho)
    return replace(data, weight=w)
