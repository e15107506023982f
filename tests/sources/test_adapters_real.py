"""The adapters on the real upstream files, served byte for byte over real HTTP."""

from __future__ import annotations

import csv
import io
import zipfile

import pandas as pd
import pytest

from benchwatch.sources import Fetcher, SourceConfig, load_source
from benchwatch.store import validate_aggregates, validate_responses


def _load(server, tmp_path, adapter: str, path: str, **options):
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        return load_source(fetcher, SourceConfig(adapter, adapter, server.url + path, options))


def _shape(frame: pd.DataFrame) -> dict:
    df = validate_responses(frame, "test")
    return df.groupby("benchmark").agg(models=("model", "nunique"), items=("item_id", "nunique")).to_dict("index")


def test_swebench_one_per_item_benchmark_from_all_boards(shared_upstream, tmp_path):
    table = _load(shared_upstream, tmp_path, "swebench", "swebench/leaderboards.json")
    shape = _shape(table.frame)
    # bash-only and Verified carry the same 25 per-instance runs: one benchmark, each run once, 24 kept.
    assert shape == {"SWE-bench Verified": {"models": 24, "items": 500}}
    bad = "20250720_mini-v0.0.0-claude-3-7-sonnet-20250219"
    reasons = [e for e in table.excluded if e["model"] == bad]
    assert len(reasons) == 1 and "disagrees with the published 52.80%" in reasons[0]["reason"]
    assert bad not in set(table.frame["model"])
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    boards = aggs.groupby("benchmark")["model"].nunique().to_dict()
    assert boards == {
        "SWE-bench Lite (published scores)": 84,
        "SWE-bench Multimodal (published scores)": 22,
        "SWE-bench Test (published scores)": 23,
        "SWE-bench Verified (published scores)": 162,
        "SWE-bench bash-only (published scores)": 31,
    }
    assert table.pages["SWE-bench bash-only (published scores)"] == "SWE-bench Verified"
    assert table.pages["SWE-bench Verified (published scores)"] == "SWE-bench Verified"
    assert table.provenance["status"] == "fetched" and len(table.provenance["revision"]) == 12


def test_epoch_real_archive_reads_only_configured_files(shared_upstream, tmp_path):
    benchmarks = {
        "gpqa_diamond": {"n_items": 198},
        "math_level_5": {"n_items": 1324},
        "otis_mock_aime_2024_2025": {"n_items": 45},
        "frontiermath": {"n_items": 290},
        "mmlu_external": {"n_items": 14042, "score_column": "EM"},
        "aider_polyglot_external": {"n_items": 225, "score_column": "Percent correct", "percent": True},
        "no_such_file": {"n_items": 10},
    }
    table = _load(shared_upstream, tmp_path, "epoch", "epoch/benchmark_data.zip", benchmarks=benchmarks)
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    counts = aggs.groupby("benchmark")["model"].nunique().to_dict()
    assert counts == {
        "Epoch gpqa_diamond": 145,
        "Epoch math_level_5": 108,
        "Epoch otis_mock_aime_2024_2025": 119,
        "Epoch frontiermath": 74,
        "Epoch mmlu_external": 135,  # 247 rows: a model reported more than once keeps its best score
        "Epoch aider_polyglot_external": 62,
    }
    assert aggs["score"].between(0, 1).all() and aggs["score"].max() > 0.85
    gpqa = aggs[aggs["benchmark"] == "Epoch gpqa_diamond"].set_index("model")
    assert abs(gpqa.loc["gemini-3-flash-preview", "score"] - 0.8320707070707071) < 1e-12
    assert abs(gpqa.loc["gemini-3-flash-preview", "stderr"] - 0.019036353018587762) < 1e-12
    # Independently, from the CSV itself: rows with a model name, minus distinct names, are the repeats.
    with zipfile.ZipFile(shared_upstream.root / "epoch" / "benchmark_data.zip") as z:
        mmlu = list(csv.DictReader(io.TextIOWrapper(z.open("mmlu_external.csv"), encoding="utf-8")))
    named = [r["Model version"] for r in mmlu if r["Model version"].strip() and r["EM"].strip()]
    assert sum(e["benchmark"] == "Epoch mmlu_external" for e in table.excluded) == len(named) - len(set(named))
    unnamed = sum(1 for r in mmlu if not r["Model version"].strip())
    assert f"mmlu_external.csv: {unnamed} scored row(s) without a 'Model version' left out" in table.notes
    assert table.gone == ("Epoch no_such_file",)
    assert any("not configured, not read" in n for n in table.notes)


