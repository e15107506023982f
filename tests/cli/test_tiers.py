"""``benchwatch tiers`` on a user's own results: per-item responses and a leaderboard with standard errors."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd

from benchwatch.cli import main


def test_per_item_results_give_tiers_and_rank_intervals(tmp_path, capsys):
    rng = np.random.default_rng(0)
    easiness = rng.normal(0, 1, 600)
    rows = []
    for model, skill in (("new", 0.0), ("old", 0.0), ("weak", -1.5)):
        solved = rng.random(600) < 1 / (1 + np.exp(-(skill + easiness)))
        rows += [("bench", model, f"i{k}", float(v)) for k, v in enumerate(solved)]
    path = tmp_path / "results.csv"
    pd.DataFrame(rows, columns=["benchmark", "model", "item_id", "score"]).to_csv(path, index=False)
    assert main(["tiers", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)[0]
    assert out["tier_method"] == "exact McNemar test on the items both models answered"
    tier = {m["model"]: m["tier"] for m in out["models"]}
    assert tier["new"] == tier["old"] == 1 and tier["weak"] == 2 and out["top_tier_size"] == 2
    weak = next(m for m in out["models"] if m["model"] == "weak")
    assert weak["rank_lo"] == weak["rank_hi"] == 3
    assert main(["tiers", str(path)]) == 0
    text = capsys.readouterr().out
    assert "bench: 3 models in 2 tiers" in text and "top tier: 2 model(s)" in text


def test_a_leaderboard_with_and_without_standard_errors(tmp_path, capsys):
    board = tmp_path / "board.csv"
    board.write_text(
        "benchmark,model,score,n_items,stderr\nb,A,0.80,500,0.018\nb,B,0.79,500,0.018\nb,C,0.60,500,0.022\n"
        "c,A,0.80,500,\nc,B,0.40,500,\n"
    )
    assert main(["tiers", str(board), "--json"]) == 0
    out = {b["benchmark"]: b for b in json.loads(capsys.readouterr().out)}
    assert out["b"]["tier_method"] == "z test on the standard errors the source publishes"
    assert [m["tier"] for m in out["b"]["models"]] == [1, 1, 2]
    assert "binomial error of the test-set size (500 items)" in out["c"]["tier_method"]


def _few_and_alike(path) -> None:
    """Eight models on 83 items, one that answered every item wrong, one that answered 16 items, all wrong."""
    rng = np.random.default_rng(5)
    easiness = rng.normal(0, 1.5, 83)
    rows = []
    for k, skill in enumerate((1.5, 1.2, 0.8, 0.3, 0.0, -0.5, -1.0, -4.5)):
        solved = rng.random(83) < 1 / (1 + np.exp(-(skill + easiness)))
        rows += [("bench", f"m{k}", f"i{j}", float(v)) for j, v in enumerate(solved)]
    rows += [("bench", "all-wrong", f"i{j}", 0.0) for j in range(83)]
    rows += [("bench", "sparse", f"i{j}", 0.0) for j in range(16)]
    pd.DataFrame(rows, columns=["benchmark", "model", "item_id", "score"]).to_csv(path, index=False)


def test_audit_and_tiers_give_one_interval_and_one_reason_per_model(tmp_path, capsys):
    """``audit`` and ``tiers`` on one file: each model's score interval the same numbers (Wilson's, checked by
    hand for 0 of 16), the models that answered every item wrong or few items tiered in score order by both
    with the same reason, and every tier-1 model's rank interval reaching 1."""
    path = tmp_path / "results.csv"
    _few_and_alike(path)
    assert main(["tiers", str(path), "--json"]) == 0
    tiers = json.loads(capsys.readouterr().out)[0]
    assert main(["audit", str(path), "--json"]) == 0
    audit = json.loads(capsys.readouterr().out)
    row = {m["model"]: m for m in tiers["models"]}
    for top in audit["top_models"]:
        assert (top["score"], top["lo"], top["hi"]) == (
            row[top["model"]]["score"],
            row[top["model"]]["score_lo"],
            row[top["model"]]["score_hi"],
        )
    z2 = 1.959963984540054**2
    assert row["sparse"]["score_lo"] == 0.0 and row["sparse"]["score_hi"] == round(z2 / (16 + z2), 6)
    notes = {m: r["note"] for m, r in row.items() if r["note"]}
    assert notes == {
        "all-wrong": "answered every item wrong",
        "sparse": "answered every item wrong; answered only 16 of 83 items",
    }
    assert {n["model"]: n["why"] for n in audit["tier_notes"]} == notes
    assert {n["model"]: n["why"] for n in tiers["tier_notes"]} == notes
    assert audit["top_tier"] == tiers["top_tier"]
    ordered = sorted(tiers["models"], key=lambda m: -m["score"])
    assert all(a["tier"] <= b["tier"] for a, b in itertools.pairwise(ordered))  # tiers never rise as scores fall
    assert row["sparse"]["tier"] >= row["m7"]["tier"]  # 0 on 16 items is not above 4.8% on 83
    assert all(m["rank_lo"] == 1 for m in tiers["models"] if m["tier"] == 1)
    assert main(["tiers", str(path)]) == 0
    text = capsys.readouterr().out
    assert "sparse  (answered every item wrong; answered only 16 of 83 items)" in text
    assert main(["audit", str(path)]) == 0
    text = capsys.readouterr().out
    assert "left out of the fit: all-wrong (answered every item wrong); tiered by its score\n" in text
    assert "left out of the fit: sparse (answered every item wrong); tiered by its score (answered only 16 of" in text
