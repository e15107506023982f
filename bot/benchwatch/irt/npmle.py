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
side exactly) over the current support and the grid points of steepest
ascent, then a backtracking line search; compiled with numba, it releases the GIL. Every iterate is a
distribution, so its value is a certified lower bound of the maximum, and the Frank-Wolfe gap (the largest
first-order gain over the simplex) a certified upper bound on what is left: a caller that only needs to know
on which side of a level the maximum lies stops as soon as it knows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

TOL = 1e-7  # stop when the certified gap to the maximum is below this (log-likelihood units)
MAX_ITER = 200
CANDIDATES = 24  # grid points of steepest ascent added to the support at each step


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


def mixture_loglik(like: np.ndarray, counts: np.ndarray, w: np.ndarray) -> float:
    """l(w), -inf where some pattern has no likelihood left."""
    return float(_loglik(np.ascontiguousarray(like, dtype=float), np.asarray(counts, float), np.asarray(w, float)))


@njit(cache=True, nogil=True)
def _support(w):  # pragma: no cover (compiled)
    """The grid points where w has mass: the only columns a mixture reads."""
    size = 0
    for k in range(w.size):
        size += w[k] != 0.0
    idx = np.empty(size, np.int64)
    size = 0
    for k in range(w.size):
        if w[k] != 0.0:
            idx[size] = k
            size += 1
    return idx


@njit(cache=True, nogil=True)
def _loglik(like, counts, w):  # pragma: no cover (compiled)
    idx = _support(w)
    total = 0.0
    for i in range(like.shape[0]):
        mix = 0.0
        for k in idx:
            mix += like[i, k] * w[k]
        if mix <= 0.0:
            return -np.inf
        total += counts[i] * np.log(mix)
    return total


@njit(cache=True, nogil=True)
def _dot(a, b):  # pragma: no cover (compiled)
    total = 0.0
    for k in range(a.size):
        total += a[k] * b[k]
    return total


@njit(cache=True, nogil=True)
def _matvec(a, x):  # pragma: no cover (compiled)
    """a @ x over the support of x, a row at a time (loops: numba's BLAS bindings compile slowly)."""
    idx = _support(x)
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        total = 0.0
        for k in idx:
            total += a[i, k] * x[k]
        out[i] = total
    return out


@njit(cache=True, nogil=True)
def _rmatvec(a, y):  # pragma: no cover (compiled)
    """a.T @ y."""
    out = np.zeros(a.shape[1])
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            out[k] += a[i, k] * y[i]
    return out


@njit(cache=True, nogil=True)
def _gram(a):  # pragma: no cover (compiled)
    """a.T @ a by BLAS: the Newton step's normal equations over patterns x candidates, the solver's largest
    cost (written as loops it took 8x as long at 5,000 patterns x 56 candidates, measured)."""
    return np.dot(a.T, a)


@njit(cache=True, nogil=True)
def _spd_solve(a, b):  # pragma: no cover (compiled)
    """a x = b for a symmetric positive definite a, by Cholesky (written out: numba's linalg compiles slowly)."""
    n = b.size
    low = np.zeros((n, n))
    for j in range(n):
        total = a[j, j]
        for k in range(j):
            total -= low[j, k] * low[j, k]
        low[j, j] = np.sqrt(max(total, 1e-300))
        for i in range(j + 1, n):
            total = a[i, j]
            for k in range(j):
                total -= low[i, k] * low[j, k]
            low[i, j] = total / low[j, j]
    y = np.empty(n)
    for i in range(n):
        total = b[i]
        for k in range(i):
            total -= low[i, k] * y[k]
        y[i] = total / low[i, i]
    x = np.empty(n)
    for i in range(n - 1, -1, -1):
        total = y[i]
        for k in range(i + 1, n):
            total -= low[k, i] * x[k]
        x[i] = total / low[i, i]
    return x


