"""The content revision: the same hash as the CSV writer's own text, whatever the columns hold."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from benchwatch.sources import fetch_csv_file, fetch_sample
from benchwatch.store import content_revision, validate_aggregates, validate_responses


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
