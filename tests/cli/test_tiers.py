"""``benchwatch tiers`` on a user's own results: per-item responses and a leaderboard with standard errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from bot.cli import main


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
