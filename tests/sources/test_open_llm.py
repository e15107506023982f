"""The Open LLM Leaderboard v2 adapter, on details files written by lm-evaluation-harness's own tracker in the
suite, laid out as the Hub holds them (``open-llm-leaderboard/<org>__<model>-details``, the tree API's
listing, the contents dataset's Parquet) and served on 127.0.0.1."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

pytest.importorskip("lm_eval", reason="the details are written by lm-evaluation-harness itself (the dev extra)")

from benchwatch.sources import Fetcher, load_source
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.local import read_input
from tests.sources.evallogs.lm_eval_run import N_DOCS
from tests.sources.upstream_server import Upstream

MODELS = {"benchwatch/toy-a": 0.8, "benchwatch/toy-b": 0.4, "benchwatch/toy-c": 0.6, "benchwatch/toy-d": 0.5}
TASKS = {"leaderboard_bbh_toy_mc": "mc", "leaderboard_bbh_toy_gen": "gen", "leaderboard_mmlu_pro": "mc"}
CONTENTS = "datasets/open-llm-leaderboard/contents/resolve/main/data/train-00000-of-00001.parquet"


@pytest.fixture
def harness(lm_eval_details):
    """The session's run of the harness (conftest.lm_eval_details)."""
    return lm_eval_details


def _hub(out, root, names=None):
    """The harness's output folders as the Hub serves them: each a details dataset with its tree listing."""
    for folder in sorted(p for p in out.iterdir() if p.is_dir()):
        repo = f"open-llm-leaderboard/{folder.name}-details"
        files = root / "datasets" / repo / "resolve" / "main" / folder.name
        shutil.copytree(folder, files)
        (files / "README.md").write_text("not a details file")
        listing = [{"type": "directory", "oid": "0" * 40, "size": 0, "path": folder.name}]
        listing += [
            {"type": "file", "oid": "1" * 40, "size": p.stat().st_size, "path": f"{folder.name}/{p.name}"}
            for p in sorted(files.iterdir())
        ]
        api = root / "api" / "datasets" / repo / "tree" / "main"
        api.mkdir(parents=True)
        (api / folder.name).write_text(json.dumps(listing))
    contents = root / CONTENTS
    contents.parent.mkdir(parents=True)
    names = names if names is not None else sorted(MODELS)
    pd.DataFrame({"fullname": names, "Average ⬆️": [1.0] * len(names)}).to_parquet(contents)


def _config(server, **options):
    return SourceConfig("open_llm", "open_llm", server.url.rstrip("/"), options)


def _sorted(frame):
    cols = ["benchmark", "model", "item_id", "score", "trials"]
    return frame[cols].sort_values(cols[:3]).reset_index(drop=True)


def test_details_read_back_sample_for_sample_each_task_bbh_as_a_whole_and_mmlu_pro_by_question_id(harness, tmp_path):
    _hub(harness, tmp_path / "hub")
    with Upstream(tmp_path / "hub") as server, Fetcher(tmp_path / "cache", retries=0) as fetcher:
        table = load_source(fetcher, _config(server, max_models=10))
    got = _sorted(table.frame)
    local = read_input(harness).frame  # the harness's files read where it wrote them
    want = local.assign(benchmark="Open LLM v2 " + local["benchmark"].str.removeprefix("leaderboard_"))
    mmlu = want["benchmark"] == "Open LLM v2 mmlu_pro"
    ids = {}  # doc_id -> the question id the harness logged with each document
    for path in harness.rglob("samples_leaderboard_mmlu_pro_*.jsonl"):
        for line in path.read_text().splitlines():
            doc = json.loads(line)
            ids[str(doc["doc_id"])] = str(doc["doc"]["question_id"])
    assert len(ids) == N_DOCS and set(ids) != set(ids.values())
    want.loc[mmlu, "item_id"] = want.loc[mmlu, "item_id"].map(ids)
    bbh = want[want["benchmark"].str.startswith("Open LLM v2 bbh_")]
    whole = bbh.assign(
        item_id=bbh["benchmark"].str.removeprefix("Open LLM v2 bbh_") + "/" + bbh["item_id"],
        benchmark="Open LLM v2 bbh",
    )
    want = _sorted(pd.concat([want, whole]))
    pd.testing.assert_frame_equal(got, want)
    assert got.groupby("benchmark")["model"].nunique().to_dict() == {
        "Open LLM v2 bbh": 4,
        "Open LLM v2 bbh_toy_gen": 4,
        "Open LLM v2 bbh_toy_mc": 4,
        "Open LLM v2 mmlu_pro": 4,
    }
    assert sorted(table.frame["model"].unique()) == sorted(MODELS)
    assert (table.frame.groupby("benchmark")["item_id"].nunique() == [2 * N_DOCS, N_DOCS, N_DOCS, N_DOCS]).all()
    # the floors: one over each document's logged choices for the multiple-choice tasks, by the item's id;
    # the BBH group's items keep their subtask's; the generative task has none
    choices = {}
    for path in harness.rglob("samples_leaderboard_*.jsonl"):
        for line in path.read_text().splitlines():
            doc = json.loads(line)
            choices[str(doc["doc_id"])] = repr(1 / len(doc["doc"]["choices"]))
    floors = {(b, i): c for b, i, c in zip(*(table.frame[k] for k in ("benchmark", "item_id", "chance")), strict=True)}
    for doc_id, floor in choices.items():
        assert floors[("Open LLM v2 bbh_toy_mc", doc_id)] == floors[("Open LLM v2 bbh", f"toy_mc/{doc_id}")] == floor
        assert floors[("Open LLM v2 mmlu_pro", ids[doc_id])] == floor
        assert floors[("Open LLM v2 bbh_toy_gen", doc_id)] == floors[("Open LLM v2 bbh", f"toy_gen/{doc_id}")] == ""
    assert set(choices.values()) == {repr(1 / 2), repr(1 / 3), repr(1 / 4)}
    assert table.chance_from == "each sample's number of choices (lm-evaluation-harness's arguments)"


