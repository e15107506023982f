"""The compiled solver of ``benchwatch.irt.difficulty.npmle``: the constrained Newton method for the maximum of
l(w) + t . w over the distributions on some of the grid points, with its small dense linear algebra (the normal
equations, the quadratic programme over the simplex), compiled with numba (cached on disk) and free of the GIL.

The likelihood is read point-major (``table[k, i]``, grid points x patterns): a mixture reads only the columns of
its support (a few dozen of 200 points), which are then rows of the table, contiguous; read pattern-major, every
mixture streamed the whole table through the memory (5,000 patterns: 8 MB a pass). Each sum adds its terms in the
order the pattern-major loops did, so the results are the same to the bit."""

from __future__ import annotations

import numpy as np

from benchwatch.kernel_cache import njit

CANDIDATES = 24  # grid points of steepest ascent added to the support at each step


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
def _loglik(table, counts, w):  # pragma: no cover (compiled)
    mix = _matvec(table, w)
    total = 0.0
    for i in range(mix.size):
        if mix[i] <= 0.0:
            return -np.inf
        total += counts[i] * np.log(mix[i])
    return total


@njit(cache=True, nogil=True)
def _dot(a, b):  # pragma: no cover (compiled)
    total = 0.0
    for k in range(a.size):
        total += a[k] * b[k]
    return total


@njit(cache=True, nogil=True)
def _matvec(table, x):  # pragma: no cover (compiled)
    """table.T @ x over the support of x (each pattern's mixture), a support point's row at a time (loops: numba's
    BLAS bindings compile slowly)."""
    out = np.zeros(table.shape[1])
    for k in _support(x):
        xk = x[k]
        row = table[k]
        for i in range(out.size):
            out[i] += row[i] * xk
    return out


@njit(cache=True, nogil=True)
def _rmatvec(table, y):  # pragma: no cover (compiled)
    """table @ y (the gradient's sums over patterns), four points at a time: each sum in the patterns' order."""
    n_grid, n_pat = table.shape
    out = np.zeros(n_grid)
    k = 0
    while k + 4 <= n_grid:
        r0, r1, r2, r3 = table[k], table[k + 1], table[k + 2], table[k + 3]
        t0 = t1 = t2 = t3 = 0.0
        for i in range(n_pat):
            yi = y[i]
            t0 += r0[i] * yi
            t1 += r1[i] * yi
            t2 += r2[i] * yi
            t3 += r3[i] * yi
        out[k], out[k + 1], out[k + 2], out[k + 3] = t0, t1, t2, t3
        k += 4
    for rest in range(k, n_grid):
        total = 0.0
        for i in range(n_pat):
            total += table[rest, i] * y[i]
        out[rest] = total
    return out


@njit(cache=True, nogil=True)
def _tmatvec(a, y):  # pragma: no cover (compiled)
    """a.T @ y for a pattern-major a (the normal equations' right-hand side)."""
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
def _solve(
    table, counts, free, tilt, w, above, below, tol, max_iter, reach, level, band_lo, band_hi
):  # pragma: no cover (compiled)
    """Maximise l(w) + tilt . w over distributions on the free points, from w (a distribution with l(w) finite),
    in place; stops early at ``above`` or ``below`` (see ``solve_mixing``), once the objective is known to lie
    between ``band_lo`` and ``band_hi``, or once an iterate has tilt . w >= ``reach`` with l(w) >= ``level``.
    Returns (objective, gap, iterations). Each iteration: the gradient and the Frank-Wolfe gap, a Newton proposal
    on a few candidate points (``_newton_proposal``), and a line search toward it (``_ascend``)."""
    n_grid, n_pat = table.shape
    root = np.empty(n_pat)
    for i in range(n_pat):
        root[i] = np.sqrt(counts[i])
    value = _loglik(table, counts, w) + _dot(tilt, w)
    gap = np.inf
    iterations = 0
    trial = np.empty(n_grid)
    ratio = np.empty(n_pat)
    for iterations in range(1, max_iter + 1):  # noqa: B007 (reported)
        mix = _matvec(table, w)
        for i in range(n_pat):
            ratio[i] = counts[i] / mix[i]
        grad = _rmatvec(table, ratio)
        for k in range(n_grid):
            grad[k] += tilt[k]
        best = -np.inf
        for k in range(n_grid):
            if free[k] and grad[k] > best:
                best = grad[k]
        gap = best - _dot(grad, w)  # the Frank-Wolfe gap: max over the simplex of the linear gain
        if gap < tol or value >= above or value + gap < below or (value >= band_lo and value + gap < band_hi):
            break
        tilted = _dot(tilt, w)
        if tilted >= reach and value - tilted >= level:
            break
        found, proposal = _newton_proposal(table, root, mix, tilt, w, _candidates(w, grad, free))
        if not found:
            break
        moved, value = _ascend(table, counts, tilt, w, proposal, grad, free, value, trial)
        if not moved:  # no ascent left at machine precision
            break
    return value, gap, iterations


