"""Validation of the common long table at the edge: one clear error per bad file."""

from __future__ import annotations

import pandas as pd
import pytest

from benchwatch.errors import InputError
from benchwatch.sources import fetch_csv_file
from benchwatch.store import content_revision, validate_responses

GOOD = "benchmark,model,item_id,score,date,trials\nb,m1,i1,1,2025-01-02,\nb,m1,i2,0.4,2025-01-02,5\n"


def _load(tmp_path, text: str, name: str = "scores.csv") -> pd.DataFrame:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    table = fetch_csv_file(path)
    return validate_responses(table.frame, table.location)


def test_good_file_is_typed_and_sorted(tmp_path):
    df = _load(tmp_path, GOOD)
    assert list(df.columns) == ["benchmark", "model", "item_id", "score", "date", "trials"]
    assert df["score"].tolist() == [1.0, 0.4]
    assert str(df["date"].iloc[0].date()) == "2025-01-02"
    assert df["trials"].isna().tolist() == [True, False] and df["trials"].iloc[1] == 5


def test_missing_benchmark_column_defaults_to_file_stem(tmp_path):
    df = _load(tmp_path, "model,item_id,score\nm,i,1\n", name="mbpp_plus.csv")
    assert df["benchmark"].unique().tolist() == ["mbpp_plus"]


@pytest.mark.parametrize(
    ("text", "line", "column", "value", "words"),
    [
        ("benchmark,model,score\nb,m,1\n", None, None, None, "missing required column(s) item_id"),
        ("benchmark,model,item_id,score\nb,m,i,1.5\n", 2, "score", "1.5", "[0, 1]"),
        ("benchmark,model,item_id,score\nb,m,i,1\nb,m,j,-0.1\n", 3, "score", "-0.1", "[0, 1]"),
        ("benchmark,model,item_id,score\nb,m,i,NaN\n", 2, "score", "NaN", "not a number"),
        ("benchmark,model,item_id,score\nb,m,i,\n", 2, "score", "", "missing"),
        ("benchmark,model,item_id,score,date\nb,m,i,1,2025-13-40\n", 2, "date", "2025-13-40", "ISO date"),
        ("benchmark,model,item_id,score,trials\nb,m,i,1,2.5\n", 2, "trials", "2.5", "whole number"),
        ("benchmark,model,item_id,score\nb,,i,1\n", 2, "model", "", "empty"),
        ("benchmark,model,item_id,score\nb,m,i,1\nb,m,j,0\nb,m,i,0\n", 2, "item_id", "('b', 'm', 'i')", "lines 2, 4"),
    ],
)
def test_bad_rows_name_file_line_column_and_value(tmp_path, text, line, column, value, words):
    with pytest.raises(InputError) as err:
        _load(tmp_path, text)
    message = str(err.value)
    assert "scores.csv" in message
    assert words in message
    if line is not None:
        assert f"line {line}" in message
        assert f"column {column!r}" in message
        assert f"(value: {value!r})" in message or f"(value: {value})" in message
    assert "\n" not in message


def test_counts_further_bad_rows(tmp_path):
    with pytest.raises(InputError, match="2 more row"):
        _load(tmp_path, "benchmark,model,item_id,score\nb,m,i,2\nb,m,j,3\nb,m,k,4\n")


@pytest.mark.parametrize(("text", "words"), [("", "empty"), ("benchmark,model,item_id,score\n", "no data rows")])
def test_empty_files(tmp_path, text, words):
    with pytest.raises(InputError, match=words):
        _load(tmp_path, text)


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        fetch_csv_file(tmp_path / "nope.csv")


def test_revision_ignores_row_order_but_not_scores(tmp_path):
    df = _load(tmp_path, GOOD)
    shuffled = df.iloc[::-1].reset_index(drop=True)
    assert content_revision(df) == content_revision(shuffled)
    changed = df.copy()
    changed.loc[0, "score"] = 0.0
    assert content_revision(changed) != content_revision(df)


def test_names_that_look_the_same_are_one_name_and_the_merge_is_listed():
    spellings = ["GPT-4o", "GPT\u20114o", "GPT-\u200b4o", " GPT-4o ", "GPT\u00a0-4o"]
    raw = pd.DataFrame(
        {
            "benchmark": "b",
            "model": [*spellings, "x", "x "],
            "item_id": [f"i{k}" for k in range(5)] + ["i0", "i1"],
            "score": ["1", "0", "1", "0", "1", "1", "0"],
        }
    )
    out = validate_responses(raw, "src")
    assert sorted(out["model"].unique()) == ["GPT -4o", "GPT-4o", "x"]  # a space inside a name is kept
    merged = {e["model"]: e["reason"] for e in out.attrs["merged"]}
    assert set(merged) == {"GPT-4o", "GPT -4o", "x"} and "'GPT\u20114o'" in merged["GPT-4o"]