@njit(cache=True, nogil=True)
def _simplex_qp(gram, b, x, max_iter):  # pragma: no cover (compiled)
    """min 1/2 x'Gx - b'x over x >= 0 with sum x = 1, by a primal active-set method from the feasible x (in
    place): on the passive set, the equality-constrained minimum from one Cholesky factorisation (two solves and
    the multiplier of the sum); a negative part steps back to the boundary (Lawson and Hanson's rule); at a
    minimum, the point whose reduced gradient gains most enters. Plain loops: they compile in a fraction of the
    time numba's array functions take (the Gram matrix, far the larger product, is BLAS's)."""
    n = b.size
    passive = np.zeros(n, np.bool_)
    ridge = 1.0
    for k in range(n):
        passive[k] = x[k] > 0.0
        ridge = max(ridge, gram[k, k])
    ridge *= 1e-10  # identical columns (far ends of the grid) stay solvable
    idx = np.empty(n, np.int64)
    ones = np.empty(n)
    for _ in range(max_iter):
        size = 0
        for k in range(n):
            if passive[k]:
                idx[size] = k
                size += 1
        sub = np.empty((size, size))
        rhs = np.empty(size)
        for r in range(size):
            rhs[r] = b[idx[r]]
            ones[r] = 1.0
            for c in range(size):
                sub[r, c] = gram[idx[r], idx[c]]
            sub[r, r] += ridge
        u = _spd_solve(sub, rhs)
        v = _spd_solve(sub, ones[:size])
        su, sv = 0.0, 0.0
        for r in range(size):
            su += u[r]
            sv += v[r]
        nu = (su - 1.0) / sv
        positive = True
        for r in range(size):
            u[r] -= nu * v[r]  # now z, the minimum on the passive set with sum 1
            if u[r] <= 0.0:
                positive = False
        if not positive:
            alpha = 1.0
            for r in range(size):
                if u[r] <= 0.0:
                    step = x[idx[r]] / (x[idx[r]] - u[r])
                    if step < alpha:
                        alpha = step
            for r in range(size):
                k = idx[r]
                x[k] += alpha * (u[r] - x[k])
                if x[k] <= 1e-15:
                    x[k] = 0.0
                    passive[k] = False
            continue
        for k in range(n):
            x[k] = 0.0
        for r in range(size):
            x[idx[r]] = u[r]
        gain = _matvec(gram, x)
        pick, best = -1, 1e-12 * (1.0 + abs(nu))
        for k in range(n):
            reduced = b[k] - gain[k] - nu  # the reduced gradient of -objective at x
            if not passive[k] and reduced > best:
                pick, best = k, reduced
        if pick < 0:
            break
        passive[pick] = True
    return x


