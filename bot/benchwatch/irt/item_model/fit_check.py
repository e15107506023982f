"""Does the 1PL (with the benchmark's chance floors) fit? A test calibrated by a parametric bootstrap.

The bounds of ``benchwatch.metrics.bounds`` hold for any distribution of difficulty, but only for items that answer as
the item model says. Two departures bias them and are common on real benchmarks (metabench, arXiv:2407.12844,
chose a discrimination for every benchmark and a guessing parameter for HellaSwag and MMLU):

- **Unequal discriminations** (a 2PL, P = c + (1 - c) sigmoid(a_i (theta - b_i))): an item of low discrimination
  looks like a middle item to a 1PL and fills a hole. The statistic is the sum over items of the score test of
  a_i = 1 (the efficient score of log a_i, sum_j g_ij (theta_j - b_i - k_i), squared over its information;
  about chi2_1 each under the 1PL), standardised: ``discrimination`` = (T - n) / sqrt(2 n).
- **A chance floor the data do not declare, or one declared too high**: the weakest fifth of the models on the
  hardest fifth of the items answer right more (or less) often than the model expects: ``floor`` = (observed -
  expected) / its standard error.

On an open-ended benchmark whose lower-asymptote statistic is above ``FLOOR_PRESCREEN`` the floor is also profiled
(``benchwatch.irt.item_model.floors``, the nominal floor taken as 1 on every item): a likelihood ratio of no floor
against the best beyond ``FLOOR_LR`` is a floor found, the test's most powerful reading of every answer (the statistic's
fifths miss a floor of 0.1 under an empty top in 2 of 10 benchmarks of 1,000 models; the profile in none of 5).

The test statistic is the larger of |floor| and discrimination; its null distribution is that of the same
statistic on ``REPLICATES`` benchmarks simulated from the fitted model on the same observed cells (the same
models, items, design and trials) and refitted: p = (1 + replicates at least as large) / (replicates + 1), and
the benchmark is a misfit when p <= ``LEVEL``. Each departure also gets its own p from the same replicates,
which names what does not fit; the spread of the discriminations (sd of log a) is estimated from the same
scores (E[T_i] = 1 + s^2 V_i under log a ~ N(0, s^2)).

On a benchmark of more than ``floors.MAX_ITEMS`` items the test runs on the same fixed random subset as the
floor's profile.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from benchwatch import threads
from benchwatch.irt.answers import right
from benchwatch.irt.responses import ResponseArrays

REPLICATES = 39
FLOOR_PRESCREEN = 1.0  # an open-ended benchmark's lower-asymptote statistic above this: its floor is profiled
FLOOR_LR = 5.991  # ... and the profile's likelihood ratio at no floor beyond chi2_2's 5% point is a floor found
THREADS = max(1, min(4, threads.CORES))  # the replicates refitted at once
TIE = 1e-9  # values within this (relative) of each other are ties: of abilities (``at_or_below``), of statistics
LEVEL = 0.025  # misfit when p <= this: one benchmark in forty of those the model fits
WEAK_SHARE = 0.2  # the weakest fifth of the models ...
HARD_SHARE = 0.2  # ... on the hardest fifth of the items


@dataclass(frozen=True)
class Statistics:
    discrimination: float  # the standardised sum of the items' discrimination score tests
    floor: float  # (observed - expected) / se of the weak models' right answers on the hardest items
    spread: float  # the moment estimate of sd(log a): 0 where the scores are no more spread than chance
    weak_observed: float  # the share right of the weakest fifth on the hardest fifth
    weak_expected: float  # what the fitted model expects there

    @property
    def combined(self) -> float:
        return max(self.discrimination, abs(self.floor))


@dataclass(frozen=True)
class FitCheck:
    """The verdict ("fits" or "misfit"), the statistic and its bootstrap p, and what does not fit."""

    verdict: str
    statistic: float
    p: float
    replicates: int
    observed: Statistics
    p_discrimination: float
    p_floor: float
    items: int  # items the check ran on
    floor_lr: float | None = None  # an open-ended benchmark's undeclared floor: its profile's likelihood ratio at 0
    expected_discrimination: float = 0.0  # the replicates' median discrimination statistic (the model's own)
    spread: float = 0.0  # the spread of log discrimination the replicates were drawn with
    rho: float = 0.0  # ... and their cells' intra-cell correlation

    @property
    def misfits(self) -> tuple[str, ...]:
        """What does not fit: "discrimination", "floor above" (weak models answer right more often than the model
        allows: an undeclared or too low floor), "floor below" (less often: a floor too high)."""
        if self.verdict != "misfit":
            return ()
        out = []
        if self.p_discrimination <= LEVEL:
            out.append("discrimination")
        if self.p_floor <= LEVEL or self.floor_found:
            out.append("floor above" if self.observed.floor > 0 or self.floor_found else "floor below")
        if not out:  # the combination fails where neither does alone: the larger one names it, in its direction
            if self.observed.discrimination >= abs(self.observed.floor):
                out.append("discrimination")
            else:
                out.append("floor above" if self.observed.floor > 0 else "floor below")
        return tuple(out)

    @property
    def more_spread(self) -> bool:
        """Whether the discriminations' statistic lies above what the checked model expects (its replicates'
        median): the items differ more than that model allows; below, they are more alike than it expects."""
        return self.observed.discrimination > self.expected_discrimination

    @property
    def floor_found(self) -> bool:
        """An undeclared floor whose profile rules out none (its likelihood ratio at 0 beyond ``FLOOR_LR``)."""
        return self.floor_lr is not None and self.floor_lr > FLOOR_LR

    def with_floor_profile(self, lr: float) -> FitCheck:
        """This check with the likelihood ratio of no floor against the profile's best undeclared one: beyond
        ``FLOOR_LR`` it is a misfit ("floor above"), whatever the bootstrap of the lower-asymptote statistic
        said (the profile uses every answer, where the statistic reads the weakest fifth on the hardest fifth);
        its p then the smaller of the bootstrap's and the chi2_2 tail of the ratio (conservative for a boundary
        parameter)."""
        from scipy.stats import chi2

        found = lr > FLOOR_LR
        p = min(self.p, float(chi2.sf(lr, 2))) if found else self.p
        return dataclasses.replace(self, floor_lr=float(lr), verdict="misfit" if found else self.verdict, p=p)

    def record(self) -> dict:
        o = self.observed
        return {
            "verdict": self.verdict,
            "statistic": self.statistic,
            "p": self.p,
            "replicates": self.replicates,
            "items": self.items,
            "misfits": list(self.misfits),
            "discrimination_z": o.discrimination,
            "discrimination_p": self.p_discrimination,
            "discrimination_spread": o.spread,
            "discrimination_expected": self.expected_discrimination,
            "spread_checked": self.spread,
            "rho_checked": self.rho,
            "floor_z": o.floor,
            "floor_p": self.p_floor,
            "floor_lr": self.floor_lr,
            "weak_on_hard_observed": o.weak_observed,
            "weak_on_hard_expected": o.weak_expected,
        }


def _cells(data: ResponseArrays) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The cells as the compiled passes take them: model and item index, successes w y and trials w."""
    w = np.ascontiguousarray(data.weight, dtype=float)
    return (
        np.ascontiguousarray(data.model_idx, dtype=np.int32),
        np.ascontiguousarray(data.item_idx, dtype=np.int32),
        w * data.y,
        w,
    )


