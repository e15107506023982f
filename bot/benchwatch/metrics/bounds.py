"""What a model pool can and cannot see on the difficulty axis: bounds that hold for any difficulty distribution.

An item's likelihood of its responses, at every point of a fine grid of the axis z (on the pool's scale,
its abilities held fixed), is all the data say about where the item lies. With few models that likelihood
is broad (about 0.45 logits at z = 0.5 with 24 binary models), so some stretches of the axis cannot be
resolved at all; an estimate under a smooth prior fills them in and looks precise. The bounds here assume
nothing about the shape of the items' distribution G: each is the inversion of a likelihood-ratio test of
one restriction on G against the nonparametric maximum likelihood over every distribution on the grid
(``benchwatch.irt.difficulty.npmle``):

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
has at most m + 1 patterns, whatever the number of items. With chance floors the items answered by the same
models read the likelihood of their count of right answers where they outnumber the counts
(``benchwatch.irt.item_model.counts``), so that they collapse as well.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from benchwatch import threads
from benchwatch.irt import solve_mixing
from benchwatch.metrics.axis import GRID, AxisLikelihood
from benchwatch.metrics.bound_search import (
    CRIT_EMPTY,
    CRIT_TOP5,
    THIN,
    Search,
    empty_from_reach,
    reach,
    reaches,
    thin_stretches,
    top_sum,
    widest_empty,
    widest_end,
)
from benchwatch.metrics.coverage import UNIFORM, Target
from benchwatch.metrics.ddm_functionals import ddm_bounds

BOUNDS_VERSION = 2


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


PARTS = ("empty", "top5", "thin", "ddm")


THREADS = max(1, min(4, threads.CORES))
PARALLEL_CELLS = 4_000  # patterns x grid points from which the parts run on threads of their own


def axis_bounds(
    lik: AxisLikelihood, target: Target = UNIFORM, parts: tuple[str, ...] = PARTS, beside: Bounds | None = None
) -> Bounds:
    """Every bound of one benchmark's items from their axis likelihood (see the module's docstring); ``parts``
    limits the work to some of them (the others are NaN): ``empty`` (detection limit and ends), ``top5``,
    ``thin``, ``ddm``. The parts are independent searches from one unrestricted fit (the empty stretches' and
    the top five's one pass, ``reaches``): on a large likelihood they run on the cores at once (the compiled
    solver releases the GIL), with the same results.

    ``beside``: the bounds of the same items under another item model, when only the union of the two is wanted
    (``union_bounds``, beside first): what these data cannot take past beside's is not searched, which leaves
    the union as it would be: nothing thin where beside shows nothing thin, and the DDM lower bound
    (``ddm_bounds``)."""
    like = np.asfortranarray(lik.expanded())  # one copy of the grid per design group; the solver reads it point-major
    top = solve_mixing(like, lik.counts)
    wanted = [p for p in PARTS if p in parts]
    parallel = THREADS > 1 and len(wanted) > 1 and like.size >= PARALLEL_CELLS

    def search() -> Search:
        return Search(lik, target, top, like)

    jobs: dict[str, Callable[[], tuple]] = {}
    if "empty" in wanted and "top5" in wanted:
        jobs["edges"] = lambda: _counted(search, lambda s: reaches(s, (CRIT_TOP5, CRIT_EMPTY)))
    elif "empty" in wanted:
        jobs["empty"] = lambda: _empty(search)
    elif "top5" in wanted:
        jobs["top5"] = lambda: _counted(search, lambda s: top_sum(reach(s, CRIT_TOP5)))
    if "thin" in wanted:
        nothing = beside is not None and beside.thin_top5 == 0.0  # the union shows nothing thin, whatever these show
        jobs["thin"] = (lambda: ([], 0)) if nothing else lambda: _counted(search, thin_stretches)
    if "ddm" in wanted:
        lower = None if beside is None or not np.isfinite(beside.ddm_lo) else beside.ddm_lo
        jobs["ddm"] = lambda: _counted(search, lambda s: ddm_bounds(s, lik.z, lower))
    if parallel:
        pool = threads.thread_pool("bounds", THREADS)
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        done = {name: f.result() for name, f in futures.items()}
    else:
        done = {name: job() for name, job in jobs.items()}
    return _assemble(done, lik, wanted)


def _counted(search: Callable[[], Search], part: Callable[[Search], object]) -> tuple:
    """A part's result on a search of its own, and the fits it took."""
    s = search()
    return part(s), s.fits


def _empty(search: Callable[[], Search]) -> tuple:
    """The widest window and both ends not ruled out (the detection limit's part alone)."""
    s = search()
    best, (lo, hi) = widest_empty(s, CRIT_EMPTY)
    return (best, lo, hi, widest_end(s, CRIT_EMPTY, low=True), widest_end(s, CRIT_EMPTY, low=False)), s.fits


def _assemble(done: dict[str, tuple], lik: AxisLikelihood, wanted: list[str]) -> Bounds:
    """The bounds from the parts' results (grid cells; a part not wanted: NaN)."""
    nan = float("nan")
    cell = 1.0 / lik.like.shape[1]
    if "edges" in done:
        (strict, loose), fits = done.pop("edges")
        best, (lo, hi), low, high = empty_from_reach(loose)
        done["empty"], done["top5"] = ((best, lo, hi, low, high), fits), (top_sum(strict), 0)
    limit, stretch, low_end, high_end = nan, (nan, nan), nan, nan
    if "empty" in done:
        (best, lo, hi, low, high), _ = done["empty"]
        # A distribution with no mass on grid points lo..hi-1 leaves the open stretch between its neighbours
        # empty: (best + 1) cells wide (and a true gap of width g removes at least g K - 1 grid points).
        limit = min(1.0, (best + 1) * cell) if best else 0.0
        stretch = (max(0.0, lo * cell - cell / 2), min(1.0, hi * cell + cell / 2))
        low_end = min(1.0, (low + 0.5) * cell) if low else 0.0
        high_end = min(1.0, (high + 0.5) * cell) if high else 0.0
    total = done["top5"][0] if "top5" in done else None
    stretches: list[tuple[int, int]] = done["thin"][0] if "thin" in done else []
    ddm_lo, ddm_hi = done["ddm"][0] if "ddm" in done else (nan, nan)
    widths = [(b - a) * cell for a, b in stretches]
    return Bounds(
        detection_limit=limit,
        detection_stretch=stretch,
        low_end=low_end,
        high_end=high_end,
        top5_upper=nan if total is None else (min(1.0, (total + 5) * cell) if total else 0.0),
        thin=tuple((a * cell, b * cell) for a, b in stretches),
        thin_width=max(widths, default=0.0) if "thin" in wanted else nan,
        thin_top5=float(sum(sorted(widths, reverse=True)[:5])) if "thin" in wanted else nan,
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
    return thin_rows(np.ascontiguousarray(z_rows, dtype=float), target.cdf(edges), THIN)