def test_livecodebench_fractional_scores_with_trials(shared_upstream, tmp_path):
    table = _load(shared_upstream, tmp_path, "livecodebench", "livecodebench/performances_generation.json")
    df = validate_responses(table.frame, "test")
    assert (df["model"].nunique(), df["item_id"].nunique()) == (16, 1055)
    assert df["trials"].notna().mean() > 0.99 and set(df["trials"].dropna().unique()) == {10}
    assert ((df["score"] * 10) % 1 == 0).all()


def test_evalarena_one_benchmark_per_file(shared_upstream, tmp_path):
    files = ["humaneval+.jsonl", "mbpp+.jsonl", "lcb_codegen.jsonl"]
    table = _load(shared_upstream, tmp_path, "evalarena", "evalarena/", files=files)
    assert _shape(table.frame) == {
        "humaneval+": {"models": 49, "items": 164},
        "mbpp+": {"models": 59, "items": 378},
        "lcb_codegen": {"models": 58, "items": 400},
    }


def test_evalarena_the_four_other_files_and_a_second_run_set_kept_apart(shared_upstream, tmp_path):
    """humaneval_hf.jsonl carries HumanEval's benchmark_id for 29 other models: without a name of its own it is
    an error (never merged into humaneval.jsonl's 49 models); named, it is a benchmark of its own."""
    import pytest

    from benchwatch.errors import InputError

    files = ["humaneval.jsonl", "mbpp.jsonl", "humaneval_hf.jsonl", "cruxeval_input.jsonl"]
    with pytest.raises(InputError, match=r"also that of humaneval\.jsonl"):
        _load(shared_upstream, tmp_path, "evalarena", "evalarena/", files=files)
    names = {"humaneval_hf.jsonl": "humaneval (HF base models)"}
    table = _load(shared_upstream, tmp_path, "evalarena", "evalarena/", files=files, names=names)
    assert _shape(table.frame) == {
        "humaneval": {"models": 49, "items": 164},
        "mbpp": {"models": 59, "items": 378},
        "humaneval (HF base models)": {"models": 29, "items": 164},
        "CRUXEval-input": {"models": 37, "items": 800},
    }


def test_evalplus_aggregate_table(shared_upstream, tmp_path):
    table = _load(shared_upstream, tmp_path, "evalplus", "evalplus/results.json")
    assert table.frame.empty
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    assert set(aggs["benchmark"]) == {"EvalPlus humaneval", "EvalPlus humaneval+", "EvalPlus mbpp", "EvalPlus mbpp+"}
    assert aggs.groupby("benchmark")["n_items"].first().to_dict()["EvalPlus humaneval+"] == 164
    assert aggs["score"].between(0, 1).all() and aggs["model"].nunique() > 100


MMLU_ZIPS = ["model_outputs_Llama-2-7b-hf_5shots.zip", "model_outputs_jamba-1.5-large_5shots.zip"]


def test_mmlu_pro_outputs_reproduce_each_models_accuracy_and_the_shared_long_table(
    shared_upstream, shared_data, tmp_path
):
    """The two real zips over loopback: each model's accuracy as the zip itself implies (counted here
    straight from its JSON), every category a benchmark of its own, and ../shared/data/mmlu_pro/ row for row."""
    import json

    table = _load(shared_upstream, tmp_path, "mmlu_pro", "mmlu_pro/", files=MMLU_ZIPS)
    df = validate_responses(table.frame, "test")
    overall = df[df["benchmark"] == "MMLU-Pro"]
    for file in MMLU_ZIPS:
        with zipfile.ZipFile(shared_upstream.root / "mmlu_pro" / file) as archive:
            records = json.loads(archive.read(archive.namelist()[0]))
        model = file.removeprefix("model_outputs_").removesuffix("_5shots.zip")
        right = sum(r["pred"] == r["answer"] for r in records if r["pred"] is not None)
        mine = overall[overall["model"] == model]
        assert len(mine) == len(records) == 12032
        assert mine["score"].mean() == right / len(records)
        by_category = df[(df["model"] == model) & (df["benchmark"] != "MMLU-Pro")]
        categories = {r["category"] for r in records}
        assert set(by_category["benchmark"]) == {f"MMLU-Pro {c}" for c in categories} and len(categories) == 14
        assert len(by_category) == len(records)  # each question in exactly one category
    shared = pd.read_csv(shared_data / "mmlu_pro" / "mmlu_pro.csv", dtype={"item_id": str})
    shared = shared[shared["model"].isin(overall["model"].unique())]
    merged = overall.merge(shared, on=["model", "item_id"], how="outer", suffixes=("", "_shared"), indicator=True)
    assert len(shared) == 2 * 12032 and (merged["_merge"] == "both").all()
    assert (merged["score"] == merged["score_shared"]).all()


