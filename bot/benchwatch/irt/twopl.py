"""The 2PL path: items of unequal discrimination, P = c_i + (1 - c_i) sigmoid(a_i (theta - b_i)).

Taken where the fit check (``benchwatch.irt.fit_check``) finds the items' discriminations unequal and the pool can
place them (``MIN_MODELS`` models or more). The fit is the MAP of (theta, b, log a) under the priors theta ~
N(0, 3^2), b ~ N(0, 3^2) and log a ~ N(0, ``PRIOR_SD_LOG_A``^2), by alternating Fisher steps: every item's (b, log
a) given the abilities (a 2 x 2 system per item), then every model's theta given the items, each a pass over the
observed cells, extrapolated by SQUAREM (``benchwatch.irt.accelerate``). The likelihood is unchanged when theta
and b are moved and stretched together and a shrunk in proportion: after each sweep the abilities are put back to mean 0
and standard deviation 1 (the difficulties and discriminations moved with them), which z, read from the
abilities' distribution, does not see.

For the bounds each item's likelihood at a point of the z axis is integrated over its discrimination, with the
discriminations' distribution fitted to the items (a lognormal, ``spread`` its sd of log a), by Laplace's method:
an item's location is then only as sharp as its answers make it whatever its discrimination, and an item of low
discrimination no longer looks like a sharply placed middle item (``integrated_loglik``). z stays the quantile of
the item's location b among the pool's abilities.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchwatch.irt.answers import terms
from benchwatch.irt.responses import ResponseArrays

MIN_MODELS = 200  # from this many models the pool places each item's discrimination well enough
PRIOR_SD_THETA = 3.0
PRIOR_SD_B = 3.0
PRIOR_SD_LOG_A = 1.0


@dataclass(frozen=True)
class TwoPLFit:
    """The 2PL's MAP: abilities (mean 0, sd 1) with their SDs, difficulties, log discriminations, and the
    distribution of log a fitted to the items (mean, sd)."""

    theta: np.ndarray
    theta_sd: np.ndarray
    b: np.ndarray
    log_a: np.ndarray
    mean_log_a: float
    spread: float
    converged: bool
    sweeps: int


def fit_2pl(
    data: ResponseArrays,
    floor: np.ndarray | None = None,
    *,
    theta: np.ndarray | None = None,
    b: np.ndarray | None = None,
    tol: float = 1e-6,
    max_sweeps: int = 500,
) -> TwoPLFit:
    """The 2PL's MAP from a start (a 1PL fit's ``theta`` and ``b``, or zeros)."""
    from benchwatch.irt.accelerate import iterate

    m, i, w = data.model_idx, data.item_idx, data.weight
    s = w * data.y
    n_m, n_i = data.n_models, data.n_items
    c = np.zeros(i.size) if floor is None else np.asarray(floor, float)[i]
    t0 = np.zeros(n_m) if theta is None else np.asarray(theta, float)
    b0 = np.zeros(n_i) if b is None else np.asarray(b, float)
    centre, scale = t0.mean(), max(t0.std(), 1e-6)
    start = np.concatenate([(t0 - centre) / scale, (b0 - centre) / scale, np.full(n_i, np.log(scale))])

    def sweep(x: np.ndarray) -> np.ndarray:
        th, bb, la = x[:n_m], x[n_m : n_m + n_i], x[n_m + n_i :]
        a = np.exp(la)
        d = th[m] - bb[i]
        g, info = terms(a[i] * d, c, s, w)
        # the items: (b, log a), d eta / d b = -a, d eta / d log a = eta
        eta = a[i] * d
        g_b = -np.bincount(i, a[i] * g, minlength=n_i) - bb / PRIOR_SD_B**2
        g_a = np.bincount(i, eta * g, minlength=n_i) - la / PRIOR_SD_LOG_A**2
        h_bb = np.bincount(i, a[i] ** 2 * info, minlength=n_i) + 1 / PRIOR_SD_B**2
        h_ba = -np.bincount(i, a[i] * eta * info, minlength=n_i)
        h_aa = np.bincount(i, eta**2 * info, minlength=n_i) + 1 / PRIOR_SD_LOG_A**2
        det = h_bb * h_aa - h_ba**2
        step_b = (h_aa * g_b - h_ba * g_a) / det
        step_a = (h_bb * g_a - h_ba * g_b) / det
        bb = bb + np.clip(step_b, -1.0, 1.0)
        la = la + np.clip(step_a, -0.5, 0.5)
        a = np.exp(la)
        # the models, d eta / d theta = a
        g, info = terms(a[i] * (th[m] - bb[i]), c, s, w)
        grad = np.bincount(m, a[i] * g, minlength=n_m) - th / PRIOR_SD_THETA**2
        hess = np.bincount(m, a[i] ** 2 * info, minlength=n_m) + 1 / PRIOR_SD_THETA**2
        th = th + np.clip(grad / hess, -1.0, 1.0)
        mu, sd = th.mean(), max(th.std(), 1e-6)  # the gauge: abilities of mean 0 and sd 1
        return np.concatenate([(th - mu) / sd, (bb - mu) / sd, la + np.log(sd)])

    x, sweeps = iterate(
        sweep,
        start,
        converged=lambda u, v: float(np.abs(v - u).max()) < tol,
        max_steps=max_sweeps,
        valid=lambda x: bool(np.all(np.isfinite(x))) and float(np.abs(x[n_m + n_i :]).max()) < 5.0,
    )
    th, bb, la = x[:n_m], x[n_m : n_m + n_i], x[n_m + n_i :]
    a = np.exp(la)
    _, info = terms(a[i] * (th[m] - bb[i]), c, s, w)
    theta_sd = 1 / np.sqrt(np.bincount(m, a[i] ** 2 * info, minlength=n_m) + 1 / PRIOR_SD_THETA**2)
    return TwoPLFit(
        theta=th,
        theta_sd=theta_sd,
        b=bb,
        log_a=la,
        mean_log_a=float(la.mean()),
        spread=float(la.std()),
        converged=sweeps < max_sweeps,
        sweeps=int(sweeps),
    )


def integrated_loglik(
    data: ResponseArrays,
    theta: np.ndarray,
    grid: np.ndarray,
    mean_log_a: float,
    spread: float,
    floor: np.ndarray | None = None,
    slope: np.ndarray | None = None,
    log_a: np.ndarray | None = None,
) -> np.ndarray:
    """Each item's log likelihood at the points ``grid`` of b (items x G), its discrimination integrated out over
    log a ~ N(``mean_log_a``, ``spread``^2) by Laplace's method at each point
    (``benchwatch.irt.kernels.discrimination_out``:
    the mode of log a by Newton from the item's fitted ``log_a``, the curvature there). With the models a 2PL path
    needs the integrand is sharp in log a (about 0.05 wide with 1,000 models), where a fixed quadrature on the prior
    misses it by several log units and Laplace's error is of order 1 / models. Compiled, over the items in two
    halves at once."""
    from benchwatch.irt.kernels import THREADS, discrimination_out, thread_pool

    order = np.argsort(data.item_idx, kind="stable")
    items = data.item_idx[order]
    starts = np.searchsorted(items, np.arange(data.n_items + 1)).astype(np.int64)
    m = np.ascontiguousarray(data.model_idx[order], dtype=np.int64)
    w = np.ascontiguousarray(data.weight[order], dtype=float)
    s = np.ascontiguousarray((data.weight * data.y)[order], dtype=float)
    c = np.zeros(data.n_items) if floor is None else np.ascontiguousarray(floor, dtype=float)
    a_slope = np.ones(data.n_models) if slope is None else np.ascontiguousarray(slope, dtype=float)
    u0 = np.full(data.n_items, mean_log_a) if log_a is None else np.ascontiguousarray(log_a, dtype=float)
    out = np.empty((data.n_items, grid.size))
    arrays = (np.ascontiguousarray(theta, dtype=float), np.ascontiguousarray(grid, dtype=float), starts, m, w, s, c)
    args = (*arrays, a_slope, u0, float(mean_log_a), float(max(spread, 1e-3)), out)
    parts = max(1, min(THREADS, data.n_items // 50))
    cuts = np.searchsorted(starts, np.linspace(0, starts[-1], parts + 1)).clip(0, data.n_items)
    cuts[0], cuts[-1] = 0, data.n_items
    if parts == 1:
        discrimination_out(*args, 0, data.n_items)
    else:
        pool = thread_pool()
        kernel: Callable[..., None] = discrimination_out  # a numba dispatcher: any arguments, to mypy
        futures = [pool.submit(kernel, *args, int(lo), int(hi)) for lo, hi in itertools.pairwise(cuts)]
        for f in futures:
            f.result()
    return out
