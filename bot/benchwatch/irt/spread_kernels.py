"""Each item's likelihood on a grid of difficulty with its discrimination integrated out, compiled.

The item model with a spread of discriminations (``benchwatch.irt.spread``): P = c + (1 - c) sigmoid(a slope_j
(theta_j - b)), log a from a mixture of normals N(mu, sd_j^2). An item's likelihood at a point b is the integral
over log a = u of its answers' likelihood times that density, a sum over the mixture's parts. Each part's integrand
is found by Newton (its mode u* and curvature H, the Fisher information plus the part's 1 / sd^2) and integrated by
adaptive Gauss-Hermite quadrature around it: the nodes u* + sqrt(2 / H) x_k with weights w_k exp(x_k^2). One node
is Laplace's method; with few models the integrand is broad and skewed in u, where Laplace is off by a few tenths
of a log unit (the tests measure it against brute-force quadrature).

Five nodes, against brute force on 20,001 points (pools of 12 to 200 models, floors 0 and 0.25, two draws each,
every point within 6 log units of the item's best): off by at most 0.004 at s = 0.3, about 0.1 at s = 0.9 and 0.2
at s = 1.6, the errors of both signs (their mean within 0.03). The larger ones are the wide part's (sd 3 s), where
the item fits badly: its integrand has a plateau toward a = 0 that a rule centred on the mode under-reads. Seven
nodes halve them and eleven reach 0.06 at s = 1.6, each at a quarter more time or more; the bounds' tests read
differences of 3 and more.
"""

from __future__ import annotations

import numpy as np

from benchwatch.kernel_cache import njit

NODES = 5  # Gauss-Hermite nodes around the mode (see the module for their error against brute force; 1: Laplace)


def hermite(nodes: int = NODES) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes and weights (for the weight e^{-x^2})."""
    x, w = np.polynomial.hermite.hermgauss(nodes)
    return np.ascontiguousarray(x), np.ascontiguousarray(w)


@njit(cache=True, nogil=True)
def _item_terms(theta, g, u, first, last, m, w, s, c, slope):  # pragma: no cover (compiled)
    """One item at one point g of b and one log discrimination u: its answers' log likelihood, the derivative in
    u and the Fisher information in u (no prior)."""
    a = np.exp(u)
    value, grad, curv = 0.0, 0.0, 0.0
    for q in range(first, last):
        j = m[q]
        eta = a * slope[j] * (theta[j] - g)
        e = np.exp(-abs(eta))
        p = 1.0 / (1.0 + e)
        if eta < 0.0:
            p = e * p
        fails = w[q] - s[q]
        log_wrong = -(max(eta, 0.0) + np.log1p(e))
        if c > 0.0:
            big = c + (1.0 - c) * p
            value += s[q] * np.log(big) + fails * (np.log1p(-c) + log_wrong)
            share = (1.0 - c) * p / big
        else:
            value += s[q] * (log_wrong + eta) + fails * log_wrong
            share = 1.0
        grad += (s[q] * share * (1.0 - p) - fails * p) * eta
        curv += w[q] * share * p * (1.0 - p) * eta * eta
    return value, grad, curv


@njit(cache=True, nogil=True)
def _integrated(theta, g, u, first, last, m, w, s, c, slope, mu, sd, x, wx):  # pragma: no cover (compiled)
    """The item's log likelihood at g, log a integrated over N(mu, sd^2) (see the module), from the start ``u``;
    returns (the value, the mode)."""
    inv = 1.0 / (sd * sd)
    curv = inv
    for _ in range(40):  # Newton to the mode of l(u) - (u - mu)^2 / (2 sd^2)
        value, score, info = _item_terms(theta, g, u, first, last, m, w, s, c, slope)
        grad = score - (u - mu) * inv
        # the observed curvature, - d2 l / du2 = info - score (d eta / du = eta: exact without a floor), where it
        # is positive; Fisher's where not (far from the item, where scoring alone crawls to a mode near the prior)
        curv = info + inv
        observed = curv - score
        step = grad / (observed if observed > 0.1 * curv else curv)
        step = min(max(step, -1.0), 1.0)
        u = min(max(u + step, mu - 8.0 * sd), mu + 8.0 * sd)
        if abs(step) < 1e-4:
            break
    scale = np.sqrt(2.0 / curv)
    terms = np.empty(x.size)
    top = -np.inf
    for k in range(x.size):
        v = x[k] * scale + u
        value = _item_terms(theta, g, v, first, last, m, w, s, c, slope)[0]
        terms[k] = value - 0.5 * (v - mu) * (v - mu) * inv + x[k] * x[k] + np.log(wx[k])
        top = max(top, terms[k])
    total = 0.0
    for k in range(x.size):
        total += np.exp(terms[k] - top)
    # the normal density's constant: 1 / (sqrt(2 pi) sd); the change of variable: sqrt(2 / H)
    return top + np.log(total) + np.log(scale / (np.sqrt(2.0 * np.pi) * sd)), u


@njit(cache=True, nogil=True)
def spread_out(theta, grid, starts, m, w, s, floor, slope, mu, sds, shares, x, wx, out, lo, hi):  # pragma: no cover
    """For items lo..hi (cells grouped by item: ``starts``), each item's log likelihood at each point of ``grid``
    with log a integrated over a mixture of normals N(mu, sds[j]^2) in proportions ``shares`` (each part by
    ``_integrated``); each part's mode moves smoothly along b, so each point's Newton starts from its neighbour's."""
    parts = sds.size
    modes = np.empty(parts)
    values = np.empty(parts)
    for t in range(lo, hi):
        first, last, c = starts[t], starts[t + 1], floor[t]
        modes[:] = mu
        for k in range(grid.size):
            top = -np.inf
            for j in range(parts):
                v, modes[j] = _integrated(theta, grid[k], modes[j], first, last, m, w, s, c, slope, mu, sds[j], x, wx)
                values[j] = v + np.log(shares[j])
                top = max(top, values[j])
            total = 0.0
            for j in range(parts):
                total += np.exp(values[j] - top)
            out[t, k] = top + np.log(total)
    return out