def test_mmlu_pro_floor_is_one_over_each_questions_options_the_largest_count_any_file_gives(shared_upstream, tmp_path):
    """Each question's floor is one over its number of ``options``; the two real zips disagree about seven
    questions (the 2024-05 Llama-2-7b-hf file has one or two options for them, jamba's 2024-10 file the revised
    count): every row of such an item takes the larger count, so the item's rows agree. The counts match
    ../shared/data/mmlu_pro/SOURCE.md: 9,982 questions of 10 options, 801 of 9, ..., 20 of 3."""
    import json

    table = _load(shared_upstream, tmp_path, "mmlu_pro", "mmlu_pro/", files=MMLU_ZIPS)
    counts: dict[str, set[int]] = {}
    for file in MMLU_ZIPS:
        with zipfile.ZipFile(shared_upstream.root / "mmlu_pro" / file) as archive:
            for r in json.loads(archive.read(archive.namelist()[0])):
                counts.setdefault(str(r["question_id"]), set()).add(len(r["options"]))
    disagree = sorted((int(q), sorted(c)) for q, c in counts.items() if len(c) > 1)
    assert disagree == [
        (2129, [1, 4]),
        (2253, [1, 4]),
        (2453, [2, 5]),
        (3983, [2, 7]),
        (5664, [1, 4]),
        (5666, [1, 4]),
        (6921, [1, 10]),
    ]
    df = validate_responses(table.frame, "test")
    assert df["chance"].notna().all()
    assert df.groupby(["benchmark", "item_id"])["chance"].nunique().max() == 1  # one floor an item
    overall = df[df["benchmark"] == "MMLU-Pro"]
    got = overall.drop_duplicates("item_id").set_index("item_id")["chance"].to_dict()
    assert got == {q: 1 / max(c) for q, c in counts.items()}
    by_options = pd.Series({q: round(1 / v) for q, v in got.items()}).value_counts().to_dict()
    assert by_options == {10: 9982, 9: 801, 4: 607, 8: 320, 7: 158, 6: 92, 5: 52, 3: 20}
    assert table.chance_from == "each question's number of options (the options in the authors' outputs)"
    # the earliest file alone: its one-option questions have no floor (no choice to guess among), on every row
    early = _load(shared_upstream, tmp_path / "early", "mmlu_pro", "mmlu_pro/", files=MMLU_ZIPS[:1]).frame
    lone = early[early["item_id"].isin(["2129", "2253", "5664", "5666", "6921"])]
    assert len(lone) == 5 * 2 and set(lone["chance"]) == {""}  # MMLU-Pro and its category
    assert set(early[early["item_id"] == "2453"]["chance"]) == {repr(1 / 2)}


def test_epoch_samples_each_run_checked_against_epochs_published_score(shared_upstream, tmp_path):
    """Every kept run's per-sample mean equals its row of benchmarks_runs.csv (Epoch's best score, to 0.005);
    the three 8-epoch GPQA runs that disagree are listed with both numbers, not fitted."""
    runs_url = shared_upstream.url + "epoch_samples/benchmarks_runs.csv"
    table = _load(shared_upstream, tmp_path, "epoch_samples", "epoch_samples/parsed.csv", runs=runs_url)
    df = validate_responses(table.frame, "test")
    assert _shape(table.frame) == {
        "Epoch samples GPQA Diamond": {"models": 105, "items": 198},
        "Epoch samples OTIS Mock AIME 2024-2025": {"models": 81, "items": 45},
        "Epoch samples SWE-bench Verified": {"models": 14, "items": 500},
        "Epoch samples FrontierMath public": {"models": 40, "items": 10},
    }
    from benchwatch.sources.adapters.epoch_samples import BENCHMARKS

    runs = pd.read_csv(shared_upstream.root / "epoch_samples" / "benchmarks_runs.csv")
    runs = runs[runs["task"].isin(BENCHMARKS)]
    published = {
        (BENCHMARKS[t], m): v
        for t, m, v in zip(runs["task"], runs["model"], runs["Best score (across scorers)"], strict=True)
    }
    means = df.groupby(["benchmark", "model"])["score"].mean()
    checked = [(key, v) for key, v in means.items() if key in published]
    assert len(checked) >= 235 and all(abs(v - published[key]) <= 0.005 for key, v in checked)
    assert len(means) == 243 - 3  # every run of parsed.csv but the three that disagree
    disagree = sorted(e["model"].split(" (run ")[1].rstrip(")") for e in table.excluded)
    assert disagree == ["FQ8Ykq4JWRSXnyF9rbmLc7", "J9wjcQqKJ7hCSYnnoa5E9i", "fFGyQR2mfDufvrSV2rzWyV"]
    assert all("disagrees with Epoch's published best score" in e["reason"] for e in table.excluded)
    assert any("no published score to check" in n for n in table.notes)


