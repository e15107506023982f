"""MAP fit of the 1PL (Rasch) model by Newton's method on the exact log posterior, over the observed cells.

The model: P(y_ij = 1) = sigmoid(theta_j - b_i), theta_j ~ N(0, sd_theta^2), and difficulties b that
sum to zero with density N(0, sd_b^2) on that subspace (a ZeroSumNormal), which pins the logit scale's
location exactly. The Hessian is [[D_theta, -C], [-C', D_b]] with diagonal D blocks and C as sparse as
the responses. Each Newton step is solved through the Schur complement over the smaller block,
S = D_u - C D_v^-1 C', by preconditioned conjugate gradients: every product with S is one pass over
the observed cells (``benchwatch.irt.kernels``), so the cost of an iteration is linear in the cells and no
model x item array is formed (but the one below). The steps are exact Newton steps (CG to a relative residual of
1e-10) with the same convergence test as before, so the optimum is the same. A large pool whose cross block
is small enough to hold (``benchwatch.irt.fits.rasch_curvature``: 500 models x 5,000 items, say)
forms C and S densely instead, S by one BLAS product, and solves by Cholesky: one pass over the cells per
step in place of two per CG iteration (the same Newton steps, solved exactly; half the fit's time at 500 x 5,000,
measured by ``benchmarks/irt_speed.py``). Smaller fits keep CG, bit for bit.

Standard deviations (Laplace, on the constraint sum(b) = 0) are exact where the dense Schur complement
is cheap to form (``EXACT_SD_WORK``): S is built from the cells grouped by the larger block and
inverted. Beyond that they use the diagonal of S in place of S (each block's own curvature plus the
first-order coupling through the other block); ``tests/irt/test_rasch_map.py`` checks that
approximation against the exact SDs where both run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from benchwatch.irt.fits.rasch_curvature import (
    CG_RTOL,
    Cells,
    Curvature,
    NotPositiveDefinite,
    Pass,
    cells_of,
    dense_possible,
    evaluate,
)
from benchwatch.irt.responses import ResponseArrays

PRIOR_SD_THETA = 3.0
ROUNDING = 100.0  # a decrement under this many units of rounding of the value cannot be verified by the value
PRIOR_SD_B = 3.0


@dataclass(frozen=True)
class RaschFit:
    """Fitted abilities and difficulties with their standard deviations (and draws where kept)."""

    models: np.ndarray
    items: np.ndarray
    theta: np.ndarray
    theta_sd: np.ndarray
    b: np.ndarray
    b_sd: np.ndarray
    method: str
    converged: bool
    diagnostics: dict = field(default_factory=dict)
    theta_draws: np.ndarray | None = None  # draws x models
    b_draws: np.ndarray | None = None  # draws x items


def neg_log_posterior(
    x: np.ndarray, data: ResponseArrays, sd_theta: float, sd_b: float, floor: np.ndarray | None = None
) -> tuple[float, np.ndarray]:
    """Negative log posterior (up to a constant) and its gradient at x = [theta, b]."""
    res = evaluate(x[: data.n_models], x[data.n_models :], cells_of(data, floor), sd_theta, sd_b, curvature=False)
    return res.value, np.concatenate([res.g_theta, res.g_b])


def _start(cells: Cells) -> tuple[np.ndarray, np.ndarray]:
    """A cold start from the margins: each model's and each item's log-odds of success (shrunk by half a
    success and half a failure), difficulties centred. Newton takes it from there."""

    s = cells.s

    def log_odds(index: np.ndarray, n: int) -> np.ndarray:
        trials = np.bincount(index, cells.w, minlength=n)
        wins = np.bincount(index, s, minlength=n)
        return np.log((wins + 0.5) / (trials - wins + 0.5))

    theta, b = log_odds(cells.m, cells.n_m), -log_odds(cells.i, cells.n_i)
    if cells.floor is not None:  # an item's successes above its floor: P = c + (1 - c) sigma
        trials = np.bincount(cells.i, cells.w, minlength=cells.n_i)
        rate = (np.bincount(cells.i, s, minlength=cells.n_i) + 0.5) / (trials + 1.0)
        above = np.clip((rate - cells.floor) / (1.0 - cells.floor), 0.5 / (trials + 1.0), 1.0 - 0.5 / (trials + 1.0))
        b = -np.log(above / (1.0 - above))
    return theta, b - b.mean()


def _newton(
    cells: Cells,
    theta: np.ndarray,
    b: np.ndarray,
    cur: Pass,
    sd_theta: float,
    sd_b: float,
    tol: float,
    max_iter: int,
    dense_from: int | None = None,
):
    """``fit_map``'s Newton iterations with backtracking from (theta, b), whose pass is ``cur``.

    With floors the first step is a Fisher scoring step (its curvature positive whatever the point) and each
    later one a Newton step on the observed information where the steps are solved densely (the Cholesky factor
    tells whether it is positive definite; where it is not, the Fisher information at the same point, one pass
    more): Fisher scoring converges linearly, at the rate of the information the floor hides (8 to 12 steps from
    a near start at 300 x 5,000), Newton quadratically. The mode and the convergence test are the same."""
    n_m = cells.n_m
    converged, iterations, decrement, cg, first = False, 0, np.inf, 0, 0.0
    sigma_ones, ones_sigma_ones = np.zeros(0), 0.0
    curv: Curvature | None = None  # (None after a line search: the caller makes the last point's)
    observed = cells.floor is not None and dense_possible(cells, dense_from)
    for iterations in range(1, max_iter + 1):
        try:
            curv = Curvature(cells, cur, dense_from)
        except NotPositiveDefinite:
            cur = evaluate(theta, b, cells, sd_theta, sd_b)
            curv = Curvature(cells, cur, dense_from)
        # The gradient less its component along the constraint (the Lagrange part): the same constrained
        # step, without the cancellation between two large terms that the raw gradient brings near the
        # optimum, where it is almost all Lagrange part.
        grad = np.concatenate([cur.g_theta, cur.g_b - cur.g_b.mean()])
        norm = float(np.linalg.norm(grad))
        first = first or norm
        # Inexact Newton: far from the optimum a rough solve does as well as an exact one; the tolerance
        # falls with the gradient, so the last steps are exact Newton steps.
        rtol = max(CG_RTOL, min(0.1, norm / first)) if first > 0 else CG_RTOL
        step, sigma_ones, ones_sigma_ones = curv.solve_constrained(grad, rtol)
        decrement = float(grad @ step)
        if decrement < tol * max(1.0, abs(cur.value) * 1e-6) and rtol > 1e-6:
            step, sigma_ones, ones_sigma_ones = curv.solve_constrained(grad)  # confirm at full precision
            decrement = float(grad @ step)
        cg += curv.cg_iterations
        step = -step
        if decrement < tol * max(1.0, abs(cur.value) * 1e-6):
            converged = True
            break
        # The step is solved: the point's curvature (a number per cell, and the dense blocks where formed) is let go
        # before the line search's passes make their own (at 38 million cells 0.3 GB less held at once).
        curv, cur.info = None, np.empty(0)
        t = 1.0
        while True:  # the candidate's curvature comes with its value: an accepted full step costs one pass
            cand_theta, cand_b = theta + t * step[:n_m], b + t * step[n_m:]
            trial = evaluate(cand_theta, cand_b, cells, sd_theta, sd_b, observed=observed)
            if trial.value <= cur.value - 0.25 * t * decrement or t < 1e-8:
                break
            if t == 1.0 and decrement < ROUNDING * np.finfo(float).eps * abs(cur.value):
                # The full Newton step gains less than the value can show (its sum over the cells rounds at
                # eps |value|): the mode to machine precision. Tested on (4,500 x 12,000 with floors: a decrement
                # of 1e-8 against 4e-9 of rounding) every later step failed its line search, 27 passes each.
                cur = evaluate(theta, b, cells, sd_theta, sd_b, observed=cur.observed)  # its curvature, again
                try:
                    curv = Curvature(cells, cur, dense_from)
                except NotPositiveDefinite:
                    cur = evaluate(theta, b, cells, sd_theta, sd_b)
                    curv = Curvature(cells, cur, dense_from)
                return theta, b, cur, curv, True, iterations, decrement, cg, sigma_ones, ones_sigma_ones
            t *= 0.5
        theta, b, cur = cand_theta, cand_b, trial
    return theta, b, cur, curv, converged, iterations, decrement, cg, sigma_ones, ones_sigma_ones


def fit_map(
    data: ResponseArrays,
    *,
    sd_theta: float = PRIOR_SD_THETA,
    sd_b: float = PRIOR_SD_B,
    init: tuple[np.ndarray, np.ndarray] | None = None,
    tol: float = 1e-10,
    max_iter: int = 100,
    n_draws: int = 0,
    seed: int = 0,
    exact_sd: bool | None = None,
    floor: np.ndarray | None = None,
    dense_from: int | None = None,
) -> RaschFit:
    """Newton's method with backtracking from the margins or a warm start ``init`` = (theta, b).

    ``exact_sd``: True forces the exact Laplace SDs, False the diagonal approximation; None (default)
    chooses exact where the dense Schur complement is affordable. Draws always use the exact factor.
    ``floor``: each item's chance floor c, P = c + (1 - c) sigmoid(theta - b) (``benchwatch.irt.item_model.floors``);
    with a floor the SDs are the Fisher information's, and so is the steps' curvature (Fisher scoring, to the same mode)
    but where they are solved densely: there, after the first, the observed information's (see ``_newton``).
    ``dense_from``: the cells from which the steps may solve through the dense Schur complement (where its
    cross block is small enough; None: ``benchwatch.irt.fits.rasch_curvature.DENSE_CELLS``); below, by conjugate
    gradients.
    """
    cells = cells_of(data, floor)
    n_m = data.n_models
    if init is None:
        theta, b = _start(cells)
    else:
        theta, b = np.asarray(init[0], float).copy(), np.asarray(init[1], float).copy()
        theta += -b.mean()  # keep the warm start's differences, move it onto sum(b) = 0
        b -= b.mean()
    # One BLAS thread: the dense steps' products run beside the kernels' own threads (on two busy cores, BLAS's
    # threads made the 500 x 5,000 fit three times as slow, measured). The first pass is handed over, not held
    # here: the iterations keep two passes (each with a number per cell), never three.
    with threadpool_limits(1, "blas"):
        theta, b, cur, curv, converged, iterations, decrement, cg, sigma_ones, ones_sigma_ones = _newton(
            cells, theta, b, evaluate(theta, b, cells, sd_theta, sd_b), sd_theta, sd_b, tol, max_iter, dense_from
        )
    if cur.observed:  # the SDs are the Fisher information's, as with every step Fisher's
        cur = evaluate(theta, b, cells, sd_theta, sd_b)
        curv = Curvature(cells, cur, dense_from)
        _, sigma_ones, ones_sigma_ones = curv.solve_constrained(np.concatenate([cur.g_theta, cur.g_b]))
    elif not converged or curv is None:  # the loop's last curvature is at the previous point, or let go
        curv = Curvature(cells, cur, dense_from)
        _, sigma_ones, ones_sigma_ones = curv.solve_constrained(np.concatenate([cur.g_theta, cur.g_b]))
    exact = curv.exact_affordable() if exact_sd is None else exact_sd
    theta_sd, b_sd = curv.marginal_sds(sigma_ones, ones_sigma_ones, exact)
    theta_draws = b_draws = None
    if n_draws:
        x = curv.draws(n_draws, np.random.default_rng(seed), sigma_ones, ones_sigma_ones)
        theta_draws, b_draws = theta + x[:, :n_m], b + x[:, n_m:]
    projected = np.concatenate([cur.g_theta, cur.g_b - cur.g_b.mean()])
    return RaschFit(
        models=data.models,
        items=data.items,
        theta=theta,
        theta_sd=theta_sd,
        b=b,
        b_sd=b_sd,
        method="map",
        converged=converged,
        diagnostics={
            "iterations": iterations,
            "cg_iterations": cg + (0 if converged else curv.cg_iterations),
            "newton_decrement": decrement,
            "max_abs_gradient": float(np.max(np.abs(projected))),
            "sd": "exact" if exact else "diagonal approximation",
        },
        theta_draws=theta_draws,
        b_draws=b_draws,
    )
