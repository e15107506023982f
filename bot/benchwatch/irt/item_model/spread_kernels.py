"""Each item's likelihood on a grid of difficulty with its discrimination integrated out: matrix products.

The item model with a spread of discriminations (``benchwatch.irt.item_model.spread``): P = c + (1 - c) sigmoid(eta),
eta = a slope_j (theta_j - b), log a = u from a mixture of normals around mu. Since c + (1 - c) sigmoid(eta) =
(c + e^eta) / (1 + e^eta), an item's log likelihood at (u, b) splits into a part of its successes and a part of
every trial it was given:

    l_i(u, b) = sum_j S_ij log(c_i + e^eta_j) - sum_j W_ij log(1 + e^eta_j) + F_i log(1 - c_i)

(S: successes, W: trials, F: failures; log(c + e^eta) is eta itself without a floor). Both sums are one matrix
product of the items' dense rows of S and W with a table of each model's two terms at every node u and point b
(``tables``): no item's cells are read node by node. The integral over u is the trapezoid rule on nodes spaced a
``STEP`` of the narrowest integrand's width (the mixture's narrow part, or the answers' own curvature: at most
``INFO`` per trial) over mu +- ``RANGE`` sds of the mixture's wide part (``nodes``), summed per item and point
(``integrate``). On a smooth integrand the trapezoid rule converges faster than any power of the spacing: against
brute force on 20,001 points (12 to 300 models, spreads 0.05 to 1.6, floors 0 to 0.25) off by under 1e-6 log units
where an item could be (the tests hold it to 1e-5).
"""

from __future__ import annotations

import math

import numpy as np

from benchwatch.kernel_cache import njit

STEP = 1.0  # the nodes' spacing in units of the narrowest integrand's width (1.5: off by 1e-3; 2: by 2e-2)
RANGE = 8.0  # the nodes reach this many sds of the mixture's wide part from its centre
INFO = 0.44  # the most information one trial gives on log a: max over eta of p (1 - p) eta^2


