"""What a model pool can and cannot see on the difficulty axis: bounds that hold for any difficulty distribution.

An item's likelihood of its responses, at every point of a fine grid of the axis z (on the pool's scale,
its abilities held fixed), is all the data say about where the item lies. With few models that likelihood
is broad (about 0.45 logits at z = 0.5 with 24 binary models), so some stretches of the axis cannot be
resolved at all; an estimate under a smooth prior fills them in and looks precise. The bounds here assume
nothing about the shape of the items' distribution G: each is the inversion of a likelihood-ratio test of
one restriction on G against the nonparametric maximum likelihood over every distribution on the grid
(``benchwatch.irt.npmle``):

- **Detection limit** (an upper bound of Max Gap): a stretch [a, c] is *ruled out as empty* when G([a, c]) = 0
  is rejected, 2 (l_max - l_empty) > 5.991, the 5% point of chi2_2. Where the items are placed loosely the
  statistic is close to the 50:50 mixture of chi2_0 and chi2_1 of a restriction on the boundary (5% point
  2.706); but an empty stretch's edge is where a density's support ends, and there, with items placed sharply
  (1,000 models), the likelihood ratio tends to the chi2_2 of an endpoint (as for the end of a uniform
  distribution): at 2.706 the limit missed the true end gap of 3 in 40 such benchmarks (statistics up to
  7.3). The widest stretch not ruled out is the detection limit: the true Max Gap is an empty stretch, so it
  lies below the limit unless its own test rejected it. Also at each end.
- **Top-5 upper bound**: the largest total width of five disjoint stretches each not ruled out at the
  Bonferroni level for five (the mixture's 2.706 becomes 5.412), so that the five true widest gaps are all admitted with
  95% probability.
- **Thin stretches** (the lower bound, what the data force): [a, c] is *shown thin* when
  G([a, c]) >= THIN * mu([a, c]) is rejected at 2.706: the stretch holds less than a quarter of the items
  the target mu puts there. This is not a claim that the stretch is empty.
- **DDM bounds**: W1(G, mu) = max over sign functions s of the integral of s (G - F_mu), each a linear
  function of G. For each of a family of sign functions (one crossing point, both signs, refined once from
  the most extreme distribution found), the profile likelihood interval (3.84) of that linear function;
  the lower bound is the largest lower end, the upper bound the largest upper end.

Items are collapsed by likelihood: under the 1PL model an item's likelihood depends on its responses only
through its observed cells, their trials and its total successes, so a complete binary pool of m models
has at most m + 1 patterns, whatever the number of items.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass

import numpy as np
from scipy import special

from benchwatch.irt import MixingFit, linear_range, mixture_loglik, solve_mixing
from benchwatch.metrics.coverage import UNIFORM, Target

GRID = 200  # grid points of the axis: midpoints of 200 cells of width 0.005
CRIT_EMPTY = 5.991  # 5% point of chi2_2: the likelihood ratio of where a support ends (see above)
CRIT_TOP5 = 5.412  # the same at 1% (Bonferroni over five gaps)
CRIT_THIN = 2.706
CRIT_DDM = 3.841  # the upper end: two-sided 95% for one linear function
CRIT_DDM_LOW = 5.412  # the lower end, the largest over the sign functions: one-sided 1% for each
THIN = 0.25  # a stretch is thin when it holds less than this share of the target's mass there
PROBE_WIDTHS = (0.05, 0.1, 0.2, 0.3)  # widths at which thin stretches are searched (then grown)
CROSSINGS = np.linspace(0.0, 1.0, 11)  # crossing points of the sign functions behind the DDM bounds
FINE = 4000  # integration grid of the DDM functionals
BOUNDS_VERSION = 2


def axis_grid(n: int = GRID) -> np.ndarray:
    """The z grid: midpoints of n equal cells of [0, 1]."""
    return (np.arange(n) + 0.5) / n


@dataclass(frozen=True)
class AxisLikelihood:
    """Each distinct pattern's likelihood at the z grid (rows scaled to a maximum of 1) and how many items have it."""

    z: np.ndarray
    like: np.ndarray
    counts: np.ndarray
    group: np.ndarray | None = None  # each pattern's design group (``benchwatch.irt.design``); None: one group

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    @property
    def n_groups(self) -> int:
        return 1 if self.group is None else int(self.group.max()) + 1

    def expanded(self) -> np.ndarray:
        """The likelihood over one copy of the grid per design group (patterns x groups * grid): a pattern's row in
        its own group's copy, zero elsewhere, so that a distribution over the copies is one distribution of
        difficulty per group, mixed in the groups' own proportions."""
        if self.group is None:
            return self.like
        k = self.like.shape[1]
        out = np.zeros((self.like.shape[0], self.n_groups * k))
        for g in range(self.n_groups):
            rows = self.group == g
            out[rows, g * k : (g + 1) * k] = self.like[rows]
        return out

    @property
    def n_patterns(self) -> int:
        return int(self.counts.size)


