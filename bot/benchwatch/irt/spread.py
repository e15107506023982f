"""The spread of a benchmark's discriminations: a nuisance estimated with its interval, as the chance floor is.

Real items do not discriminate alike (metabench, arXiv:2407.12844, and every benchmark the field has fitted: a
spread of log discrimination of 0.2 to 0.9), and a few items on most real benchmarks discriminate far less or far
more than the rest (broken, miskeyed or trick items). The item model here lets each item's discrimination vary at
random, P = c + (1 - c) sigmoid(a_i (theta - b_i)), log a_i drawn from a normal with a fifth of the items from one
three times as wide (``TAIL``: heavier tails than a normal's, whose check rejected 4 of the 17 real per-item
benchmarks here against 2), of standard deviation s, and estimates the one number s per benchmark from its pool,
at any pool size:

    l(s) = max over the items' distribution G of sum_i log integral P(answers of item i | b, s) dG(b)

the marginal likelihood of s with every item's discrimination AND location integrated out (its discrimination
by adaptive Gauss-Hermite quadrature, ``benchwatch.irt.spread_kernels``; its location over every distribution of
difficulty, the nonparametric maximum likelihood of ``benchwatch.irt.npmle``, one per design group), at the
abilities of the fit (a 1PL's abilities order the models as a 2PL's do, and s = 0 is the 1PL). Its 95% interval
is the profile likelihood interval at chi2_2's level (l(s) >= max l - 3.0), as the floor's: the abilities enter
at their fitted values. Where the pool cannot place s (a dozen models), the interval is wide, up to
[0, ``LARGEST``], and the bounds computed over it are wide too; they never take s = 0 because a check could not
reject it. On items whose log discriminations are plainly normal the family's s reads a little above their sd
where the pool is large (its core is narrower than its sd says): the bounds then are wider, never narrower.

The profile is evaluated on at most ``MAX_ITEMS`` items, fewer where the models are many (about ``PROFILE_CELLS``
cells, ``MIN_ITEMS`` items at least: a fixed random subset; s is one number), on the coarse points ``COARSE``, its
maximum and its interval's ends refined between them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from benchwatch.irt.responses import ResponseArrays

COARSE = (0.0, 0.3, 0.6, 0.9, 1.2, 1.6)  # the spreads at which the profile is computed first
LARGEST = COARSE[-1]  # sd of log a at most: a tenfold discrimination ratio within one sd
SPREAD_LARGEST = LARGEST  # (its name in the stage's public API)
MAX_ITEMS = 400
PROFILE_CELLS = 30_000  # ... and fewer where the models are many: about this many cells (never under MIN_ITEMS)
MIN_ITEMS = 100
CRIT = 5.991  # chi2_2's 5% point (the floor's level, for the same reason)
TOL = 0.05  # the interval's ends to this spread
B_POINTS = 50  # points of b the profile integrates the items' locations over
TAIL = (0.2, 3.0)  # log a's distribution: a normal with a fifth of the items from one three times as wide
ZERO = 0.02  # a spread this small is the 1PL (s = 0: the integral is the answers' likelihood at a = 1)


@dataclass(frozen=True)
class SpreadEstimate:
    """The spread s (sd of log discrimination) that the data favour, with its 95% profile interval."""

    spread: float
    lo: float
    hi: float
    items: int  # items the profile was computed on
    profile: list[tuple[float, float]] = field(default_factory=list)  # (s, l(s) - max l)

    def ends(self) -> tuple[float, ...]:
        """The spreads the bounds are computed at: the interval's ends (one value when they meet)."""
        lo = 0.0 if self.lo < ZERO else self.lo
        return (lo,) if self.hi - lo < TOL else (lo, self.hi)

    @property
    def unbounded(self) -> bool:
        """The interval reaches the largest spread considered: the pool cannot place s."""
        return self.hi >= LARGEST - 1e-9

    def record(self) -> dict:
        return {"spread": self.spread, "spread_lo": self.lo, "spread_hi": self.hi, "items": self.items}


