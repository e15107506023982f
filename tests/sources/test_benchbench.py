"""IBM BenchBench's catalogue (issue 59): fixtures for each rule of the adapter, and the real copy
(../shared/upstream/benchbench) read through the shipped configuration over loopback, checked against the CSVs read
independently here with the csv module."""

from __future__ import annotations

import csv
import tomllib
from pathlib import Path

import pytest

from benchwatch.errors import InputError
from benchwatch.sources import Fetcher, SourceConfig, load_config, load_source
from benchwatch.store import validate_aggregates
from benchwatch.store.naming import clean_name
from tests.conftest import ROOT

FOLDER = "src/bat/assets/benchmarks/"
LOWER = "src/bat/assets/lower_is_better_benchmarks.txt"


def _serve(root: Path, files: dict[str, str], lower: str = "helm_airbench_240916\nllm_trustworthy_241001") -> None:
    for stem, body in files.items():
        path = root / "bb" / FOLDER / f"{stem}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    (root / "bb" / LOWER).write_text(lower, encoding="utf-8")


def _load(server, tmp_path: Path, boards: dict, **options):
    cfg = SourceConfig("benchbench", "benchbench", server.url + "bb/", {"boards": boards, **options})
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        return load_source(fetcher, cfg)


BOARD = {"n_items": 100, "scale": "percent"}


def test_benchbench_boards_dates_duplicates_and_rows_without_a_score(fixture_server, tmp_path):
    """Each rule on small files in the catalogue's shape (no final newline, as upstream)."""
    _serve(
        fixture_server.root,
        {
            # m2 twice with one score (one row), m5 twice with two (both left out), m3/m4 no score, m6 a bare name
            "a_240829_x": "model,acc\nm1,50\nm2,75.5\nm2,75.50\nm3,\nm4,-\nm5,10\nm5,20\nm6",
            "b_241189_y": "llm_model,avg,part\nx,0.5,0.1\ny,0.25,0.2",  # lvbench's first column, a stem with no date
            "c_240601_230701_z": "model,s\nq,1",  # two dates: the newer
        },
    )
    boards = {
        "a_240829_x": {**BOARD, "label": "A"},
        "b_241189_y": [
            {"n_items": 20, "scale": "fraction", "score_column": "avg"},
            {"n_items": 8, "scale": "fraction", "score_column": "part", "label": "B part"},
        ],
        "c_240601_230701_z": {"n_items": 5, "scale": "percent"},
    }
    table = _load(fixture_server, tmp_path, boards, prefix="bb ")
    rows = {(r.benchmark, r.model): (r.score, r.n_items, r.date) for r in table.aggregates.itertuples()}
    assert rows == {
        ("bb A", "m1"): (0.5, 100, "2024-08-29"),
        ("bb A", "m2"): (0.755, 100, "2024-08-29"),
        ("bb b_241189_y/avg", "x"): (0.5, 20, ""),
        ("bb b_241189_y/avg", "y"): (0.25, 20, ""),
        ("bb B part", "x"): (0.1, 8, ""),
        ("bb B part", "y"): (0.2, 8, ""),
        ("bb c_240601_230701_z", "q"): (0.01, 5, "2024-06-01"),
    }
    reasons = {e["model"]: e["reason"] for e in table.excluded}
    assert all(e["benchmark"] == "bb A" for e in table.excluded) and set(reasons) == {"m3", "m4", "m5", "m6"}
    assert reasons["m3"] == "no score in a_240829_x.csv (its cell is '')"
    assert reasons["m4"] == "no score in a_240829_x.csv (its cell is '-')"
    assert reasons["m6"] == "no score in a_240829_x.csv (the line holds its name alone)"
    assert "listed 2 times in a_240829_x.csv with different scores (10, 20)" in reasons["m5"]
    assert "a_240829_x.csv: 1 row(s) repeating a model's score read once (A)" in table.notes
    assert "b_241189_y: 241189 is no date (YYMMDD): its rows carry no date" in table.notes
    assert any(
        n.startswith("c_240601_230701_z: the name carries 240601, 230701: dated 2024-06-01") for n in table.notes
    )
    validate_aggregates(table.aggregates.astype(str), "test")  # the store takes it as it is


