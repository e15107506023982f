"""``--method nuts`` on a 12-model benchmark: the published figures, positions and abilities are the MAP fit's
(the record says so, ``figures_from``), and NUTS runs beside it as a check whose numbers the record and the page
carry; pooled over the items the posterior cannot tell apart, its positions take one value per class (13 at most
for 12 binary models), where its raw posterior means split every item apart."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from benchwatch.irt import cell_patterns, encode_responses, exchangeable_items
from benchwatch.pipeline import audit_benchmark
from benchwatch.vocabulary import COVERAGE_FIGURES
from tests.irt.test_rasch_map import simulate

N_MODELS, N_ITEMS = 12, 40


def _benchmark() -> pd.DataFrame:
    df = simulate(N_MODELS, N_ITEMS, seed=5)[0]
    return df.assign(date="2026-01-01")


def test_items_the_posterior_cannot_tell_apart_are_those_of_one_total_or_with_floors_one_pattern():
    data = encode_responses(_benchmark())
    classes = exchangeable_items(data)
    totals = np.bincount(data.item_idx, data.y, minlength=data.n_items)
    same = classes[:, None] == classes[None, :]
    assert np.array_equal(same, totals[:, None] == totals[None, :])  # complete binary data: the totals, no more
    assert np.unique(classes).size <= N_MODELS + 1
    floors = np.full(data.n_items, 0.25)
    assert np.array_equal(exchangeable_items(data, floors), cell_patterns(data, floors).pattern)


@pytest.fixture(scope="module")
def audits():
    import benchwatch.irt.fits.fit

    df = _benchmark()
    small = functools.partial(benchwatch.irt.fits.fit.fit_nuts, draws=200, tune=200, chains=2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(benchwatch.irt.fits.fit, "fit_nuts", small)  # a small check: 2 chains of 200 draws
        nuts = audit_benchmark(df, source="sim.csv", method="nuts")
    return audit_benchmark(df, source="sim.csv", method="map"), nuts


@pytest.mark.slow  # the fixture's NUTS fit: about 12 s, most of it nutpie compiling the model
def test_nuts_publishes_the_maps_figures_says_so_and_records_its_check(audits):
    by_map, by_nuts = audits
    rec_map, rec = by_map.figures(), by_nuts.figures()
    assert rec["method"] == "nuts" and rec["figures_from"] == "map" == rec_map["figures_from"]
    check = rec["nuts_check"]
    # every published figure, bound and position is the MAP's, bit for bit
    own = ("method", "nuts_check", "max_rhat", "min_ess_bulk")
    assert {k: v for k, v in rec.items() if k not in own} == {k: v for k, v in rec_map.items() if k != "method"}
    pd.testing.assert_frame_equal(by_nuts.items, by_map.items)
    pd.testing.assert_frame_equal(by_nuts.models, by_map.models)
    assert "nuts_check" not in rec_map and "max_rhat" not in rec_map
    # the check's own numbers: its diagnostics, and each figure from its draws beside the published one
    assert (check["sampler"], check["chains"], check["draws"], check["kept_draws"]) == ("nutpie", 2, 200, 200)
    assert rec["max_rhat"] == check["max_rhat"] < 1.1 and check["min_ess_bulk"] > 50
    for k in COVERAGE_FIGURES:
        assert check[f"{k}_published"] == rec_map[k]
        assert check[f"{k}_lo"] <= check[k] <= check[f"{k}_hi"]
    assert check["ddm"] != rec_map["ddm"]  # its own posterior: what NUTS changes is recorded, not published
    assert abs(check["ddm"] - rec_map["ddm"]) < 0.05 and abs(check["max_gap"] - rec_map["max_gap"]) < 0.05
    # identical totals share one position: as many as the MAP's, where the raw posterior means split them all
    totals = _benchmark().groupby("item_id")["score"].sum().nunique()
    assert check["distinct_z"] == totals == rec_map["pool"]["distinct_z"]
    assert check["distinct_z_unpooled"] > 2 * totals
    assert check["max_position_shift"] < 0.05


@pytest.mark.slow
def test_the_page_and_the_command_say_the_figures_are_the_maps_and_show_the_check(audits):
    from benchwatch.cli.audit import _text
    from benchwatch.record import as_record
    from benchwatch.site.fit_notes import nuts_check_lines

    by_map, by_nuts = audits
    rec = by_nuts.figures()
    lines = nuts_check_lines(as_record(rec))
    check = rec["nuts_check"]
    assert lines["said"].startswith("The positions, abilities and figures on this page come from the map fit")
    pooled = f"take {check['distinct_z']} distinct positions ({check['distinct_z_unpooled']} before pooling"
    assert pooled in lines["said"]
    ddm = lines["rows"][0]
    assert ddm[0] == "DDM" and ddm[1] != ddm[2]  # the published (MAP) value beside the NUTS one
    assert nuts_check_lines(as_record(by_map.figures())) == {}
    text = _text(as_record(rec))
    assert text.startswith("sim: 12 models x 40 items (nuts: figures from map, converged;")
    assert "  nuts, run as a check (the figures are the map fit's): " in text
