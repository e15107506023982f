"""The content revision and the snapshot: the CSV writer's own text (hashed, or kept), whatever the columns hold."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io

import numpy as np
import pandas as pd
import pytest

from benchwatch.sources import fetch_csv_file, fetch_sample
from benchwatch.store import (
    SNAPSHOT_DIGITS,
    content_revision,
    parse_snapshot,
    snapshot_bytes,
    validate_aggregates,
    validate_responses,
)
from benchwatch.store.csvbytes import csv_field


def _reference(df: pd.DataFrame) -> str:
    """The revision as first defined: pandas' own CSV text of the sorted table."""
    keys = [c for c in ("model", "item_id") if c in df.columns]
    cols = [c for c in ("model", "item_id", "score", "n_items", "date", "trials") if c in df.columns]
    text = df.sort_values(keys)[cols].to_csv(index=False, float_format="%.10g", date_format="%Y-%m-%d")
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def test_hostile_text_odd_floats_missing_trials_and_dates():
    rng = np.random.default_rng(0)
    n = 500
    raw = pd.DataFrame(
        {
            "benchmark": "b",
            "model": rng.choice(["a,b", 'say "hi"', "line\nbreak", "plain", "ünï", " lead"], n),
            "item_id": [f"i{k}" for k in range(n)],
            "score": rng.choice([0.0, 1.0, 0.1 + 0.2, 1 / 3, 0.5], n),
            "trials": rng.choice(["", "10", "3"], n),
            "date": rng.choice(["", "2025-01-02", "2024-12-31"], n),
        }
    )
    frame = validate_responses(raw, "t")
    assert content_revision(frame) == _reference(frame)
    assert content_revision(frame.sample(frac=1, random_state=1)) == content_revision(frame)  # row order


def test_the_sample_and_real_tables(shared_data):
    table = fetch_sample()
    table = table[0] if isinstance(table, list) else table
    for _, rows in validate_responses(table.frame, "sample").groupby("benchmark"):
        assert content_revision(rows) == _reference(rows)
    rows = validate_responses(fetch_csv_file(shared_data / "swebench_verified_bashonly" / "verified.csv").frame, "v")
    assert content_revision(rows) == _reference(rows)


def test_an_aggregate_board():
    raw = pd.DataFrame(
        {"benchmark": "b", "model": ["x", "y", "z"], "score": ["0.5", "0.25", "0.7"], "n_items": ["10", "10", "10"]}
    )
    board = validate_aggregates(raw, "t")
    assert content_revision(board) == _reference(board)


@pytest.mark.parametrize("dtype", ["category", "object"])
def test_categorical_and_object_names(dtype):
    df = pd.DataFrame({"model": ["b", "a", "a"], "item_id": ["2", "1", "2"], "score": [1.0, 0.0, 0.5]})
    df = df.astype({"model": dtype, "item_id": dtype})
    assert content_revision(df) == _reference(df.astype({"model": object, "item_id": object}))


def test_each_field_is_quoted_as_the_csv_writer_quotes_it():
    """``csv_field`` writes a plain name as it is, without a writer: every character of the first 256 and some
    beyond, alone and amid text, comes out as the CSV writer writes it."""

    def writer(text: str) -> str:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow([text])
        return buffer.getvalue()[:-1]

    chars = [chr(c) for c in range(256)] + ["\u2028", "\u0085", "\ufeff", "é", "模型"]
    for c in chars:
        for text in (c, f"a{c}b", f"{c} x", f"x {c}"):
            assert csv_field(text) == (writer(text) if text else ""), repr(text)


def _hostile_rows(n: int = 500) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    raw = pd.DataFrame(
        {
            "benchmark": "b",
            "model": rng.choice(["a,b", 'say "hi"', "line\nbreak", "plain", "ünï", " lead"], n),
            "item_id": [f"i{k}" for k in range(n)],
            "score": rng.choice(["0", "1", "-0", "0.30000000000000004", "0.3333333333333333", "0.5", "1e-12"], n),
            "trials": rng.choice(["", "10", "3"], n),
            "date": rng.choice(["", "2025-01-02", "2024-12-31"], n),
            "chance": rng.choice(["", "0.25", "0.1"], n),
        }
    )
    return validate_responses(raw, "t")


@pytest.mark.parametrize("kind", ["responses", "aggregates", "categories"])
def test_a_snapshot_is_the_csv_writers_text(kind):
    """``snapshot_bytes`` keeps the text ``to_csv`` writes (floats to ``SNAPSHOT_DIGITS``, dates as days, missing
    values empty), gathered from each column's distinct values: byte for byte, for hostile names, odd floats,
    missing trials, dates and floors, an aggregate board and categorical columns; read back, the same table."""
    if kind == "aggregates":
        raw = pd.DataFrame({"benchmark": "b", "model": ["x", "y,z", "w"], "score": ["0.5", "0.25", "0.7"]})
        table = validate_aggregates(raw.assign(n_items=["10", "10", "10"], date=["", "2025-03-04", ""]), "t")
    else:
        table = _hostile_rows()
        if kind == "categories":
            table = table.astype({"model": "category", "item_id": "category"})
    text = table.to_csv(index=False, float_format=f"%.{SNAPSHOT_DIGITS}g", date_format="%Y-%m-%d", lineterminator="\n")
    data = snapshot_bytes(table)
    assert gzip.decompress(data) == text.encode()
    back = parse_snapshot(data, "t", "aggregates" if kind == "aggregates" else "responses")
    assert snapshot_bytes(back) == data


def test_a_negative_zero_and_missing_floats_are_written_as_the_writer_writes_them():
    """-0.0 and 0.0 compare equal but are written "-0" and "0"; a missing float is empty: in the snapshot's text
    and in the revision's, as in ``to_csv``'s."""
    table = pd.DataFrame(
        {"model": ["a", "b", "c", "d"], "item_id": ["i", "i", "i", "i"], "score": [-0.0, 0.0, np.nan, 0.25]}
    )
    text = table.to_csv(index=False, float_format=f"%.{SNAPSHOT_DIGITS}g", lineterminator="\n")
    assert gzip.decompress(snapshot_bytes(table)) == text.encode()
    assert content_revision(table) == _reference(table)