def likelihood_from_cells(
    model_idx: np.ndarray,
    item_idx: np.ndarray,
    trials: np.ndarray,
    successes: np.ndarray,
    theta: np.ndarray,
    n_items: int,
    scale: str,
    theta_sd: np.ndarray | None = None,
    floor: np.ndarray | None = None,
    groups: np.ndarray | None = None,
) -> AxisLikelihood:
    """Every item's likelihood on the z grid from its observed cells alone (z on the pool's ``scale``), never
    a models x items array. With ``theta_sd`` (each ability's standard error) the abilities' own error enters
    (``benchwatch.irt.scale.uncertain_abilities``): each answer's probability averaged over its model's ability, and the
    scale read from the population's spread, not from the noisier spread of the estimates. Without it the
    abilities are held fixed at ``theta``. ``floor``: each item's chance floor (``benchwatch.irt.cell_loglik``);
    ``groups``: each item's design group (``benchwatch.irt.design``), one distribution of difficulty per group."""
    from benchwatch.irt import cell_loglik, difficulty_b, uncertain_abilities

    z = axis_grid()
    abilities = uncertain_abilities(np.asarray(theta, float), theta_sd)
    model_idx, item_idx = np.asarray(model_idx), np.asarray(item_idx)
    trials, successes = np.asarray(trials, float), np.asarray(successes, float)
    if item_idx.size > 1 and np.any(np.diff(item_idx) < 0):  # by item: the pass writes each item's row in turn
        order = np.argsort(item_idx, kind="stable")
        model_idx, item_idx, trials, successes = model_idx[order], item_idx[order], trials[order], successes[order]
    rows = cell_loglik(
        model_idx,
        item_idx,
        trials,
        successes,
        abilities.theta,
        difficulty_b(z, abilities.population, scale),
        n_items,
        slope=abilities.slope,
        floor=floor,
    )
    return axis_likelihood(rows, z, groups=groups)


def axis_likelihood(
    loglik_rows: np.ndarray, z: np.ndarray | None = None, decimals: int = 7, groups: np.ndarray | None = None
) -> AxisLikelihood:
    """Collapse items (rows: log likelihood at each grid point) whose likelihoods agree up to a constant (and, with
    ``groups``, whose design groups agree)."""
    rows = np.asarray(loglik_rows, float)
    z = axis_grid(rows.shape[1]) if z is None else np.asarray(z, float)
    rows = rows - rows.max(axis=1, keepdims=True)
    keys = np.round(np.maximum(rows, -745.0), decimals)
    if groups is not None:
        keys = np.column_stack([np.asarray(groups, float), keys])
    unique, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    del unique
    group = None if groups is None else np.asarray(groups, np.int64)[first]
    return AxisLikelihood(z, np.exp(rows[first]), counts.astype(float), group)


