"""Chance floors where no data carry them: ``chance`` in benchwatch.toml (a source's, a benchmark's), checked
when the file is read; the user's own ``chance`` column through every path that reads a long CSV; and the
rule that makes one floor an item."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchwatch.cli import main
from benchwatch.errors import InputError
from benchwatch.rules import rules_from_config
from benchwatch.sources import Fetcher, SourceConfig, configured_chance, load_config, load_source, read_input
from benchwatch.sources.inspect_logs import table_from_epochs
from benchwatch.sources.table import LONG_COLUMNS, long_columns, with_chance
from benchwatch.store import validate_responses

SOURCE = '[sources.mine]\nadapter = "csv"\nurl = "scores.csv"\n'


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "benchwatch.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_sources_chance_is_read_as_a_float_and_left_out_when_not_set(tmp_path):
    config = load_config(_config(tmp_path, SOURCE + "chance = 0.25\n\n[sources.other]\nadapter = 'csv'\nurl = 'x'\n"))
    assert config.sources["mine"].options == {"chance": 0.25}
    assert config.sources["other"].options == {}
    zero = load_config(_config(tmp_path, SOURCE + "chance = 0\n")).sources["mine"].options["chance"]
    assert zero == 0.0 and isinstance(zero, float)


@pytest.mark.parametrize("value", ["1", "1.0", "1.5", "-0.25", '"0.25"', "true", "nan", "inf", "[0.25]"])
def test_a_sources_chance_outside_0_1_names_the_file_the_field_and_the_value(tmp_path, value):
    path = _config(tmp_path, SOURCE + f"chance = {value}\n")
    with pytest.raises(InputError) as err:
        load_config(path)
    text = str(err.value)
    assert err.value.source == str(path) and err.value.field == "sources.mine.chance"
    assert "[0, 1)" in text and "column 'sources.mine.chance'" in text and "(value: " in text
    assert "\n" not in text


def test_the_benchmarks_configured_floor_wins_over_the_sources():
    book = rules_from_config({"benchmarks": {"MMLU": {"chance": 0.25}, "ARC": {"ceiling": 0.9}}})
    assert configured_chance({"chance": 0.2}, book, "MMLU") == (
        0.25,
        "configured: chance = 0.25 for this benchmark in benchwatch.toml",
    )
    assert configured_chance({"chance": 0.2}, book, "ARC") == (
        0.2,
        "configured: chance = 0.2 for this source in benchwatch.toml",
    )
    assert configured_chance({}, book, "MMLU")[0] == 0.25
    assert configured_chance({}, book, "ARC") is None and configured_chance({"files": []}, None, "ARC") is None
    assert configured_chance({"chance": 0.0}, None, "x", config="my.toml") == (
        0.0,
        "configured: chance = 0 for this source in my.toml",
    )
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        configured_chance({"chance": 1.5}, None, "x")  # never from load_config, which refuses it


def test_the_configured_floor_reaches_the_helper_from_the_file(tmp_path):
    path = _config(
        tmp_path, SOURCE + 'chance = 0.2\n\n[rules.benchmarks."MMLU"]\nchance = 0.25\n\n[rules.benchmarks."ARC"]\n'
    )
    config = load_config(path)
    book = rules_from_config(config.rules, str(config.path), config.benchmarks)
    options = config.sources["mine"].options
    assert configured_chance(options, book, "MMLU")[0] == 0.25 and configured_chance(options, book, "ARC")[0] == 0.2


FLOORS = "benchmark,model,item_id,score,chance\nb,m1,i1,1,0.25\nb,m2,i1,0,0.25\nb,m1,i2,1,\nb,m2,i2,0,\n"


def test_the_csv_adapter_keeps_the_files_chance_column(tmp_path):
    (tmp_path / "scores.csv").write_text(FLOORS, encoding="utf-8")
    cfg = SourceConfig("mine", "csv", str(tmp_path / "scores.csv"), {})
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        table = load_source(fetcher, cfg)
    assert table.chance_from == "a chance column in the file"
    df = validate_responses(table.frame, table.location)
    assert df.set_index(["model", "item_id"])["chance"].to_dict() == pytest.approx(
        {("m1", "i1"): 0.25, ("m2", "i1"): 0.25, ("m1", "i2"): float("nan"), ("m2", "i2"): float("nan")},
        nan_ok=True,
    )
    (tmp_path / "plain.csv").write_text("benchmark,model,item_id,score\nb,m,i,1\n", encoding="utf-8")
    with Fetcher(tmp_path / "cache2", retries=0) as fetcher:
        plain = load_source(fetcher, SourceConfig("plain", "csv", str(tmp_path / "plain.csv"), {}))
    assert plain.chance_from is None and list(plain.frame.columns) == ["benchmark", "model", "item_id", "score"]


@pytest.mark.parametrize("command", ["audit", "run"])
def test_audit_and_run_input_validate_the_files_chance_column(tmp_path, capsys, command):
    """A floor of 1.5 on line 3 of the user's file is refused with the file, the line and the column: the
    column reached validation by both commands that read a local file."""
    path = tmp_path / "scores.csv"
    path.write_text(FLOORS.replace("b,m2,i1,0,0.25", "b,m2,i1,0,1.5"), encoding="utf-8")
    argv = ["audit", str(path)]
    if command == "run":
        argv = ["run", "--input", str(path), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
    assert main([*argv, "--no-site"] if command == "run" else argv) != 0
    captured = capsys.readouterr()
    said = captured.err + captured.out
    assert "scores.csv, line 3, column 'chance'" in said and "1.5" in said


def test_a_folder_of_logs_of_several_kinds_keeps_the_floors_of_those_that_carry_them():
    """The suite's committed harness and Inspect logs read as one folder: toy_mc's floors (3 choices a
    question in that run), blank (not missing) for the Inspect tasks and the generative task."""
    pytest.importorskip("inspect_ai", reason='the Inspect logs are read with inspect_ai (".[inspect]")')
    logs = Path(__file__).parent / "eee_data" / "logs"
    table = read_input(logs)
    frame = table.frame
    assert table.chance_from == "each sample's number of choices (lm-evaluation-harness's arguments)"
    assert frame["chance"].notna().all()
    assert frame.groupby("benchmark")["chance"].agg(set).to_dict() == {
        "toy_binary": {""},
        "toy_credit/numeric": {""},
        "toy_credit/partial": {""},
        "toy_gen": {""},
        "toy_mc": {repr(1 / 3)},
    }
    harness = json.loads(next((logs / "harness").rglob("samples_toy_mc_*.jsonl")).open().readline())
    assert len(harness["arguments"]) == len(harness["doc"]["choices"]) == 3


def test_one_floor_an_item_the_smallest_any_row_gives_and_no_column_without_floors():
    frame = pd.DataFrame(
        {
            "benchmark": ["b", "b", "b", "c", "b"],
            "model": ["m1", "m2", "m3", "m1", "m1"],
            "item_id": ["i", "i", "i", "i", "j"],
        }
    )
    out, words = with_chance(frame, pd.Series([0.25, None, 0.5, None, None]), "from here")
    assert out["chance"].tolist() == ["0.25", "0.25", "0.25", "", ""] and words == "from here"
    same, none = with_chance(frame, pd.Series([None] * 5), "from here")
    assert same is frame and none is None and "chance" not in same.columns
    assert long_columns(out) == [*LONG_COLUMNS, "chance"] and long_columns(frame) == LONG_COLUMNS
    # per-epoch rows without floors (five fields, or a sixth that is None) make the six columns they always did
    rows = [("b", "m", "i", 1.0, "2026-01-01"), ("b", "m", "i", 0.0, "2026-01-01")]
    plain = table_from_epochs(rows, "x", "x", chance_from="words")
    assert list(plain.frame.columns) == LONG_COLUMNS and plain.chance_from is None
    assert table_from_epochs([(*r, None) for r in rows], "x", "x").frame.equals(plain.frame)
    floored = table_from_epochs([(*rows[0], 0.25), (*rows[1], 0.25)], "x", "x", chance_from="words")
    assert floored.frame["chance"].tolist() == ["0.25"] and floored.chance_from == "words"
    assert floored.frame["trials"].tolist() == ["2"] and floored.frame["score"].tolist() == ["0.5"]
