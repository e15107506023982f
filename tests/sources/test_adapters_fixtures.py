"""The adapters without a real upstream copy, on fixtures built from their documented formats."""

from __future__ import annotations

import io
import json
import zipfile

import pandas as pd
import pytest

from bot.errors import InputError
from bot.sources import Fetcher, SourceConfig, load_source
from bot.store import validate_aggregates, validate_responses


def _load(server, tmp_path, adapter: str, path: str, **options):
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        return load_source(fetcher, SourceConfig(adapter, adapter, server.url + path, options))


def test_livebench_parquet_latest_judgment_wins(fixture_server, tmp_path):
    rows = pd.DataFrame(
        {
            "question_id": ["q1", "q1", "q2", "q3", "q1"],
            "model": ["a", "a", "a", "b", "b"],
            "score": [0.0, 1.0, 0.5, 1.0, 0.0],
            "task": ["t"] * 5,
            "category": ["math", "math", "math", "coding", "math"],
            "tstamp": [1.7e9, 1.71e9, 1.7e9, 1.72e9, 1.7e9],
        }
    )
    rows.to_parquet(fixture_server.root / "lb.parquet")
    table = _load(fixture_server, tmp_path, "livebench", "lb.parquet")
    df = validate_responses(table.frame, "test")
    assert set(df["benchmark"]) == {"LiveBench math", "LiveBench coding"}
    q1a = df[(df["model"] == "a") & (df["item_id"] == "q1")]
    assert q1a["score"].tolist() == [1.0]  # the later judgment
    assert str(df[df["model"] == "a"]["date"].iloc[0].date()) == "2023-11-14"


def _helm_fixture(root) -> None:
    (root / "releases" / "v1").mkdir(parents=True)
    (root / "releases" / "v1" / "summary.json").write_text(json.dumps({"release": "v1", "suites": ["s1"]}))
    runs = ["mmlu:subject=anatomy,model=org_m1", "mmlu:subject=anatomy,model=org_m2", "gsm:model=org_m1"]
    (root / "runs" / "s1").mkdir(parents=True)
    (root / "runs" / "s1" / "runs.json").write_text(json.dumps([{"run_spec": {"name": r}} for r in runs]))
    for r, run in enumerate(runs):
        folder = root / "runs" / "s1" / run
        folder.mkdir()
        insts = []
        for i in range(3):
            stats = [{"name": {"name": "exact_match", "split": "test"}, "mean": float((i + r) % 2)}]
            if run.startswith("mmlu"):
                stats.append({"name": {"name": "quasi_exact_match", "split": "test"}, "mean": 1.0})
            insts.append({"instance_id": f"id{i}", "train_trial_index": 0, "stats": stats})
        (folder / "per_instance_stats.json").write_text(json.dumps(insts))


def test_helm_metric_order_and_run_names(fixture_server, tmp_path):
    _helm_fixture(fixture_server.root)
    table = _load(fixture_server, tmp_path, "helm", "", version="v1")
    df = validate_responses(table.frame, "test")
    assert set(df["benchmark"]) == {"HELM mmlu (subject=anatomy)", "HELM gsm"}
    mmlu = df[df["benchmark"] == "HELM mmlu (subject=anatomy)"]
    assert set(mmlu["model"]) == {"org_m1", "org_m2"} and (mmlu["score"] == 1.0).all()  # quasi_exact_match first
    gsm = df[df["benchmark"] == "HELM gsm"].sort_values("item_id")
    assert gsm["score"].tolist() == [0.0, 1.0, 0.0]  # exact_match


def test_epoch_zip_of_csvs(fixture_server, tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(
            "GPQA_diamond.csv", "Model version,Best score (across scorers),Release date\nm1,0.7,2025-01-02\nm2,0.5,\n"
        )
        z.writestr("Unknown_size.csv", "Model version,Best score (across scorers)\nm1,0.1\n")
    (fixture_server.root / "benchmark_data.zip").write_bytes(buf.getvalue())
    table = _load(fixture_server, tmp_path, "epoch", "benchmark_data.zip", n_items={"GPQA_diamond": 198})
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    assert aggs["benchmark"].unique().tolist() == ["Epoch GPQA_diamond"]
    assert aggs["score"].tolist() == [0.7, 0.5] and set(aggs["n_items"]) == {198}
    assert [e["benchmark"] for e in table.excluded] == ["Unknown_size"]


def test_csv_adapter_and_its_validation(fixture_server, tmp_path):
    (fixture_server.root / "team.csv").write_text("model,item_id,score\nm,i,1\nm,j,0\n")
    table = _load(fixture_server, tmp_path, "csv", "team.csv")
    assert validate_responses(table.frame, "t")["benchmark"].unique().tolist() == ["team"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"performances": [{"question_id": "q", "model": "m", "pass@1": 250}]}', "score must lie in [0, 100]"),
        (b'{"performances": [{"question_id": "q", "pass@1": 50}]}', "missing field"),
        (b'{"performances": []}', "no performances"),
        (b'{"performances": [{"question_id": "q", "mod', "invalid or truncated JSON"),
    ],
)
def test_bad_bodies_name_source_url_field_and_value(fixture_server, tmp_path, body, words):
    (fixture_server.root / "perf.json").write_bytes(body)
    with pytest.raises(InputError) as err:
        _load(fixture_server, tmp_path, "livecodebench", "perf.json")
    text = str(err.value)
    assert words in text and "livecodebench" in text and fixture_server.url + "perf.json" in text
    if "250" in body.decode(errors="ignore"):
        assert "performances[0].pass@1" in text and "250" in text
