"""The compiled coverage passes against the plain definitions they stand for."""

import numpy as np
import pytest

from benchwatch.metrics import UNIFORM, Target, coverage_draws, ddm, max_gap, target_mass, thin_truth, top_k_gap_sum
from benchwatch.metrics import bound_search as B
from benchwatch.metrics.bounds import thin_truth_rows
from benchwatch.metrics.coverage import ddm_rows


def test_uniform_rows_equal_the_closed_forms_row_by_row():
    rng = np.random.default_rng(3)
    z = np.vstack([rng.beta(0.6, 1.4, (30, 57)), rng.random((5, 57)), np.full((1, 57), 0.5)])
    fast = coverage_draws(z, UNIFORM)
    for r, row in enumerate(z):
        assert fast["ddm"][r] == pytest.approx(ddm(row), abs=1e-13)
        assert fast["max_gap"][r] == pytest.approx(max_gap(row), abs=1e-15)
        assert fast["top3_gap_sum"][r] == pytest.approx(top_k_gap_sum(row, 3), abs=1e-14)
        assert fast["top5_gap_sum"][r] == pytest.approx(top_k_gap_sum(row, 5), abs=1e-14)
    # the general (numpy) path of DDM agrees with the compiled one on the uniform target
    assert np.allclose(ddm_rows(np.sort(z, axis=1), UNIFORM), fast["ddm"], atol=1e-13)


def test_uniform_rows_with_fewer_than_five_gaps():
    z = np.array([[0.2, 0.9]])
    fast = coverage_draws(z, UNIFORM)
    assert fast["top5_gap_sum"][0] == pytest.approx(1.0) and fast["top3_gap_sum"][0] == pytest.approx(1.0)
    assert fast["max_gap"][0] == pytest.approx(0.7)


def _thin_reference(z, target, k):
    """The widest thin stretch and the five widest disjoint ones, by the all-pairs table of numpy."""
    counts = np.bincount(np.clip((z * k).astype(int), 0, k - 1), minlength=k)
    prefix = np.concatenate([[0], np.cumsum(counts)]) / z.size
    edges = np.arange(k + 1) / k
    lo, hi = np.meshgrid(np.arange(k + 1), np.arange(k + 1), indexing="ij")
    thin = (hi > lo) & (prefix[hi] - prefix[lo] < B.THIN * target_mass(target, edges[lo], edges[hi]))
    reach = np.where(thin.any(axis=1), k - np.argmax(thin[:, ::-1], axis=1), 0)
    width = np.where(reach > 0, reach - np.arange(k + 1), 0)
    chosen = []
    for start in np.argsort(-width, kind="stable"):
        if width[start] <= 0 or len(chosen) == 5:
            break
        a, b = int(start), int(reach[start])
        if all(b <= c or a >= d for c, d in chosen):
            chosen.append((a, b))
    widths = [(b - a) / k for a, b in chosen]
    return max(widths, default=0.0), float(sum(widths))


@pytest.mark.parametrize("target", [UNIFORM, Target.beta(2, 5)])
def test_thin_rows_equal_the_all_pairs_table(target):
    rng = np.random.default_rng(11)
    rows = np.vstack([rng.beta(0.5, 0.5, (25, 80)), rng.random((5, 80)) * 0.4])
    fast = thin_truth_rows(rows, target, 60)
    for r, row in enumerate(rows):
        widest, top5 = _thin_reference(row, target, 60)
        assert fast[r, 0] == pytest.approx(widest, abs=1e-15)
        assert fast[r, 1] == pytest.approx(top5, abs=1e-14)
    assert thin_truth(rows[0], target, 60) == pytest.approx(tuple(fast[0]))