@dataclass(frozen=True)
class Bounds:
    """What the pool can and cannot see on the axis, for any difficulty distribution (z units)."""

    detection_limit: float  # the widest stretch the data cannot rule out as empty: an upper bound of Max Gap
    detection_stretch: tuple[float, float]  # where that stretch lies
    low_end: float  # the widest [0, w] not ruled out as empty
    high_end: float  # the widest [1 - w, 1] not ruled out as empty
    top5_upper: float  # an upper bound of the top-5 gap sum
    thin: tuple[tuple[float, float], ...]  # disjoint stretches shown to hold < THIN of the target's mass, widest first
    thin_width: float  # the widest of them (0 when none)
    thin_top5: float  # the total width of the five widest of them
    ddm_lo: float  # DDM bounds
    ddm_hi: float
    patterns: int  # distinct likelihoods the items collapsed to
    fits: int  # restricted fits it took

    def record_fields(self) -> dict:
        """The bounds under the names a benchmark's record gives them."""
        return {
            "detection_limit": self.detection_limit,
            "detection_stretch": list(self.detection_stretch),
            "detection_limit_low_end": self.low_end,
            "detection_limit_high_end": self.high_end,
            # a bound over the whole axis bounds nothing: null, read "no bound with these models"
            "top5_gap_sum_bound_hi": None if self.top5_upper >= 1.0 - 1e-12 else self.top5_upper,
            "thin_stretches": [list(s) for s in self.thin],
            "thin_width": self.thin_width,
            "thin_top5": self.thin_top5,
            "ddm_bound_lo": self.ddm_lo,
            "ddm_bound_hi": self.ddm_hi,
        }

    def as_dict(self) -> dict:
        out = asdict(self)
        out["detection_stretch"] = list(self.detection_stretch)
        out["thin"] = [list(s) for s in self.thin]
        return out


def _target_cdf(target: Target, t: np.ndarray) -> np.ndarray:
    if target.kind == "beta":
        return special.betainc(target.a, target.b, t)
    if target.kind == "empirical":
        values = np.sort(np.asarray(target.values))
        return np.searchsorted(values, t, side="right") / values.size
    return np.clip(t, 0.0, 1.0)


