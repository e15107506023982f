"""A row or a JSON key given twice upstream (issue 27): the same value twice is one value and changes no
revision; two values are an error naming both, for that source alone."""

from __future__ import annotations

import json

import pytest

from benchwatch.errors import InputError
from benchwatch.sources import Fetcher, SourceConfig, load_source
from benchwatch.store import content_revision, validate_responses


def _load(server, tmp_path, adapter: str, name: str, body: object, **options):
    (server.root / name).write_text(body if isinstance(body, str) else json.dumps(body))
    with Fetcher(tmp_path / f"cache-{name}", retries=0) as fetcher:
        return load_source(fetcher, SourceConfig(adapter, adapter, server.url + name, options))


def _performances(rows):
    return {"performances": [{"question_id": q, "model": m, "pass@1": s} for q, m, s in rows], "models": []}


BASE = [("q1", "a", 30.0), ("q2", "a", 70.0), ("q1", "b", 50.0), ("q2", "b", 100.0)]


def test_a_row_repeated_with_its_own_score_is_read_once_and_changes_no_revision(fixture_server, tmp_path):
    plain = _load(fixture_server, tmp_path, "livecodebench", "plain.json", _performances(BASE))
    twice = _load(fixture_server, tmp_path, "livecodebench", "twice.json", _performances([*BASE, BASE[1]]))
    a, b = validate_responses(plain.frame, "t"), validate_responses(twice.frame, "t")
    assert len(b) == len(a) == 4
    assert content_revision(a) == content_revision(b)  # no new revision, no refit, no changelog entry
    assert twice.notes and "read once" in twice.notes[0] and not plain.notes


def test_a_row_repeated_with_another_score_is_an_error_naming_both(fixture_server, tmp_path):
    with pytest.raises(InputError) as info:
        rows = [*BASE, ("q1", "b", 20.0), ("q2", "a", 10.0)]  # two clashes: both rows named are of one cell
        _load(fixture_server, tmp_path, "livecodebench", "clash.json", _performances(rows))
    text = str(info.value)
    assert "performances[1]" in text and "performances[5]" in text and "'q2'" in text and "0.7" in text, text
    assert text.startswith("livecodebench")  # the source it concerns


def test_rows_meant_to_be_averaged_still_are(fixture_server, tmp_path):
    table = _load(
        fixture_server,
        tmp_path,
        "livecodebench",
        "mean.json",
        _performances([*BASE, ("q2", "a", 10.0)]),
        repeats="mean",
    )
    df = validate_responses(table.frame, "t")
    assert len(df) == 4
    assert float(df.loc[(df["model"] == "a") & (df["item_id"] == "q2"), "score"].iloc[0]) == pytest.approx(0.4)


def test_a_json_key_given_twice_with_two_values_is_an_error_and_with_one_value_is_not(fixture_server, tmp_path):
    one, two = '"m1": {"pass@1": {"humaneval": 80.0}}', '"m2": {"pass@1": {"humaneval": 70.0}}'
    same = "{" + ", ".join([one, two, one]) + "}"
    table = _load(fixture_server, tmp_path, "evalplus", "same.json", same)
    assert sorted(table.aggregates["model"]) == ["m1", "m2"]
    clash = "{" + ", ".join([one, two, one.replace("80.0", "60.0")]) + "}"
    with pytest.raises(InputError) as info:
        _load(fixture_server, tmp_path, "evalplus", "clash.json", clash)
    text = str(info.value)
    assert "'m1'" in text and "80.0" in text and "60.0" in text and "twice" in text, text