def test_alpaca_eval_win_rates_recomputed_from_the_judges_preferences(shared_upstream, tmp_path):
    """Each model's per-instruction scores (preference - 1, as AlpacaEval's own scoring rule counts them)
    average to the leaderboard's win rate to 0.01 points, for all 20 models here."""
    import os

    models = sorted(os.listdir(shared_upstream.root / "alpaca_eval" / "results"))
    table = _load(shared_upstream, tmp_path, "alpaca_eval", "alpaca_eval/", models=models)
    assert not table.excluded
    df = validate_responses(table.frame, "test")
    assert _shape(table.frame) == {"AlpacaEval 2": {"models": 20, "items": 805}}
    board = pd.read_csv(
        shared_upstream.root / "alpaca_eval/src/alpaca_eval/leaderboards/data_AlpacaEval_2/"
        "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv",
        index_col=0,
    )
    rates = df.groupby("model")["score"].mean() * 100
    assert (rates - board.loc[rates.index, "win_rate"]).abs().max() < 0.01
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    assert len(aggs) == len(board) and aggs["stderr"].notna().all()


def test_livebench_site_tasks_and_categories_of_the_newest_release(shared_upstream, tmp_path):
    """Every category average equals the site's own rule (the mean of the category's non-empty cells),
    computed here from the table by hand; models dated by their first release."""
    import json
    import re

    root = shared_upstream.root / "livebench_site"
    releases = sorted(re.findall(r"table_(\d{4}_\d{2}_\d{2})\.csv", " ".join(p.name for p in root.iterdir())))
    table = _load(shared_upstream, tmp_path, "livebench_site", "livebench_site/", releases=releases)
    assert table.frame.empty
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    newest = pd.read_csv(root / f"table_{releases[-1]}.csv").set_index("model")
    categories = json.loads((root / f"categories_{releases[-1]}.json").read_text())
    assert aggs["benchmark"].nunique() == newest.shape[1] + len(categories) + 1  # tasks, categories, global
    for category, tasks in categories.items():
        board = aggs[aggs["benchmark"] == f"LiveBench {category}"].set_index("model")["score"]
        for model, row in newest.iterrows():
            cells = [row[t] for t in tasks if pd.notna(row[t])]
            assert board[model] * 100 == pytest.approx(sum(cells) / len(cells), abs=1e-9)
    first = {}
    for release in releases:
        for model in pd.read_csv(root / f"table_{release}.csv")["model"]:
            first.setdefault(model, release.replace("_", "-"))
    dates = aggs.drop_duplicates("model").set_index("model")["date"].dt.strftime("%Y-%m-%d")
    assert all(dates[m] == first[m] for m in newest.index)
    assert any("tasks of earlier releases not in the newest" in n for n in table.notes)


TABLES = "assets/tables/input_table_{}.csv"


def _cells(frame: pd.DataFrame, bench: str | list[str], trials: bool = True) -> set:
    df = validate_responses(frame, "test")
    df = df[df["benchmark"].isin([bench] if isinstance(bench, str) else bench)]
    extra = df["trials"] if trials else df["score"] * 0
    cells = zip(df["model"], df["item_id"], df["score"].round(12), extra, strict=True)
    return set(cells)


