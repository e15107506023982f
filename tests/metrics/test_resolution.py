"""Model-based figures, the target reference, the sampling levels, what pool would decide, the index's interval,
and a reduced calibration of the bounds and verdicts on shapes that are not the target."""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np
import pytest

from benchwatch.metrics import (
    UNIFORM,
    Target,
    binomial_gap_interval,
    coverage,
    figures_from_draws,
    index_interval,
    pool_needed,
    sampling_levels,
    saturation_index,
    target_reference,
)
from benchwatch.metrics.coverage import coverage_draws, ddm, ddm_rows
from tests.conftest import ROOT


def test_figures_on_draws_equal_the_figures_of_each_draw():
    rng = np.random.default_rng(0)
    draws = rng.beta(2, 3, (30, 50))
    per_draw = coverage_draws(draws, Target.beta(2, 2))
    for row, z in enumerate(draws):
        cov = coverage(z, Target.beta(2, 2))
        assert per_draw["ddm"][row] == pytest.approx(cov.ddm, abs=1e-12)
        assert per_draw["max_gap"][row] == pytest.approx(cov.max_gap, abs=1e-12)
        assert per_draw["top5_gap_sum"][row] == pytest.approx(cov.top5_gap_sum, abs=1e-12)
    sorted_draws = np.sort(draws, axis=1)
    assert ddm_rows(sorted_draws) == pytest.approx([ddm(z) for z in draws], abs=1e-12)


def test_published_figure_lies_inside_its_interval_and_ddm_reaches_the_matched_range():
    rng = np.random.default_rng(1)
    reference = target_reference(200, UNIFORM)
    near_target = figures_from_draws(rng.random((200, 200)), UNIFORM, reference=reference)
    far = figures_from_draws(rng.beta(1, 6, (200, 200)), UNIFORM, reference=reference)
    for figs in (near_target, far):
        for key, (lo, hi) in figs.interval.items():
            assert lo <= figs.median[key] <= hi
    # Near the target DDM's lower end extends to a matched benchmark's 5th percentile; far from it, not.
    assert near_target.interval["ddm"][0] <= reference["ddm"][0]
    assert far.interval["ddm"][0] > reference["ddm"][1]


def test_target_reference_brackets_the_expected_largest_spacing():
    n = 40
    reference = target_reference(n, UNIFORM)
    harmonic = sum(1 / k for k in range(1, n + 2)) / (n + 1)  # E[largest of n + 1 uniform spacings]
    lo, hi = reference["max_gap"]
    assert lo < harmonic < hi and hi < 0.25
    beta = target_reference(n, Target.beta(2, 5))
    assert beta["ddm"][1] == pytest.approx(target_reference(n, Target.beta(2, 5), seed=9)["ddm"][1], rel=0.1)


def test_sampling_levels_are_what_target_items_show_by_chance():
    """The 95th percentile of n uniform items' Max Gap: the largest of n + 1 spacings, P(max > x) from the
    inclusion-exclusion formula for uniform spacings; and the widest thin stretch shrinks with n."""
    n = 40
    levels = sampling_levels(n, UNIFORM, replicates=2000)

    def tail(x: float) -> float:  # P(largest of the n + 1 spacings > x)
        return sum((-1) ** (k + 1) * math.comb(n + 1, k) * max(0.0, 1 - k * x) ** n for k in range(1, n + 2))

    assert tail(levels["max_gap_sampling_p95"]) == pytest.approx(0.05, abs=0.015)
    big = sampling_levels(4000, UNIFORM)
    assert big["thin_width_sampling_p95"] < levels["thin_width_sampling_p95"]
    assert big["max_gap_sampling_p95"] < levels["max_gap_sampling_p95"] < levels["top5_gap_sum_sampling_p95"]


