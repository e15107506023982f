"""The adapters on the real upstream files, served byte for byte over real HTTP."""

from __future__ import annotations

import pandas as pd

from bot.sources import Fetcher, SourceConfig, load_source
from bot.store import validate_aggregates, validate_responses


def _load(server, tmp_path, adapter: str, path: str, **options):
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        return load_source(fetcher, SourceConfig(adapter, adapter, server.url + path, options))


def _shape(frame: pd.DataFrame) -> dict:
    df = validate_responses(frame, "test")
    return df.groupby("benchmark").agg(models=("model", "nunique"), items=("item_id", "nunique")).to_dict("index")


def test_swebench_per_item_boards_and_the_inconsistent_entry(shared_upstream, tmp_path):
    table = _load(shared_upstream, tmp_path, "swebench", "swebench/leaderboards.json")
    shape = _shape(table.frame)
    assert shape["SWE-bench bash-only"]["models"] >= 24 and shape["SWE-bench bash-only"]["items"] == 500
    bad = "20250720_mini-v0.0.0-claude-3-7-sonnet-20250219"
    reasons = [e for e in table.excluded if e["model"] == bad and e["benchmark"] == "SWE-bench bash-only"]
    assert len(reasons) == 1 and "disagrees with the published 52.80%" in reasons[0]["reason"]
    assert bad not in set(table.frame["model"])
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    assert set(aggs["benchmark"]) >= {"SWE-bench Lite (published scores)", "SWE-bench bash-only (published scores)"}
    assert table.provenance["status"] == "fetched" and len(table.provenance["revision"]) == 12


def test_livecodebench_fractional_scores_with_trials(shared_upstream, tmp_path):
    table = _load(shared_upstream, tmp_path, "livecodebench", "livecodebench/performances_generation.json")
    df = validate_responses(table.frame, "test")
    assert (df["model"].nunique(), df["item_id"].nunique()) == (16, 1055)
    assert df["trials"].notna().mean() > 0.99 and set(df["trials"].dropna().unique()) == {10}
    assert ((df["score"] * 10) % 1 == 0).all()


def test_evalarena_one_benchmark_per_file(shared_upstream, tmp_path):
    table = _load(shared_upstream, tmp_path, "evalarena", "evalarena/", files=["humaneval+.jsonl", "mbpp+.jsonl"])
    assert _shape(table.frame) == {"humaneval+": {"models": 49, "items": 164}, "mbpp+": {"models": 59, "items": 378}}


def test_evalplus_aggregate_table(shared_upstream, tmp_path):
    table = _load(shared_upstream, tmp_path, "evalplus", "evalplus/results.json")
    assert table.frame.empty
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    assert set(aggs["benchmark"]) == {"EvalPlus humaneval", "EvalPlus humaneval+", "EvalPlus mbpp", "EvalPlus mbpp+"}
    assert aggs.groupby("benchmark")["n_items"].first().to_dict()["EvalPlus humaneval+"] == 164
    assert aggs["score"].between(0, 1).all() and aggs["model"].nunique() > 100