def test_all_the_noises_main_tables_continue_eval_arenas_benchmarks_cell_for_cell(shared_upstream, tmp_path):
    """main/'s tables are eval-arena's under the same ids, so a benchmark read from eval-arena continues: humaneval+,
    mbpp+ and mbpp the same cells; its humaneval eval-arena's two run sets together (49 + 29 models);
    CRUXEval-input-T0.2, named CRUXEval-input, eval-arena's cruxeval_input.jsonl, with what that file does not
    say: each cell's samples (1 to 10, where eval-arena's file gives the mean alone)."""
    files = [f"main/{TABLES.format(b)}" for b in ("humaneval+", "mbpp+", "mbpp", "humaneval", "CRUXEval-input-T0.2")]
    noises = _load(
        shared_upstream,
        tmp_path / "a",
        "all_the_noises",
        "all_the_noises/",
        files=files,
        names={files[4]: "CRUXEval-input"},
    ).frame
    arena = _load(
        shared_upstream,
        tmp_path / "b",
        "evalarena",
        "evalarena/",
        files=[
            "humaneval+.jsonl",
            "mbpp+.jsonl",
            "mbpp.jsonl",
            "humaneval.jsonl",
            "humaneval_hf.jsonl",
            "cruxeval_input.jsonl",
        ],
        names={"humaneval_hf.jsonl": "humaneval (HF base models)"},
    ).frame
    for bench in ("humaneval+", "mbpp+", "mbpp"):
        assert _cells(noises, bench) == _cells(arena, bench) and len(_cells(noises, bench)) > 8000
    assert _cells(noises, "CRUXEval-input", trials=False) == _cells(arena, "CRUXEval-input", trials=False)
    crux = validate_responses(noises, "t").query("benchmark == 'CRUXEval-input'")["trials"]
    assert (
        crux.notna().mean() > 0.9
        and validate_responses(arena, "t").query("benchmark == 'CRUXEval-input'")["trials"].isna().all()
    )
    assert _cells(noises, "humaneval") == _cells(arena, ["humaneval", "humaneval (HF base models)"])
    assert validate_responses(noises, "t").groupby("benchmark")["model"].nunique().to_dict() == {
        "CRUXEval-input": 37,
        "humaneval": 78,
        "humaneval+": 49,
        "mbpp": 59,
        "mbpp+": 59,
    }


def test_all_the_noises_sampled_versions_a_benchmark_per_setting_with_their_samples_as_trials(
    shared_upstream, tmp_path
):
    """lowk_temp0.7/ and highk_temp0.7/ share benchmark ids (aime2024_cot, math500_cot) and main/ shares mbpp: each
    setting is a benchmark of its own; a cell's trials are its samples (4 to 1,100) and its score right / samples,
    exactly; main/'s samples (1 to 10 in one table) the same way."""
    files = [
        f"lowk_temp0.7/{TABLES.format('aime2024_cot')}",
        f"highk_temp0.7/{TABLES.format('aime2024_cot')}",
        f"lowk_temp0.7/{TABLES.format('mbpp')}",
        f"main/{TABLES.format('mbpp')}",
        f"main/{TABLES.format('CRUXEval-output-T0.2')}",
    ]
    table = _load(shared_upstream, tmp_path, "all_the_noises", "all_the_noises/", files=files)
    df = validate_responses(table.frame, "test")
    shape = df.groupby("benchmark").agg(models=("model", "nunique"), items=("item_id", "nunique")).to_dict("index")
    assert shape == {
        "aime2024_cot (T=0.7)": {"models": 52, "items": 30},
        "aime2024_cot (T=0.7, high K)": {"models": 50, "items": 30},
        "mbpp (T=0.7)": {"models": 35, "items": 500},
        "mbpp": {"models": 59, "items": 378},
        "CRUXEval-output-T0.2": {"models": 37, "items": 800},
    }
    raw = pd.read_csv(shared_upstream.root / "all_the_noises" / files[1])
    high = df[df["benchmark"] == "aime2024_cot (T=0.7, high K)"].set_index(["model", "item_id"])
    for row in raw.sample(40, random_state=0).itertuples():
        cell = high.loc[(row.model, str(row.example_id))]
        assert cell["trials"] == row.count > 1 and cell["score"] * row.count == pytest.approx(row.correct, abs=1e-9)
    assert high["trials"].max() == 1100 and high["trials"].min() < 200
    crux = df[df["benchmark"] == "CRUXEval-output-T0.2"]
    assert crux["trials"].fillna(1).astype(int).value_counts().index.sort_values().tolist() == [1, 2, 3, 10]


@pytest.fixture(scope="module")
def terminal_bench_served(tmp_path_factory):
    """Terminal-Bench's zip served extracted, as its repository serves the files (the README of ../shared/upstream)."""
    from tests.conftest import SHARED
    from tests.sources.upstream_server import Upstream

    archive = SHARED / "upstream" / "terminal_bench" / "results.zip"
    if not archive.is_file():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    root = tmp_path_factory.mktemp("tb")
    with zipfile.ZipFile(archive) as z:
        z.extractall(root / "terminal_bench")
    with Upstream(root) as server:
        yield server, archive