def test_more_models_decide_what_this_pool_cannot():
    """A pool of 12 binary models cannot rule out a 0.15 gap among 300 items; the smallest larger pool that
    would is named, and the same computation on that pool resolves (its detection limit below the level, and
    below that of a pool half its size)."""
    from benchwatch.metrics import axis_bounds, matched_likelihood

    theta = np.random.default_rng(4).normal(0, 1, 12)
    need = pool_needed(theta, 1.0, 300, UNIFORM, "ability-quantile", {"max_gap": 0.15})["max_gap"]
    assert need["models"] in [12 * f for f in (2, 4, 8, 16, 32, 64, 128)]

    def limit(models: int, seed: int) -> float:
        rng = np.random.default_rng(seed)
        pool = np.concatenate([theta, rng.normal(theta.mean(), theta.std(), models - 12)])
        runs = [matched_likelihood(pool, 1.0, 300, UNIFORM, "ability-quantile", rng) for _ in range(3)]
        return float(np.median([axis_bounds(lik, UNIFORM, ("empty",)).detection_limit for lik in runs]))

    assert limit(need["models"], 0) < 0.17  # within one replicate's noise of the level
    assert limit(max(12, need["models"] // 4), 1) > limit(need["models"], 0)


def test_each_figure_is_answered_by_its_own_search_of_the_whole_ladder():
    """Asked for two figures at once, each pool's benchmark searched only for the figures whose bisection reached
    it: each figure's answer is the smallest pool of the whole ladder whose bound lies below its level (every
    pool searched for every figure, the same simulated benchmarks: brute force), and the same as asked alone."""
    from benchwatch.metrics import axis_bounds, matched_likelihood
    from benchwatch.metrics.resolution import POOL_FACTORS, RESOLVE_GRID

    theta = np.sort(np.random.default_rng(5).normal(0, 1, 12))
    levels = {"max_gap": 0.15, "top5_gap_sum": 0.45}
    both = pool_needed(theta, 1.0, 300, UNIFORM, "ability-quantile", levels)
    ladder = {}
    for f in POOL_FACTORS:
        rng = np.random.default_rng([1, f])
        pool = np.concatenate([theta, rng.normal(theta.mean(), theta.std(), 12 * f - 12)])
        lik = matched_likelihood(pool, 1.0, 300, UNIFORM, "ability-quantile", rng, RESOLVE_GRID)
        bounds = axis_bounds(lik, UNIFORM, ("empty", "top5"))
        ladder[12 * f] = {"max_gap": bounds.detection_limit, "top5_gap_sum": bounds.top5_upper}
    for fig, level in levels.items():
        values = [ladder[m][fig] for m in sorted(ladder)]
        assert values == sorted(values, reverse=True)  # the bounds fall as the pool grows: bisection is exact
        smallest = min((m for m in sorted(ladder) if ladder[m][fig] < level), default=None)
        assert smallest is not None and both[fig]["models"] == smallest
        alone = pool_needed(theta, 1.0, 300, UNIFORM, "ability-quantile", {fig: level})[fig]
        assert alone["models"] == smallest


def test_index_interval_in_closed_form():
    s1, s5, n = 0.92, 0.88, 400
    lo, hi = binomial_gap_interval(s1, s5, n)
    se = 1.959963984540054 * math.sqrt(s1 * (1 - s1) / n + s5 * (1 - s5) / n)
    assert (lo, hi) == pytest.approx((0.04 - se, 0.04 + se))
    low, high = index_interval(lo, hi, s1, s5, n)
    se_pub = math.hypot(math.sqrt(s1 * (1 - s1) / math.sqrt(n)), math.sqrt(s5 * (1 - s5) / math.sqrt(n)))
    assert low == pytest.approx(math.exp(-((max(abs(lo), abs(hi)) / se_pub) ** 2)))
    assert high == (1.0 if lo <= 0 <= hi else pytest.approx(math.exp(-((min(abs(lo), abs(hi)) / se_pub) ** 2))))
    assert low <= saturation_index(s1, s5, n) <= high


def _calibration():
    spec = importlib.util.spec_from_file_location("calibration", ROOT / "benchmarks" / "calibration.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass needs its module registered
    spec.loader.exec_module(module)
    return module


CELLS = [  # (pool, items, shape, benchmarks): a reduced calibration; the full tables come from the script
    ("24 binary", 400, "uniform", 16),
    ("24 binary", 400, "empty [0.40, 0.65]", 16),
    ("60 binary", 400, "Beta(2, 2)", 16),
    ("60 binary", 400, "left-skewed, empty [0.8, 1]", 16),
    ("12 x 10 samples", 40, "right-skewed, empty [0, 0.2]", 16),
    ("24 binary, 30% missing", 40, "two empty stretches", 16),
    # 40 answers place each of 1,000 models to about 0.38 logits: held fixed, those abilities made the item
    # likelihoods too sharp and the scale too wide, and the limit missed the true gap (in 1 of these 16, 6 of 40)
    ("1,000 binary", 40, "empty [0.40, 0.65]", 16),
]


@pytest.mark.slow
@pytest.mark.parametrize(("pool", "n_items", "shape", "reps"), CELLS)
def test_bounds_hold_and_found_is_not_a_false_alarm(pool, n_items, shape, reps):
    """Benchmarks simulated with known truth through benchwatch's own measure and rules: the detection limit
    above the true Max Gap, the top-5 bound above the true top-5 gap sum, the DDM bounds around the true DDM;
    ``fill`` never on a gap-free shape; every stretch shown thin truly thin; no "clear" where the truth
    reaches the level."""
    cal = _calibration()
    cell = cal.run_cell((pool, n_items, shape, reps, 7))
    s = cal.summary(cell)
    assert s["placed"] == reps
    assert s["max_gap_covered"] == 1.0 and s["top5_covered"] == 1.0, s
    assert s["ddm_covered"] >= 0.85, s
    assert s["clear_wrong"] == 0.0, s
    if shape in cal.GAP_FREE:
        assert s["fill"] <= 1 / reps, s
    if shape == "left-skewed, empty [0.8, 1]" and pool == "60 binary":
        assert s["fill"] >= 0.7, s  # the empty top is found (the full run: at least 80%)
    if s["thin_reported"]:
        assert s["thin_truly_thin"] >= 0.8, s


def test_a_simulated_pool_answers_as_each_of_its_models_would():
    """Models of one ability are drawn as one binomial of all their answers: with every draw at its expected
    value, the likelihood is the brute-force one summed model by model (in closed form, from the 1PL)."""
    from scipy.special import expit

    from benchwatch.irt import difficulty_b
    from benchwatch.metrics import axis_grid, matched_likelihood
    from benchwatch.metrics.axis import axis_likelihood

    class Expected:  # an rng whose binomial draws are their means; the items' positions as a real rng draws them
        def __init__(self, seed):
            self.real = np.random.default_rng(seed)

        def random(self, n):
            return self.real.random(n)

        def binomial(self, n, p):
            return n * p

    theta = np.repeat([-1.2, -0.3, 0.0, 0.45, 1.7], [7, 3, 20, 1, 9]) + 0.0
    got = matched_likelihood(theta, 3.0, 40, UNIFORM, "ability-quantile", Expected(5), grid=60)
    z_grid = axis_grid(60)
    b_grid = difficulty_b(z_grid, theta, "ability-quantile")
    b = difficulty_b(np.random.default_rng(5).random(40), theta, "ability-quantile")
    totals = sum(3.0 * expit(t - b) for t in theta)  # model by model
    softplus = sum(np.logaddexp(0.0, t - b_grid) for t in theta)
    want = axis_likelihood(-totals[:, None] * b_grid[None, :] - 3.0 * softplus[None, :], z_grid)
    assert got.counts.tolist() == want.counts.tolist()
    np.testing.assert_allclose(got.like, want.like, rtol=1e-9, atol=1e-12)


def test_a_simulated_floored_pool_reads_its_counts_as_the_audit_does():
    """With a floor, one answer each and more items than counts, a simulated item's likelihood is its count's
    (the Poisson-binomial over the pool's models, brute force by convolution here); with several answers each,
    its full likelihood from its successes at each ability."""
    from scipy.special import expit

    from benchwatch.irt import difficulty_b
    from benchwatch.metrics import axis_grid, matched_likelihood

    theta = np.repeat([-1.0, 0.0, 1.5], [3, 4, 2]) + 0.0
    z_grid = axis_grid(30)
    b_grid = difficulty_b(z_grid, theta, "ability-quantile")
    p = 0.2 + 0.8 * expit(theta[:, None] - b_grid[None, :])  # models x grid
    dist = np.zeros((theta.size + 1, z_grid.size))
    dist[0] = 1.0
    for row in p:  # the count's distribution, one model at a time
        dist = dist * (1 - row) + np.vstack([np.zeros(z_grid.size), dist[:-1] * row])
    got = matched_likelihood(theta, 1.0, 200, UNIFORM, "ability-quantile", np.random.default_rng(7), 30, 0.2)
    assert got.n_patterns <= theta.size + 1 and got.n_items == 200
    for row in got.like:  # every pattern is one count's likelihood
        assert any(np.allclose(row, d / d.max(), rtol=1e-9, atol=1e-300) for d in dist if d.max() > 0)
    several = matched_likelihood(theta, 3.0, 200, UNIFORM, "ability-quantile", np.random.default_rng(7), 30, 0.2)
    assert several.n_patterns > theta.size * 3 + 1  # no counts: each item its own likelihood (few collide)