def test_benchbench_names_spelled_alike_are_one_model(fixture_server, tmp_path):
    """Two spellings the store would merge (clean_name) are one model: the same score one row, two scores none."""
    _serve(fixture_server.root, {"d_240829_x": "model,s\nGPT 4,40\nGPT  4 ,40\nm  x,1\nm x,2"})
    table = _load(fixture_server, tmp_path, {"d_240829_x": BOARD})
    assert table.aggregates[["model", "score"]].values.tolist() == [["GPT 4", 0.4]]
    assert [e["model"] for e in table.excluded] == ["m  x"]


@pytest.mark.parametrize(
    ("body", "spec", "words"),
    [
        ("model,s\na,1\nb,100.5", BOARD, ["'b'", "100.5", "[0, 100]", "percent"]),
        ("model,s\na,-3\nb,1", BOARD, ["'a'", "'-3'"]),
        ("model,s\na,n/a\nb,1", BOARD, ["'a'", "'n/a'", "column 's'"]),
        ("model,s\na,nan\nb,1", BOARD, ["'a'", "'nan'"]),
        ("model,s\na,inf\nb,1", BOARD, ["'a'", "'inf'"]),
        ("model,s\na,0.5\nb,1.2", {"n_items": 9, "scale": "fraction"}, ["'b'", "1.2", "[0, 1]", "fraction"]),
        ("model,s\na,1\nb,", BOARD, ["cut short", "line 3"]),  # stopped right after a separator
        ("model,s,t\na,1,2\nb,1", {**BOARD, "score_column": "s"}, ["2 of the header's 3 fields", "line 3"]),
        ("model,s,t\na,1,2,3\nb,1,2", {**BOARD, "score_column": "s"}, ["4 of the header's 3 fields"]),
        ("model,s,t\na,1,2", BOARD, ["several score columns", "score_column"]),
        ("model,s\na,1", {**BOARD, "score_column": "acc"}, ["missing score column", "'acc'"]),
        ("name,s\na,1", BOARD, ["the first column is not the model's", "'name'"]),
        ("model,s\n,1", BOARD, ["without a model name", "line 2"]),
        ("", BOARD, ["empty body"]),
        ("<!DOCTYPE html>\n<html><body>rate limited</body></html>", BOARD, ["the first column is not the model's"]),
    ],
)
def test_benchbench_refuses_a_file_it_cannot_read_naming_the_file_model_and_value(
    fixture_server, tmp_path, body, spec, words
):
    _serve(fixture_server.root, {"e_240829_x": body})
    with pytest.raises(InputError) as info:
        _load(fixture_server, tmp_path, {"e_240829_x": spec})
    text = str(info.value)
    assert f"{FOLDER}e_240829_x.csv" in text and all(w in text for w in words), text


def test_benchbench_refuses_a_lower_is_better_board_matching_the_list_by_stem_prefix(fixture_server, tmp_path):
    """The list names ``<source>_<date>``: it matches the stem itself or the stem's name before ``_<category>``,
    never a longer name that merely starts with it."""
    files = {"helm_airbench_240916_safety": "model,s\na,0.5", "helm_airbench_2409160_x": "model,s\na,0.5"}
    _serve(fixture_server.root, files, lower="helm_airbench_240916\n\nllm_trustworthy_241001_safety\n")
    with pytest.raises(InputError) as info:
        _load(fixture_server, tmp_path / "a", {"helm_airbench_240916_safety": BOARD})
    text = str(info.value)
    assert "'helm_airbench_240916_safety' is listed as lower-is-better ('helm_airbench_240916')" in text
    assert LOWER in text
    table = _load(fixture_server, tmp_path / "b", {"helm_airbench_2409160_x": BOARD})  # not the listed board
    assert table.aggregates["score"].tolist() == [0.005]
    (fixture_server.root / "bb" / FOLDER / "llm_trustworthy_241001_safety.csv").write_text("model,s\na,1")
    with pytest.raises(InputError, match="listed as lower-is-better"):  # a line giving the whole stem
        _load(fixture_server, tmp_path / "c", {"llm_trustworthy_241001_safety": BOARD})


