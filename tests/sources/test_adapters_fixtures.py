"""The adapters without a real upstream copy here, on fixtures built from the producers' own code."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from benchwatch.errors import InputError
from benchwatch.sources import Fetcher, SourceConfig, load_source
from benchwatch.store import validate_responses


def _load(server, tmp_path, adapter: str, path: str, **options):
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        return load_source(fetcher, SourceConfig(adapter, adapter, server.url + path, options))


# LiveBench: no real copy can be had here. The fixture follows the producer's own code and cards:
# LiveBench/LiveBench @ b0fb577b livebench/show_livebench_result.py (drops score == -1, keeps the release's
# questions) and livebench/common.py load_questions (release and removal dates); the dataset cards of
# livebench/model_judgment (question_id, task, model, score, turn, tstamp, category) and livebench/<category>
# (question_id, category, task, livebench_release_date: timestamp, livebench_removal_date: date or "").
def _livebench_fixture(root) -> None:
    day = pd.Timestamp
    judgments = pd.DataFrame(
        {
            "question_id": ["q1", "q1", "q2", "q3", "q1", "q2", "q3", "qold", "q2"],
            "task": ["t"] * 9,
            "model": ["a", "a", "a", "a", "b", "b", "b", "b", "c"],
            "score": [0.0, 1.0, 0.5, 1.0, 0.0, -1.0, 1.0, 1.0, 1.0],
            "turn": [1] * 9,
            # a's first judgment falls after the 2024-08-31 release, b's before it, c's after 2024-11-25
            "tstamp": [
                day(d).timestamp()
                for d in [
                    "2024-09-02",
                    "2024-09-05",
                    "2024-09-02",
                    "2024-09-02",
                    "2024-07-30",
                    "2024-07-30",
                    "2024-07-30",
                    "2024-07-30",
                    "2024-12-01",
                ]
            ],
            "category": ["math", "math", "math", "coding", "math", "math", "coding", "math", "math"],
        }
    )
    judgments.to_parquet(root / "judgments.parquet")
    questions = pd.DataFrame(
        {
            "question_id": ["q1", "q2", "q3", "qold", "qnew"],
            "category": ["math", "math", "coding", "math", "math"],
            "task": ["t"] * 5,
            "livebench_release_date": [
                day(d) for d in ["2024-07-26", "2024-08-31", "2024-07-26", "2024-06-24", "2024-11-25"]
            ],
            "livebench_removal_date": ["", "", "", "2024-08-31", ""],
        }
    )
    questions.to_parquet(root / "questions.parquet")


def test_livebench_release_retired_questions_and_unscored_rows(fixture_server, tmp_path):
    _livebench_fixture(fixture_server.root)
    questions = [fixture_server.url + "questions.parquet"]
    table = _load(fixture_server, tmp_path, "livebench", "judgments.parquet", questions=questions)
    df = validate_responses(table.frame, "test")
    assert set(df["benchmark"]) == {"LiveBench math", "LiveBench coding"}
    assert "qold" not in set(df["item_id"])  # removed on 2024-08-31, before the latest release
    q1a = df[(df["model"] == "a") & (df["item_id"] == "q1")]
    assert q1a["score"].tolist() == [1.0]  # the later judgment
    assert not ((df["model"] == "b") & (df["item_id"] == "q2")).any()  # the -1 row is dropped ...
    assert [e["model"] for e in table.excluded] == ["b"] and "score -1" in table.excluded[0]["reason"]  # ... listed
    dates = df.groupby("model")["date"].first().dt.strftime("%Y-%m-%d").to_dict()
    assert dates == {"a": "2024-08-31", "b": "2024-07-26", "c": "2024-11-25"}  # the release in force, not tstamp
    # An earlier release: q2 (released 2024-08-31) is not in it yet; qold still is.
    table = _load(fixture_server, tmp_path, "livebench", "judgments.parquet", questions=questions, release="2024-07-26")
    df = validate_responses(table.frame, "test")
    assert set(df["item_id"]) == {"q1", "q3", "qold"}


# HELM: no real copy can be had here. The fixture follows stanford-crfm/helm @ 63754d05:
# src/helm/benchmark/presentation/summarize.py (releases/<v>/summary.json, runs_to_run_suites.json, schema.json,
# runs.json), helm-frontend/src/services/getRunsToRunSuites.ts and getPerInstanceStatsByName.ts (URLs, each path
# component encoded), src/helm/benchmark/metrics/metric.py (PerInstanceStats), basic_metrics.py
# compute_request_state_metrics (num_references and num_train_trials come first), statistic.py (Stat fields),
# and static/schema_lite.yaml (gsm: main_name final_number_exact_match, main_split test).
def _stat(name: str, value: float, split: str = "test") -> dict:
    return {
        "name": {"name": name, "split": split},
        "count": 1,
        "sum": value,
        "sum_squared": value * value,
        "min": value,
        "max": value,
        "mean": value,
        "variance": 0.0,
        "stddev": 0.0,
    }


def _gsm_instance(i: int, correct: bool) -> dict:
    stats = [
        _stat("num_references", 1.0),
        _stat("num_train_trials", 1.0),
        _stat("prompt_truncated", 0.0),
        _stat("num_prompt_tokens", 812.0),
        _stat("num_output_tokens", 97.0),
        _stat("inference_runtime", 2.4),
        _stat("finish_reason_length", 0.0),
        _stat("exact_match_indicator", 0.0),
        _stat("final_number_exact_match", 1.0 if correct else 0.0),
    ]
    return {"instance_id": f"id{i}", "train_trial_index": 0, "stats": stats}


def _helm_fixture(root) -> None:
    release = root / "releases" / "v1.0.0"
    release.mkdir(parents=True)
    (release / "summary.json").write_text(
        json.dumps({"release": "v1.0.0", "suites": ["v1", "v2"], "date": "2025-01-01"})
    )
    schema = {
        "run_groups": [
            {
                "name": "gsm",
                "display_name": "GSM8K (Grade School Math)",
                "environment": {"main_name": "final_number_exact_match", "main_split": "test"},
            },
            {
                "name": "mmlu",
                "display_name": "MMLU (Massive Multitask Language Understanding)",
                "environment": {"main_name": "exact_match", "main_split": "test"},
            },
            {"name": "core_scenarios", "display_name": "Core scenarios", "subgroups": ["gsm", "mmlu"]},
        ],
        "metrics": [],
        "metric_groups": [],
        "models": [],
        "adapter": [],
        "perturbations": [],
    }
    (release / "schema.json").write_text(json.dumps(schema))
    runs = {
        "gsm:model=org_a,stop=none": ("gsm", {}, "org/a", [True, False, True, False]),
        "gsm:model=org_b": ("gsm", {}, "org/b", [True, True, True, False]),
        "mmlu:subject=anatomy,method=multiple_choice_joint,model=org_a": (
            "mmlu",
            {"subject": "anatomy"},
            "org/a",
            [1, 0],
        ),
        "mmlu:subject=virology,method=multiple_choice_joint,model=org_a": (
            "mmlu",
            {"subject": "virology"},
            "org/a",
            [0, 0],
        ),
        "mmlu:subject=anatomy,method=multiple_choice_joint,model=org_b": (
            "mmlu",
            {"subject": "anatomy"},
            "org/b",
            [1, 1],
        ),
    }
    listed, suite_of = [], {}
    for name, (group, args, model, answers) in runs.items():
        suite = "v2" if name == "gsm:model=org_b" else "v1"
        suite_of[name] = suite
        spec = {
            "name": name,
            "scenario_spec": {"class_name": f"helm.{group}", "args": args},
            "adapter_spec": {"model": model, "model_deployment": model},
            "groups": [group],
        }
        listed.append({"run_path": f"benchmark_output/runs/{suite}/{name}", "run_spec": spec, "stats": []})
        if name == "gsm:model=org_b":  # the same run also in the older suite, with other numbers
            listed.append({"run_path": f"benchmark_output/runs/v1/{name}", "run_spec": spec, "stats": []})
            stale = root / "runs" / "v1" / name
            stale.mkdir(parents=True)
            (stale / "per_instance_stats.json").write_text(json.dumps([_gsm_instance(i, False) for i in range(4)]))
        folder = root / "runs" / suite / name
        folder.mkdir(parents=True)
        if group == "gsm":
            insts = [_gsm_instance(i, c) for i, c in enumerate(answers)]
        else:
            insts = [
                {
                    "instance_id": f"id{i}",
                    "train_trial_index": 0,
                    "stats": [
                        _stat("num_references", 4.0),
                        _stat("exact_match", float(c)),
                        _stat("quasi_exact_match", 1.0),
                    ],
                }
                for i, c in enumerate(answers)
            ]
            # a perturbed copy of the first instance (robustness runs) is not a separate item
            insts.append(
                {
                    "instance_id": "id0",
                    "perturbation": {"name": "typos"},
                    "train_trial_index": 0,
                    "stats": [_stat("exact_match", 1.0)],
                }
            )
        (folder / "per_instance_stats.json").write_text(json.dumps(insts))
    (release / "runs.json").write_text(json.dumps(listed))
    (release / "runs_to_run_suites.json").write_text(json.dumps(suite_of))


def test_helm_release_layout_main_metric_and_runs_in_two_suites(fixture_server, tmp_path):
    _helm_fixture(fixture_server.root)
    table = _load(fixture_server, tmp_path, "helm", "", version="v1.0.0")
    df = validate_responses(table.frame, "test")
    gsm = df[df["benchmark"] == "HELM GSM8K (Grade School Math)"]
    means = gsm.groupby("model")["score"].mean().to_dict()
    assert means == {"org/a": 0.5, "org/b": 0.75}  # final_number_exact_match, not num_references (1.0)
    assert len(gsm[gsm["model"] == "org/b"]) == 4  # the run listed in two suites appears once, from its suite
    assert set(df["benchmark"]) == {
        "HELM GSM8K (Grade School Math)",
        "HELM MMLU (Massive Multitask Language Understanding)",
    }
    mmlu = df[df["benchmark"].str.startswith("HELM MMLU")]
    assert sorted(mmlu["item_id"].unique()) == [
        "subject=anatomy/id0",
        "subject=anatomy/id1",
        "subject=virology/id0",
        "subject=virology/id1",
    ]
    assert mmlu[mmlu["model"] == "org/a"]["score"].tolist() == [1.0, 0.0, 0.0, 0.0]  # exact_match, unperturbed


def test_helm_main_metric_override(fixture_server, tmp_path):
    _helm_fixture(fixture_server.root)
    table = _load(fixture_server, tmp_path, "helm", "", version="v1.0.0", main_metric="quasi_exact_match")
    df = validate_responses(table.frame, "test")
    assert (df[df["benchmark"].str.startswith("HELM MMLU")]["score"] == 1.0).all()


# csv: benchwatch's own long format (README, "Other inputs"), the producer being the user.
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


@pytest.mark.parametrize(
    ("source", "benchmark", "items"),
    [
        ("livecodebench_execution", "LiveCodeBench code execution", 26),
        ("livecodebench_repair", "LiveCodeBench self-repair", 5),
        ("livecodebench_testgen", "LiveCodeBench test output prediction", 5),
    ],
)
def test_livecodebench_other_scenarios_with_the_shipped_options(fixture_server, tmp_path, source, benchmark, items):
    """Excerpts of the real files (tests/sources/fixtures/livecodebench/SOURCE.md), read with the options of
    benchwatch.toml: one item per question (per question and sample for code execution); the rows of one
    question that nothing tells apart (test output prediction's test cases) averaged into one item."""
    import shutil
    import tomllib
    from pathlib import Path

    from tests.conftest import ROOT

    options = tomllib.loads((ROOT / "benchwatch.toml").read_text())["sources"][source]
    name = Path(options.pop("url")).name
    options.pop("adapter")
    fixture = Path(__file__).parent / "fixtures" / "livecodebench" / name
    shutil.copy(fixture, fixture_server.root / name)
    table = _load(fixture_server, tmp_path, "livecodebench", name, **options)
    df = validate_responses(table.frame, "test")
    assert set(df["benchmark"]) == {benchmark} and df["model"].nunique() == 3
    assert df.groupby("model")["item_id"].nunique().tolist() == [items] * 3
    raw = json.loads(fixture.read_text())["performances"]
    field = options.get("score_field", "pass@1")
    keys = options.get("item_fields", ["question_id"])
    want = (
        pd.DataFrame(
            [(r["model"], "/".join(str(r[k]) for k in keys), r[field] / 100) for r in raw],
            columns=["model", "item_id", "s"],
        )
        .groupby(["model", "item_id"], as_index=False)["s"]
        .mean()
    )
    got = df.merge(want, on=["model", "item_id"], how="outer", indicator=True)
    assert (got["_merge"] == "both").all() and (got["score"] - got["s"]).abs().max() < 1e-12
    repeated = len(raw) - len(want)
    assert (repeated > 0) == (source == "livecodebench_testgen") == bool(table.notes)


# all-the-noises: its two table shapes as in ../shared/upstream/all_the_noises (main/ and lowk_temp0.7/), each
# with its first, unnamed pandas index column.
_MAIN = ",benchmark_id,model,example_id,pass1,count,date,hyperparams\n"
_SAMPLED = ",model,benchmark_id,temperature,rl_thinking_length,example_id,count,correct,pass1\n"


@pytest.mark.parametrize(
    ("folder", "body", "words"),
    [
        ("main", _MAIN + "0,gsm8k,a,gsm8k/0,1.0,1.0,,\n1,gsm8k,b,gsm8k/0,0.5,2.5,,\n", ["'b'", "whole number", "2.5"]),
        ("main", _MAIN + "0,gsm8k,a,gsm8k/0,1.0,1.0,,\n1,gsm8k,b,gsm8k/0,1.5,1.0,,\n", ["'b'", "[0, 1]", "1.5"]),
        ("main", _MAIN + "0,gsm8k,a,gsm8k/0,1.0,1.0,,\n1,piqa,b,piqa/0,1.0,1.0,,\n", ["one benchmark_id", "piqa"]),
        ("lowk", _SAMPLED + "0,a,gpqa_cot,0.7,-1,0,10,11,1.1\n", ["'a'", "from 0 to count", "11"]),
        ("lowk", _SAMPLED + "0,a,gpqa_cot,0.7,-1,0,10,3,0.5\n", ["'a'", "pass1 is not correct / count", "0.5"]),
        ("lowk", _SAMPLED.replace("count,", "") + "0,a,gpqa_cot,0.7,-1,0,3,0.5\n", ["missing column", "count"]),
    ],
)
def test_all_the_noises_refuses_a_table_it_cannot_read_naming_the_model_and_value(
    fixture_server, tmp_path, folder, body, words
):
    _refused(fixture_server, tmp_path, "all_the_noises", f"{folder}/assets/tables/input_table_x.csv", body, words)


def _refused(server, tmp_path, adapter: str, path: str, body: str, words: list[str]) -> None:
    """``path`` served with ``body`` is refused by ``adapter``, the error naming the file and every one of ``words``."""
    (server.root / path).parent.mkdir(parents=True, exist_ok=True)
    (server.root / path).write_text(body)
    with pytest.raises(InputError) as info:
        _load(server, tmp_path, adapter, "", files=[path])
    text = str(info.value)
    assert path in text and all(w in text for w in words), text


def test_all_the_noises_two_tables_of_one_name_are_refused_until_one_is_named(fixture_server, tmp_path):
    """Two tables whose rows take one benchmark name (main/ and a version's names made equal by ``settings``) are
    never merged silently; ``names`` keeps them apart."""
    one, two = "main/assets/tables/input_table_mbpp.csv", "lowk_temp0.7/assets/tables/input_table_mbpp.csv"
    for path, body in ((one, _MAIN + "0,mbpp,a,Mbpp/2,1.0,1.0,,\n"), (two, _SAMPLED + "0,a,mbpp,0.7,-1,0,4,1,0.25\n")):
        (fixture_server.root / path).parent.mkdir(parents=True, exist_ok=True)
        (fixture_server.root / path).write_text(body)
    with pytest.raises(InputError, match="also that of"):
        _load(fixture_server, tmp_path / "a", "all_the_noises", "", files=[one, two], names={two: "mbpp"})
    table = _load(fixture_server, tmp_path / "b", "all_the_noises", "", files=[one, two])
    assert sorted(table.frame["benchmark"].unique()) == ["mbpp", "mbpp (T=0.7)"]
    assert table.frame.set_index("benchmark").loc["mbpp (T=0.7)", "trials"] == "4"


# Terminal-Bench: a run-level results file as in ../shared/upstream/terminal_bench (results/<dataset>@<version>/
# <submission>/<run>/results.json), cut to the fields the reader checks.
def _terminal_bench_run(results: list, **top) -> str:
    right = sum(r.get("is_resolved") is True for r in results)
    body = {"id": "r", "results": results, "n_resolved": right, "n_unresolved": len(results) - right}
    return json.dumps(body | {"accuracy": right / len(results)} | top)


_TRIAL = {"trial_name": "t.1-of-1.r", "task_id": "t", "is_resolved": True, "failure_mode": "unset"}


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        (
            "results/terminal-bench-core@0.1.1/20250101_a/r/results.json",
            _terminal_bench_run(
                [_TRIAL, {**_TRIAL, "task_id": "u", "trial_name": "u.1", "is_resolved": False}], accuracy=0.75
            ),
            ["accuracy", "1 of 2 trials resolved", "0.75"],
        ),
        (
            "results/terminal-bench-core@0.1.1/20250101_a/r/results.json",
            _terminal_bench_run([{**_TRIAL, "is_resolved": "yes"}]),
            ["is_resolved", "'t'", "yes"],
        ),
        (
            "results/terminal-bench-core@0.1.1/20250101_a/r/results.json",
            _terminal_bench_run([{k: v for k, v in _TRIAL.items() if k != "task_id"}]),
            ["results[0].task_id", "missing field"],
        ),
        ("elsewhere/results.json", _terminal_bench_run([_TRIAL]), ["not under a dataset's folder"]),
    ],
)
def test_terminal_bench_refuses_a_run_it_cannot_read_naming_the_field_and_value(
    fixture_server, tmp_path, path, body, words
):
    _refused(fixture_server, tmp_path, "terminal_bench", path, body, words)


