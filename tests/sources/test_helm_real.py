"""The ``helm`` adapter on real HELM run files (Every Eval Ever's test data, ``helm_real/SOURCE.md``), laid out as
a release on HELM's bucket and served on 127.0.0.1: every per-instance score is the run's own, and their mean
on the main split is the aggregate HELM itself wrote in the run's ``stats.json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchwatch.sources import Fetcher, load_source
from benchwatch.sources.config import SourceConfig
from benchwatch.store import validate_responses
from tests.sources.upstream_server import Upstream

REAL = Path(__file__).parent / "helm_real"
MAIN = {  # run group -> display name, main metric and split, as HELM's schema (schema_classic.yaml) names them
    "hellaswag": ("HellaSwag", "exact_match", "valid"),
    "mmlu": ("MMLU", "exact_match", "test"),
    "narrative_qa": ("NarrativeQA", "f1_score", "test"),
}


def _release(root: Path) -> dict[str, dict]:
    """A release ``v1`` of one suite holding the three real runs; returns each run's spec by name."""
    out = root / "benchmark_output"
    specs = {}
    for folder in sorted(p for p in REAL.iterdir() if p.is_dir()):
        spec = json.loads((folder / "run_spec.json").read_text())
        specs[spec["name"]] = spec
        run = out / "runs" / "suite-a" / spec["name"]
        run.mkdir(parents=True)
        shutil.copy(folder / "per_instance_stats.json", run / "per_instance_stats.json")
    release = out / "releases" / "v1"
    release.mkdir(parents=True)
    (release / "summary.json").write_text(json.dumps({"release": "v1", "suites": ["suite-a"], "date": "2026-01-01"}))
    (release / "runs_to_run_suites.json").write_text(json.dumps(dict.fromkeys(specs, "suite-a")))
    groups = [
        {"name": g, "display_name": d, "environment": {"main_name": m, "main_split": s}}
        for g, (d, m, s) in MAIN.items()
    ]
    (release / "schema.json").write_text(json.dumps({"run_groups": groups}))
    runs = [{"run_path": f"runs/suite-a/{n}", "run_spec": s, "stats": []} for n, s in specs.items()]
    (release / "runs.json").write_text(json.dumps(runs))
    return specs


def _own_aggregate(folder: Path, metric: str, split: str) -> float:
    stats = json.loads((folder / "stats.json").read_text())
    (mean,) = [
        s["mean"]
        for s in stats
        if s["name"]["name"] == metric and s["name"].get("split") == split and not s["name"].get("perturbation")
    ]
    return mean


def test_each_real_runs_instances_average_to_helms_own_aggregate(tmp_path):
    specs = _release(tmp_path)
    with Upstream(tmp_path) as server, Fetcher(tmp_path / "cache", retries=0) as fetcher:
        cfg = SourceConfig("helm", "helm", server.url + "benchmark_output/", {"version": "v1"})
        table = load_source(fetcher, cfg)
    frame = table.frame.assign(score=table.frame["score"].astype(float))
    assert sorted(frame["benchmark"].unique()) == ["HELM HellaSwag", "HELM MMLU", "HELM NarrativeQA"]
    for folder in sorted(p for p in REAL.iterdir() if p.is_dir()):
        spec = json.loads((folder / "run_spec.json").read_text())
        display, metric, split = MAIN[spec["groups"][0]]
        rows = frame[frame["benchmark"] == f"HELM {display}"]
        assert rows["model"].unique().tolist() == [spec["adapter_spec"]["model"]]
        # the instances of the main split, each with the run's own per-instance value of the main metric
        instances = json.loads((folder / "per_instance_stats.json").read_text())
        want = {}
        for inst in instances:
            for stat in inst["stats"]:
                if stat["name"]["name"] == metric and stat["name"].get("split") == split:
                    want[inst["instance_id"]] = stat["mean"]
        prefix = "subject=philosophy/" if spec["groups"] == ["mmlu"] else ""  # a subject's items stay apart
        got = dict(zip(rows["item_id"], rows["score"], strict=True))
        assert got == {prefix + k: v for k, v in want.items()} and 0 < len(got) < len(instances) + 1
        assert rows["score"].mean() == pytest.approx(_own_aggregate(folder, metric, split), abs=1e-12)
    assert set(specs) == {json.loads((p / "run_spec.json").read_text())["name"] for p in REAL.iterdir() if p.is_dir()}


def test_a_multiple_choice_runs_instances_floor_is_one_over_their_references(tmp_path):
    """HellaSwag and MMLU (``multiple_choice_joint``: an instance's references are its options) give each item
    one over the ``num_references`` its run logged, 4 in these runs; NarrativeQA, a generation run whose two
    references are answers, gives none."""
    _release(tmp_path)
    with Upstream(tmp_path) as server, Fetcher(tmp_path / "cache", retries=0) as fetcher:
        table = load_source(fetcher, SourceConfig("helm", "helm", server.url + "benchmark_output/", {"version": "v1"}))
    frame = table.frame
    for folder in sorted(p for p in REAL.iterdir() if p.is_dir()):
        spec = json.loads((folder / "run_spec.json").read_text())
        display, _, split = MAIN[spec["groups"][0]]
        prefix = "subject=philosophy/" if spec["groups"] == ["mmlu"] else ""
        rows = frame[frame["benchmark"] == f"HELM {display}"]
        references = {
            prefix + inst["instance_id"]: stat["mean"]
            for inst in json.loads((folder / "per_instance_stats.json").read_text())
            for stat in inst["stats"]
            if stat["name"]["name"] == "num_references" and stat["name"].get("split") == split
        }
        choice = spec["adapter_spec"]["method"].startswith("multiple_choice")
        want = {i: repr(1 / references[i]) if choice else "" for i in rows["item_id"]}
        assert dict(zip(rows["item_id"], rows["chance"], strict=True)) == want
    assert set(frame["chance"]) == {repr(1 / 4), ""}
    assert set(frame[frame["benchmark"] == "HELM NarrativeQA"]["chance"]) == {""}
    assert table.chance_from == "each instance's number of options (HELM's num_references of a multiple-choice run)"
    assert validate_responses(frame, "helm")["chance"].dropna().unique().tolist() == [0.25]
