"""MAP fit of the 1PL (Rasch) model by Newton's method on the exact log posterior, over the observed cells.

The model: P(y_ij = 1) = sigmoid(theta_j - b_i), theta_j ~ N(0, sd_theta^2), and difficulties b that
sum to zero with density N(0, sd_b^2) on that subspace (a ZeroSumNormal), which pins the logit scale's
location exactly. The Hessian is [[D_theta, -C], [-C', D_b]] with diagonal D blocks and C as sparse as
the responses. Each Newton step is solved through the Schur complement over the smaller block,
S = D_u - C D_v^-1 C', by preconditioned conjugate gradients: every product with S is one pass over
the observed cells (``benchwatch.irt.kernels``), so the cost of an iteration is linear in the cells and no
model x item array is formed (but the one below). The steps are exact Newton steps (CG to a relative residual of
1e-10) with the same convergence test as before, so the optimum is the same. A large pool whose cross block
is small enough to hold (``DENSE_CELLS``, ``DENSE_ENTRIES``, ``DENSE_FLOPS``: 500 models x 5,000 items, say)
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
from scipy import linalg
from threadpoolctl import threadpool_limits

from benchwatch.irt.responses import ResponseArrays


class _Kernels:
    """``benchwatch.irt.kernels``, imported on first use: numba loads only when a fit runs, not with the CLI."""

    def __getattr__(self, name: str):
        from benchwatch.irt import kernels as module

        return getattr(module, name)


kernels = _Kernels()

PRIOR_SD_THETA = 3.0
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


_CG_RTOL = 1e-10
_CG_MAX_ITER = 1000
EXACT_SD_WORK = 3e8  # pairs of cells sharing a column of the larger block: the cost of the dense Schur complement
EXACT_SD_SIZE = 4000  # and the size of the smaller block (the dense factorisation is its cube)
DENSE_CELLS = 1_000_000  # cells from which the Newton steps may form S densely (BLAS) instead of running CG
DENSE_ENTRIES = 2.5e7  # the most entries of the dense cross block C (200 MB)
DENSE_FLOPS = 5e9  # the most multiply-adds of S = D_u - C D_v^-1 C' (a tenth of a second or so)


@dataclass(frozen=True)
class _Cells:
    """The observed cells as flat arrays: model and item index, trials and successes."""

    m: np.ndarray
    i: np.ndarray
    w: np.ndarray
    s: np.ndarray
    n_m: int
    n_i: int
    floor: np.ndarray | None = None  # each item's chance floor c (None: none, the Rasch model itself)
    _dense: dict = field(default_factory=dict, compare=False, repr=False)

    def dense(self, by_model: bool, values: np.ndarray) -> np.ndarray:
        """The cells' ``values`` as a models x items (``by_model``) or items x models array, into one buffer per
        fit, which the Newton steps of ``_Curvature`` refill (no fresh models x items array to fault in at every
        step): assigned where the cells are in order, each once, else summed."""
        if by_model not in self._dense:
            flat = (
                self.m.astype(np.int64) * self.n_i + self.i if by_model else self.i.astype(np.int64) * self.n_m + self.m
            )
            unique = bool(np.all(flat[1:] > flat[:-1]))  # sorted and no cell twice: assignment is the sum
            shape = (self.n_m, self.n_i) if by_model else (self.n_i, self.n_m)
            self._dense[by_model] = (flat, unique, np.zeros(shape))
        flat, unique, out = self._dense[by_model]
        if unique:
            out.reshape(-1)[flat] = values
        else:
            out[...] = np.bincount(flat, weights=values, minlength=out.size).reshape(out.shape)
        return out


def _cells(data: ResponseArrays, floor: np.ndarray | None = None) -> _Cells:
    w = np.ascontiguousarray(data.weight, dtype=float)
    return _Cells(
        m=np.ascontiguousarray(data.model_idx, dtype=np.int32),
        i=np.ascontiguousarray(data.item_idx, dtype=np.int32),
        w=w,
        s=w * np.asarray(data.y, dtype=float),
        n_m=data.n_models,
        n_i=data.n_items,
        floor=checked_floor(floor, data.n_items),
    )


def checked_floor(floor: np.ndarray | None, n_items: int) -> np.ndarray | None:
    """Each item's chance floor as the kernels take it, or None where every floor is 0 (the Rasch model, and its
    own kernel: the figures of an open-ended benchmark are exactly those of the model without floors)."""
    if floor is None:
        return None
    floor = np.ascontiguousarray(floor, dtype=float)
    if floor.shape != (n_items,):
        raise ValueError(f"expected one chance floor per item ({n_items}), got shape {floor.shape}")
    if not np.all((floor >= 0.0) & (floor < 1.0)):
        raise ValueError("a chance floor must lie in [0, 1)")
    return floor if np.any(floor > 0.0) else None


@dataclass
class _Pass:
    """Everything one pass over the cells yields at a point."""

    value: float
    g_theta: np.ndarray
    g_b: np.ndarray
    d_theta: np.ndarray
    d_b: np.ndarray
    info: np.ndarray  # per cell: W p (1 - p), the cross block's entries (empty without curvature)


def _evaluate(
    theta: np.ndarray, b: np.ndarray, cells: _Cells, sd_theta: float, sd_b: float, curvature: bool = True
) -> _Pass:
    """Negative log posterior, gradient and (optionally) curvature in one pass over the cells."""
    value = 0.5 * (theta @ theta) / sd_theta**2 + 0.5 * (b @ b) / sd_b**2
    g_theta = theta / sd_theta**2
    g_b = b / sd_b**2
    d_theta = np.full(cells.n_m, 1 / sd_theta**2)
    d_b = np.full(cells.n_i, 1 / sd_b**2)
    info = np.empty(cells.m.size if curvature else 0)
    args: tuple[np.ndarray, ...]
    if cells.floor is None:
        kernel, args = kernels.evaluate, (theta, b)
    else:
        kernel, args = kernels.evaluate_floor, (theta, b, cells.floor)
    for part in kernels.split(kernel, cells.m.size, *args, cells.m, cells.i, cells.w, cells.s, info):
        value += part[0]
        g_theta += part[1]
        g_b += part[2]
        d_theta += part[3]
        d_b += part[4]
    return _Pass(float(value), g_theta, g_b, d_theta, d_b, info)


class _Curvature:
    """The Hessian at a point, solved through the Schur complement over the smaller block."""

    def __init__(self, cells: _Cells, cur: _Pass) -> None:
        self.small_is_theta = cells.n_m <= cells.n_i
        self.n_theta = cells.n_m
        if self.small_is_theta:
            self.u, self.v, self.d_u, self.d_v = cells.m, cells.i, cur.d_theta, cur.d_b
        else:
            self.u, self.v, self.d_u, self.d_v = cells.i, cells.m, cur.d_b, cur.d_theta
        self.info = cur.info
        self.cg_iterations = 0
        self._factor = None
        self._cross: np.ndarray | None = None  # the dense C and the Cholesky factor of S, where affordable
        self._chol = None
        n_u, n_v = self.d_u.size, self.d_v.size
        if self.info.size >= DENSE_CELLS and n_u * n_v <= DENSE_ENTRIES and n_u * n_u * n_v <= DENSE_FLOPS:
            # C D_v^-1/2 (u x v) and D_v^1/2: C x = (C D_v^-1/2)(D_v^1/2 x); S = D_u - (C D_v^-1/2)(C D_v^-1/2)'
            self._root_v = np.sqrt(self.d_v)
            weights = (1.0 / self._root_v)[self.v]
            weights *= self.info
            self._cross = cells.dense(self.small_is_theta, weights)
            del weights
            schur = self._cross @ self._cross.T  # (numpy calls BLAS's syrk for a product with its own transpose)
            schur *= -1.0
            schur[np.diag_indices_from(schur)] += self.d_u
            self.s_diag = np.diag(schur).copy()
            self._chol = linalg.cho_factor(schur, lower=True, overwrite_a=True, check_finite=False)
        else:
            # The diagonal of S: the preconditioner of CG, and the approximate SDs beyond EXACT_SD_WORK.
            self.s_diag = self.d_u - self._sum_sq(self.u, self.v, self.d_v, self.d_u.size)

    def _split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t, b = x[: self.n_theta], x[self.n_theta :]
        return (t, b) if self.small_is_theta else (b, t)

    def _join(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.concatenate([u, v] if self.small_is_theta else [v, u])

    def _sum_sq(self, src: np.ndarray, dst: np.ndarray, d_dst: np.ndarray, n: int) -> np.ndarray:
        return sum(kernels.split(kernels.sum_sq_over, self.info.size, self.info, src, dst, d_dst, n))

    def _times(self, src: np.ndarray, dst: np.ndarray, x: np.ndarray, n: int) -> np.ndarray:
        x = np.ascontiguousarray(x)
        return sum(kernels.split(kernels.cross_times, self.info.size, self.info, src, dst, x, n))

    def _c(self, x_v: np.ndarray) -> np.ndarray:
        """C x_v (u-indexed) for the columns of x_v."""
        if self._cross is not None:
            return self._cross @ (self._root_v[:, None] * x_v if x_v.ndim == 2 else self._root_v * x_v)
        return self._times(self.v, self.u, x_v, self.d_u.size)

    def _ct(self, x_u: np.ndarray) -> np.ndarray:
        """C' x_u (v-indexed)."""
        if self._cross is not None:
            out = self._cross.T @ x_u
            return self._root_v[:, None] * out if out.ndim == 2 else self._root_v * out
        return self._times(self.u, self.v, x_u, self.d_v.size)

    def _schur_times(self, x: np.ndarray) -> np.ndarray:
        return self.d_u[:, None] * x - self._c(self._ct(x) / self.d_v[:, None])

    def _schur_solve(self, rhs: np.ndarray, rtol: float) -> np.ndarray:
        """S^-1 rhs for each column, by preconditioned conjugate gradients (one recurrence per column) to a
        relative residual of ``rtol``; by the Cholesky factor of the dense S where it was formed (exact)."""
        if self._chol is not None:
            return linalg.cho_solve(self._chol, rhs, check_finite=False)
        x = np.zeros_like(rhs)
        r = rhs.copy()
        z = r / self.s_diag[:, None]
        p = z.copy()
        rz = np.einsum("ij,ij->j", r, z)
        goal = rtol * np.linalg.norm(rhs, axis=0)
        for _ in range(_CG_MAX_ITER):
            if np.all(np.linalg.norm(r, axis=0) <= goal):
                break
            self.cg_iterations += 1
            q = self._schur_times(p)
            alpha = rz / np.maximum(np.einsum("ij,ij->j", p, q), 1e-300)
            x += alpha * p
            r -= alpha * q
            z = r / self.s_diag[:, None]
            rz_new = np.einsum("ij,ij->j", r, z)
            p = z + (rz_new / np.maximum(rz, 1e-300)) * p
            rz = rz_new
        return x

    def solve(self, r: np.ndarray, rtol: float = _CG_RTOL) -> np.ndarray:
        """H^-1 r for each column of r (parameters x k), unconstrained."""
        r_u, r_v = self._split(r)
        x_u = self._schur_solve(r_u + self._c(r_v / self.d_v[:, None]), rtol)
        x_v = (r_v + self._ct(x_u)) / self.d_v[:, None]
        return self._join(x_u, x_v)

    def solve_constrained(self, g: np.ndarray, rtol: float = _CG_RTOL) -> tuple[np.ndarray, np.ndarray, float]:
        """H^-1 g projected so that the b block sums to zero (the KKT solution), with H^-1 [0, 1_b] and
        1_b' H^-1 1_b (one batched solve for both). The projection keeps sum(b) = 0 exactly whatever
        ``rtol``; a looser one only makes the step less than a full Newton step."""
        ones = np.concatenate([np.zeros(self.n_theta), np.ones(g.size - self.n_theta)])
        both = self.solve(np.column_stack([g, ones]), rtol)
        x, sigma_ones = both[:, 0], both[:, 1]
        ones_sigma_ones = float(sigma_ones[self.n_theta :].sum())
        return x - sigma_ones * (x[self.n_theta :].sum() / ones_sigma_ones), sigma_ones, ones_sigma_ones

    def _grouped(self) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(self.v, kind="stable")
        starts = np.concatenate([[0], np.cumsum(np.bincount(self.v, minlength=self.d_v.size))])
        return order, starts

    def exact_affordable(self) -> bool:
        per_v = np.bincount(self.v, minlength=self.d_v.size).astype(float)
        return self.d_u.size <= EXACT_SD_SIZE and float(per_v @ per_v) <= EXACT_SD_WORK

    def factor(self):
        """The Cholesky factor of the dense S, and the cells grouped by v (built once, on demand)."""
        if self._factor is None:
            order, starts = self._grouped()
            schur = np.diag(self.d_u) - kernels.schur_dense(
                self.info, self.u, self.v, order, starts, self.d_v, self.d_u.size
            )
            self._factor = (linalg.cho_factor(schur, lower=True), order, starts)
        return self._factor

    def marginal_sds(
        self, sigma_ones: np.ndarray, ones_sigma_ones: float, exact: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """Posterior SDs of theta and b under the Laplace approximation, with sum(b) = 0."""
        if exact:
            chol, order, starts = self.factor()
            inv_s = linalg.cho_solve(chol, np.eye(self.d_u.size))
            var_u = np.diag(inv_s).copy()
            var_v = 1 / self.d_v + kernels.quad_over(self.info, self.u, self.v, order, starts, self.d_v, inv_s)
            var = self._join(var_u, var_v) - sigma_ones**2 / ones_sigma_ones
        else:  # S replaced by its diagonal: no shift mode left to project out
            var_u = 1 / self.s_diag
            var_v = (1 + self._sum_sq(self.v, self.u, self.s_diag, self.d_v.size) / self.d_v) / self.d_v
            var = self._join(var_u, var_v)
        sd = np.sqrt(np.maximum(var, 0.0))
        return sd[: self.n_theta], sd[self.n_theta :]

    def draws(self, n: int, rng: np.random.Generator, sigma_ones: np.ndarray, ones_sigma_ones: float) -> np.ndarray:
        """Zero-mean draws from the constrained Laplace approximation (n x parameters); needs the dense S."""
        (low, lower), _, _ = self.factor()
        low = low if lower else low.T
        e_u = rng.standard_normal((self.d_u.size, n))
        x_u = linalg.solve_triangular(low.T, e_u, lower=False)  # N(0, S^-1)
        e_v = rng.standard_normal((self.d_v.size, n))
        # v given u has precision D_v and mean D_v^-1 C' u.
        x_v = (self._ct(x_u) + e_v * np.sqrt(self.d_v)[:, None]) / self.d_v[:, None]
        x = self._join(x_u, x_v).T
        return x - np.outer(x[:, self.n_theta :].sum(axis=1) / ones_sigma_ones, sigma_ones)


def neg_log_posterior(
    x: np.ndarray, data: ResponseArrays, sd_theta: float, sd_b: float, floor: np.ndarray | None = None
) -> tuple[float, np.ndarray]:
    """Negative log posterior (up to a constant) and its gradient at x = [theta, b]."""
    res = _evaluate(x[: data.n_models], x[data.n_models :], _cells(data, floor), sd_theta, sd_b, curvature=False)
    return res.value, np.concatenate([res.g_theta, res.g_b])


def _start(cells: _Cells) -> tuple[np.ndarray, np.ndarray]:
    """A cold start from the margins: each model's and each item's log-odds of success (shrunk by half a
    success and half a failure), difficulties centred. Newton takes it from there."""

    def log_odds(index: np.ndarray, n: int) -> np.ndarray:
        trials = np.bincount(index, cells.w, minlength=n)
        wins = np.bincount(index, cells.s, minlength=n)
        return np.log((wins + 0.5) / (trials - wins + 0.5))

    theta, b = log_odds(cells.m, cells.n_m), -log_odds(cells.i, cells.n_i)
    if cells.floor is not None:  # an item's successes above its floor: P = c + (1 - c) sigma
        trials = np.bincount(cells.i, cells.w, minlength=cells.n_i)
        rate = (np.bincount(cells.i, cells.s, minlength=cells.n_i) + 0.5) / (trials + 1.0)
        above = np.clip((rate - cells.floor) / (1.0 - cells.floor), 0.5 / (trials + 1.0), 1.0 - 0.5 / (trials + 1.0))
        b = -np.log(above / (1.0 - above))
    return theta, b - b.mean()


def _newton(
    cells: _Cells, theta: np.ndarray, b: np.ndarray, cur: _Pass, sd_theta: float, sd_b: float, tol: float, max_iter: int
):
    """``fit_map``'s Newton iterations with backtracking from (theta, b), whose pass is ``cur``."""
    n_m = cells.n_m
    converged, iterations, decrement, cg, first = False, 0, np.inf, 0, 0.0
    sigma_ones, ones_sigma_ones = np.zeros(0), 0.0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (reported after the loop)
        curv = _Curvature(cells, cur)
        # The gradient less its component along the constraint (the Lagrange part): the same constrained
        # step, without the cancellation between two large terms that the raw gradient brings near the
        # optimum, where it is almost all Lagrange part.
        grad = np.concatenate([cur.g_theta, cur.g_b - cur.g_b.mean()])
        norm = float(np.linalg.norm(grad))
        first = first or norm
        # Inexact Newton: far from the optimum a rough solve does as well as an exact one; the tolerance
        # falls with the gradient, so the last steps are exact Newton steps.
        rtol = max(_CG_RTOL, min(0.1, norm / first)) if first > 0 else _CG_RTOL
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
        t = 1.0
        while True:  # the candidate's curvature comes with its value: an accepted full step costs one pass
            cand_theta, cand_b = theta + t * step[:n_m], b + t * step[n_m:]
            trial = _evaluate(cand_theta, cand_b, cells, sd_theta, sd_b)
            if trial.value <= cur.value - 0.25 * t * decrement or t < 1e-8:
                break
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
) -> RaschFit:
    """Newton's method with backtracking from the margins or a warm start ``init`` = (theta, b).

    ``exact_sd``: True forces the exact Laplace SDs, False the diagonal approximation; None (default)
    chooses exact where the dense Schur complement is affordable. Draws always use the exact factor.
    ``floor``: each item's chance floor c, P = c + (1 - c) sigmoid(theta - b) (``benchwatch.irt.floors``); with a
    floor the curvature is the Fisher information (Fisher scoring, to the same mode) and so are the SDs.
    """
    cells = _cells(data, floor)
    n_m = data.n_models
    if init is None:
        theta, b = _start(cells)
    else:
        theta, b = np.asarray(init[0], float).copy(), np.asarray(init[1], float).copy()
        theta += -b.mean()  # keep the warm start's differences, move it onto sum(b) = 0
        b -= b.mean()
    cur = _evaluate(theta, b, cells, sd_theta, sd_b)
    # One BLAS thread: the dense steps' products run beside the kernels' own threads (on two busy cores, BLAS's
    # threads made the 500 x 5,000 fit three times as slow, measured)
    with threadpool_limits(1, "blas"):
        theta, b, cur, curv, converged, iterations, decrement, cg, sigma_ones, ones_sigma_ones = _newton(
            cells, theta, b, cur, sd_theta, sd_b, tol, max_iter
        )
    if not converged:  # the loop's last curvature is at the previous point
        curv = _Curvature(cells, cur)
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