def test_terminal_bench_null_trials_fail_and_a_run_listed_twice_counts_once(fixture_server, tmp_path):
    """A null is_resolved (an errored trial) is a 0, never a blank; a submission's two byte-identical run files are
    one run; a submission without a date prefix takes the newest date of its runs' paths."""
    sub = "results/terminal-bench-core@0.1.1"
    runs = {
        f"{sub}/20250102_a/r1/results.json": [
            _TRIAL,
            {**_TRIAL, "task_id": "u", "trial_name": "u", "is_resolved": None},
        ],
        f"{sub}/20250102_a/r2/results.json": [
            {**_TRIAL, "is_resolved": False},
            {**_TRIAL, "task_id": "u", "trial_name": "u"},
        ],
        f"{sub}/20250102_a/r2/copy/results.json": [
            {**_TRIAL, "is_resolved": False},
            {**_TRIAL, "task_id": "u", "trial_name": "u"},
        ],
        "results/terminal-bench-core:0.1.1/b-agent/run_20250903-0101/results.json": [_TRIAL],
    }
    for path, trials in runs.items():
        (fixture_server.root / path).parent.mkdir(parents=True, exist_ok=True)
        (fixture_server.root / path).write_text(_terminal_bench_run(trials))
    table = _load(fixture_server, tmp_path, "terminal_bench", "", files=list(runs))
    got = table.frame.set_index(["model", "item_id"])
    assert set(table.frame["benchmark"]) == {"terminal-bench-core 0.1.1"}  # "@" and ":": one benchmark
    assert got.loc[("20250102_a", "t"), ["score", "trials"]].tolist() == ["0.5", "2"]
    assert got.loc[("20250102_a", "u"), ["score", "trials"]].tolist() == ["0.5", "2"]  # the null a failure
    assert got.loc[("b-agent", "t"), ["score", "trials", "date"]].tolist() == ["1.0", "", "2025-09-03"]
    assert got.loc[("20250102_a", "t"), "date"] == "2025-01-02"
    assert any("1 trial(s) with is_resolved null" in n for n in table.notes)
    assert any("1 run-level file(s) identical" in n for n in table.notes)