def _floors(floor: np.ndarray | None, n_items: int) -> np.ndarray:
    return np.zeros(n_items) if floor is None else np.ascontiguousarray(floor, dtype=float)


def at_or_below(x: np.ndarray, share: float) -> np.ndarray:
    """The values at or below ``x``'s ``share`` quantile, ties included: models that answered alike have one
    ability, which their sums give to within rounding (a few 1e-16, in an order that any change of the code
    reorders), so a quantile that falls among them must take all of them or none (Epoch's FrontierMath, 8 models:
    three tied weakest models split 2-1 or 1-2 by rounding, and the fit check's p moved from 0.075 to 0.05)."""
    q = float(np.quantile(x, share))
    return x <= q + TIE * max(1.0, abs(q))


def statistics(data: ResponseArrays, theta: np.ndarray, b: np.ndarray, floor: np.ndarray | None) -> Statistics:
    """The fit statistics of ``data`` at the fitted abilities, difficulties and floors (see the module); the
    sums over the cells in two compiled passes (``benchwatch.irt.item_model.check_kernels.check_sums``)."""
    from benchwatch.irt.item_model.check_kernels import check_sums

    theta, b = np.ascontiguousarray(theta, dtype=float), np.ascontiguousarray(b, dtype=float)
    weak, hard = at_or_below(theta, WEAK_SHARE), at_or_below(-b, HARD_SHARE)
    u, v, trials, observed, expected, var = check_sums(
        theta, b, *_cells(data), _floors(floor, data.n_items), weak, hard
    )
    used = v > 1e-9
    per_item = u[used] ** 2 / v[used]
    k = int(used.sum())
    discrimination = float((per_item.sum() - k) / np.sqrt(2 * k)) if k else 0.0
    spread = float(np.sqrt(max(per_item.sum() - k, 0.0) / max(v[used].sum(), 1e-300))) if k else 0.0
    if trials > 0:
        z = (observed - expected) / np.sqrt(max(var, 1e-12))
        return Statistics(discrimination, float(z), spread, observed / trials, expected / trials)
    return Statistics(discrimination, 0.0, spread, float("nan"), float("nan"))


