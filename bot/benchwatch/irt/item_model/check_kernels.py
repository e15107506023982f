"""The fit check's compiled passes over the cells (``benchwatch.irt.item_model.fit_check``): a replicate's refit and its
statistics, each in one or two passes with no array per cell.

The check refits and measures 39 simulated benchmarks of up to ``CHECK_CELLS`` cells each; in numpy every pass
formed the logits, the answers' probabilities, scores and informations as arrays of the cells and scattered them
by ``np.bincount``, a dozen passes a replicate (2.8 s of a 300 x 5,000 audit's 17). Here each cell's terms are
computed where they are summed, in the cells' order, with the same formulas as ``benchwatch.irt.answers``: the
score d loglik / d eta = s (1 - c) sigma (1 - sigma) / P - (w - s) sigma and the Fisher information
w (1 - c) sigma^2 (1 - sigma) / P of eta, P = c + (1 - c) sigma (``tests/irt/test_item_behaviours.py`` checks both
passes against the numpy formulas).
"""

from __future__ import annotations

import numpy as np

from benchwatch.kernel_cache import njit


@njit(cache=True, nogil=True)
def _cell(eta, c, s, w):  # pragma: no cover (compiled)
    """One cell's sigma(eta), score and Fisher information of eta."""
    if eta >= 0.0:
        sig = 1.0 / (1.0 + np.exp(-eta))
    else:
        e = np.exp(eta)
        sig = e / (1.0 + e)
    share = (1.0 - c) * sig / (c + (1.0 - c) * sig) if c > 0.0 else 1.0
    return sig, s * share * (1.0 - sig) - (w - s) * sig, w * share * sig * (1.0 - sig)


@njit(cache=True, nogil=True)
def refit_sweeps(theta, b, m, i, s, w, c, prior_b, prior_theta, sweeps):  # pragma: no cover (compiled)
    """``sweeps`` alternations of a Fisher step of every item's b (the abilities held) and of every model's theta
    (the difficulties held), each step capped at one logit; returns fresh (theta, b), the difficulties centred."""
    theta, b = theta.copy(), b.copy()
    score_b, info_b = np.zeros(b.size), np.zeros(b.size)
    score_t, info_t = np.zeros(theta.size), np.zeros(theta.size)
    for _ in range(sweeps):
        score_b[:] = 0.0
        info_b[:] = 0.0
        for q in range(m.size):
            t = i[q]
            _, score, info = _cell(theta[m[q]] - b[t], c[t], s[q], w[q])
            score_b[t] += score
            info_b[t] += info
        for t in range(b.size):
            grad = -score_b[t] - b[t] / prior_b**2
            b[t] += min(max(grad / (info_b[t] + 1.0 / prior_b**2), -1.0), 1.0)
        score_t[:] = 0.0
        info_t[:] = 0.0
        for q in range(m.size):
            j = m[q]
            _, score, info = _cell(theta[j] - b[i[q]], c[i[q]], s[q], w[q])
            score_t[j] += score
            info_t[j] += info
        for j in range(theta.size):
            grad = score_t[j] - theta[j] / prior_theta**2
            theta[j] += min(max(grad / (info_t[j] + 1.0 / prior_theta**2), -1.0), 1.0)
    shift = b.mean()
    return theta - shift, b - shift


@njit(cache=True, nogil=True)
def check_sums(theta, b, m, i, s, w, c, weak, hard):  # pragma: no cover (compiled)
    """The fit statistics' sums (``benchwatch.irt.item_model.fit_check.statistics``): per item, the discrimination score
    test's u = sum g d and v = sum I d^2, d the logit less the item's information-weighted mean logit; over the
    weak models' cells on the hard items, their trials, right answers, expected right answers and its variance."""
    n = b.size
    total, moment = np.zeros(n), np.zeros(n)
    for q in range(m.size):
        t = i[q]
        x = theta[m[q]] - b[t]
        _, _, info = _cell(x, c[t], s[q], w[q])
        total[t] += info
        moment[t] += info * x
    centre = moment / np.maximum(total, 1e-300)
    u, v = np.zeros(n), np.zeros(n)
    trials = observed = expected = var = 0.0
    for q in range(m.size):
        j, t = m[q], i[q]
        x = theta[j] - b[t]
        sig, score, info = _cell(x, c[t], s[q], w[q])
        d = x - centre[t]
        u[t] += score * d
        v[t] += info * d * d
        if weak[j] and hard[t]:
            big = c[t] + (1.0 - c[t]) * sig
            trials += w[q]
            observed += s[q]
            expected += w[q] * big
            var += w[q] * big * (1.0 - big)
    return u, v, trials, observed, expected, var