def target_mass(target: Target, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """mu([lo, hi]) for the target."""
    return _target_cdf(target, np.asarray(hi, float)) - _target_cdf(target, np.asarray(lo, float))


class _Search:
    """The tests behind every bound, on one pool's axis likelihood, sharing one unrestricted fit."""

    def __init__(
        self, lik: AxisLikelihood, target: Target, top: MixingFit | None = None, like: np.ndarray | None = None
    ):
        self.like, self.counts, self.target = lik.expanded() if like is None else like, lik.counts, target
        self.k = lik.like.shape[1]  # cells of the axis (a distribution lives on one copy of them per design group)
        self.blocks = lik.n_groups
        self.edges = np.arange(self.k + 1) / self.k
        self.top: MixingFit = top or solve_mixing(self.like, self.counts)
        self.w0 = self.top.w
        self.mix0 = self.like @ self.w0
        self.slope = self.like.T @ (self.counts / np.maximum(self.mix0, 1e-300))  # l's gradient at the fit
        self.fits = 0
        self.last: np.ndarray | None = None  # the last restricted fit of an empty stretch: a warm start
        self.within: list[np.ndarray] = []  # distributions found within the thin test's level (certificates)

    def level(self, crit: float) -> float:
        return self.top.loglik - crit / 2

    def axis(self, w: np.ndarray) -> np.ndarray:
        """A distribution over the groups' copies of the grid as one distribution on the axis."""
        return w if self.blocks == 1 else w.reshape(self.blocks, self.k).sum(axis=0)

    def tile(self, h: np.ndarray) -> np.ndarray:
        """A function of the axis on every group's copy of the grid (h . w is then h's integral over the axis)."""
        return h if self.blocks == 1 else np.tile(h, self.blocks)

    def _moved(self, w: np.ndarray, lo: int, hi: int) -> list[np.ndarray]:
        """``w`` with the mass of grid points lo..hi-1 moved to the left neighbour, the right one, or split (in every
        group's copy of the grid)."""
        blocks = w.reshape(self.blocks, self.k)
        inside = blocks[:, lo:hi].sum(axis=1)
        out = []
        for left in (1.0, 0.5, 0.0):
            if (left > 0 and lo == 0) or (left < 1 and hi == self.k):
                continue
            v = blocks.copy()
            v[:, lo:hi] = 0.0
            if lo > 0:
                v[:, lo - 1] += left * inside
            if hi < self.k:
                v[:, hi] += (1 - left) * inside
            out.append(v.ravel())
        return out

    def empty_ok(self, lo: int, hi: int, crit: float) -> bool:
        """Whether no mass on grid points lo..hi-1 (the stretch [lo/K, hi/K]) cannot be ruled out. Starts from
        the unrestricted fit, or the last restricted one, with the stretch's mass moved next to it."""
        if hi - lo >= self.k:
            return False
        if hi <= lo or self.axis(self.w0)[lo:hi].sum() == 0:
            return True
        free = np.ones(self.k, bool)
        free[lo:hi] = False
        free = self.tile(free)
        starts = self._moved(self.w0, lo, hi) + (self._moved(self.last, lo, hi) if self.last is not None else [])
        values = [mixture_loglik(self.like, self.counts, v) for v in starts]
        start = starts[int(np.argmax(values))]
        level = self.level(crit)
        if max(values) >= level:
            return True
        self.fits += 1
        fit = solve_mixing(self.like, self.counts, start=start, above=level, below=level, free=free)
        self.last = fit.w
        return fit.loglik >= level

    def thin_ok(self, lo: int, hi: int, crit: float = CRIT_THIN) -> bool:
        """Whether 'the stretch [lo/K, hi/K] holds at least THIN of the target's mass' cannot be rejected: some
        distribution within the level puts that much there."""
        need = THIN * float(target_mass(self.target, self.edges[lo], self.edges[hi]))
        if float(self.axis(self.w0)[lo:hi].sum()) >= need:
            return True
        level = self.level(crit)
        # Certificates first. A distribution an earlier search found within this level that already puts that
        # much on the stretch answers it (the probes overlap: 29 of the 64 searches of the sample's easy-heavy
        # benchmark are answered so); the answer is the one the search would give, since a distribution within
        # the level that holds the mass is what it looks for.
        if crit == CRIT_THIN and any(float(self.axis(w)[lo:hi].sum()) >= need for w in self.within):
            return True
        # Then the fit: the fit with the missing mass moved onto the stretch's steepest point (where a
        # little more mass costs the likelihood least); within the level, the stretch can hold that much.
        inside = float(self.axis(self.w0)[lo:hi].sum())
        share = (need - inside) / (1.0 - inside)
        v = self.w0 * (1.0 - share)
        steep = self.slope.reshape(self.blocks, self.k)[:, lo:hi]
        block, point = np.unravel_index(int(np.argmax(steep)), steep.shape)
        v[block * self.k + lo + point] += share
        if mixture_loglik(self.like, self.counts, v) >= level:
            return True
        h = np.zeros(self.k)
        h[lo:hi] = 1.0
        h = self.tile(h)
        self.fits += 1
        low, high, w = linear_range(self.like, self.counts, h, level, start=self.w0, stop_below=need, stop_above=need)
        if crit == CRIT_THIN and low >= need:  # w is within the level (linear_range's lower end is attained by it)
            self.within.append(w)
        return high >= need

    def linear_end(
        self, h: np.ndarray, up: bool, beat: float | None = None, crit: float = CRIT_DDM, tol: float = 5e-4
    ) -> tuple[float | None, np.ndarray]:
        """A certified bound on the largest (``up``) or smallest h . w over the distributions within the
        profile level: its upper bound for the largest, its lower bound for the smallest, so that a bound built
        on it stays on the safe side; and the most extreme distribution found. With ``beat``, None unless that
        end lies above ``beat``, where it would raise the bound that the caller keeps."""
        self.fits += 1
        level = self.level(crit)
        h = self.tile(h)
        if up:  # the largest is at most hi; it can raise the caller's bound only if it exceeds ``beat``
            _, hi, w = linear_range(self.like, self.counts, h, level, start=self.w0, stop_below=beat, tol=tol)
            return (None, w) if beat is not None and hi <= beat else (hi, w)
        # the smallest is -max(-h . w), at least -hi; it can raise the caller's bound only if -hi exceeds ``beat``
        give_up = None if beat is None else -beat
        _, hi, w = linear_range(self.like, self.counts, -h, level, start=self.w0, stop_above=give_up, tol=tol)
        return (None, w) if beat is not None and -hi <= beat else (-hi, w)


def _widest_empty(search: _Search, crit: float) -> tuple[int, tuple[int, int]]:
    """The widest window (in grid cells) not ruled out as empty: a sweep of windows one wider than the best."""
    best, where, j = 0, (0, 0), 0
    while j + best + 1 <= search.k:
        if search.empty_ok(j, j + best + 1, crit):
            best += 1
            where = (j, j + best)
        else:
            j += 1
    return best, where


def _end(search: _Search, crit: float, low: bool) -> int:
    """The widest end window not ruled out as empty (monotone in its width: bisection)."""
    ok, bad = 0, search.k
    while bad - ok > 1:
        mid = (ok + bad) // 2
        if search.empty_ok(0, mid, crit) if low else search.empty_ok(search.k - mid, search.k, crit):
            ok = mid
        else:
            bad = mid
    return ok


def _reach(search: _Search, crit: float) -> np.ndarray:
    """For each start j, the end of the longest window from j not ruled out as empty (nondecreasing in j)."""
    reach = np.zeros(search.k, int)
    end = 0
    for j in range(search.k):
        end = max(end, j)
        while end < search.k and search.empty_ok(j, end + 1, crit):
            end += 1
        reach[j] = end
    return reach


def _top_sum(reach: np.ndarray, parts: int = 5) -> int:
    """The largest total length of ``parts`` disjoint windows, each inside some [j, reach[j]) (dynamic programme)."""
    k = reach.size
    # longest admissible window ending exactly at x: from the smallest j with reach[j] >= x
    start = np.full(k + 1, -1)
    j = 0
    for x in range(1, k + 1):
        while j < x and reach[j] < x:
            j += 1
        start[x] = j if j < x else -1
    best = np.zeros((parts + 1, k + 1), int)
    for p in range(1, parts + 1):
        for x in range(1, k + 1):
            value = best[p][x - 1]
            j = start[x]
            if j >= 0:  # any window [i, x) with i >= j is admissible; the best i maximises best[p-1][i] + x - i
                window = best[p - 1][j:x] + (x - np.arange(j, x))
                value = max(value, int(window.max()))
            best[p][x] = value
    return int(best[parts][k])


def _thin_stretches(search: _Search) -> list[tuple[int, int]]:
    """Windows shown thin, found at the probe widths and grown step by step while still shown thin."""
    k, found = search.k, []
    for width in sorted({max(2, round(w * k)) for w in PROBE_WIDTHS}):
        if width > k:
            continue
        starts = sorted(set(range(0, k - width + 1, 2)) | {k - width})
        for lo in starts:
            hi = lo + width
            if any(a <= lo and hi <= b for a, b in found) or search.thin_ok(lo, hi):
                continue
            while hi + 2 <= k and not search.thin_ok(lo, hi + 2):
                hi += 2
            while lo - 2 >= 0 and not search.thin_ok(lo - 2, hi):
                lo -= 2
            found.append((lo, hi))
    found.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    disjoint: list[tuple[int, int]] = []
    for lo, hi in found:
        if all(hi <= a or lo >= b for a, b in disjoint):
            disjoint.append((lo, hi))
    return disjoint


def _signs(crossing: float, sign: float, t: np.ndarray) -> np.ndarray:
    return np.where(t < crossing, sign, -sign)


def _functional(s: np.ndarray, t: np.ndarray, z: np.ndarray, cdf: np.ndarray) -> tuple[np.ndarray, float]:
    """For a sign function s on the fine grid t (cell midpoints): h with h . w = integral of s G, and the
    integral of s F_mu."""
    dt = 1.0 / t.size
    tail = np.concatenate([np.cumsum((s * dt)[::-1])[::-1], [0.0]])  # integral of s over [t_i - dt/2, 1]
    index = np.clip(np.round(z * t.size).astype(int), 0, t.size)
    return tail[index], float(np.sum(s * cdf) * dt)


def _ddm_bounds(search: _Search, z: np.ndarray) -> tuple[float, float]:
    t = (np.arange(FINE) + 0.5) / FINE
    cdf = _target_cdf(search.target, t)
    patterns = [_signs(x, sg, t) for x in CROSSINGS for sg in (1.0, -1.0) if not (x == 0.0 and sg == 1.0)]
    g0 = np.searchsorted(z, t, side="right")  # the NPMLE's own sign pattern
    w0 = search.axis(search.w0)
    patterns.append(np.where(np.cumsum(w0)[np.clip(g0 - 1, 0, z.size - 1)] * (g0 > 0) >= cdf, 1.0, -1.0))
    lower, upper, extreme = 0.0, 0.0, None
    funcs = [_functional(s, t, z, cdf) for s in patterns]
    estimates = [float(h @ w0) - const for h, const in funcs]
    for e in np.argsort(estimates)[::-1]:  # the most promising first: later ones need one fit to be ruled out
        h, const = funcs[e]
        if estimates[e] > lower:  # its lower end can only raise the lower bound if the estimate itself does
            lo, _ = search.linear_end(h, up=False, beat=lower + const, crit=CRIT_DDM_LOW)
            lower = lower if lo is None else max(lower, lo - const)
        hi, w = search.linear_end(h, up=True, beat=upper + const)
        if hi is not None and hi - const > upper:
            upper, extreme = hi - const, w
    if extreme is not None:  # refine once: the sign pattern of the most extreme distribution found
        g = np.cumsum(search.axis(extreme))[np.clip(g0 - 1, 0, z.size - 1)] * (g0 > 0)
        h, const = _functional(np.where(g >= cdf, 1.0, -1.0), t, z, cdf)
        hi, _ = search.linear_end(h, up=True, beat=upper + const)
        upper = upper if hi is None else max(upper, hi - const)
    # The distributions live on the grid; the items do not: moving each item to its nearest grid point moves W1 by
    # at most half a cell, so the bounds widen by that much to hold for the items themselves.
    half = 0.5 / search.k
    return max(lower - half, 0.0), min(max(upper, lower) + half, 1.0)


PARTS = ("empty", "top5", "thin", "ddm")


THREADS = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))
PARALLEL_CELLS = 4_000  # patterns x grid points from which the parts run on threads of their own
_pool: ThreadPoolExecutor | None = None


