"""Coverage figures against independent calculations: numerical integration and hand-worked cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import integrate, stats

from benchwatch.metrics import Target, coverage, ddm, largest_gaps, max_gap, spacings, top_k_gap_sum


def brute_w1(z: np.ndarray, cdf) -> float:
    """Integral of |F_n - G| with quad, split at every item so each piece is smooth."""
    z = np.sort(z)
    edges = np.concatenate([[0.0], z, [1.0]])
    total = 0.0
    for k, (lo, hi) in enumerate(itertools.pairwise(edges)):
        if hi > lo:
            total += integrate.quad(lambda t, c=k / z.size: abs(c - cdf(t)), lo, hi, epsabs=1e-13, limit=200)[0]
    return total


@pytest.mark.parametrize("seed", range(5))
def test_ddm_uniform_matches_numerical_integration(seed):
    z = np.random.default_rng(seed).beta(0.7, 2.0, size=37 + 20 * seed)
    assert ddm(z) == pytest.approx(brute_w1(z, lambda t: t), abs=1e-6)


@pytest.mark.parametrize(("a", "b"), [(2.0, 5.0), (0.5, 0.5), (3.0, 1.2)])
def test_ddm_beta_target_matches_numerical_integration(a, b):
    z = np.random.default_rng(9).random(41)
    assert ddm(z, Target.beta(a, b)) == pytest.approx(brute_w1(z, lambda t: stats.beta.cdf(t, a, b)), abs=1e-6)


def test_ddm_against_another_benchmark_is_the_quantile_distance():
    rng = np.random.default_rng(10)
    z, other = rng.random(50), rng.random(50)
    # For equal sizes W1 is the mean distance between matched order statistics.
    assert ddm(z, Target.empirical(other)) == pytest.approx(np.mean(np.abs(np.sort(z) - np.sort(other))), abs=1e-12)


def test_ddm_hand_worked_cases():
    assert ddm(np.full(7, 0.5)) == pytest.approx(0.25, abs=1e-15)  # 2 * integral_0^0.5 t dt
    for n in (1, 4, 100):
        even = (np.arange(n) + 0.5) / n
        assert ddm(even) == pytest.approx(1 / (4 * n), abs=1e-15)
    assert ddm(np.zeros(3)) == pytest.approx(0.5)
    assert ddm(np.ones(3)) == pytest.approx(0.5)
    assert ddm(np.full(3, 0.5), Target.beta(1, 1)) == pytest.approx(0.25)


def test_gaps_include_the_ends():
    assert spacings([0.3]).tolist() == pytest.approx([0.3, 0.7])
    assert max_gap([0.3]) == pytest.approx(0.7)
    assert max_gap([0.95, 0.9]) == pytest.approx(0.9)
    assert max_gap([0.05, 0.1]) == pytest.approx(0.9)
    assert top_k_gap_sum([0.3], 5) == pytest.approx(1.0)  # fewer spacings than k: all of them


def test_top_k_sums_and_ties():
    z = [0.1, 0.1, 0.5, 0.6]  # spacings 0.1, 0, 0.4, 0.1, 0.4
    assert max_gap(z) == pytest.approx(0.4)
    assert top_k_gap_sum(z, 1) == pytest.approx(0.4)
    assert top_k_gap_sum(z, 3) == pytest.approx(0.9)
    assert top_k_gap_sum(z, 5) == pytest.approx(1.0)
    gaps = largest_gaps(z, 2)
    assert [(g.lo, g.hi) for g in gaps] == [(0.1, 0.5), (0.6, 1.0)]  # a tie goes to the left one
    assert gaps[0].midpoint == pytest.approx(0.3)


def test_spacings_always_sum_to_one():
    z = np.random.default_rng(11).random(200)
    assert spacings(z).sum() == pytest.approx(1.0)
    cov = coverage(z)
    assert cov.max_gap <= cov.top3_gap_sum <= cov.top5_gap_sum <= 1.0
    assert cov.gaps[0].width == pytest.approx(cov.max_gap)


@pytest.mark.parametrize("bad", [[], [1.2], [-0.1], [np.nan]])
def test_bad_z_is_refused(bad):
    with pytest.raises(ValueError):
        ddm(np.array(bad, dtype=float))


def test_the_targets_cdf_is_its_distributions_and_the_pages_draw_it():
    """One CDF of the target (``Target.cdf``): the bounds, the thin stretches and the items' CDF picture read it."""
    from benchwatch.site.plots import _target_cdf

    t = np.linspace(0.0, 1.0, 101)
    beta = Target.beta(2.0, 5.0)
    assert np.allclose(beta.cdf(t), stats.beta(2.0, 5.0).cdf(t), atol=1e-12)
    assert np.array_equal(Target().cdf(np.array([-0.5, 0.25, 1.5])), [0.0, 0.25, 1.0])
    assert np.array_equal(Target.empirical(np.array([0.2, 0.6])).cdf(np.array([0.1, 0.2, 0.7])), [0.0, 0.5, 1.0])
    assert np.array_equal(_target_cdf({"kind": "beta", "a": 2.0, "b": 5.0}, t), beta.cdf(t))
    assert np.array_equal(_target_cdf({}, t), t)
    assert _target_cdf({"kind": "empirical"}, t) is None  # another benchmark's z: the record keeps no values
