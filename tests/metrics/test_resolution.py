"""Posterior figures, the target reference, the resolution floor and the index's interval."""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np
import pytest

from bot.metrics import (
    UNIFORM,
    Target,
    binomial_gap_interval,
    coverage,
    figures_from_draws,
    index_interval,
    null_distribution,
    saturation_index,
    target_reference,
)
from bot.metrics.coverage import coverage_draws, ddm, ddm_rows
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


def test_the_floor_falls_with_more_models_and_more_items():
    rng = np.random.default_rng(3)
    small = rng.normal(0, 1, 6)
    large = rng.normal(0, 1, 48)
    few = null_distribution(small, np.ones((6, 100)), UNIFORM, "ability-quantile", replicates=40)
    many = null_distribution(large, np.ones((48, 100)), UNIFORM, "ability-quantile", replicates=40)
    more_items = null_distribution(small, np.ones((6, 1000)), UNIFORM, "ability-quantile", replicates=40)
    for key in ("ddm", "max_gap", "top5_gap_sum"):
        assert np.quantile(many[key], 0.95) < np.quantile(few[key], 0.95)
        assert np.quantile(more_items[key], 0.95) < np.quantile(few[key], 0.95)


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


CONFIGS = [  # (pool, items, benchmarks): every pool and size of the issue, as many as the suite's time allows
    ("12 binary", 40, 60),
    ("12 binary", 400, 40),
    ("12 binary", 4000, 12),
    ("24 binary", 40, 60),
    ("24 binary", 400, 30),
    ("60 binary", 40, 60),
    ("60 binary", 400, 24),
    ("12 x 10 trials", 40, 60),
    ("12 x 10 trials", 400, 30),
    ("24 binary, 30% missing", 400, 30),
]


@pytest.mark.slow
@pytest.mark.parametrize(("pool", "n_items", "reps"), CONFIGS)
def test_intervals_cover_and_flags_control_false_alarms(pool, n_items, reps):
    """Target-matched benchmarks through benchwatch's own measure and evaluate_flags.

    With this many benchmarks a 95% coverage shows between about 85% and 100%; the full tables with 200
    benchmarks per cell (and 4,000 items for every pool) come from ``benchmarks/calibration.py``.
    """
    cal = _calibration()
    m, trials, missing = cal.POOLS[pool]
    result = cal.study(cal.make_pool(m, trials, seed=7, missing=missing), n_items, reps, seed=11)
    assert result["inside"] == 1.0  # no published figure outside its own interval
    tolerance = 2.5 * math.sqrt(0.95 * 0.05 / reps)
    for key, rate in result["coverage"].items():
        assert 0.90 - tolerance <= rate <= 1.0, (key, rate)
    false_alarms = result["flag_rate"]["any"] * reps
    assert false_alarms <= max(1, 0.05 * reps + 2.5 * math.sqrt(0.05 * 0.95 * reps)), result["flag_rate"]