def _forget_pool() -> None:  # a forked child has none of its parent's threads: it starts its own pool
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_pool)


def axis_bounds(lik: AxisLikelihood, target: Target = UNIFORM, parts: tuple[str, ...] = PARTS) -> Bounds:
    """Every bound of one benchmark's items from their axis likelihood (see the module's docstring); ``parts``
    limits the work to some of them (the others are NaN): ``empty`` (detection limit and ends), ``top5``,
    ``thin``, ``ddm``. The parts are independent searches from one unrestricted fit: on a large likelihood they
    run on the cores at once (the compiled solver releases the GIL), with the same results."""
    global _pool
    like = lik.expanded()  # one copy of the grid per design group
    top = solve_mixing(like, lik.counts)
    cell = 1.0 / lik.like.shape[1]
    nan = float("nan")

    def empty() -> tuple:
        search = _Search(lik, target, top, like)
        best, (lo, hi) = _widest_empty(search, CRIT_EMPTY)
        # A distribution with no mass on grid points lo..hi-1 leaves the open stretch between its neighbours
        # empty: (best + 1) cells wide (and a true gap of width g removes at least g K - 1 grid points).
        limit = min(1.0, (best + 1) * cell) if best else 0.0
        stretch = (max(0.0, lo * cell - cell / 2), min(1.0, hi * cell + cell / 2))
        low, high = _end(search, CRIT_EMPTY, low=True), _end(search, CRIT_EMPTY, low=False)
        low_end = min(1.0, (low + 0.5) * cell) if low else 0.0
        high_end = min(1.0, (high + 0.5) * cell) if high else 0.0
        return (limit, stretch, low_end, high_end), search.fits

    def top5() -> tuple:
        search = _Search(lik, target, top, like)
        total = _top_sum(_reach(search, CRIT_TOP5))
        return (min(1.0, (total + 5) * cell) if total else 0.0), search.fits

    def thin() -> tuple:
        search = _Search(lik, target, top, like)
        return _thin_stretches(search), search.fits

    def ddm() -> tuple:
        search = _Search(lik, target, top, like)
        return _ddm_bounds(search, lik.z), search.fits

    jobs = {"empty": empty, "top5": top5, "thin": thin, "ddm": ddm}
    wanted = [p for p in PARTS if p in parts]
    if THREADS > 1 and len(wanted) > 1 and like.size >= PARALLEL_CELLS:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="benchwatch-bounds")
        futures = {p: _pool.submit(jobs[p]) for p in wanted}
        done = {p: f.result() for p, f in futures.items()}
    else:
        done = {p: jobs[p]() for p in wanted}
    limit, stretch, low_end, high_end = done["empty"][0] if "empty" in done else (nan, (nan, nan), nan, nan)
    top5_upper = done["top5"][0] if "top5" in done else nan
    stretches: list[tuple[int, int]] = done["thin"][0] if "thin" in done else []
    ddm_lo, ddm_hi = done["ddm"][0] if "ddm" in done else (nan, nan)
    widths = [(b - a) * cell for a, b in stretches]
    return Bounds(
        detection_limit=limit,
        detection_stretch=stretch,
        low_end=low_end,
        high_end=high_end,
        top5_upper=top5_upper,
        thin=tuple((a * cell, b * cell) for a, b in stretches),
        thin_width=max(widths, default=0.0) if "thin" in done else nan,
        thin_top5=float(sum(sorted(widths, reverse=True)[:5])) if "thin" in done else nan,
        ddm_lo=ddm_lo,
        ddm_hi=ddm_hi,
        patterns=lik.n_patterns,
        fits=sum(f for _, f in done.values()),
    )


