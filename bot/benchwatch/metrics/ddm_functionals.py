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


def ddm_bounds(search: Search, z: np.ndarray, beside: float | None = None) -> tuple[float, float]:
    """The DDM bounds (lo, hi). With ``beside``, another item model's lower bound, when only the union's is wanted
    (the smaller): the lower ends are not searched where beside's is 0, nor once one reaches it (the lower bound
    is then given as at least beside's). The upper bound is searched in full: its last step refines the most
    extreme distribution the searches found, which a search stopped at beside's could leave unfound."""
    t = (np.arange(FINE) + 0.5) / FINE
    cdf = search.target.cdf(t)
    patterns = [signs(x, sg, t) for x in CROSSINGS for sg in (1.0, -1.0) if not (x == 0.0 and sg == 1.0)]
    g0 = np.searchsorted(z, t, side="right")  # the NPMLE's own sign pattern
    w0 = search.axis(search.w0)
    patterns.append(np.where(np.cumsum(w0)[np.clip(g0 - 1, 0, z.size - 1)] * (g0 > 0) >= cdf, 1.0, -1.0))
    half = 0.5 / search.k
    lower, upper, extreme = 0.0, 0.0, None
    # the lower end that settles the union's (at 0 no lower end can lower it)
    enough = np.inf if beside is None else (beside + half if beside > 0 else 0.0)
    funcs = [functional(s, t, z, cdf) for s in patterns]
    estimates = [float(h @ w0) - const for h, const in funcs]
    for e in np.argsort(estimates)[::-1]:  # the most promising first: later ones need one fit to be ruled out
        h, const = funcs[e]
        if estimates[e] > lower and lower < enough:  # it can only raise the lower bound if its estimate does
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
    return max(lower - half, 0.0), min(max(upper, lower) + half, 1.0)
