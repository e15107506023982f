"""The nonparametric maximum likelihood of a difficulty distribution on a grid, and its profile along a line.

Items i = 1..P (patterns, each standing for ``counts[i]`` items with the same likelihood) have likelihood
``like[i, k]`` of their responses at grid point k. Over every distribution w on the grid the log likelihood

    l(w) = sum_i counts_i log(sum_k like_ik w_k)

is concave. ``solve_mixing`` maximises l(w) + t . w over the distributions on some of the grid points (``free``):
with t = 0 the nonparametric maximum likelihood (Kiefer and Wolfowitz) or its maximum with no mass outside
``free``; with t = lam h, the Lagrangian of "the largest h . w at a given likelihood", which
``linear_range`` turns into certified bounds of h . w over every distribution within a likelihood level.

The solver is the constrained Newton method of Wang (2007, "On fast computation of the nonparametric
maximum likelihood estimate of a mixing distribution"): each step maximises the quadratic expansion of the
objective over the simplex (an active-set method on the normal equations, the tilt entering their right-hand
side exactly) over the current support and the grid points of steepest ascent, then a backtracking line
search; compiled with numba (``benchwatch.irt.difficulty.npmle_solver``), it releases the GIL. Every iterate is a
distribution, so its value is a certified lower bound of the maximum, and the Frank-Wolfe gap (the largest
first-order gain over the simplex) a certified upper bound on what is left: a caller that only needs to know
on which side of a level the maximum lies stops as soon as it knows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchwatch.irt import ahead
from benchwatch.irt.difficulty.npmle_solver import _best_moved, _loglik, _solve

TOL = 1e-7  # stop when the certified gap to the maximum is below this (log-likelihood units)
MAX_ITER = 200
# Without a start, a fit on more than SPARSE_FROM free points starts on about SPARSE_POINTS of them, evenly spread:
# from every point, the first Newton steps solve over all of them (patterns x points^2 for their normal
# equations), 0.1 s a fit at 800 patterns x 200 points; from 25, the same maximum (to 1e-9) in a fiftieth of the
# time. On few points (the simulated pools' 50) the full start is the quicker: their sharp items then take
# 30-odd steps to fill the support instead of 6 (measured on the real atlas's likelihoods).
SPARSE_FROM = 64
SPARSE_POINTS = 25


@dataclass(frozen=True)
class MixingFit:
    """A distribution on the grid, its log likelihood, and a certified bound on what the objective has left."""

    w: np.ndarray
    loglik: float  # l(w)
    gap: float  # the objective's maximum is at most its value at w plus this
    iterations: int

    @property
    def upper(self) -> float:
        """Without a tilt: no distribution of the feasible set has a larger log likelihood than this."""
        return self.loglik + max(self.gap, 0.0)


def point_major(like: np.ndarray) -> np.ndarray:
    """``like`` (patterns x points) as the compiled solver reads it: the table of points x patterns, contiguous. A
    copy unless ``like`` is stored column-major (``np.asfortranarray``), as the callers that solve many times on
    one large likelihood keep it."""
    return np.ascontiguousarray(np.asarray(like, dtype=float).T)


def mixture_loglik(like: np.ndarray, counts: np.ndarray, w: np.ndarray) -> float:
    """l(w), -inf where some pattern has no likelihood left."""
    ahead.wait()
    return float(_loglik(point_major(like), np.asarray(counts, float), np.asarray(w, float)))


def solve_mixing(
    like: np.ndarray,
    counts: np.ndarray,
    *,
    free: np.ndarray | None = None,
    tilt: np.ndarray | None = None,
    start: np.ndarray | None = None,
    above: float | None = None,
    below: float | None = None,
    tol: float = TOL,
    max_iter: int = MAX_ITER,
    reach: tuple[float, float] | None = None,
    band: tuple[float, float] | None = None,
) -> MixingFit:
    """The maximum of l(w) + ``tilt`` . w over distributions on the ``free`` grid points (all by default).
    Stops early once the objective reaches ``above`` or once its certified maximum is below ``below``: the
    caller then knows on which side of its level the maximum lies; with ``band`` = (lo, hi), also once the
    objective is at least lo and its certified maximum below hi (two levels, each placed); with ``reach`` =
    (t, l), also once an iterate has tilt . w >= t and l(w) >= l (a distribution within a likelihood level that
    reaches t).

    ``start`` (restricted to the free points and normalised) is used if it has a finite likelihood, else it is
    mixed half and half with the uniform distribution on the free points; without one, the uniform distribution on
    the free points, or on ``SPARSE_POINTS`` of them spread evenly where there are more than ``SPARSE_FROM``.
    """
    ahead.wait()  # a first audit's solver, compiled beside its fit
    table = point_major(like)
    counts = np.ascontiguousarray(counts, dtype=float)
    n_grid = table.shape[0]
    free = np.ones(n_grid, bool) if free is None else np.ascontiguousarray(free, dtype=bool)
    if not free.any():
        raise ValueError("the restricted set of grid points is empty")
    tilt = np.zeros(n_grid) if tilt is None else np.ascontiguousarray(tilt, dtype=float)
    uniform = np.where(free, 1.0, 0.0) / free.sum()
    if start is None:
        points = np.flatnonzero(free)
        start = (
            uniform
            if points.size <= SPARSE_FROM
            else np.isin(np.arange(n_grid), points[:: points.size // SPARSE_POINTS])
        )
    w = np.where(free, np.maximum(np.asarray(start, float), 0.0), 0.0)
    w = w / w.sum() if w.sum() > 0 else uniform.copy()
    if not np.isfinite(_loglik(table, counts, w)):
        w = 0.5 * w + 0.5 * uniform
        if not np.isfinite(_loglik(table, counts, w)):  # some item has no likelihood left on the free points
            return MixingFit(w, -np.inf, 0.0, 0)
    _, gap, iterations = _solve(
        table,
        counts,
        free,
        tilt,
        w,
        np.inf if above is None else float(above),
        -np.inf if below is None else float(below),
        float(tol),
        int(max_iter),
        np.inf if reach is None else float(reach[0]),
        np.inf if reach is None else float(reach[1]),
        np.inf if band is None else float(band[0]),
        -np.inf if band is None else float(band[1]),
    )
    return MixingFit(w, float(_loglik(table, counts, w)), float(gap), int(iterations))


def empty_reaches(
    like: np.ndarray,
    counts: np.ndarray,
    starts: np.ndarray,
    lo: int,
    hi: int,
    blocks: int,
    levels: tuple[float] | tuple[float, float],
) -> tuple[float, np.ndarray | None]:
    """Where the largest l(w) over the distributions with no mass on points lo..hi-1 of each of the ``blocks``
    copies of the grid (``like``'s columns, copy after copy) lies against each of ``levels`` (one or two: a fit
    places its maximum against the lower and the higher, ``solve_mixing``'s ``band``): an attained l(w)
    that reaches every level it can (the maximum is below the others), and the fit's distribution where it took
    one.

    First the ``starts`` (rows) with the stretch's mass moved next to it (to the left, the right, or split: the
    best of them), which answer where they reach every level; else the fit with no mass there from the best of
    them, stopped as soon as it knows on which side of each level its maximum lies (``solve_mixing``'s ``above``,
    ``below`` and ``band``). One compiled call for the starts, one for the fit: the bounds' searches ask this of
    hundreds of stretches a benchmark."""
    ahead.wait()
    k = like.shape[1] // blocks
    value, start = _best_moved(point_major(like), counts, starts, lo, hi, blocks, k)
    low, high = min(levels), max(levels)
    if value >= high:
        return value, None
    free = np.ones((blocks, k), bool)
    free[:, lo:hi] = False
    free = free.ravel()
    fit = solve_mixing(like, counts, start=start, above=high, below=low, band=(low, high), free=free)
    return fit.loglik, fit.w


def linear_range(
    like: np.ndarray,
    counts: np.ndarray,
    h: np.ndarray,
    level: float,
    *,
    start: np.ndarray,
    stop_below: float | None = None,
    stop_above: float | None = None,
    tol: float = 5e-4,
    max_steps: int = 60,
) -> tuple[float, float, np.ndarray]:
    """Certified bounds (lo, hi) of the largest h . w over the distributions w with l(w) >= ``level``, and the
    distribution behind ``lo``. ``start`` must be such a distribution (the unrestricted maximum, say).

    For every lam > 0, the maximiser w_lam of l(w) + lam h . w gives two certificates: if l(w_lam) >= level
    then h . w_lam is attained (a lower bound); and for every w within the level,
    h . w <= h . w_lam + (l(w_lam) - level + gap) / lam (an upper bound, valid at any lam, exact where
    l(w_lam) = level). lam is searched geometrically until hi - lo < ``tol``, or until the maximum is known to
    lie below ``stop_below`` (hi < it) or at or above ``stop_above`` (lo >= it).
    """
    h = np.asarray(h, float)
    like = np.asfortranarray(like, dtype=float)  # each solve reads it point-major without a copy
    counts = np.ascontiguousarray(counts, dtype=float)
    best_w = np.asarray(start, float)
    psi0 = lo = float(h @ best_w)
    hi = float(h.max())
    drop = _loglik(point_major(like), counts, best_w) - level  # how far below the start the level lies
    lam = 1.0 / max(float(h.max() - h.min()), 1e-12)
    ok, bad = None, None  # (log lam, l - level) on either side of the level
    w, bad_w = best_w, None
    for _ in range(max_steps):
        if hi - lo <= tol or (stop_below is not None and hi < stop_below):
            break
        if stop_above is not None and lo >= stop_above:
            break
        # the objective's certified maximum below level + lam * stop_below already puts hi below stop_below: the
        # solve stops there (the same answer, found sooner: most of these searches end by ruling a value out)
        # and an iterate within the level with h . w >= stop_above is the other answer, found
        below = None if stop_below is None else level + lam * stop_below
        reach = None if stop_above is None else (lam * stop_above, level)
        fit = solve_mixing(like, counts, tilt=lam * h, start=w, tol=1e-9, below=below, reach=reach)
        w = fit.w
        psi = float(h @ w)
        excess = fit.loglik - level
        hi = min(hi, psi + (excess + fit.gap) / lam)
        if excess >= 0:
            if psi > lo:
                lo, best_w = psi, w
            ok = (np.log(lam), excess) if ok is None or np.log(lam) > ok[0] else ok
        else:
            bad_w = w
            bad = (np.log(lam), excess) if bad is None or np.log(lam) < bad[0] else bad
        if bad_w is not None and float(h @ bad_w) > lo:  # the best point of the segment to a distribution beyond
            mixed = _segment(like, counts, best_w, bad_w, level)
            if float(h @ mixed) > lo:
                lo, best_w = float(h @ mixed), mixed
        lam = _next_lambda(lam, ok, bad, psi - psi0, drop)
    return lo, max(hi, lo), best_w


def _next_lambda(lam: float, ok: tuple | None, bad: tuple | None, moved: float, drop: float) -> float:
    """The next multiplier: before the level is bracketed, from the quadratic profile the last step implies
    (l drops by lam^2 sigma^2 / 2 where h . w moved by lam sigma^2); once bracketed, regula falsi on log lam."""
    if bad is None:
        if moved > 0 and ok is not None:
            sigma2 = moved / lam
            return max(np.sqrt(2 * drop / sigma2), 2 * lam)
        return 4 * lam
    if ok is None:
        return lam / 8
    (a, fa), (b, fb) = ok, bad
    t = fa / (fa - fb)
    t = min(max(t, 0.1), 0.9)  # keep well inside the bracket: it shrinks from both sides
    return float(np.exp(a + t * (b - a)))


def _segment(like: np.ndarray, counts: np.ndarray, inside: np.ndarray, outside: np.ndarray, level: float) -> np.ndarray:
    """The point of the segment from ``inside`` (l >= level) towards ``outside`` farthest from ``inside`` with
    l >= level (l is concave along the segment: bisection)."""
    ok, bad = 0.0, 1.0
    table = point_major(like)
    for _ in range(40):
        t = 0.5 * (ok + bad)
        if _loglik(table, counts, (1 - t) * inside + t * outside) >= level:
            ok = t
        else:
            bad = t
    return (1 - ok) * inside + ok * outside
