"""A model-based figure outside the model-free bounds is named on the page (issue 64): its smooth prior, not the
data, put it there, and the reader is sent to the bounds."""

from __future__ import annotations

from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.site.figures import _model_based_cells


def _record(ddm: float) -> BenchmarkRecord:
    return as_record({
        "ddm": ddm, "ddm_lo": ddm - 0.01, "ddm_hi": ddm + 0.01, "ddm_bound_lo": 0.1013, "ddm_bound_hi": 0.2,
        "max_gap": 0.02, "max_gap_lo": 0.01, "max_gap_hi": 0.03, "top3_gap_sum": 0.05, "top3_gap_sum_lo": 0.04,
        "top3_gap_sum_hi": 0.06, "top5_gap_sum": 0.08, "top5_gap_sum_lo": 0.07, "top5_gap_sum_hi": 0.09,
        "detection_limit": 0.3, "item_model": "2PL", "target": "uniform",
    })  # fmt: skip


def test_a_model_based_ddm_below_its_lower_bound_is_named():
    """Issue 64's case: a model-based DDM of 0.0999 under the model-free lower bound 0.1013."""
    below = _model_based_cells(_record(0.0999))[0]
    assert "outside the bounds 0.101-0.2" in below[2] and "read the bounds" in below[2]
    inside = _model_based_cells(_record(0.15))[0]
    assert "outside" not in inside[2]
    assert "outside" in _model_based_cells(_record(0.25))[0][2]
