"""Candidates calibrated onto a benchmark's scale, checked by simulation with known truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchwatch.fill import Benchmark, check_candidates, fill_plan, place
from benchwatch.fill.check import OUTSIDE, PLACED
from benchwatch.irt import difficulty_b, difficulty_z
from benchwatch.metrics import coverage
from benchwatch.record import as_record

N_MODELS = 24
GAP = (0.45, 0.70)


@pytest.fixture(scope="module")
def planted() -> Benchmark:
    """24 models of known ability; 60 items evenly over z except for a planted gap (0.45, 0.70)."""
    theta = np.linspace(-2.0, 2.0, N_MODELS)
    z = np.linspace(0.02, 0.98, 80)
    z = z[(z <= GAP[0]) | (z >= GAP[1])]
    z = np.concatenate([z, GAP])  # items exactly at the gap's edges
    z.sort()
    b = difficulty_b(z, theta, "ability-quantile")
    cov = coverage(z)
    record = {
        "benchmark": "planted",
        "gaps": [{"lo": g.lo, "hi": g.hi, "width": g.width} for g in cov.gaps],
        # the items known to a few thousandths: the data show the planted gap thin
        "thin_stretches": [list(GAP)],
        "verdicts": {"max_gap": {"verdict": "found", "threshold": 0.1, "level": 0.1, "found_level": 0.1}},
        "scale": "ability-quantile",
        "target_spec": {"kind": "uniform"},
        "revision": "r1",
    }
    items = pd.DataFrame({"item_id": [f"i{k}" for k in range(z.size)], "b": b, "b_sd": 0.002, "z": z})
    models = pd.DataFrame({"model": [f"m{k:02d}" for k in range(N_MODELS)], "theta": theta})
    return Benchmark(as_record(record), items, models)


def test_a_model_that_answered_everything_right_leaves_the_plan_its_numbers(planted):
    """Models that answered every item right or every item wrong have no ability (the fit leaves them out): the plan
    reads the others, its target's b and every solve probability a number, as without them (the real atlas: BFCL's
    categories showed "Target b nan" and "solve probability nan - nan" where two models solved everything)."""
    unbounded = pd.DataFrame({"model": ["all right", "all wrong"], "theta": [np.nan, np.nan]})
    widened = Benchmark(planted.record, planted.items, pd.concat([planted.models, unbounded], ignore_index=True))
    assert list(widened.theta.index) == list(planted.theta.index)
    with_them, without = fill_plan(widened)[0], fill_plan(planted)[0]
    assert np.isfinite(with_them["target_b"]) and with_them["target_b"] == without["target_b"]
    assert [m["p"] for m in with_them["solve"]] == [m["p"] for m in without["solve"]]
    assert all(np.isfinite(m["p"]) for m in with_them["solve"])


def _answers(bench: Benchmark, true_b: dict[str, float], models: int = N_MODELS, trials: int = 10, seed: int = 1):
    rng = np.random.default_rng(seed)
    theta = bench.theta.iloc[:: max(1, N_MODELS // models)][:models]
    rows = []
    for item, b in true_b.items():
        wins = rng.binomial(trials, expit(theta.to_numpy() - b))
        rows += [(m, item, w / trials, trials) for m, w in zip(theta.index, wins, strict=True)]
    out = pd.DataFrame(rows, columns=["model", "item_id", "score", "trials"])
    return out.assign(trials=out["trials"].astype("Int64"))


def test_the_plan_targets_the_planted_gap_with_its_seeds(planted):
    plan = fill_plan(planted)
    first = plan[0]
    assert (first["lo"], first["hi"]) == pytest.approx(GAP)
    assert first["target_z"] == pytest.approx(sum(GAP) / 2)
    assert difficulty_z(np.array([first["target_b"]]), planted.theta.to_numpy(), "ability-quantile")[
        0
    ] == pytest.approx(first["target_z"])
    assert first["seeds_below"][-1]["z"] == pytest.approx(GAP[0]) and first["seeds_above"][0]["z"] == pytest.approx(
        GAP[1]
    )
    p = {m["model"]: m["p"] for m in first["solve"]}
    assert p["m23"] > 0.5 > p["m00"]  # the strongest model solves it more often than not, the weakest rarely
    assert [g["verdict"] for g in plan] == ["found"]  # only stretches found, or that may be empty: here the one


def test_candidates_land_where_they_belong_with_nominal_coverage_and_max_gap_falls_as_computed(planted):
    theta = planted.theta.to_numpy()
    at = {"inside": 0.575, "edge": GAP[0], "outside": 0.25}
    true_b, where = {}, {}
    for kind, z in at.items():
        b = float(difficulty_b(np.array([z]), theta, "ability-quantile")[0])
        for k in range(120):
            true_b[f"{kind}-{k}"] = b
            where[f"{kind}-{k}"] = kind
    # 24 models x 40 samples each: an interval of about +-0.05 on z, narrow enough to place in a 0.25 gap
    result = check_candidates(planted, _answers(planted, true_b, trials=40), draws=60)
    rows = pd.DataFrame(result.candidates).assign(kind=lambda d: d["item_id"].map(where))
    rows["true_b"] = rows["item_id"].map(true_b)
    covered = (rows["b_lo"] <= rows["true_b"]) & (rows["true_b"] <= rows["b_hi"])
    assert 0.92 <= covered.mean() <= 0.98, covered.mean()  # 360 intervals: nominal 0.95 within 3 SE
    for kind in at:
        assert 0.88 <= covered[rows["kind"] == kind].mean() <= 1.0, kind
    share = rows.groupby("kind")["status"].value_counts(normalize=True).unstack(fill_value=0.0)
    assert share.loc["inside", "inside"] >= 0.9
    assert share.loc["outside", "none"] >= 0.95
    # on the edge about half its posterior lies in the stretch: never placed inside, nor out of it
    assert share.loc["edge"].get("inside", 0.0) <= 0.1 and share.loc["edge"].get("may be inside", 0.0) >= 0.85
    edge = rows.loc[rows["kind"] == "edge", "p_inside"]
    assert 0.3 <= edge.median() <= 0.7, edge.median()
    assert set(rows.loc[rows["status"] == "inside", "item_id"]) == set(result.accepted)
    # the number expected in the stretch is the sum of the probabilities: the 120 inside and about half the edge
    assert 120 + 0.3 * 120 <= result.expected_inside[0] <= 120 + 0.7 * 120


def test_adding_the_inside_ones_brings_max_gap_down_as_computed(planted):
    """Three candidates placed evenly in the gap, answered 10,000 times by each model (their positions then
    known to a few thousandths, the items' too): the Max Gap after is the largest spacing of the items and
    the candidates, with the ends 0 and 1, counted here by hand; the intervals before and after are apart."""
    theta = planted.theta.to_numpy()
    spots = {"c1": 0.5125, "c2": 0.575, "c3": 0.6375}
    true_b = {k: float(difficulty_b(np.array([z]), theta, "ability-quantile")[0]) for k, z in spots.items()}
    result = check_candidates(planted, _answers(planted, true_b, trials=10_000), draws=200)
    assert sorted(result.accepted) == ["c1", "c2", "c3"]
    placed = {c["item_id"]: c["z"] for c in result.candidates}
    assert all(abs(placed[k] - spots[k]) < 0.01 for k in spots)
    z_after = np.sort(np.concatenate([planted.items["z"].to_numpy(), list(placed.values())]))
    brute = max(np.diff(np.concatenate([[0.0], z_after, [1.0]])))  # spacings with the ends, by hand
    assert brute == pytest.approx(0.0625, abs=0.01)
    assert result.after["max_gap"]["value"] == pytest.approx(brute, abs=0.002)
    assert result.before["max_gap"]["value"] == pytest.approx(GAP[1] - GAP[0], abs=0.01)
    assert result.after["max_gap"]["hi"] < result.before["max_gap"]["lo"]
    assert result.after["ddm"]["value"] < result.before["ddm"]["value"]


def test_answered_by_3_of_24_models_these_models_cannot_tell_whether_it_fills_the_gap(planted):
    theta = planted.theta.to_numpy()
    b = float(difficulty_b(np.array([0.575]), theta, "ability-quantile")[0])
    result = check_candidates(planted, _answers(planted, {f"c{k}": b for k in range(20)}, models=3, trials=1), draws=20)
    assert {c["models"] for c in result.candidates} == {3}
    assert {c["status"] for c in result.candidates} == {"may be inside"}
    assert all(OUTSIDE <= c["p_inside"] < PLACED for c in result.candidates)
    assert all(c["message"].startswith("may lie in the stretch 0.450-0.700") for c in result.candidates)
    assert all("these models cannot tell; evaluate on more models" in c["message"] for c in result.candidates)
    assert result.accepted == []


STRETCHES = [{"lo": 0.45, "hi": 0.70, "width": 0.25}, {"lo": 0.85, "hi": 1.0, "width": 0.15}]


@pytest.mark.parametrize(
    ("masses", "status", "where"),
    [
        ((0.97, 0.0), "inside", 0),
        ((0.01, 0.95), "inside", 1),  # a wide posterior in a wide stretch is placed as surely as a narrow one
        ((0.5, 0.3), "may be inside", 0),
        ((0.04, 0.049), "none", None),
    ],
)
def test_place_by_hand(masses, status, where):
    got, gap, p = place(list(masses), STRETCHES)
    assert got == status and p == max(masses)
    assert gap is (None if where is None else STRETCHES[where])