# can-ai-code: a run's lines as in ../shared/upstream/can_ai_code (name, language, params, model, runtime, status,
# passed, total), found through a listing in the shape of GitHub's git trees API.
_CAC = "results/f/eval_junior-v2_python-javascript_Vicuna-1p1_none_precise_org-m-7b_{t}.ndjson"


def _cac_line(name="SanityList", language="python", model="org/m-7b", status="PASS", passed=5, total=5) -> str:
    row = {"name": name, "language": language, "params": "p", "model": model, "runtime": "vllm"}
    return json.dumps(row | {"status": status, "passed": passed, "total": total})


def _cac_serve(root, runs: dict[str, list[str]]) -> None:
    for path, lines in runs.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("\n".join(lines))
    tree = [{"path": p, "type": "blob"} for p in runs] + [{"path": "results/f", "type": "tree"}]
    (root / "tree.json").write_text(json.dumps({"sha": "0", "tree": tree, "truncated": False}))


@pytest.mark.parametrize(
    ("lines", "words"),
    [
        ([_cac_line(status="PASS", passed=4)], ["status", "4 of 5 checks passed", "PASS"]),
        ([_cac_line(passed=6)], ["passed", "6 of 5"]),
        ([_cac_line(passed=2.5)], ["passed", "2.5 of 5"]),
        ([_cac_line(), _cac_line(name="GCD", model="org/other")], ["two models in one run", "org/other"]),
        ([_cac_line(), _cac_line(status="FAIL", passed=1)], ["one test twice", "SanityList python"]),
        (
            [json.dumps({"name": "SanityList", "language": "python", "model": "m", "status": "PASS", "total": 5})],
            ["passed"],
        ),
    ],
)
def test_can_ai_code_refuses_a_run_it_cannot_read_naming_the_file_field_and_value(
    fixture_server, tmp_path, lines, words
):
    path = _CAC.format(t=1690410999)
    _cac_serve(fixture_server.root, {path: lines})
    with pytest.raises(InputError) as info:
        _load(fixture_server, tmp_path, "can_ai_code", "", index=fixture_server.url + "tree.json")
    text = str(info.value)
    assert path in text and all(w in text for w in words), text