def union_bounds(runs: list[Bounds]) -> Bounds:
    """The bounds that hold whichever of several item models is right (the chance floor at each end of its
    interval): every upper bound the largest, every lower bound the smallest; the stretches shown thin are those
    of the run that shows the least (its thin width and top-5 width the smallest of all runs)."""
    if len(runs) == 1:
        return runs[0]
    widest = max(runs, key=lambda r: r.detection_limit)
    least_thin = min(runs, key=lambda r: (r.thin_top5, r.thin_width))
    return Bounds(
        detection_limit=widest.detection_limit,
        detection_stretch=widest.detection_stretch,
        low_end=max(r.low_end for r in runs),
        high_end=max(r.high_end for r in runs),
        top5_upper=max(r.top5_upper for r in runs),
        thin=least_thin.thin,
        thin_width=min(r.thin_width for r in runs),
        thin_top5=min(r.thin_top5 for r in runs),
        ddm_lo=min(r.ddm_lo for r in runs),
        ddm_hi=max(r.ddm_hi for r in runs),
        patterns=max(r.patterns for r in runs),
        fits=sum(r.fits for r in runs),
    )


def thin_truth(z: np.ndarray, target: Target = UNIFORM, k: int = GRID) -> tuple[float, float]:
    """On known difficulties: the widest stretch [j/k, l/k] holding less than THIN of the target's mass, and the
    total width of up to five disjoint ones, taken widest first among the widest from each start j."""
    widest, top5 = thin_truth_rows(np.atleast_2d(np.asarray(z, float)), target, k)[0]
    return float(widest), float(top5)


def thin_truth_rows(z_rows: np.ndarray, target: Target = UNIFORM, k: int = GRID) -> np.ndarray:
    """``thin_truth`` of every row of a (replicates x items) array: (replicates x 2), one compiled pass each."""
    from benchwatch.metrics.kernels import thin_rows

    edges = np.arange(k + 1) / k
    return thin_rows(np.ascontiguousarray(z_rows, dtype=float), _target_cdf(target, edges), THIN)