@pytest.mark.parametrize(
    ("boards", "words"),
    [
        ({}, ["no boards configured"]),
        ({"x_240829_y": {"n_items": 0, "scale": "percent"}}, ["n_items", "greater than or equal to 1"]),
        ({"x_240829_y": {"n_items": 5.0, "scale": "percent"}}, ["n_items", "valid integer"]),
        ({"x_240829_y": {"n_items": 5, "scale": "pct"}}, ["scale", "'percent' or 'fraction'"]),
        ({"x_240829_y": {"n_items": 5}}, ["scale", "required"]),
        ({"x_240829_y": {"n_items": 5, "scale": "percent", "percent": True}}, ["unknown option", "percent"]),
        ({"../x": BOARD}, ["file stem", "'../x'"]),
        ({"x/y": BOARD}, ["file stem", "'x/y'"]),
        ({"x_240829_y": [BOARD, {**BOARD, "score_column": "s"}]}, ["its own score column", "boards.x_240829_y"]),
        ({"a_1": {**BOARD, "label": "L"}, "b_2": {**BOARD, "label": "L"}}, ["two boards with one label", "'L'"]),
    ],
)
def test_benchbench_refuses_a_bad_board_spec_before_any_fetch(tmp_path, boards, words):
    cfg = SourceConfig("benchbench", "benchbench", "http://127.0.0.1:9/never/", {"boards": boards})
    with Fetcher(tmp_path / "cache", retries=0) as fetcher, pytest.raises(InputError) as info:
        load_source(fetcher, cfg)
    assert all(w in str(info.value) for w in words), str(info.value)


# -- the real copy ---------------------------------------------------------------------------------------------


def _real(server, name: str) -> list[list[str]]:
    """A real file's rows, read here with the csv module (blank lines skipped)."""
    path = server.root / "benchbench" / FOLDER / f"{name}.csv"
    with path.open(newline="", encoding="utf-8") as f:
        return [r for r in csv.reader(f) if r]


def _expected(rows: list[list[str]], column: str, top: float) -> tuple[dict[str, float], set[str], set[str]]:
    """What the rules give, computed apart: the kept models and scores, the models with two scores, the models
    without one."""
    index = rows[0].index(column)
    scores: dict[str, set[float]] = {}
    first: dict[str, str] = {}
    missing = set()
    for r in rows[1:]:
        cell = r[index].strip() if index < len(r) else ""
        if cell in ("", "-"):
            missing.add(r[0])
            continue
        scores.setdefault(clean_name(r[0]), set()).add(float(cell))
        first.setdefault(clean_name(r[0]), r[0])
    kept = {first[k]: v.pop() / top for k, v in scores.items() if len(v) == 1}
    return kept, {first[k] for k, v in scores.items() if len(v) > 1}, missing


def test_benchbench_shipped_boards_on_the_real_catalogue(shared_upstream, tmp_path):
    """The shipped configuration's boards read from the real copy over loopback: every board's models and scores
    as the CSV read here gives them, dated by its file name; 21 boards."""
    from tests.sources.shipped import shipped_config_on

    config = load_config(shipped_config_on(shared_upstream, tmp_path))
    cfg = config.sources["benchbench"]
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        table = load_source(fetcher, cfg)
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    shipped = tomllib.loads((ROOT / "benchwatch.toml").read_text())["sources"]["benchbench"]["boards"]
    seen = set()
    for stem, given in shipped.items():
        rows = _real(shared_upstream, stem)
        for spec in given if isinstance(given, list) else [given]:
            column = spec.get("score_column", rows[0][1])
            name = "benchbench " + spec["label"]
            seen.add(name)
            kept, twice, missing = _expected(rows, column, 100.0 if spec["scale"] == "percent" else 1.0)
            board = aggs[aggs["benchmark"] == name]
            got = dict(zip(board["model"], board["score"], strict=True))
            assert got.keys() == kept.keys(), name
            assert all(abs(got[m] - kept[m]) < 1e-12 for m in kept), name
            assert set(board["n_items"]) == {spec["n_items"]}
            left = {e["model"] for e in table.excluded if e["benchmark"] == name}
            assert left == twice | missing, name
    assert set(aggs["benchmark"]) == seen and len(seen) == 21
    counts = aggs.groupby("benchmark").size()
    assert counts["benchbench MMLU-Pro"] == 82
    assert counts["benchbench AlpacaEval 2 LC win rate"] == 195  # 197 rows, GPT_3.5_Turbo_(06/13) twice: out
    assert counts["benchbench MixEval"] == 70  # 71 rows, LLaMA-3.1-405B-Instruct's '-' left out
    mmlu = aggs[aggs["benchmark"] == "benchbench MMLU-Pro"]
    assert set(mmlu["date"].astype(str)) == {"2024-08-29"}
    lcb = aggs[aggs["benchmark"] == "benchbench LiveCodeBench 2023-07 to 2024-06"]
    assert set(lcb["date"].astype(str)) == {"2024-06-01"} and len(lcb) == 53
    assert len(aggs) == 82 + 59 + 195 + 61 + 53 + 70 + 33 + 14 * 70  # every LiveBench board: its 70 models


