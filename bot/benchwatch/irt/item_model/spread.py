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
by the trapezoid rule on nodes fine enough for 1e-6, ``benchwatch.irt.item_model.spread_kernels``; its location over
every distribution of difficulty, the nonparametric maximum likelihood of ``benchwatch.irt.difficulty.npmle``, one per
design group), at the abilities of the fit (a 1PL's abilities order the models as a 2PL's do, and s = 0 is the 1PL).
Its 95% interval is the profile likelihood interval at chi2_2's level (l(s) >= max l - 3.0), as the floor's:
the abilities enter at their fitted values. Where the pool cannot place s (a dozen models), the interval is wide, up to
[0, ``LARGEST``], and the bounds computed over it are wide too; they never take s = 0 because a check could not
reject it. On items whose log discriminations are plainly normal the family's s reads a little above their sd
where the pool is large (its core is narrower than its sd says): the bounds then are wider, never narrower.

The profile is evaluated on at most ``MAX_ITEMS`` items, fewer where the models are many (about ``PROFILE_CELLS``
cells, ``MIN_ITEMS`` items at least: a fixed random subset; s is one number), on the coarse points ``COARSE``, its
maximum and its interval's ends refined between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchwatch.irt.item_model.spread_pass import Cells, integrated_rows, same_cells
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
    log a from the spread's mixture around ``mean_log_a`` (``benchwatch.irt.item_model.spread_kernels``: matrix products
    of the items' successes and trials with each model's terms at every node); the 1PL's at a spread under ``ZERO``.
    ``slope``: each model's logit multiplier (its ability's own error); ``floor``: each item's floor. Each set of
    alike items once; blocks of items on both cores at once; where rows are narrow (thousands of answers an item),
    each only near its top, over the nodes its sums there read (``benchwatch.irt.item_model.spread_windows``:
    beyond, an upper bound at least ``WINDOW`` below the top)."""
    from benchwatch.irt.fits.cells import cell_loglik, cells_by_item

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
    # the cells in item order (by counting: the stable sort's order, 4 bytes a cell), each array once: a table of
    # the size of the cells is the largest thing an audit of millions of them holds here. Each is held as narrow as
    # its values are exact in: the model codes in 16 bits below 32,768 models, the successes in 32 where every one
    # is exact there (right answers, counts), the trials one view of a single 1 where every cell is one trial; the
    # numbers read from them are the same
    order = cells_by_item(data.item_idx, data.n_items)
    starts = np.concatenate([[0], np.cumsum(np.bincount(data.item_idx, minlength=data.n_items))]).astype(np.int64)
    m = data.model_idx[order].astype(np.int16 if theta.size < 2**15 else np.int32)
    unit = bool((data.weight == 1.0).all())
    w = np.broadcast_to(np.float64(1.0), order.shape) if unit else _gathered(data.weight, None, order, np.float64)
    weight = None if unit else data.weight
    s = _gathered(data.y, weight, order, np.float32 if _exact32(data.y, weight) else np.float64)
    del order
    c = np.zeros(data.n_items) if floor is None else np.ascontiguousarray(floor, dtype=float)
    first, copies = _alike(starts, m, w, s, c)
    if first.size < data.n_items:  # each set of alike items once, its row copied to the others: the same numbers
        cells = np.concatenate([np.arange(starts[t], starts[t + 1]) for t in first]) if first.size else first
        sizes = starts[first + 1] - starts[first]
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        m, s, c = m[cells], s[cells], c[first]
        w = np.broadcast_to(w[:1], s.shape) if w.strides == (0,) else w[cells]
    a_slope = np.ones(theta.size) if slope is None else np.ascontiguousarray(slope, dtype=float)
    mix = mixture(max(spread, ZERO))
    out = integrated_rows(Cells(starts, m, w, s, c), theta, a_slope, grid, mix, float(mean_log_a))
    return out if copies is None else out[copies]


GATHER = 1_000_000  # cells gathered at a time into item order (no array of the cells' size beside the result)


def _exact32(y: np.ndarray, w: np.ndarray | None) -> bool:
    """Whether every cell's successes (y, times w where given) is exact in 32 bits."""
    for lo in range(0, y.size, GATHER):
        part = y[lo : lo + GATHER] if w is None else y[lo : lo + GATHER] * w[lo : lo + GATHER]
        if not np.array_equal(part.astype(np.float32), part):
            return False
    return True


def _gathered(y: np.ndarray, w: np.ndarray | None, order: np.ndarray, dtype) -> np.ndarray:
    """y (times w where given) at the positions ``order``, as ``dtype``, a block of cells at a time."""
    out = np.empty(order.size, dtype)
    for lo in range(0, order.size, GATHER):
        at = order[lo : lo + GATHER]
        out[lo : lo + GATHER] = y[at] if w is None else y[at] * w[at]
    return out


def _alike(
    starts: np.ndarray, m: np.ndarray, w: np.ndarray, s: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """The items (cells grouped by item: ``starts``) whose likelihood rows are computed: the first of each set of
    items with the same cells (models, trials, successes) and floor, and for every item the row it reads (None
    when no two are alike). Small pools repeat patterns often: 240 of the 500 items of a 14-model SWE-bench."""
    n = starts.size - 1
    copies, first = same_cells(starts, (m, w, s), c)
    if first.size == n:
        return np.arange(n), None
    return first, copies


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
    from benchwatch.irt.item_model.profile import crossing, kept_items, npmle_loglik, restrict

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

    values: list[float] = []
    for s in COARSE:  # in order, until the profile has fallen below any level its top can set (one mode, as the
        # search of the interval's ends assumes: the spreads beyond lie lower still, and cost the most nodes)
        values.append(ell(s))
        if len(values) > 1 and values[-1] < values[-2] and values[-1] < max(values) - CRIT / 2:
            break
    coarse = np.array(COARSE[: len(values)])
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
    if coarse.size < len(COARSE):  # the last spread read lies below the level: the upper end is before it
        hi = crossing(ell, level, best, float(coarse[-1]), coarse, TOL)
    else:
        hi = LARGEST if ell(LARGEST) >= level else crossing(ell, level, best, LARGEST, coarse, TOL)
    profile = sorted((float(s), float(v - top)) for s, v in known.items())
    return SpreadEstimate(best, float(lo), float(hi), sub.n_items, profile)