@njit(cache=True, nogil=True)
def _candidates(w, grad, free):  # pragma: no cover (compiled)
    """The points a Newton step may place mass on: the current support and the ``CANDIDATES`` free points of
    steepest ascent (picked one at a time: no sort)."""
    n_grid = w.size
    keep = np.zeros(n_grid, np.bool_)
    for k in range(n_grid):
        keep[k] = w[k] > 0.0
    taken = np.zeros(n_grid, np.bool_)
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
    return cand


@njit(cache=True, nogil=True)
def _newton_proposal(table, root, mix, tilt, w, cand):  # pragma: no cover (compiled)
    """The Newton step's distribution on the candidate points: the quadratic model of the objective around the
    current mixture, maximised over the simplex of ``cand`` from the current distribution (whose support is among
    them). (False, _) when it puts no mass anywhere."""
    n_grid, n_pat = table.shape
    system = np.empty((n_pat, cand.size))
    target = np.empty(n_pat)
    ratio = np.empty(n_pat)
    for i in range(n_pat):
        ratio[i] = root[i] / mix[i]
        target[i] = 2.0 * root[i]
    for c in range(cand.size):  # capped: a pattern far from the current mixture must not overflow
        row = table[cand[c]]
        for i in range(n_pat):
            system[i, c] = min(ratio[i] * row[i], 1e100)
    rhs = _tmatvec(system, target)
    for c in range(cand.size):
        rhs[c] += tilt[cand[c]]  # the tilt's linear term, exactly
    x = np.empty(cand.size)
    for c in range(cand.size):
        x[c] = w[cand[c]]  # feasible: the current distribution, whose support is among the candidates
    x = _simplex_qp(_gram(system), rhs, x, 10 * cand.size + 10)
    mass = 0.0
    for c in range(cand.size):
        mass += x[c]
    proposal = np.zeros(n_grid)
    if mass <= 0.0:
        return False, proposal
    for c in range(cand.size):
        proposal[cand[c]] = x[c] / mass
    return True, proposal


@njit(cache=True, nogil=True)
def _ascend(table, counts, tilt, w, proposal, grad, free, value, trial):  # pragma: no cover (compiled)
    """A backtracking line search from w toward the proposal (in place); failing it, one toward the steepest free
    vertex (a Frank-Wolfe step). (whether w moved, the objective there); a gain below rounding is no gain."""
    n_grid = w.size
    for attempt in range(2):
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
            now = _loglik(table, counts, trial) + _dot(tilt, trial)
            if now > value + 1e-13 * (1.0 + abs(value)):  # a gain below rounding is no gain: stalled
                for k in range(n_grid):
                    w[k] = trial[k]
                return True, now
            alpha *= 0.5
    return False, value


@njit(cache=True, nogil=True)
def _best_moved(table, counts, starts, lo, hi, blocks, k):  # pragma: no cover (compiled)
    """The best of ``starts`` (rows: distributions on ``blocks`` copies of a grid of ``k`` points) with the mass of
    points lo..hi-1 of every copy moved to its left neighbour, its right one, or split: (its log likelihood, it).
    The first of equal ones, in the order starts x (left, split, right)."""
    n = table.shape[0]
    best = np.empty(n)
    trial = np.empty(n)
    best_value = -np.inf
    found = False
    for s in range(starts.shape[0]):
        for left in (1.0, 0.5, 0.0):
            if (left > 0.0 and lo == 0) or (left < 1.0 and hi == k):
                continue
            for b in range(blocks):
                base = b * k
                inside = 0.0
                for j in range(lo, hi):
                    inside += starts[s, base + j]
                for j in range(k):
                    trial[base + j] = starts[s, base + j]
                for j in range(lo, hi):
                    trial[base + j] = 0.0
                if lo > 0:
                    trial[base + lo - 1] += left * inside
                if hi < k:
                    trial[base + hi] += (1.0 - left) * inside
            value = _loglik(table, counts, trial)
            if not found or value > best_value:
                best_value, found = value, True
                for j in range(n):
                    best[j] = trial[j]
    return best_value, best
