"""MAP fit of the 1PL (Rasch) model by Newton's method on the exact log posterior.

The model: P(y_ij = 1) = sigmoid(theta_j - b_i), theta_j ~ N(0, sd_theta^2), and difficulties b that
sum to zero with density N(0, sd_b^2) on that subspace (a ZeroSumNormal), which pins the logit scale's
location exactly. The Hessian is [[D_theta, -C], [-C', D_b]] with diagonal D blocks, so every Newton
step is solved exactly through the Schur complement over the smaller block: one pass over the response
matrix and one small dense factorisation per step, quadratic convergence, and the same factorisation
gives the Laplace standard deviations and draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import linalg
from scipy.special import expit

from bot.irt.responses import ResponseArrays

PRIOR_SD_THETA = 3.0
PRIOR_SD_B = 3.0
CHUNK_CELLS = 4_000_000  # cells per block of rows: bounds the temporaries of one pass


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


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


@dataclass
class _Pass:
    """Everything one pass over the matrix yields at a point."""

    value: float
    g_theta: np.ndarray
    g_b: np.ndarray
    d_theta: np.ndarray
    d_b: np.ndarray
    cross: np.ndarray | None  # C[j, i] = W p (1 - p)


def _evaluate(
    theta: np.ndarray,
    b: np.ndarray,
    trials: np.ndarray,
    successes: np.ndarray,
    sd_theta: float,
    sd_b: float,
    curvature: bool = True,
) -> _Pass:
    """Negative log posterior, gradient and (optionally) curvature, a block of rows at a time."""
    n_m, n_i = trials.shape
    value = 0.5 * (theta @ theta) / sd_theta**2 + 0.5 * (b @ b) / sd_b**2
    g_theta = theta / sd_theta**2
    g_b = b / sd_b**2
    d_theta = np.full(n_m, 1 / sd_theta**2)
    d_b = np.full(n_i, 1 / sd_b**2)
    cross = np.empty((n_m, n_i)) if curvature else None
    step = max(1, CHUNK_CELLS // max(1, n_i))
    for lo in range(0, n_m, step):
        rows = slice(lo, min(n_m, lo + step))
        w, s = trials[rows], successes[rows]
        eta = theta[rows, None] - b[None, :]
        # -log p = softplus(-eta), -log(1 - p) = softplus(eta)
        value += float(np.sum(s * _softplus(-eta) + (w - s) * _softplus(eta)))
        p = expit(eta)
        resid = s - w * p
        g_theta[rows] -= resid.sum(axis=1)
        g_b += resid.sum(axis=0)
        if curvature:
            info = w * p * (1 - p)
            cross[rows] = info
            d_theta[rows] += info.sum(axis=1)
            d_b += info.sum(axis=0)
    return _Pass(value, g_theta, g_b, d_theta, d_b, cross)


class _Curvature:
    """The inverse Hessian in factored form, through the Schur complement over the smaller block."""

    def __init__(self, d_theta: np.ndarray, d_b: np.ndarray, cross: np.ndarray) -> None:
        self.small_is_theta = d_theta.size <= d_b.size
        c = cross if self.small_is_theta else cross.T
        self.d_u, self.d_v = (d_theta, d_b) if self.small_is_theta else (d_b, d_theta)
        self.a = c / self.d_v  # C D_v^-1
        schur = np.diag(self.d_u) - self.a @ c.T
        self.chol = linalg.cho_factor(schur, lower=True)
        self.n_theta = d_theta.size
        # The constraint sum(b) = 0 is the direction `ones` on the b block.
        ones = np.concatenate([np.zeros(d_theta.size), np.ones(d_b.size)])
        self.sigma_ones = self.solve(ones)
        self.ones_sigma_ones = float(self.sigma_ones[d_theta.size :].sum())

    def _split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t, b = x[: self.n_theta], x[self.n_theta :]
        return (t, b) if self.small_is_theta else (b, t)

    def _join(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.concatenate([u, v] if self.small_is_theta else [v, u])

    def solve(self, r: np.ndarray) -> np.ndarray:
        """H^-1 r, unconstrained."""
        r_u, r_v = self._split(r)
        x_u = linalg.cho_solve(self.chol, r_u + self.a @ r_v)
        return self._join(x_u, r_v / self.d_v + self.a.T @ x_u)

    def solve_constrained(self, r: np.ndarray) -> np.ndarray:
        """H^-1 r projected so that the b block sums to zero (the KKT solution)."""
        x = self.solve(r)
        return x - self.sigma_ones * (x[self.n_theta :].sum() / self.ones_sigma_ones)

    def marginal_sds(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior SDs of theta and b under the Laplace approximation, with sum(b) = 0."""
        inv_schur = linalg.cho_solve(self.chol, np.eye(self.d_u.size))
        var_u = np.diag(inv_schur)
        var_v = 1 / self.d_v + np.einsum("uv,uv->v", self.a, inv_schur @ self.a)
        var = self._join(var_u, var_v) - self.sigma_ones**2 / self.ones_sigma_ones
        sd = np.sqrt(np.maximum(var, 0.0))
        return sd[: self.n_theta], sd[self.n_theta :]

    def draws(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Zero-mean draws from the constrained Laplace approximation (n x parameters)."""
        low = self.chol[0] if self.chol[1] else self.chol[0].T
        e_u = rng.standard_normal((self.d_u.size, n))
        x_u = linalg.solve_triangular(low.T, e_u, lower=False)  # N(0, S^-1)
        e_v = rng.standard_normal((self.d_v.size, n))
        # v given u has precision D_v and mean D_v^-1 C' u.
        x_v = self.a.T @ x_u + e_v / np.sqrt(self.d_v)[:, None]
        x = self._join(x_u, x_v).T
        return x - np.outer(x[:, self.n_theta :].sum(axis=1) / self.ones_sigma_ones, self.sigma_ones)


def neg_log_posterior(x: np.ndarray, data: ResponseArrays, sd_theta: float, sd_b: float) -> tuple[float, np.ndarray]:
    """Negative log posterior (up to a constant) and its gradient at x = [theta, b]."""
    trials, successes = data.dense()
    res = _evaluate(x[: data.n_models], x[data.n_models :], trials, successes, sd_theta, sd_b, curvature=False)
    return res.value, np.concatenate([res.g_theta, res.g_b])


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
) -> RaschFit:
    """Newton's method with backtracking from zeros or a warm start ``init`` = (theta, b)."""
    trials, successes = data.dense()
    n_m = data.n_models
    if init is None:
        theta, b = np.zeros(n_m), np.zeros(data.n_items)
    else:
        theta, b = np.asarray(init[0], float).copy(), np.asarray(init[1], float).copy()
        theta += -b.mean()  # keep the warm start's differences, move it onto sum(b) = 0
        b -= b.mean()
    cur = _evaluate(theta, b, trials, successes, sd_theta, sd_b)
    converged, iterations, decrement = False, 0, np.inf
    for iterations in range(1, max_iter + 1):  # noqa: B007 (reported after the loop)
        curv = _Curvature(cur.d_theta, cur.d_b, cur.cross)
        grad = np.concatenate([cur.g_theta, cur.g_b])
        step = -curv.solve_constrained(grad)
        decrement = float(-grad @ step)
        if decrement < tol * max(1.0, abs(cur.value) * 1e-6):
            converged = True
            break
        t = 1.0
        while True:
            cand_theta, cand_b = theta + t * step[:n_m], b + t * step[n_m:]
            trial = _evaluate(cand_theta, cand_b, trials, successes, sd_theta, sd_b, curvature=False)
            if trial.value <= cur.value - 0.25 * t * decrement or t < 1e-8:
                break
            t *= 0.5
        theta, b = cand_theta, cand_b
        cur = _evaluate(theta, b, trials, successes, sd_theta, sd_b)
    curv = _Curvature(cur.d_theta, cur.d_b, cur.cross)
    theta_sd, b_sd = curv.marginal_sds()
    theta_draws = b_draws = None
    if n_draws:
        x = curv.draws(n_draws, np.random.default_rng(seed))
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
            "newton_decrement": decrement,
            "max_abs_gradient": float(np.max(np.abs(projected))),
        },
        theta_draws=theta_draws,
        b_draws=b_draws,
    )