def nodes(
    sds: np.ndarray, shares: np.ndarray, mu: float, heaviest: float, coarse: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """The nodes u of log a and the log of each one's weight (the mixture's density times the spacing), for items
    of at most ``heaviest`` trials; ``coarse`` times as far apart for a first look (``spread_windows``)."""
    base, wide = float(np.min(sds)), float(np.max(sds))
    width = 1.0 / math.sqrt(INFO * heaviest + 1.0 / base**2)
    step = coarse * STEP * width
    half = math.ceil(RANGE * wide / step)
    u = mu + step * np.arange(-half, half + 1, dtype=float)
    density = np.zeros(u.size)
    for sd, share in zip(sds, shares, strict=True):
        density += share * np.exp(-0.5 * ((u - mu) / sd) ** 2) / (sd * math.sqrt(2.0 * math.pi))
    with np.errstate(divide="ignore"):
        return u, np.log(density) + math.log(step)


FLAT = 37.0  # log1p(e^-x) under 1e-16 beyond it: x's own rounding (a third of a table's terms at the widest spread)


@njit(cache=True, nogil=True)
def tables(theta, slope, grid, u, log_floor, trials, successes):  # pragma: no cover (compiled)
    """Each model's terms at every node u and point b (columns k * points + g): ``trials`` log(1 + e^eta) and
    ``successes`` log(c + e^eta) for the floor c = e^``log_floor`` (eta itself where it is -inf: no floor). Each
    is the larger of its two terms plus log1p(e^-(their distance)), the second left out where under 1e-16
    (``FLAT``): the nodes of a wide spread reach discriminations of e^20, where most terms are that far apart."""
    points = grid.size
    for j in range(theta.size):
        for k in range(u.size):
            a = math.exp(u[k]) * slope[j]
            for g in range(points):
                eta = a * (theta[j] - grid[g])
                top = max(eta, 0.0)
                x = abs(eta)
                trials[j, k * points + g] = top + math.log1p(math.exp(-x)) if x < FLAT else top
                if log_floor == -np.inf:
                    successes[j, k * points + g] = eta
                else:
                    top = max(eta, log_floor)
                    x = abs(eta - log_floor)
                    successes[j, k * points + g] = top + math.log1p(math.exp(-x)) if x < FLAT else top


LOG2E = 1.4426950408889634  # 1 / log 2
LN2_HI, LN2_LO = 0.6931471803691238, 1.9082149292705877e-10  # log 2 in two parts (the reduction exact to 1e-19)
LOWEST = -700.0  # the exponents below this are taken at it: e^-700 = 1e-304, still a normal double


@njit(cache=True, nogil=True)
def integrate(loglik, log_weight, out):  # pragma: no cover (compiled)
    """For each item (a row of ``loglik``: node k, point g at column k * points + g) the log of the sum over nodes
    of e^(l + log weight) at every point, into its row of ``out``.

    The exponentials are the work (items x nodes x points of them), so they are computed in a form the compiler
    turns into vector instructions (numba has no vector exp without Intel's SVML): e^d = 2^k e^r with k the integer
    nearest d / log 2 and |r| <= log(2) / 2, e^r by its Taylor series to r^12 (off by under 2e-16 of it), 2^k
    written straight into a double's exponent bits. Four times faster than ``math.exp`` term by term, and equal to
    it to 1e-14 of each sum (the tests hold it against numpy's logsumexp)."""
    points = out.shape[1]
    nodes_ = log_weight.size
    top = np.empty(points)
    total = np.empty(points)
    mantissa = np.empty(points)
    exponent = np.empty(points, dtype=np.int64)
    scale = exponent.view(np.float64)
    for i in range(loglik.shape[0]):
        top[:] = -np.inf
        for k in range(nodes_):
            w, base = log_weight[k], k * points
            for g in range(points):
                v = loglik[i, base + g] + w
                top[g] = v if v > top[g] else top[g]
        total[:] = 0.0
        for k in range(nodes_):
            w, base = log_weight[k], k * points
            for g in range(points):
                d = loglik[i, base + g] + w - top[g]
                d = d if d > LOWEST else LOWEST  # (a NaN, where top is -inf, too: the sum is then 0)
                n = math.floor(d * LOG2E + 0.5)
                r = (d - n * LN2_HI) - n * LN2_LO
                e = 1.0 + r * (1.0 / 12.0)  # Horner's rule: 1 + r (1 + r/2 (1 + r/3 (... (1 + r/12))))
                e = 1.0 + r * (1.0 / 11.0) * e
                e = 1.0 + r * (1.0 / 10.0) * e
                e = 1.0 + r * (1.0 / 9.0) * e
                e = 1.0 + r * (1.0 / 8.0) * e
                e = 1.0 + r * (1.0 / 7.0) * e
                e = 1.0 + r * (1.0 / 6.0) * e
                e = 1.0 + r * (1.0 / 5.0) * e
                e = 1.0 + r * (1.0 / 4.0) * e
                e = 1.0 + r * (1.0 / 3.0) * e
                e = 1.0 + r * 0.5 * e
                mantissa[g] = 1.0 + r * e
                exponent[g] = (np.int64(n) + 1023) << 52
            for g in range(points):
                total[g] += mantissa[g] * scale[g]
        for g in range(points):
            out[i, g] = top[g] + math.log(total[g])


@njit(cache=True, nogil=True)
def dense_rows(starts, models, successes, trials, unit, succ, tri):  # pragma: no cover (compiled)
    """Items' cells (item t's at ``starts[t]``..``starts[t + 1]``) as dense rows over the models: each cell's
    ``successes`` added to ``succ[t, model]`` and its ``trials`` (1 each where ``unit``) to ``tri[t, model]``, the
    cells in order (the sums ``np.add.at`` makes, to the bit, in a pass over the cells instead of its per-element
    calls: the spread's blocks of points read every block of items again, 27% of its time at 4,500 models)."""
    for t in range(starts.size - 1):
        for c in range(starts[t], starts[t + 1]):
            j = models[c]
            succ[t, j] += successes[c]
            tri[t, j] += 1.0 if unit else trials[c]