def test_look_alike_names_with_different_results_for_one_cell_are_refused():
    raw = pd.DataFrame({"benchmark": "b", "model": ["GPT-4o", "GPT\u20114o"], "item_id": "i0", "score": ["1", "0"]})
    with pytest.raises(InputError, match=r"are one name once normalised.*different results"):
        validate_responses(raw, "src")
    same = raw.assign(score="1")  # the same result under two spellings: one row
    assert len(validate_responses(same, "src")) == 1


FLOORS = "benchmark,model,item_id,score,chance\nb,m1,i1,1,0.25\nb,m2,i1,0,0.25\nb,m1,i2,1,\nb,m2,i2,0,\nc,m1,i1,1,0.5\n"


def test_a_chance_column_reaches_validation_as_each_items_floor(tmp_path):
    path = tmp_path / "floors.csv"
    path.write_text(FLOORS, encoding="utf-8")
    table = fetch_csv_file(path)
    assert table.chance_from == "a chance column in the file"
    df = validate_responses(table.frame, table.location)
    assert list(df.columns) == ["benchmark", "model", "item_id", "score", "date", "trials", "chance"]
    floors = {(b, i): c for b, i, c in zip(df["benchmark"], df["item_id"], df["chance"], strict=True)}
    assert floors[("b", "i1")] == 0.25 and floors[("c", "i1")] == 0.5 and pd.isna(floors[("b", "i2")])
    # a file without floors, or with the column left blank, has no chance column at all (as before floors)
    blank = _load(tmp_path, "benchmark,model,item_id,score,chance\nb,m,i,1,\nb,m,j,0, \n")
    assert "chance" not in blank.columns
    plain = _load(tmp_path, "benchmark,model,item_id,score\nb,m,i,1\nb,m,j,0\n")
    assert content_revision(blank) == content_revision(plain)
    assert "chance" not in _load(tmp_path, GOOD).columns and fetch_csv_file(tmp_path / "scores.csv").chance_from is None


@pytest.mark.parametrize(
    ("rows", "line", "value", "words"),
    [
        ("b,m1,i,1,0.25\nb,m2,i,0,0.2\n", 2, "0.25", "different chance floors"),
        ("b,m1,i,1,0.25\nb,m2,i,0,\n", 2, "0.25", "different chance floors"),  # a blank row is not the floor
        ("b,m,i,1,1\n", 2, "1", "[0, 1)"),
        ("b,m,i,1,0.25\nb,m,j,1,1.5\n", 3, "1.5", "[0, 1)"),
        ("b,m,i,1,-0.1\n", 2, "-0.1", "[0, 1)"),
        ("b,m,i,1,a quarter\n", 2, "a quarter", "[0, 1)"),
    ],
)
def test_a_chance_that_is_not_one_floor_in_0_1_for_each_item_is_refused(tmp_path, rows, line, value, words):
    with pytest.raises(InputError) as err:
        _load(tmp_path, "benchmark,model,item_id,score,chance\n" + rows)
    message = str(err.value)
    assert "scores.csv" in message and words in message
    assert err.value.field == "chance" and err.value.row == line and err.value.value == value


def test_a_validated_table_validates_to_itself(tmp_path):
    """What validation returns is a valid input (``benchwatch.audit`` of a table read by ``validate_responses``):
    its missing trials (NA) and dates (NaT) are read as blanks, not as the text '<NA>' or 'NaT'."""
    path = tmp_path / "r.csv"
    path.write_text("benchmark,model,item_id,score,date,trials\nb,m1,i1,1,2024-01-02,\nb,m2,i1,0,,3\nb,m1,i2,0.5,,\n")
    once = validate_responses(fetch_csv_file(path).frame, str(path))
    assert once["trials"].isna().sum() == 2 and once["date"].isna().sum() == 2
    twice = validate_responses(once, "again")
    pd.testing.assert_frame_equal(twice, once)


def test_a_table_without_trials_holds_them_in_a_byte_a_row_and_reads_as_one_with_a_blank_column(tmp_path):
    """No number of trials (no column, or a column of blanks, as a snapshot writes it back): one trial each, held as
    Int8 (issue 42: Int64 took nine bytes a row, a third of a 38-million-row table); the two read the same, and a
    column with a number in it keeps Int64."""
    bare = _load(tmp_path, "benchmark,model,item_id,score\nb,m1,i1,1\nb,m2,i1,0\n", "bare.csv")
    blank = _load(tmp_path, "benchmark,model,item_id,score,trials\nb,m1,i1,1,\nb,m2,i1,0,\n", "blank.csv")
    assert str(bare["trials"].dtype) == "Int8" and bare["trials"].isna().all()
    pd.testing.assert_frame_equal(bare, blank)
    assert bare["trials"].to_numpy(dtype=float, na_value=1.0).tolist() == [1.0, 1.0]
    assert bare["trials"].memory_usage(index=False) == 2 * len(bare)  # a byte of value, a byte of mask
    assert str(_load(tmp_path, GOOD)["trials"].dtype) == "Int64"
    assert content_revision(bare) == content_revision(blank)