def test_three_runs_with_a_cap_of_two_models_fetch_each_model_once(harness, tmp_path, capsys):
    """Whole scheduled runs: the first two fetch two new models each, the third nothing of the details."""
    from benchwatch.cli import main

    _hub(harness, tmp_path / "hub")
    with Upstream(tmp_path / "hub") as server:
        config = tmp_path / "benchwatch.toml"
        config.write_text(
            f'[http]\nretries = 0\n\n[sources.open_llm]\nadapter = "open_llm"\nurl = "{server.url.rstrip("/")}"\n'
            "max_models = 2\n"
        )
        argv = ["run", "--config", str(config), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
        models, logs = [], []
        for _ in range(3):
            assert main([*argv, "--no-site"]) == 0
            logs.append(capsys.readouterr().out)
            latest = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]
            models.append({r["benchmark"]: r["n_models"] for r in latest})
        details = {p: n for p, n in server.hits.items() if "-details" in p}
        contents = server.hits["/" + CONTENTS]
    # per model: its listing, its results file and one samples file a task; each asked for once in all
    assert len(details) == len(MODELS) * (2 + len(TASKS)) and set(details.values()) == {1}
    assert contents == 3  # the model list is asked every run (conditionally)
    assert [set(m.values()) for m in models] == [{2}, {4}, {4}] and len(models[0]) == 4
    assert "2 model(s) not fetched yet" in logs[0] and "not fetched yet" not in logs[1]
    assert "not-modified" in logs[2]  # the third run: every download as in the second, nothing read


def test_a_model_that_cannot_be_read_is_listed_and_asked_again_and_a_hostile_name_is_never_a_url(harness, tmp_path):
    hub = tmp_path / "hub"
    _hub(harness, hub, names=[*sorted(MODELS), "../../etc/passwd", "evil/<script>"])
    broken = next((hub / "datasets" / "open-llm-leaderboard").glob("benchwatch__toy-b-details"))
    samples = next(broken.rglob("samples_leaderboard_mmlu_pro_*.jsonl"))
    good = samples.read_bytes()
    samples.write_text("{not json\n")
    with Upstream(hub) as server:
        with Fetcher(tmp_path / "cache", retries=0) as fetcher:
            first = load_source(fetcher, _config(server))
        assert sorted(first.frame["model"].unique()) == ["benchwatch/toy-a", "benchwatch/toy-c", "benchwatch/toy-d"]
        reasons = {e["model"]: e["reason"] for e in first.excluded}
        assert "not JSON" in reasons["benchwatch/toy-b"] and samples.name in reasons["benchwatch/toy-b"]
        assert reasons["../../etc/passwd"] == reasons["evil/<script>"] == "not an org/model name"
        assert not any("passwd" in p or "script" in p for p in server.hits)
        samples.write_bytes(good)
        with Fetcher(tmp_path / "cache", retries=0) as fetcher:
            second = load_source(fetcher, _config(server))
    assert sorted(second.frame["model"].unique()) == sorted(MODELS)


def test_mmlu_pro_of_the_leaderboard_and_tiger_labs_outputs_on_one_page_fitted_together(
    harness, shared_upstream, tmp_path, capsys
):
    """The toy questions' ids are real MMLU-Pro question ids: TIGER-Lab's two real output files here answer
    them too, so the leaderboard's models and TIGER-Lab's place those items together."""
    from benchwatch.cli import main

    hub = shared_upstream.root  # the real MMLU-Pro zips are served from ../shared/upstream
    _hub(harness, tmp_path / "hub")
    zips = sorted(p.name for p in (hub / "mmlu_pro").glob("*.zip"))
    with Upstream(tmp_path / "hub") as server:
        config = tmp_path / "benchwatch.toml"
        config.write_text(
            f"""[http]
retries = 0

[sources.mmlu_pro]
adapter = "mmlu_pro"
url = "{shared_upstream.url}mmlu_pro/"
files = {json.dumps(zips)}
categories = false

[sources.open_llm]
adapter = "open_llm"
url = "{server.url.rstrip("/")}"

[benchmarks."MMLU-Pro"]
aliases = ["Open LLM v2 mmlu_pro"]
"""
        )
        argv = ["run", "--config", str(config), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
        assert main([*argv, "--no-site"]) == 0
    latest = {r["benchmark"]: r for r in json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]}
    rec = latest["Open LLM v2 mmlu_pro"]
    assert rec["page"] == latest["MMLU-Pro"]["page"] == "MMLU-Pro"
    assert rec["joint_pool"]["with"] == [{"benchmark": "MMLU-Pro", "models": len(zips), "items": N_DOCS}]
    assert rec["n_models"] == len(MODELS)  # its own models; the others only place its items
