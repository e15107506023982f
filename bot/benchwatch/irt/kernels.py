"""Compiled passes over the observed cells of a response matrix (numba, a dependency of PyMC's PyTensor).

Every function walks the cells once, in their stored order, and scatters into per-model and per-item
arrays: memory is the cells themselves plus O(models + items), and the cost is linear in the cells.
Sums of many cells are accumulated in blocks (pairwise), so a value over tens of millions of cells keeps
its precision for the line search. Each pass takes a range of cells and returns fresh accumulators, so
that ``split`` can run it on both cores (the kernels release the GIL) and add the parts.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numba import types as nt

from benchwatch import threads
from benchwatch.kernel_cache import njit

_BLOCK = 4096
MIN_CELLS_PER_THREAD = 250_000  # below this a second thread costs more than it saves
THREADS = max(1, min(4, threads.CORES))


def thread_pool() -> ThreadPoolExecutor:
    """The stage's threads (``benchwatch.threads``: started on first use; a forked child starts its own)."""
    return threads.thread_pool("irt", THREADS)


def split(kernel: Callable[..., Any], n_cells: int, *args):
    """Run ``kernel(*args, lo, hi)`` over the cells in up to ``THREADS`` ranges at once; returns the list of
    the parts' results in order (one element when the cells are too few to share)."""
    parts = max(1, min(THREADS, n_cells // MIN_CELLS_PER_THREAD))
    bounds = np.linspace(0, n_cells, parts + 1).astype(np.int64)
    if parts == 1:
        return [kernel(*args, 0, n_cells)]
    pool = thread_pool()
    futures = [pool.submit(kernel, *args, int(lo), int(hi)) for lo, hi in itertools.pairwise(bounds)]
    return [f.result() for f in futures]


@njit(cache=True, nogil=True)
def evaluate(theta, b, m, i, w, y, info, lo, hi):  # pragma: no cover (compiled)
    """Cells lo..hi: negative log likelihood, gradient and diagonal curvature of theta and b (returned as
    fresh arrays), and each cell's information w p (1 - p) stored in ``info`` (skipped when it is empty). A cell's
    successes are w y, formed as it is read."""
    g_theta = np.zeros(theta.size)
    g_b = np.zeros(b.size)
    d_theta = np.zeros(theta.size)
    d_b = np.zeros(b.size)
    total = 0.0
    keep = info.size > 0
    for start in range(lo, hi, _BLOCK):  # pairwise summation: one partial sum per block of cells
        block = 0.0
        for k in range(start, min(hi, start + _BLOCK)):
            j, t = m[k], i[k]
            sk = w[k] * y[k]
            eta = theta[j] - b[t]
            e = np.exp(-abs(eta))
            p = 1.0 / (1.0 + e)
            if eta < 0.0:
                p = e * p
            # w softplus(eta) - s eta, with softplus(eta) = max(eta, 0) + log1p(exp(-|eta|)) = -log(1 - p)
            block += w[k] * (max(eta, 0.0) + np.log1p(e)) - sk * eta
            resid = sk - w[k] * p
            g_theta[j] -= resid
            g_b[t] += resid
            if keep:
                c = w[k] * p * (1.0 - p)
                info[k] = c
                d_theta[j] += c
                d_b[t] += c
        total += block
    return total, g_theta, g_b, d_theta, d_b


@njit(cache=True, nogil=True)
def evaluate_floor(theta, b, floor, m, i, w, y, info, observed, lo, hi):  # pragma: no cover (compiled)
    """``evaluate`` for items with a chance floor: P = c + (1 - c) sigmoid(eta), c = floor[item]. The curvature
    is the Fisher information w (dP/deta)^2 / (P (1 - P)) = w (1 - c) sigma^2 (1 - sigma) / P (Fisher scoring:
    positive whatever the floor; for c = 0 it is the Rasch model's w p (1 - p), exactly ``evaluate``'s); with
    ``observed``, the observed information -d^2 loglik / d eta^2 instead (Newton's own curvature, which a right
    answer can make negative: the caller checks that the Hessian it makes is positive definite)."""
    g_theta = np.zeros(theta.size)
    g_b = np.zeros(b.size)
    d_theta = np.zeros(theta.size)
    d_b = np.zeros(b.size)
    total = 0.0
    keep = info.size > 0
    for start in range(lo, hi, _BLOCK):
        block = 0.0
        for k in range(start, min(hi, start + _BLOCK)):
            j, t = m[k], i[k]
            sk = w[k] * y[k]
            c = floor[t]
            eta = theta[j] - b[t]
            e = np.exp(-abs(eta))
            p = 1.0 / (1.0 + e)
            if eta < 0.0:
                p = e * p
            big = c + (1.0 - c) * p  # P
            log_fail = np.log1p(-c) - (max(eta, 0.0) + np.log1p(e))  # log(1 - P) = log(1 - c) + log(1 - sigma)
            fails = w[k] - sk
            block -= sk * np.log(big) + fails * log_fail
            share = (1.0 - c) * p / big  # the share of P that is not the floor
            resid = sk * share * (1.0 - p) - fails * p  # d loglik / d eta
            g_theta[j] -= resid
            g_b[t] += resid
            if keep:
                cur = w[k] * share * p * (1.0 - p)  # w (1 - c) sigma^2 (1 - sigma) / P
                if observed:  # fails p (1 - p) - s share (1 - p) ((1 - 2 p) - share (1 - p))
                    cur = fails * p * (1.0 - p) - sk * share * (1.0 - p) * ((1.0 - 2.0 * p) - share * (1.0 - p))
                info[k] = cur
                d_theta[j] += cur
                d_b[t] += cur
        total += block
    return total, g_theta, g_b, d_theta, d_b


@njit(cache=True, nogil=True)
def cross_times(info, src, dst, x, n_out, lo, hi):  # pragma: no cover (compiled)
    """y[dst] = sum over cells lo..hi of info * x[src]: the cross block of the Hessian (or its transpose)
    times the columns of x (rows indexed by ``src``)."""
    out = np.zeros((n_out, x.shape[1]))
    for k in range(lo, hi):
        c = info[k]
        a, z = src[k], dst[k]
        for col in range(x.shape[1]):
            out[z, col] += c * x[a, col]
    return out


@njit(cache=True, nogil=True)
def sum_sq_over(info, src, dst, d_dst, n_src, lo, hi):  # pragma: no cover (compiled)
    """For each src index: sum over its cells lo..hi of info^2 / d_dst[dst] (the diagonal of C D^-1 C')."""
    out = np.zeros(n_src)
    for k in range(lo, hi):
        out[src[k]] += info[k] * info[k] / d_dst[dst[k]]
    return out


@njit(cache=True, nogil=True)
def schur_dense(info, u, v, order, starts, d_v, n_u):  # pragma: no cover (compiled)
    """sum over v of C[:, v] C[:, v]' / d_v for cells grouped by v (``order`` sorted by v, ``starts`` the
    offsets of each v's run): the dense coupling of the Schur complement over the u block."""
    out = np.zeros((n_u, n_u))
    for col in range(starts.size - 1):
        lo, hi = starts[col], starts[col + 1]
        scale = 1.0 / d_v[col]
        for a in range(lo, hi):
            ka = order[a]
            ca = info[ka] * scale
            ua = u[ka]
            for z in range(lo, hi):
                kz = order[z]
                out[ua, u[kz]] += ca * info[kz]
    return out


@njit(cache=True, nogil=True)
def quad_over(info, u, v, order, starts, d_v, inv_s):  # pragma: no cover (compiled)
    """For each v: a_v' S^-1 a_v with a_v = C[:, v] / d_v (cells grouped by v as in ``schur_dense``)."""
    n_v = starts.size - 1
    out = np.zeros(n_v)
    for col in range(n_v):
        lo, hi = starts[col], starts[col + 1]
        total = 0.0
        for a in range(lo, hi):
            ka = order[a]
            ua = u[ka]
            for z in range(lo, hi):
                kz = order[z]
                total += info[ka] * info[kz] * inv_s[ua, u[kz]]
        out[col] = total / (d_v[col] * d_v[col])
    return out


@njit(cache=True, nogil=True)
def rows_add(out, dst, src, weight, table):  # pragma: no cover (compiled)
    """out[dst[k], :] += weight[k] * table[src[k], :] for every cell k: a sparse product row by row,
    without building a sparse matrix (for many small products, where that costs more than the sum)."""
    for k in range(dst.size):
        c = weight[k]
        if c == 0.0:
            continue
        row, from_ = dst[k], src[k]
        for g in range(table.shape[1]):
            out[row, g] += c * table[from_, g]
    return out


@njit(cache=True, nogil=True)
def rows_add_floors(out, dst, src, trials, successes, level, right, wrong):  # pragma: no cover (compiled)
    """``rows_add`` of both halves of a floored likelihood without per-cell arrays: out[i, :] += s right[l_i][m, :]
    for every cell (item i, model m, trials w, successes s), then out[i, :] += (w - s) wrong[l_i][m, :], l_i the
    level of item i's chance floor (each row's terms summed in the order of ``rows_add`` per floor)."""
    for k in range(dst.size):
        c = successes[k]
        if c == 0.0:
            continue
        row, from_ = dst[k], src[k]
        lv = level[row]
        for g in range(out.shape[1]):
            out[row, g] += c * right[lv, from_, g]
    for k in range(dst.size):
        c = trials[k] - successes[k]
        if c == 0.0:
            continue
        row, from_ = dst[k], src[k]
        lv = level[row]
        for g in range(out.shape[1]):
            out[row, g] += c * wrong[lv, from_, g]
    return out


@njit(cache=True, nogil=True)
def invert_cdf(cdf, pattern, u, grid, out):  # pragma: no cover (compiled)
    """Inverse CDF on a grid, linear within a cell: for each row r of u (draws x items) and item t, the
    value where the CDF row ``pattern[t]`` of ``cdf`` crosses u[r, t] (a binary search per value)."""
    n_grid = grid.size
    step = grid[1] - grid[0]
    for r in range(u.shape[0]):
        for t in range(u.shape[1]):
            row = pattern[t]
            x = u[r, t]
            lo, hi = 0, n_grid  # the count of CDF cells below x lies in [lo, hi]
            while lo < hi:
                mid = (lo + hi) // 2
                if cdf[row, min(mid, n_grid - 1)] < x:
                    lo = mid + 1
                else:
                    hi = mid
            cell = min(lo, n_grid - 1)
            upper = cdf[row, cell]
            lower = cdf[row, cell - 1] if cell > 0 else 0.0
            frac = (x - lower) / max(upper - lower, 1e-300)
            frac = min(max(frac, 0.0), 1.0)
            out[r, t] = grid[cell] - 0.5 * step + frac * step
    return out


_F, _F2, _I4, _I8, _U8, _N = nt.float64[::1], nt.float64[:, ::1], nt.int32[::1], nt.int64[::1], nt.uint64[::1], nt.int64


def compiled_kernels() -> list[tuple]:
    """(kernel, argument types, seconds its first compile took on a 2-core machine) for every kernel as the
    pipeline calls it, so that a run's workers can share the compiling of a first run after install
    (``benchwatch.pipeline.workers``); a test checks that the sample's run compiles nothing else."""
    from benchwatch.irt.difficulty.npmle_solver import (  # the items' mixing distribution's solver
        _best_moved,
        _loglik,
        _solve,
    )
    from benchwatch.irt.fits.cell_kernels import by_item, by_pattern, hash_items, pattern_starts
    from benchwatch.irt.item_model.check_kernels import check_sums, refit_sweeps  # the fit check's, every benchmark's

    return [
        (evaluate, (_F, _F, _I4, _I4, _F, _F, _F, _N, _N), 0.6),
        (cross_times, (_F, _I4, _I4, _F2, _N, _N, _N), 0.4),
        (sum_sq_over, (_F, _I4, _I4, _F, _N, _N, _N), 0.15),
        (schur_dense, (_F, _I4, _I4, _I8, _I8, _F, _N), 0.25),
        (quad_over, (_F, _I4, _I4, _I8, _I8, _F, nt.float64[::1, :]), 0.2),
        (rows_add, (_F2, _I8, _I8, _F, _F2), 0.2),
        (rows_add, (_F2, _I4, _I4, _F, _F2), 0.2),
        (invert_cdf, (_F2, _I8, _F2, _F, _F2), 0.3),
        (hash_items, (_I4, _I4, _F, _F, _U8, _U8, _N, nt.boolean), 0.5),
        (pattern_starts, (_I4, _I8, nt.boolean[::1], _N), 0.1),
        (by_pattern, (_I4, _I8, nt.boolean[::1], _I8, _I4, _I4, _I4), 0.15),
        (by_pattern, (_I4, _I8, nt.boolean[::1], _I8, _F, _F, _F), 0.15),
        (by_item, (_I4, _N, _I4), 0.1),
        (refit_sweeps, (_F, _F, _I4, _I4, _F, _F, _F, nt.float64, nt.float64, _N), 1.5),
        (check_sums, (_F, _F, _I4, _I4, _F, _F, _F, nt.boolean[::1], nt.boolean[::1]), 0.5),
        (_loglik, (_F2, _F, _F), 0.2),
        (_best_moved, (_F2, _F, _F2, _N, _N, _N, _N), 0.3),
        (
            _solve,
            (_F2, _F, nt.boolean[::1], _F, _F) + (nt.float64,) * 3 + (_N,) + (nt.float64,) * 4,
            4.9,
        ),
    ]


def item_model_kernels() -> list[tuple]:
    """``compiled_kernels``' list for the item models' kernels (chance floors, the spread of discriminations),
    which a run compiles only when a benchmark has floors or per-item answers: the wheel's build compiles them too
    (``benchwatch.kernel_cache``)."""
    from benchwatch.irt.item_model.counts import count_table
    from benchwatch.irt.item_model.spread_kernels import dense_rows, integrate, tables

    _F3 = nt.float64[:, :, ::1]
    return [
        (count_table, (_F2, _F2), 0.3),
        (evaluate_floor, (_F, _F, _F, _I4, _I4, _F, _F, _F, nt.boolean, _N, _N), 0.7),
        (rows_add_floors, (_F2, _I4, _I4, _F, _F, _I8, _F3, _F3), 0.4),
        (rows_add_floors, (_F2, _I8, _I8, _F, _F, _I8, _F3, _F3), 0.4),
        (tables, (_F, _F, _F, _F, nt.float64, _F2, _F2), 0.5),
        (integrate, (_F2, _F, _F2), 0.3),
        (dense_rows, (_I8, _I4, _F, _F, nt.boolean, _F2, _F2), 0.2),
    ]