def test_terminal_bench_each_submissions_runs_as_trials_its_accuracy_kept(terminal_bench_served, tmp_path):
    """The shipped configuration's 54 run-level files: 13 submissions x 80 tasks, every task 5 trials (one run
    listed twice read once), a null trial a failure; each submission's mean score the mean of its runs' own
    ``accuracy`` (which counts a null unresolved), read from the archive independently."""
    import json
    import tomllib

    from tests.conftest import ROOT

    server, archive = terminal_bench_served
    files = tomllib.loads((ROOT / "benchwatch.toml").read_text())["sources"]["terminal_bench"]["files"]
    assert len(files) == 54
    table = _load(server, tmp_path, "terminal_bench", "terminal_bench/", files=files)
    frame = validate_responses(table.frame, "test")
    assert _shape(table.frame) == {"terminal-bench-core 0.1.1": {"models": 13, "items": 80}}
    assert set(table.frame["trials"]) == {"5"}
    runs: dict[str, dict[bytes, float]] = {}
    nulls = 0
    with zipfile.ZipFile(archive) as z:
        for name in files:
            body = z.read(name)
            submission = name.split("/")[2]
            if body not in runs.setdefault(submission, {}):
                doc = json.loads(body)
                nulls += sum(t["is_resolved"] is None for t in doc["results"])
                runs[submission][body] = doc["accuracy"]
    assert sum(len(r) for r in runs.values()) == 53  # swe-agent-mini's nested copy read once
    mean = frame.groupby("model")["score"].mean()
    for submission, accuracies in runs.items():
        assert abs(mean[submission] - sum(accuracies.values()) / len(accuracies)) < 1e-12, submission
    assert nulls == 418 and any(f"{nulls} trial(s) with is_resolved null" in n for n in table.notes)
    dates = table.frame.groupby("model")["date"].first()
    assert dates["20250906_orchestrator_claude-4.1-opus"] == "2025-09-06"  # the ":" folder, the same benchmark
    assert dates["ob1-09-10-25"] == "2025-09-10"  # no prefix: its runs' paths


@pytest.fixture(scope="module")
def can_ai_code_served(tmp_path_factory):
    """can-ai-code's zip served extracted, with the listing GitHub's git trees API gives (``served_root``)."""
    from tests.sources.shipped import serve_copy

    yield from serve_copy(tmp_path_factory, "can_ai_code", "results.zip")


def test_can_ai_code_every_run_a_configuration_its_repeats_samples_of_it(can_ai_code_served, tmp_path):
    """1,196 runs: 1,118 configurations (681 junior-v2, 437 senior) over 28 and 6 items; a configuration run more
    than once holds every run's checks in its cells; the model named as its rows spell it. Checked against the
    archive read independently: each configuration's share of checks passed over all its runs."""
    import json
    import re

    server, archive = can_ai_code_served
    table = _load(server, tmp_path, "can_ai_code", "can_ai_code/", index=server.url + "can_ai_code/git-tree.json")
    shape = _shape(table.frame)
    assert shape == {
        "can-ai-code junior-v2": {"models": 681, "items": 28},
        "can-ai-code senior": {"models": 437, "items": 6},
    }
    want: dict[tuple, list[int]] = {}
    with zipfile.ZipFile(archive) as z:
        for name in z.namelist():
            found = re.search(r"eval_(.+)_\d+\.ndjson$", name)
            if found is None:
                continue
            tags = found.group(1).split("_")
            for line in z.read(name).decode().splitlines():
                row = json.loads(line)
                total = want.setdefault((tags[0], found.group(1)), [0, 0])
                total[0] += row["passed"]
                total[1] += row["total"]
    frame = table.frame.assign(
        right=table.frame["score"].astype(float) * table.frame["trials"].replace("", "1").astype(int)
    )
    frame["checks"] = frame["trials"].replace("", "1").astype(int)
    per_model = frame.groupby(["benchmark", "model"])[["right", "checks"]].sum()
    assert len(want) == len(per_model) == 1118
    shares = sorted(round(r / t, 9) for r, t in want.values())
    published = per_model["right"] / per_model["checks"]
    assert shares == sorted(round(float(x), 9) for x in published)
    # the codellama GGUF runs: the file's tag says Q4-K-M, the rows (and the published name) Q4_K_M
    assert any("Q4_K_M" in m for m in frame["model"]) and not any("Q4-K-M" in m for m in frame["model"])
    assert any("run more than once" in n for n in table.notes)