def refit(data: ResponseArrays, theta: np.ndarray, b: np.ndarray, floor: np.ndarray, sweeps: int = 3):
    """The fit of a replicate simulated from (theta, b), from there: alternating Fisher steps of every item's b
    (the abilities held) and every model's theta (the difficulties held), each a pass over the cells; the
    replicate's mode lies within its sampling error of the start, where a few such sweeps reach it to second
    order (the MAP fit's priors, sd 3, kept; ``benchwatch.irt.item_model.check_kernels.refit_sweeps``)."""
    from benchwatch.irt.fits.rasch_map import PRIOR_SD_B, PRIOR_SD_THETA
    from benchwatch.irt.item_model.check_kernels import refit_sweeps

    theta, b = np.ascontiguousarray(theta, dtype=float), np.ascontiguousarray(b, dtype=float)
    return refit_sweeps(
        theta, b, *_cells(data), _floors(floor, data.n_items), float(PRIOR_SD_B), float(PRIOR_SD_THETA), sweeps
    )


def check_fit(
    data: ResponseArrays,
    theta: np.ndarray,
    b: np.ndarray,
    floor: np.ndarray | None = None,
    *,
    spread: float = 0.0,
    rho: float = 0.0,
    replicates: int = REPLICATES,
    seed: int = 0,
) -> FitCheck:
    """The fit check of a fitted benchmark (``theta``, ``b`` and the items' ``floor`` of its fit), calibrated on the
    widened item model: its replicates are drawn with each item's log discrimination from N(0, ``spread``^2) (a new
    draw each replicate) and, where cells hold several samples, beta-binomial cells of intra-cell correlation
    ``rho`` (``benchwatch.irt.item_model.samples``: the data and the replicates read as their effective trials at rho).
    At spread 0 and rho 0 it is the 1PL's check, draw for draw."""
    from benchwatch.irt.item_model.samples import effective
    from benchwatch.irt.item_model.spread import draw_log_a

    used = effective(data, rho)
    observed = statistics(used, theta, b, floor)
    rng = np.random.default_rng([seed, 20261203])
    c = np.zeros(data.n_items) if floor is None else np.asarray(floor, float)
    eta = theta[data.model_idx] - b[data.item_idx]
    chance = right(eta, c[data.item_idx])
    trials = np.rint(data.weight).astype(np.int64)
    agreeing = (trials > 1) if rho > 0 else None
    share = (1.0 - rho) / rho if rho > 0 else 0.0

    def draw() -> np.ndarray:
        p = chance
        if spread > 0:
            a = np.exp(draw_log_a(rng, spread, data.n_items))
            p = right(a[data.item_idx] * eta, c[data.item_idx])
        if agreeing is not None:  # each cell's own probability, Beta around the item model's
            p = p.copy()
            q = np.clip(p[agreeing], 1e-9, 1 - 1e-9)
            p[agreeing] = rng.beta(q * share, (1 - q) * share)
        return rng.binomial(trials, p) / np.maximum(trials, 1)

    def replicate(y: np.ndarray) -> Statistics:
        sim = ResponseArrays(data.models, data.items, data.model_idx, data.item_idx, y, used.weight, data.chance)
        th, bb = refit(sim, theta, b, c)
        return statistics(sim, th, bb, floor)

    # The replicates are drawn here in turn (the same stream as one after the other) and refitted on the pool's
    # threads (the compiled passes release the GIL), at most two a thread waiting: their answers are all it holds.
    pool = threads.thread_pool("check", THREADS)
    pending: list = []
    null: list[Statistics] = []
    for _ in range(replicates):
        pending.append(pool.submit(replicate, draw()))
        if len(pending) > 2 * THREADS:
            null.append(pending.pop(0).result())
    null.extend(f.result() for f in pending)

    def p_of(value: float, values: list[float]) -> float:
        # A replicate as large as the data's counts, and so does one within rounding of it (a sparse benchmark's
        # replicate can repeat the data answer for answer): ties count against the fit, never for it.
        near = TIE * max(1.0, abs(value))
        return (1 + sum(v >= value - near for v in values)) / (len(values) + 1)

    p = p_of(observed.combined, [s.combined for s in null])
    return FitCheck(
        verdict="misfit" if p <= LEVEL else "fits",
        statistic=observed.combined,
        p=p,
        replicates=replicates,
        observed=observed,
        p_discrimination=p_of(observed.discrimination, [s.discrimination for s in null]),
        p_floor=p_of(abs(observed.floor), [abs(s.floor) for s in null]),
        items=data.n_items,
        expected_discrimination=float(np.median([s.discrimination for s in null])),
        spread=float(spread),
        rho=float(rho),
    )
