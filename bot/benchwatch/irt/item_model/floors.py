"""The effective chance floor of a benchmark: one share f of each item's nominal floor, as the data show it.

A multiple-choice item's nominal floor is one over its number of options: what a model that guesses uniformly
gets right. Real evaluations guess less: chain of thought, answer extraction and refusals leave a weak model
anywhere between no floor and the nominal one (GPQA Diamond about half of it, MMLU-Pro's chain of thought well
under it). So the item model is P = c_i + (1 - c_i) sigmoid(theta - b_i) with c_i = f x nominal_i and one f in
[0, 1] per benchmark, estimated from the data where the pool can place it:

    l(f) = max over the items' distribution G of sum_i log integral P(answers of item i | b, theta(f), f) dG(b)

the marginal likelihood of f with the items integrated out over every distribution of difficulty (the
nonparametric maximum likelihood, one distribution per design group), the abilities
theta(f) those of the MAP fit at f. Its 95% interval is the profile likelihood interval at the level of chi2_2
(l(f) >= max l - 3.0), not chi2_1's 1.92: the abilities enter at their fitted values, not integrated out, and
at 1,000 models the estimates of f varied 1.2 times as much as the chi2_1 interval implied (it covered the
true f in 61 of 75 simulated benchmarks). Where the pool cannot place f (few weak models on hard items), the
interval is wide, up to [0, 1], and the bounds are computed over it (they hold whichever f it is). The same
estimate with a nominal floor of 1 on every item is the common floor c of an open-ended benchmark whose weak
models answer hard items right more often than the 1PL allows (``benchwatch.irt.item_model.fit_check``).

The profile is evaluated on at most ``MAX_ITEMS`` items (a fixed random subset of a larger benchmark: f is one
number, and a thousand items place it), with the abilities refitted on a coarse grid of f and interpolated
between its points.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchwatch.irt.item_model.profile import MAX_ITEMS, crossing, kept_items, maximise, npmle_loglik, restrict
from benchwatch.irt.responses import ResponseArrays

__all__ = ["MAX_ITEMS", "FloorEstimate", "b_grid", "estimate_floor", "kept_items", "marginal_loglik", "restrict"]

COARSE = (0.0, 0.25, 0.5, 0.75, 1.0)  # shares of the nominal floor at which the abilities are refitted
CRIT = 5.991  # the profile likelihood interval's level (chi2_2's 5%: see the module's docstring)
B_POINTS = 100  # points of b on which the items are integrated out
TOL_SHARE = 0.01  # the interval's ends to this share of the nominal floor (the maximum to twice that)
FLOOR_STEP = 0.5  # the bounds' floors at most this share of the nominal floor apart across its interval
NARROW = 0.03  # a floor placed to within this (its interval's width, in probability): the bounds at its ends alone
SPREAD_POINTS, SPREAD_TOL = 50, 0.03  # with the discriminations integrated out (each point costs ~8 passes): coarser


@dataclass(frozen=True)
class FloorEstimate:
    """The share f of each item's nominal floor that the data favour, with its 95% profile interval."""

    share: float
    lo: float
    hi: float
    nominal: float  # the mean nominal floor of the items that have one (what f multiplies)
    items: int  # items the profile was computed on
    profile: list[tuple[float, float]] = field(default_factory=list)  # (f, l(f) - max l), for the record

    @property
    def floor(self) -> float:
        """The effective floor the data favour (mean over the items with a nominal one)."""
        return self.share * self.nominal

    def floors(self, nominal: np.ndarray, share: float | None = None) -> np.ndarray:
        """Each item's floor at the estimate (or at ``share``)."""
        return (self.share if share is None else share) * np.asarray(nominal, float)

    def ends(self) -> tuple[float, ...]:
        """The shares the bounds are computed at: the interval's ends, its estimate, and points between them no
        more than ``FLOOR_STEP`` apart (one value when the ends meet). The bounds are not monotone in the floor:
        with a dozen models under a spread of discriminations the union over the two ends alone missed the true DDM
        in 5 of 10 benchmarks whose floor lay inside (issue 64's grid); over these points, in none. A floor placed
        to within ``NARROW`` has its ends alone: in 44 benchmarks (36 simulated with 60 and 200 models, 8 real:
        GPQA, AP, LSAT, GSM8K, MATH-500, CRUXEval and the 300 x 5,000 scale test) the estimate widened the union of
        the ends' bounds in one, a pool of 60 whose floor's interval spanned 0.09, and in none of the 25 placed
        to within 0.05."""
        if self.hi - self.lo < TOL_SHARE:
            return (self.lo,)
        if (self.hi - self.lo) * max(self.nominal, 0.0) < NARROW:
            return (self.lo, self.hi)
        steps = int(np.ceil((self.hi - self.lo) / FLOOR_STEP - 1e-9))
        points = {float(x) for x in np.linspace(self.lo, self.hi, steps + 1)} | {float(self.share)}
        return tuple(sorted(points))

    def record(self) -> dict:
        return {
            "share": self.share,
            "share_lo": self.lo,
            "share_hi": self.hi,
            "nominal": self.nominal,
            "items": self.items,
        }


