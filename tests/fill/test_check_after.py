"""``fill check``'s before and after (issue 38): a benchmark of 60 binary models and 300 items with none in z
[0.8, 1], audited as a real one is (``benchwatch run``), then candidates answered by the same 60 models. The
before is the published record; the after is the audit's own computation with every candidate added, whether or
not each one can be placed on its own."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchwatch.cli import main
from benchwatch.fill import check_candidates, load_benchmark
from benchwatch.history import Reports, load_latest, written
from benchwatch.irt import difficulty_b
from benchwatch.pipeline import repeat_audit
from tests.metrics.test_resolution import _calibration

FIGURES = ("ddm", "max_gap", "top5_gap_sum")


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """The calibration's "left-skewed, empty [0.8, 1]" shape on its 60-binary-model pool, 300 items, audited."""
    cal = _calibration()
    root = tmp_path_factory.mktemp("fill-after")
    pool = cal.make_pool(60, 1, seed=102)
    _, frame = cal.simulate(pool, 300, "left-skewed, empty [0.8, 1]", np.random.default_rng([0, 300]))
    csv = root / "sim.csv"
    frame[["model", "item_id", "score", "trials"]].astype({"model": str, "item_id": str}).to_csv(csv, index=False)
    reports = root / "reports"
    argv = ["run", "--input", str(csv), "--reports", str(reports), "--cache", str(root / "c"), "--no-site"]
    assert main(argv) == 0
    return pool, load_benchmark(reports, "sim"), written(load_latest(Reports(reports))["sim"])  # as published


def _candidates(theta: np.ndarray, z: np.ndarray, seed: int) -> pd.DataFrame:
    """Binary answers of the pool to new items at true z (on the pool's scale, as the benchmark's own)."""
    wins = np.random.default_rng(seed).binomial(1, expit(theta[:, None] - difficulty_b(z, theta)[None, :]))
    rows = [(f"m{j:04d}", f"new-{i:02d}", float(wins[j, i])) for j in range(theta.size) for i in range(z.size)]
    return pd.DataFrame(rows, columns=["model", "item_id", "score"])


def _verdicts(bounds: dict) -> dict:
    return bounds["verdicts"]


def test_before_is_the_published_record(audited):
    pool, bench, rec = audited
    result = check_candidates(bench, _candidates(pool.theta, np.linspace(0.3, 0.6, 10), seed=2), repeat=repeat_audit)
    assert result.before == {k: {"lo": rec[f"{k}_lo"], "value": rec[k], "hi": rec[f"{k}_hi"]} for k in FIGURES}
    before = result.bounds_before
    assert _verdicts(before) == {k: v["verdict"] for k, v in rec["verdicts"].items()}
    for key in ("detection_limit", "detection_stretch", "thin_stretches", "thin_width", "ddm_bound_lo", "ddm_bound_hi"):
        assert before[key] == rec[key], key
    # and the audit's computation, repeated without the candidates, gives it again (the after's footing)
    again = result.recomputed
    assert result.reproduced is True
    assert again["bounds"]["detection_limit"] == pytest.approx(rec["detection_limit"], abs=1e-9)
    assert again["bounds"]["thin_width"] == pytest.approx(rec["thin_width"], abs=1e-9)
    for k in FIGURES:
        assert again["figures"][k]["value"] == pytest.approx(rec[k], abs=1e-5)


def test_candidates_spread_over_the_empty_top_close_it_and_ten_outside_change_no_verdict(audited):
    pool, bench, rec = audited
    # before: the empty top is found (a stretch reaching past 0.9 shown thin) and not ruled out as empty
    assert rec["verdicts"]["max_gap"]["verdict"] == "found"
    assert any(hi > 0.9 and hi - lo >= 0.1 for lo, hi in rec["thin_stretches"])
    assert rec["detection_stretch"][1] == 1.0
    top = (0.8, 1.0)
    z = top[0] + (top[1] - top[0]) * (np.arange(40) + 0.5) / 40
    result = check_candidates(bench, _candidates(pool.theta, z, seed=1), repeat=repeat_audit)
    after = result.bounds_after
    assert after["n_items"] == 340
    assert _verdicts(result.bounds_before)["max_gap"] == "found"
    assert _verdicts(after)["max_gap"] != "found" and _verdicts(after).get("top5_gap_sum") != "found"
    assert all(hi <= top[0] for lo, hi in after["thin_stretches"])  # nothing at the top shown thin any more
    assert after["detection_stretch"][1] < 1.0  # and the top is ruled out as empty
    assert result.after["max_gap"]["value"] < result.before["max_gap"]["value"]
    # each candidate placed by its posterior mass: the expected number in the stretch near the true one
    stretch = result.stretches[0]
    truly = int(np.sum((z >= stretch["lo"]) & (z <= stretch["hi"])))
    assert abs(result.expected_inside[0] - truly) <= 6, (result.expected_inside, truly)
    assert set(result.accepted) <= {f"new-{i:02d}" for i in np.flatnonzero(z >= stretch["lo"] - 0.02)}

    # ten candidates outside every stretch: each placed in none, and no verdict changes
    outside = check_candidates(bench, _candidates(pool.theta, np.linspace(0.3, 0.6, 10), seed=2), repeat=repeat_audit)
    assert {c["status"] for c in outside.candidates} == {"none"}
    assert _verdicts(outside.bounds_after) == _verdicts(outside.bounds_before)


def test_candidates_none_placed_alone_still_change_the_after(audited):
    """The measured case: candidates at z 0.9, which these 60 binary answers mostly cannot place inside the stretch
    with probability 0.95; those not placed alone, checked on their own, still make the after: the stretch is no
    longer found."""
    pool, bench, _ = audited
    answers = _candidates(pool.theta, np.full(10, 0.9), seed=3)
    first = check_candidates(bench, answers, repeat=repeat_audit)
    unplaced = [c["item_id"] for c in first.candidates if c["status"] != "inside"]
    assert len(unplaced) >= 6
    result = check_candidates(bench, answers[answers["item_id"].isin(unplaced)], repeat=repeat_audit)
    assert result.accepted == [] and {c["status"] for c in result.candidates} == {"may be inside"}
    assert _verdicts(result.bounds_before)["max_gap"] == "found"
    assert _verdicts(result.bounds_after)["max_gap"] != "found"
    assert result.bounds_after["thin_width"] < result.bounds_before["thin_width"]
