"""``benchwatch audit`` of a file with a ``chance`` column (issues 37, 44): the floors in the record and the
output, as the README documents them; an open-ended benchmark's figures as they were before floors existed."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchwatch.cli import main
from tests.metrics.test_resolution import _calibration

CAL = _calibration()


def _csv(tmp_path, behaviour: str, models: int = 60, seed: int = 3, items: int = 400):
    theta = CAL.behaviour_pool("normal", models, 300 + seed)
    _, frame = CAL.simulate_behaviour(theta, items, "uniform", CAL.BEHAVIOURS[behaviour], np.random.default_rng(seed))
    frame = frame.drop(columns=["date"]).assign(
        model=frame["model"].astype(str), item_id=frame["item_id"].astype(str), trials=""
    )
    path = tmp_path / "bench.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def floored(tmp_path_factory):
    path = _csv(tmp_path_factory.mktemp("floors"), "floor 0.4 x nominal 0.25")
    return path


def test_the_record_of_a_benchmark_with_a_chance_column_names_both_floors(floored, capsys):
    assert main(["audit", str(floored), "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["chance_nominal"] == 0.25 and rec["chance_items"] == 400  # the nominal floor: one over 4 options
    assert rec["chance_from"] == "a chance column in the file"
    assert rec["floor_share_lo"] <= rec["floor_share"] <= rec["floor_share_hi"]
    assert rec["floor_effective"] == pytest.approx(0.25 * rec["floor_share"], abs=1e-5)  # the effective one
    assert rec["floor_effective_lo"] < 0.1 < rec["floor_effective_hi"] < 0.25  # drawn at 0.1: under the nominal
    assert rec["fit_verdict"] == "fits" and rec["item_model"] in ("1PL", "2PL")
    assert rec["discrimination_spread_lo"] <= rec["discrimination_spread"] <= rec["discrimination_spread_hi"]
    assert rec["ddm_bound_lo"] <= rec["ddm_bound_hi"] and rec["detection_limit"] > 0


def test_audit_prints_the_floors_as_the_readme_shows_them(floored, capsys):
    from tests.conftest import ROOT

    assert main(["audit", str(floored)]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("chance floors:"))
    assert "nominal 0.250 over 400 items (a chance column in the file); the data favour" in line
    assert "fit check: fits (p = " in out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "chance floors: nominal 0.250 over 400 items (a chance column in the file); the data favour" in readme


def test_an_open_ended_benchmark_of_rasch_items_holds_the_1pls_bounds_within_its_own(tmp_path):
    """No chance column, complete data, Rasch items: the audit through the item model (floors, groups, the spread
    of discriminations, the fit check) fits, places the spread near 0, and publishes bounds that hold over its
    interval: every upper bound at least the plain 1PL audit's, every lower bound at most, and the scores and
    saturation figures (which no item model touches) number for number."""
    from benchwatch.irt import encode_responses, fit_rasch
    from benchwatch.pipeline.audit import audit_benchmark, measure, split_uninformative
    from benchwatch.rules import threshold_map
    from benchwatch.store import validate_responses

    raw = pd.read_csv(_csv(tmp_path, "Rasch", models=24, items=200), dtype=str, keep_default_na=False)
    frame = validate_responses(raw, "bench.csv")
    new = audit_benchmark(frame, source="x", thresholds=threshold_map()).figures()
    assert new["fit_verdict"] == "fits" and "chance_nominal" not in new
    assert new["discrimination_spread_lo"] == 0.0 and new["discrimination_spread_hi"] < 0.5
    fitted, _ = split_uninformative(frame)
    old = measure(frame, fit_rasch(encode_responses(fitted), "map"), source="x", thresholds=threshold_map()).figures()
    assert new["detection_limit"] >= old["detection_limit"] and new["ddm_bound_hi"] >= old["ddm_bound_hi"] - 1e-9
    assert new["ddm_bound_lo"] <= old["ddm_bound_lo"] + 1e-9
    same = ("top1", "top5", "top5_mean", "saturation_index", "state", "solved_share", "n_models", "n_items")
    assert {k: old[k] for k in same} == {k: new[k] for k in same}