def test_can_ai_code_repeated_runs_are_samples_of_one_model_and_a_truncated_listing_is_refused(
    fixture_server, tmp_path
):
    """A configuration run twice is one model whose cells hold both runs' checks (partial credit as trials), dated
    by its first run; another template is another model; a truncated listing is never read as the whole."""
    first, second = _CAC.format(t=1690410999), _CAC.format(t=1700000000)
    other = first.replace("Vicuna-1p1", "Alpaca")
    _cac_serve(
        fixture_server.root,
        {
            first: [_cac_line(passed=5), _cac_line(name="GCDZeroShot", status="FAIL", passed=1, total=3)],
            second: [
                _cac_line(status="FAIL", passed=2),
                _cac_line(name="GCDZeroShot", status="PASS", passed=3, total=3),
            ],
            other: [_cac_line(status="NO_CODE", passed=0)],
        },
    )
    table = _load(fixture_server, tmp_path / "a", "can_ai_code", "", index=fixture_server.url + "tree.json")
    got = table.frame.set_index(["model", "item_id"])
    twice = "org/m-7b (Vicuna-1p1, precise)"
    assert set(table.frame["benchmark"]) == {"can-ai-code junior-v2"}
    assert got.loc[(twice, "SanityList (python)"), ["score", "trials", "date"]].tolist() == ["0.7", "10", "2023-07-26"]
    assert got.loc[(twice, "GCDZeroShot (python)"), ["score", "trials"]].tolist() == [repr(4 / 6), "6"]
    assert got.loc[("org/m-7b (Alpaca, precise)", "SanityList (python)"), "score"] == "0.0"
    assert table.notes == ("1 configuration(s) run more than once: their runs are samples of one model",)
    doc = json.loads((fixture_server.root / "tree.json").read_text())
    (fixture_server.root / "tree.json").write_text(json.dumps(doc | {"truncated": True}))
    with pytest.raises(InputError, match="truncated"):
        _load(fixture_server, tmp_path / "b", "can_ai_code", "", index=fixture_server.url + "tree.json")
