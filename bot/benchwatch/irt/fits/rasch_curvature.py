"""The parts of ``benchwatch.irt.fits.rasch_map``'s Newton steps: the observed cells, one pass over them (the negative
log posterior, its gradient and curvature), and the Hessian at a point solved through the Schur complement over the
smaller block, S = D_u - C D_v^-1 C': by preconditioned conjugate gradients (each product with S one pass over
the cells), or, for a large pool whose cross block C fits in memory, by forming S with one BLAS product and
factorising it (``DENSE_CELLS``, ``DENSE_ENTRIES``, ``DENSE_FLOPS``)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg

from benchwatch.irt.responses import ResponseArrays


class _Kernels:
    """``benchwatch.irt.kernels``, imported on first use: numba loads only when a fit runs, not with the CLI."""

    def __getattr__(self, name: str):
        from benchwatch.irt import kernels as module

        return getattr(module, name)


kernels = _Kernels()

CG_RTOL = 1e-10
_CG_MAX_ITER = 1000
EXACT_SD_WORK = 3e8  # pairs of cells sharing a column of the larger block: the cost of the dense Schur complement
EXACT_SD_SIZE = 4000  # and the size of the smaller block (the dense factorisation is its cube)
DENSE_CELLS = 1_000_000  # cells from which the Newton steps may form S densely (BLAS) instead of running CG
DENSE_ENTRIES = 2.5e7  # the most entries of the dense cross block C (200 MB)
DENSE_FLOPS = 5e9  # the most multiply-adds of S = D_u - C D_v^-1 C' (a tenth of a second or so)


@dataclass(frozen=True)
class Cells:
    """The observed cells as flat arrays: model and item index, trials and the share of them answered right (the
    kernels form each cell's successes w y as they read it: at 38 million cells an array of them took 0.3 GB)."""

    m: np.ndarray
    i: np.ndarray
    w: np.ndarray
    y: np.ndarray
    n_m: int
    n_i: int
    floor: np.ndarray | None = None  # each item's chance floor c (None: none, the Rasch model itself)
    _dense: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def s(self) -> np.ndarray:
        """Each cell's successes w y (a fresh array)."""
        return self.w * self.y

    def dense(self, by_model: bool, values: np.ndarray) -> np.ndarray:
        """The cells' ``values`` as a models x items (``by_model``) or items x models array, into one buffer per
        fit, which the Newton steps of ``Curvature`` refill (no fresh models x items array to fault in at every
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


def cells_of(data: ResponseArrays, floor: np.ndarray | None = None) -> Cells:
    w = np.ascontiguousarray(data.weight, dtype=float)
    return Cells(
        m=np.ascontiguousarray(data.model_idx, dtype=np.int32),
        i=np.ascontiguousarray(data.item_idx, dtype=np.int32),
        w=w,
        y=np.ascontiguousarray(data.y, dtype=float),
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
class Pass:
    """Everything one pass over the cells yields at a point."""

    value: float
    g_theta: np.ndarray
    g_b: np.ndarray
    d_theta: np.ndarray
    d_b: np.ndarray
    info: np.ndarray  # per cell: W p (1 - p), the cross block's entries (empty without curvature)
    observed: bool = False  # info is the observed information (floors), not the Fisher information


def evaluate(
    theta: np.ndarray,
    b: np.ndarray,
    cells: Cells,
    sd_theta: float,
    sd_b: float,
    curvature: bool = True,
    observed: bool = False,
) -> Pass:
    """Negative log posterior, gradient and (optionally) curvature in one pass over the cells: the Fisher
    information, or with ``observed`` (items with floors; without, they are the same) the observed one."""
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
    extra = () if cells.floor is None else (bool(observed),)
    for part in kernels.split(kernel, cells.m.size, *args, cells.m, cells.i, cells.w, cells.y, info, *extra):
        value += part[0]
        g_theta += part[1]
        g_b += part[2]
        d_theta += part[3]
        d_b += part[4]
    return Pass(float(value), g_theta, g_b, d_theta, d_b, info, bool(observed) and cells.floor is not None)


GRAM_PARTS = 2  # the dense S's product C C' as this many products over ranges of C's columns, on as many threads
GRAM_SPLIT = 2e8  # multiply-adds from which it is split (below, one product: a thread costs more than it saves)


def _gram(cross: np.ndarray) -> np.ndarray:
    """C C' (numpy calls BLAS's syrk for a product with its own transpose), from ``GRAM_SPLIT`` multiply-adds on as
    sum of ``GRAM_PARTS`` such products over ranges of C's columns, each on a thread of its own with one BLAS thread
    (``fit_map`` keeps BLAS to one: its own threads spin beside the kernels'). The parts are fixed, not the
    machine's cores, so a fit gives the same figures on every machine."""
    n_u, n_v = cross.shape
    if n_u * n_u * n_v < GRAM_SPLIT or n_v < GRAM_PARTS:
        return cross @ cross.T
    bounds = np.linspace(0, n_v, GRAM_PARTS + 1).astype(np.int64)
    pool = kernels.thread_pool()
    parts = [pool.submit(_part_gram, cross[:, lo:hi]) for lo, hi in itertools.pairwise(bounds)]
    out = parts[0].result()
    for part in parts[1:]:
        out += part.result()
    return out


def _part_gram(cross: np.ndarray) -> np.ndarray:
    return cross @ cross.T


class NotPositiveDefinite(ValueError):
    """An observed information whose Hessian is not positive definite (``Curvature`` of a pass with ``observed``)."""


def dense_possible(cells: Cells, dense_from: int | None = None) -> bool:
    """Whether ``Curvature`` solves the cells' Newton steps through the dense Schur complement (and so knows
    whether the Hessian is positive definite: its Cholesky factor exists)."""
    n_u, n_v = sorted((cells.n_m, cells.n_i))
    dense_from = DENSE_CELLS if dense_from is None else dense_from
    return cells.m.size >= dense_from and n_u * n_v <= DENSE_ENTRIES and n_u * n_u * n_v <= DENSE_FLOPS


class Curvature:
    """The Hessian at a point, solved through the Schur complement over the smaller block."""

    def __init__(self, cells: Cells, cur: Pass, dense_from: int | None = None) -> None:
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
        positive = bool(np.all(self.d_u > 0.0) and np.all(self.d_v > 0.0))
        if cur.observed and not (positive and dense_possible(cells, dense_from)):
            raise NotPositiveDefinite("the observed information's diagonal is not positive (or the steps run CG)")
        if dense_possible(cells, dense_from):
            # C D_v^-1/2 (u x v) and D_v^1/2: C x = (C D_v^-1/2)(D_v^1/2 x); S = D_u - (C D_v^-1/2)(C D_v^-1/2)'
            self._root_v = np.sqrt(self.d_v)
            weights = (1.0 / self._root_v)[self.v]
            weights *= self.info
            self._cross = cells.dense(self.small_is_theta, weights)
            del weights
            schur = _gram(self._cross)
            schur *= -1.0
            schur[np.diag_indices_from(schur)] += self.d_u
            self.s_diag = np.diag(schur).copy()
            try:
                self._chol = linalg.cho_factor(schur, lower=True, overwrite_a=True, check_finite=False)
            except linalg.LinAlgError as error:
                if cur.observed:
                    raise NotPositiveDefinite("the observed information's Hessian is not positive definite") from error
                raise
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

    def solve(self, r: np.ndarray, rtol: float = CG_RTOL) -> np.ndarray:
        """H^-1 r for each column of r (parameters x k), unconstrained."""
        r_u, r_v = self._split(r)
        x_u = self._schur_solve(r_u + self._c(r_v / self.d_v[:, None]), rtol)
        x_v = (r_v + self._ct(x_u)) / self.d_v[:, None]
        return self._join(x_u, x_v)

    def solve_constrained(self, g: np.ndarray, rtol: float = CG_RTOL) -> tuple[np.ndarray, np.ndarray, float]:
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