@njit(cache=True, nogil=True)
def _solve(like, counts, free, tilt, w, above, below, tol, max_iter, reach, level):  # pragma: no cover (compiled)
    """Maximise l(w) + tilt . w over distributions on the free points, from w (a distribution with l(w) finite),
    in place; stops early at ``above`` or ``below`` (see ``solve_mixing``), or once an iterate has tilt . w >= ``reach``
    with l(w) >= ``level``. Returns (objective, gap, iterations)."""
    n_pat, n_grid = like.shape
    total = 0.0
    root = np.empty(n_pat)
    for i in range(n_pat):
        total += counts[i]
        root[i] = np.sqrt(counts[i])
    value = _loglik(like, counts, w) + _dot(tilt, w)
    gap = np.inf
    iterations = 0
    trial = np.empty(n_grid)
    ratio = np.empty(n_pat)
    for iterations in range(1, max_iter + 1):  # noqa: B007 (reported)
        mix = _matvec(like, w)
        for i in range(n_pat):
            ratio[i] = counts[i] / mix[i]
        grad = _rmatvec(like, ratio)
        for k in range(n_grid):
            grad[k] += tilt[k]
        best = -np.inf
        for k in range(n_grid):
            if free[k] and grad[k] > best:
                best = grad[k]
        gap = best - _dot(grad, w)  # the Frank-Wolfe gap: max over the simplex of the linear gain
        if gap < tol or value >= above or value + gap < below:
            break
        tilted = _dot(tilt, w)
        if tilted >= reach and value - tilted >= level:
            break
        keep = np.zeros(n_grid, np.bool_)
        for k in range(n_grid):
            keep[k] = w[k] > 0.0
        taken = np.zeros(n_grid, np.bool_)  # the CANDIDATES free points of steepest ascent (no sort)
        for _ in range(min(CANDIDATES, n_grid)):
            pick = -1
            for k in range(n_grid):
                if free[k] and not taken[k] and (pick < 0 or grad[k] > grad[pick]):
                    pick = k
            if pick < 0:
                break
            taken[pick] = True
            keep[pick] = True
        size = 0
        for k in range(n_grid):
            size += keep[k]
        cand = np.empty(size, np.int64)
        size = 0
        for k in range(n_grid):
            if keep[k]:
                cand[size] = k
                size += 1
        system = np.empty((n_pat, cand.size))
        target = np.empty(n_pat)
        for i in range(n_pat):
            f = root[i] / mix[i]
            for c in range(cand.size):  # capped: a pattern far from the current mixture must not overflow
                system[i, c] = min(f * like[i, cand[c]], 1e100)
            target[i] = 2.0 * root[i]
        rhs = _rmatvec(system, target)
        for c in range(cand.size):
            rhs[c] += tilt[cand[c]]  # the tilt's linear term, exactly
        x = np.empty(cand.size)
        for c in range(cand.size):
            x[c] = w[cand[c]]  # feasible: the current distribution, whose support is among the candidates
        x = _simplex_qp(_gram(system), rhs, x, 10 * cand.size + 10)
        mass = 0.0
        for c in range(cand.size):
            mass += x[c]
        if mass <= 0.0:
            break
        proposal = np.zeros(n_grid)
        for c in range(cand.size):
            proposal[cand[c]] = x[c] / mass
        moved = False
        for attempt in range(2):  # the Newton proposal; failing it, a Frank-Wolfe step to the steepest vertex
            if attempt == 1:
                pick = -1
                for k in range(n_grid):
                    if free[k] and (pick < 0 or grad[k] > grad[pick]):
                        pick = k
                for k in range(n_grid):
                    proposal[k] = 0.0
                proposal[pick] = 1.0
            alpha = 1.0
            for _ in range(50):
                for k in range(n_grid):
                    trial[k] = w[k] + alpha * (proposal[k] - w[k])
                now = _loglik(like, counts, trial) + _dot(tilt, trial)
                if now > value + 1e-13 * (1.0 + abs(value)):  # a gain below rounding is no gain: stalled
                    for k in range(n_grid):
                        w[k] = trial[k]
                    value = now
                    moved = True
                    break
                alpha *= 0.5
            if moved:
                break
        if not moved:  # no ascent left at machine precision
            break
    return value, gap, iterations


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
) -> MixingFit:
    """The maximum of l(w) + ``tilt`` . w over distributions on the ``free`` grid points (all by default).
    Stops early once the objective reaches ``above`` or once its certified maximum is below ``below``: the
    caller then knows on which side of its level the maximum lies; with ``reach`` = (t, l), also once an
    iterate has tilt . w >= t and l(w) >= l (a distribution within a likelihood level that reaches t).

    ``start`` (restricted to the free points and normalised) is used if it has a finite likelihood, else it is
    mixed half and half with the uniform distribution on the free points.
    """
    like = np.ascontiguousarray(like, dtype=float)
    counts = np.ascontiguousarray(counts, dtype=float)
    n_grid = like.shape[1]
    free = np.ones(n_grid, bool) if free is None else np.ascontiguousarray(free, dtype=bool)
    if not free.any():
        raise ValueError("the restricted set of grid points is empty")
    tilt = np.zeros(n_grid) if tilt is None else np.ascontiguousarray(tilt, dtype=float)
    uniform = np.where(free, 1.0, 0.0) / free.sum()
    w = uniform.copy() if start is None else np.where(free, np.maximum(np.asarray(start, float), 0.0), 0.0)
    w = w / w.sum() if w.sum() > 0 else uniform.copy()
    if not np.isfinite(_loglik(like, counts, w)):
        w = 0.5 * w + 0.5 * uniform
        if not np.isfinite(_loglik(like, counts, w)):  # some item has no likelihood left on the free points
            return MixingFit(w, -np.inf, 0.0, 0)
    _, gap, iterations = _solve(
        like,
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
    )
    return MixingFit(w, float(_loglik(like, counts, w)), float(gap), int(iterations))


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
    like = np.ascontiguousarray(like, dtype=float)
    counts = np.ascontiguousarray(counts, dtype=float)
    best_w = np.asarray(start, float)
    psi0 = lo = float(h @ best_w)
    hi = float(h.max())
    drop = _loglik(like, counts, best_w) - level  # how far below the start the level lies
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
    for _ in range(40):
        t = 0.5 * (ok + bad)
        if _loglik(like, counts, (1 - t) * inside + t * outside) >= level:
            ok = t
        else:
            bad = t
    return (1 - ok) * inside + ok * outside