def mixture(sd: float) -> tuple[np.ndarray, np.ndarray]:
    """The spread's distribution of log a of standard deviation ``sd``: its parts' sds and shares (``TAIL``)."""
    share, wider = TAIL
    base = float(sd) / np.sqrt(1.0 - share + share * wider**2)
    return np.array([base, wider * base]), np.array([1.0 - share, share])


def draw_log_a(rng: np.random.Generator, sd: float, n: int) -> np.ndarray:
    """``n`` log discriminations drawn from the spread's distribution of standard deviation ``sd``."""
    sds, shares = mixture(sd)
    wide = rng.random(n) < shares[1]
    return rng.normal(0.0, 1.0, n) * np.where(wide, sds[1], sds[0])


def spread_rows(
    data: ResponseArrays,
    theta: np.ndarray,
    grid: np.ndarray,
    spread: float,
    floor: np.ndarray | None = None,
    slope: np.ndarray | None = None,
    mean_log_a: float = 0.0,
) -> np.ndarray:
    """Each item's log likelihood at the points ``grid`` of b (items x G), its discrimination integrated out over
    log a ~ N(``mean_log_a``, ``spread``^2) (``benchwatch.irt.spread_kernels``); the 1PL's at a spread under
    ``ZERO``. ``slope``: each model's logit multiplier (its ability's own error); ``floor``: each item's floor.
    Compiled, over the items in two parts at once."""
    from benchwatch.irt import spread_kernels as sk
    from benchwatch.irt.cells import cell_loglik
    from benchwatch.irt.kernels import THREADS, thread_pool
    from benchwatch.irt.spread_kernels import hermite, spread_out

    theta = np.ascontiguousarray(theta, dtype=float)
    grid = np.ascontiguousarray(grid, dtype=float)
    if spread < ZERO and mean_log_a == 0.0:
        return cell_loglik(
            data.model_idx,
            data.item_idx,
            data.weight,
            data.weight * data.y,
            theta,
            grid,
            data.n_items,
            slope=slope,
            floor=floor,
        )
    order = np.argsort(data.item_idx, kind="stable")
    starts = np.searchsorted(data.item_idx[order], np.arange(data.n_items + 1)).astype(np.int64)
    m = np.ascontiguousarray(data.model_idx[order], dtype=np.int64)
    w = np.ascontiguousarray(data.weight[order], dtype=float)
    s = np.ascontiguousarray((data.weight * data.y)[order], dtype=float)
    c = np.zeros(data.n_items) if floor is None else np.ascontiguousarray(floor, dtype=float)
    first, copies = _alike(starts, m, w, s, c)
    if first.size < data.n_items:  # each set of alike items once, its row copied to the others: the same numbers
        cells = np.concatenate([np.arange(starts[t], starts[t + 1]) for t in first]) if first.size else first
        sizes = starts[first + 1] - starts[first]
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        m, w, s, c = m[cells], w[cells], s[cells], c[first]
    n_rows = first.size
    a_slope = np.ones(theta.size) if slope is None else np.ascontiguousarray(slope, dtype=float)
    x, wx = hermite(sk.NODES)
    out = np.empty((n_rows, grid.size))
    sds, shares = mixture(max(spread, ZERO))
    args = (theta, grid, starts, m, w, s, c, a_slope, float(mean_log_a), sds, shares, x, wx, out)
    parts = max(1, min(THREADS, n_rows // 50))
    cuts = np.searchsorted(starts, np.linspace(0, starts[-1], parts + 1)).clip(0, n_rows)
    cuts[0], cuts[-1] = 0, n_rows
    if parts == 1:
        spread_out(*args, 0, n_rows)
    else:
        kernel: Callable[..., None] = spread_out  # a numba dispatcher: any arguments, to mypy
        futures = [thread_pool().submit(kernel, *args, int(lo), int(hi)) for lo, hi in itertools.pairwise(cuts)]
        for f in futures:
            f.result()
    return out if copies is None else out[copies]


def _alike(
    starts: np.ndarray, m: np.ndarray, w: np.ndarray, s: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """The items (cells grouped by item: ``starts``) whose likelihood rows are computed: the first of each set of
    items with the same cells (models, trials, successes) and floor, and for every item the row it reads (None
    when no two are alike). Small pools repeat patterns often: 240 of the 500 items of a 14-model SWE-bench."""
    n = starts.size - 1
    keys: dict[bytes, int] = {}
    first: list[int] = []
    copies = np.empty(n, dtype=np.int64)
    for t in range(n):
        lo, hi = starts[t], starts[t + 1]
        key = m[lo:hi].tobytes() + w[lo:hi].tobytes() + s[lo:hi].tobytes() + c[t : t + 1].tobytes()
        row = keys.setdefault(key, len(first))
        if row == len(first):
            first.append(t)
        copies[t] = row
    if len(first) == n:
        return np.arange(n), None
    return np.asarray(first, dtype=np.int64), copies


def estimate_spread(
    data: ResponseArrays,
    theta: np.ndarray,
    *,
    floor: np.ndarray | None = None,
    groups: np.ndarray | None = None,
    max_items: int = MAX_ITEMS,
    seed: int = 0,
) -> SpreadEstimate:
    """The spread s in [0, ``LARGEST``] that maximises the marginal likelihood (see the module), and its 95% profile
    interval, at the abilities ``theta`` and each item's ``floor``."""
    from benchwatch.irt.profile import crossing, kept_items, npmle_loglik, restrict

    per_item = data.model_idx.size / max(1, data.n_items)
    keep = kept_items(data.n_items, int(min(max_items, max(MIN_ITEMS, PROFILE_CELLS // max(per_item, 1.0)))), seed)
    sub = restrict(data, keep)
    sub_floor = None if floor is None else (np.asarray(floor, float) if keep is None else np.asarray(floor)[keep])
    sub_groups = None if groups is None else (groups if keep is None else np.asarray(groups)[keep])
    grid = np.linspace(float(np.min(theta)) - 4.0, float(np.max(theta)) + 4.0, B_POINTS)  # as ``floors.b_grid``
    known: dict[float, float] = {}
    warm: dict = {}

    def ell(s: float) -> float:
        s = float(min(max(s, 0.0), LARGEST))
        if s not in known:
            rows = spread_rows(sub, theta, grid, s, floor=sub_floor)
            known[s] = npmle_loglik(rows, sub_groups, warm=warm)
        return known[s]

    coarse = np.array(COARSE)
    values = np.array([ell(s) for s in coarse])
    k = int(np.argmax(values))
    best = float(coarse[k])
    if 0 < k < coarse.size - 1:  # the vertex of the parabola through the best coarse point and its neighbours
        x, y = coarse[k - 1 : k + 2], values[k - 1 : k + 2]
        denom = (x[0] - x[1]) * (x[0] - x[2]) * (x[1] - x[2])
        a = (x[2] * (y[1] - y[0]) + x[1] * (y[0] - y[2]) + x[0] * (y[2] - y[1])) / denom
        b = (x[2] ** 2 * (y[0] - y[1]) + x[1] ** 2 * (y[2] - y[0]) + x[0] ** 2 * (y[1] - y[2])) / denom
        if a < 0:
            vertex = float(np.clip(-b / (2 * a), x[0], x[2]))
            if ell(vertex) > ell(best):
                best = vertex
    top = ell(best)
    level = top - CRIT / 2
    lo = 0.0 if ell(0.0) >= level else crossing(ell, level, 0.0, best, coarse, TOL)
    hi = LARGEST if ell(LARGEST) >= level else crossing(ell, level, best, LARGEST, coarse, TOL)
    profile = sorted((float(s), float(v - top)) for s, v in known.items())
    return SpreadEstimate(best, float(lo), float(hi), sub.n_items, profile)
