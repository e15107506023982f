"""The DDM bounds (``benchwatch.metrics.bounds``): W1(G, mu) is the largest integral of a sign function s against
G - F_mu, each such integral a linear function of the items' distribution G, whose profile likelihood interval
``benchwatch.metrics.bound_search`` finds."""

from __future__ import annotations

import numpy as np

from benchwatch.metrics.bound_search import CRIT_DDM_LOW, Search

CROSSINGS = np.linspace(0.0, 1.0, 11)  # crossing points of the sign functions behind the DDM bounds
FINE = 4000  # integration grid of the DDM functionals


def signs(crossing: float, sign: float, t: np.ndarray) -> np.ndarray:
    return np.where(t < crossing, sign, -sign)


def functional(s: np.ndarray, t: np.ndarray, z: np.ndarray, cdf: np.ndarray) -> tuple[np.ndarray, float]:
    """For a sign function s on the fine grid t (cell midpoints): h with h . w = integral of s G, and the
    integral of s F_mu."""
    dt = 1.0 / t.size
    tail = np.concatenate([np.cumsum((s * dt)[::-1])[::-1], [0.0]])  # integral of s over [t_i - dt/2, 1]
    index = np.clip(np.round(z * t.size).astype(int), 0, t.size)
    return tail[index], float(np.sum(s * cdf) * dt)


def ddm_bounds(search: Search, z: np.ndarray) -> tuple[float, float]:
    t = (np.arange(FINE) + 0.5) / FINE
    cdf = search.target.cdf(t)
    patterns = [signs(x, sg, t) for x in CROSSINGS for sg in (1.0, -1.0) if not (x == 0.0 and sg == 1.0)]
    g0 = np.searchsorted(z, t, side="right")  # the NPMLE's own sign pattern
    w0 = search.axis(search.w0)
    patterns.append(np.where(np.cumsum(w0)[np.clip(g0 - 1, 0, z.size - 1)] * (g0 > 0) >= cdf, 1.0, -1.0))
    lower, upper, extreme = 0.0, 0.0, None
    funcs = [functional(s, t, z, cdf) for s in patterns]
    estimates = [float(h @ w0) - const for h, const in funcs]
    for e in np.argsort(estimates)[::-1]:  # the most promising first: later ones need one fit to be ruled out
        h, const = funcs[e]
        if estimates[e] > lower:  # its lower end can only raise the lower bound if the estimate itself does
            lo, _ = search.linear_end(h, up=False, beat=lower + const, crit=CRIT_DDM_LOW)
            lower = lower if lo is None else max(lower, lo - const)
        hi, w = search.linear_end(h, up=True, beat=upper + const)
        if hi is not None and hi - const > upper:
            upper, extreme = hi - const, w
    if extreme is not None:  # refine once: the sign pattern of the most extreme distribution found
        g = np.cumsum(search.axis(extreme))[np.clip(g0 - 1, 0, z.size - 1)] * (g0 > 0)
        h, const = functional(np.where(g >= cdf, 1.0, -1.0), t, z, cdf)
        hi, _ = search.linear_end(h, up=True, beat=upper + const)
        upper = upper if hi is None else max(upper, hi - const)
    # The distributions live on the grid; the items do not: moving each item to its nearest grid point moves W1 by
    # at most half a cell, so the bounds widen by that much to hold for the items themselves.
    half = 0.5 / search.k
    return max(lower - half, 0.0), min(max(upper, lower) + half, 1.0)