def b_grid(theta: np.ndarray, points: int = B_POINTS) -> np.ndarray:
    """The points of b the items are integrated over: ``B_POINTS`` evenly spaced from 4 logits below the weakest
    model to 4 above the strongest (an item beyond them is answered as one at the end: all right, or all wrong
    but for the floor)."""
    return np.linspace(theta.min() - 4.0, theta.max() + 4.0, points)


def marginal_loglik(
    data: ResponseArrays,
    theta: np.ndarray,
    floor: np.ndarray,
    groups: np.ndarray | None = None,
    warm: dict | None = None,
    spread: float = 0.0,
) -> float:
    """log prod_i integral P(item i's answers | b) dG(b), maximised over G (per design group): the items'
    likelihood at the points of ``b_grid``, integrated out by their nonparametric maximum likelihood
    (``benchwatch.irt.difficulty.npmle``: certified to within 1e-7 of the maximum, wherever it starts). ``warm``: each
    group's distribution to start from (a neighbouring f's), replaced by this one's. ``spread``: each item's
    discrimination integrated out over a spread of that sd (``benchwatch.irt.item_model.spread``; 0: the 1PL)."""
    from benchwatch.irt.item_model.spread import spread_rows

    grid = b_grid(theta, SPREAD_POINTS if spread > 0 else B_POINTS)
    return npmle_loglik(spread_rows(data, theta, grid, spread, floor=floor), groups, warm)


def estimate_floor(
    data: ResponseArrays,
    nominal: np.ndarray,
    *,
    groups: np.ndarray | None = None,
    max_items: int = MAX_ITEMS,
    largest: float = 1.0,
    seed: int = 0,
    spread: float = 0.0,
) -> FloorEstimate:
    """The share f in [0, ``largest``] of ``nominal`` (each item's nominal floor) that maximises the marginal
    likelihood (see the module), and its 95% profile interval. ``spread``: the items' discriminations integrated
    out over a spread of that sd (``benchwatch.irt.item_model.spread``): hard items of low discrimination otherwise pass
    for a floor (a true share of 0.6 under a spread of 0.6 read as 0.75-1.0 by the 1PL's profile)."""
    from benchwatch.irt.fits.rasch_map import fit_map

    nominal = np.asarray(nominal, float)
    keep = kept_items(data.n_items, max_items, seed)
    sub = restrict(data, keep)
    nom = nominal if keep is None else nominal[keep]
    sub_groups = None if groups is None else (groups if keep is None else np.asarray(groups)[keep])
    coarse = np.array([x * largest for x in COARSE])
    thetas, values = [], []
    init = None
    mixes: dict[float, dict] = {}  # each f's distributions of b (per group): the next f's solver starts there

    def marginal(f: float, theta: np.ndarray) -> float:
        warm = dict(mixes[min(mixes, key=lambda x: abs(x - f))]) if mixes else {}
        value = marginal_loglik(sub, theta, f * nom, sub_groups, warm=warm, spread=spread)
        mixes[f] = warm
        return value

    for f in coarse:
        # the dense Schur complement even below its usual size (300 x 1,000 cells: a third of the refits' time)
        fit = fit_map(sub, floor=f * nom, init=init, exact_sd=False, tol=1e-5, dense_from=0)
        init = (fit.theta, fit.b)
        thetas.append(fit.theta)
        values.append(marginal(float(f), fit.theta))
    known = dict(zip(coarse.tolist(), values, strict=True))

    def ell(f: float) -> float:
        f = float(min(max(f, 0.0), largest))
        if f not in known:  # the abilities interpolated between the two refits around f
            k = int(np.clip(np.searchsorted(coarse, f) - 1, 0, coarse.size - 2))
            t = (f - coarse[k]) / (coarse[k + 1] - coarse[k])
            theta = (1 - t) * thetas[k] + t * thetas[k + 1]
            known[f] = marginal(f, theta)
        return known[f]

    best = maximise(ell, coarse, np.array(values), SPREAD_TOL if spread > 0 else TOL_SHARE)
    top = ell(best)
    level = top - CRIT / 2
    tol = (SPREAD_TOL if spread > 0 else TOL_SHARE) * largest
    lo = 0.0 if ell(0.0) >= level else crossing(ell, level, 0.0, best, coarse, tol)
    hi = largest if ell(largest) >= level else crossing(ell, level, best, largest, coarse, tol)
    profile = sorted((float(f), float(v - top)) for f, v in known.items())
    nominal_mean = float(nominal[nominal > 0].mean()) if np.any(nominal > 0) else 0.0
    return FloorEstimate(float(best), float(lo), float(hi), nominal_mean, sub.n_items, profile)