def test_benchbench_oddities_of_the_real_catalogue(shared_upstream, tmp_path):
    """SOURCE.md's oddities, each on its real file: models listed twice with two scores (bfcl, the Open LLM
    Leaderboards, hydrox, AlpacaEval) left out naming both values, an exact repeat read once, the row without a
    score, lvbench's ``llm_model`` column and non-date, livecodebench's two dates, an Elo board refused as
    off-scale, and the lower-is-better list matched by stem prefix."""
    boards = {
        "bfcl_240906_tools": BOARD,
        "hf_open_llm_v1_240829_holistic": BOARD,
        "hf_open_llm_v2_240829_holistic": BOARD,
        "hydrox_safety_241001_safety": {**BOARD, "score_column": "hydrox_overall_score"},
        "alphacaeval_v2lc_240829_holistic": BOARD,
        "opencompass_academic_240829_holistic": BOARD,
        "lvbench_241189_longcontext": {**BOARD, "score_column": "average"},
    }
    server = shared_upstream
    cfg = SourceConfig("benchbench", "benchbench", server.url + "benchbench/", {"boards": boards})
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        table = load_source(fetcher, cfg)
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    twice = {}
    for stem, spec in boards.items():
        rows = _real(server, stem)
        kept, two, missing = _expected(rows, spec.get("score_column", rows[0][1]), 100.0)
        assert dict(aggs[aggs["benchmark"] == stem][["model", "score"]].values.tolist()) == pytest.approx(kept)
        twice[stem] = len(two)
        assert {e["model"] for e in table.excluded if e["benchmark"] == stem} == two | missing
    assert twice == {
        "bfcl_240906_tools": 14,
        "hf_open_llm_v1_240829_holistic": 11,
        "hf_open_llm_v2_240829_holistic": 8,  # of 9 repeated: google/flan-t5-xl's two rows are equal
        "hydrox_safety_241001_safety": 8,
        "alphacaeval_v2lc_240829_holistic": 1,
        "opencompass_academic_240829_holistic": 0,
        "lvbench_241189_longcontext": 0,
    }
    reasons = {(e["benchmark"], e["model"]): e["reason"] for e in table.excluded}
    assert "different scores (84.74, 45.61)" in reasons[("bfcl_240906_tools", "GPT-4-0613")]
    assert "(22.7, 22.4)" in reasons[("alphacaeval_v2lc_240829_holistic", "GPT_3.5_Turbo_(06/13)")]
    flan = aggs[(aggs["benchmark"] == "hf_open_llm_v2_240829_holistic") & (aggs["model"] == "google/flan-t5-xl")]
    assert flan["score"].tolist() == [pytest.approx(0.1159)]
    assert "hf_open_llm_v2_240829_holistic.csv: 1 row(s) repeating a model's score read once" in " ".join(table.notes)
    academic = ("opencompass_academic_240829_holistic", "Mistral-7B-Instruct-v0.3")
    assert reasons[academic] == "no score in opencompass_academic_240829_holistic.csv (the line holds its name alone)"
    lv = aggs[aggs["benchmark"] == "lvbench_241189_longcontext"]
    assert len(lv) == 10 and lv["date"].isna().all()
    assert lv.set_index("model").loc["ChatGLM3-6B", "score"] == pytest.approx(0.1873509091)
    assert "lvbench_241189_longcontext: 241189 is no date (YYMMDD): its rows carry no date" in table.notes
    for stem, words in (
        ("opencompass_arena_240829_holistic", ["opencompass_arena_240829_holistic.csv", "'GPT-40-20240513'", "1090"]),
        ("helm_airbench_240916_safety", ["'helm_airbench_240916_safety' is listed as lower-is-better", LOWER]),
        ("llm_trustworthy_241001_safety", ["'llm_trustworthy_241001_safety' is listed as lower-is-better"]),
    ):
        spec = {**BOARD, "score_column": "HELM_AIRBENCH_AIR_Score"} if stem.startswith("helm") else BOARD
        cfg = SourceConfig("benchbench", "benchbench", server.url + "benchbench/", {"boards": {stem: spec}})
        with Fetcher(tmp_path / stem, retries=0) as fetcher, pytest.raises(InputError) as info:
            load_source(fetcher, cfg)
        assert all(w in str(info.value) for w in words), str(info.value)
