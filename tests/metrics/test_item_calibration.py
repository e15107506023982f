"""A reduced calibration of the item-behaviours grids (issues 37, 44, 64): benchmarks simulated with known truth
whose items do not answer as the Rasch model says, audited through ``fit_item_model`` as real ones are. The full
grids and their tables come from ``benchmarks/calibration.py --grid items`` and ``--grid spreads`` (the
methodology page)."""

from __future__ import annotations

import pytest

from tests.metrics.test_resolution import _calibration

CELLS = [  # (behaviour, pool, shape, benchmarks)
    ("floor 0.25, undeclared", "60 binary", "uniform", 4),
    ("floor 0.25, declared", "60 binary", "uniform", 3),
    ("weaker models on the easier items", "60 binary", "empty [0.8, 1]", 4),
    ("failures recorded as blanks", "60 binary", "uniform", 4),
    ("log a ~ N(0, 0.5^2)", "200 binary", "empty [0.375, 0.625]", 2),
    # issue 64's grid: spreads at every pool size, agreeing samples, a floor under a spread
    ("s = 0.9", "12 binary", "uniform", 4),
    ("s = 0.6", "30 binary", "empty [0.8, 1]", 3),
    ("s = 0.6, 10 samples, rho 0.3", "12 binary", "uniform", 3),
    ("s = 0.6, floor 0.6 x nominal 0.25", "12 binary", "uniform", 3),  # the two ends alone missed here
    ("floor 0.02, undeclared", "60 binary", "empty [0.375, 0.625]", 4),  # a small floor: a nuisance
]


@pytest.mark.slow
@pytest.mark.parametrize(("behaviour", "pool", "shape", "reps"), CELLS)
def test_the_published_bounds_hold_and_the_departures_are_named(behaviour, pool, shape, reps):
    cal = _calibration()
    cell = cal.run_item_cell((behaviour, pool, shape, reps, 11))
    s = cal.item_summary(cell)
    rows = [r for r in cell["rows"] if r["placed"]]
    assert len(rows) == reps
    for key in ("max_gap_covered", "top5_covered"):  # every bound published holds, whatever was withheld
        assert s[key] != s[key] or s[key] == 1.0, s
    assert s["ddm_covered"] != s["ddm_covered"] or s["ddm_covered"] >= 0.85, s
    if shape == "uniform":  # nothing to find: every fill or revise would be a false alarm
        assert s["fill"] == 0.0 and s["revise"] == 0.0, s
    if behaviour == "floor 0.25, undeclared":  # caught, named, and nothing published the floor would bias
        assert s["misfit"] >= 0.75 and s["withheld"] >= 0.75, s
        assert all("floor above" in r["misfits"] for r in rows if r["misfit"])
        assert all(r.get("undeclared_covered", True) for r in rows)
    if behaviour == "floor 0.25, declared":  # the floor estimated and used: the model fits
        assert s["misfit"] <= 0.25 and s["published"] == reps and s["floor_covered"] >= 0.75, s
    if behaviour == "floor 0.02, undeclared":  # named where the pool shows it, over an interval that holds it
        assert s["published"] >= reps - 2 and all(r.get("undeclared_covered", True) for r in rows), s
    if behaviour == "failures recorded as blanks":
        assert s["blanks_warned"] == 1.0 and s["withheld"] == 1.0, s
    if behaviour.startswith("log a"):  # 200 models place discriminations: the 2PL path, and the hole found
        assert s["two_pl"] == 1.0 and s["fill"] >= 0.5, s
    if behaviour.startswith("s = "):  # published at any pool size, the nuisances' intervals hold their truth
        assert s["withheld"] <= 0.34 and s["published"] >= reps - 1, s
        assert s["spread_covered"] >= 0.66, s
        assert s["rho_covered"] != s["rho_covered"] or s["rho_covered"] >= 0.66, s
        if "floor" in behaviour:
            assert s["floor_covered"] >= 0.5, s
